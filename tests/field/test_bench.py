"""The benchmark functions the CLI calls."""

import pytest

from cuzklab.field.bench import bench_field, bench_mul, format_table

KEYS = {"field", "backend", "device", "log2_size", "n", "chain", "repeats", "times_s",
        "median_s", "muls_per_s", "gmul_per_s", "checked"}


def test_bench_mul_cpu():
    r = bench_mul("fp", "cpu", log2_size=6, repeats=2)
    assert KEYS <= set(r) and r["n"] == 64 and r["checked"] == 64 and r["gmul_per_s"] > 0
    rep = bench_field("cpu", 4, 1)
    assert [x["field"] for x in rep["results"]] == ["fr", "fp"]
    assert "G mul/s" in format_table(rep)


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
