"""The benchmark functions the CLI calls."""

import pytest

from cuzklab.field.bench import bench_field, bench_mul, format_table

KEYS = {"field", "op", "backend", "device", "log2_size", "n", "chain", "repeats", "times_s",
        "median_s", "muls_per_s", "gmul_per_s", "checked"}


def test_bench_mul_cpu():
    r = bench_mul("fp", "cpu", log2_size=6, repeats=2)
    assert KEYS <= set(r) and r["n"] == 64 and r["checked"] == 64 and r["gmul_per_s"] > 0
    rep = bench_field("cpu", 4, 1)
    assert [x["field"] for x in rep["results"]] == ["fr", "fp"]
    assert "G op/s" in format_table(rep)


def test_bench_sqr_cpu_and_both_ops():
    r = bench_mul("fr", "cpu", log2_size=5, repeats=1, op="sqr")
    assert r["op"] == "sqr" and r["checked"] == 32
    rep = bench_field("cpu", 4, 1, ops=("mul", "sqr"))
    assert [(x["op"], x["field"]) for x in rep["results"]] == [
        ("mul", "fr"), ("mul", "fp"), ("sqr", "fr"), ("sqr", "fp")]
    assert "sqr" in format_table(rep)
    with pytest.raises(ValueError, match="op must be one of"):
        bench_mul("fr", "cpu", 4, op="cube")
    with pytest.raises(ValueError, match="ops must be"):
        bench_field("cpu", 4, 1, ops=("mul", "inv"))


def test_bench_mul_bad_args():
    with pytest.raises(ValueError):
        bench_mul("fq", "cpu", 4)
    with pytest.raises(ValueError):
        bench_mul("fr", "cpu", -1)
    with pytest.raises(ValueError):
        bench_mul("fr", "tpu", 4)


@pytest.mark.gpu
def test_bench_mul_gpu():
    r = bench_mul("fr", "gpu", log2_size=10, repeats=2, chain=8)
    assert r["checked"] == 64 and r["chain"] == 8 and r["gmul_per_s"] > 0
    for f in ("fr", "fp"):  # x^(2^k) checked against Python ints
        r = bench_mul(f, "gpu", log2_size=10, repeats=2, chain=9, op="sqr")
        assert r["checked"] == 64 and r["op"] == "sqr"
