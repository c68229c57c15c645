"""The kernel sweep point: timings from the math layers' benchmarks, clear errors otherwise."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from cuzklab.backend import gpu_available
from cuzklab.errors import BackendError, ConfigError
from cuzklab.sweep import run_sweep
from cuzklab.sweep.kernels import KERNELS, KernelUnavailable, find_bench, kernel_point

ROOT = Path(__file__).parents[2]


@pytest.mark.parametrize("kernel", ["ntt", "ntt_coset", "field_mul"])
def test_cpu_kernel_point_times_a_checked_kernel(kernel):
    m = kernel_point(kernel, 8, backend="cpu", repeats=2)
    assert m["kernel"] == kernel and m["backend"] == "cpu" and m["n"] == 256
    assert m["checked"] is True  # the benchmark compared its result with a reference
    assert 0 < m["min_s"] <= m["median_s"] and m["per_s"] > 0


@pytest.mark.gpu
@pytest.mark.parametrize("kernel", ["ntt", "field_mul"])
def test_gpu_kernel_point(kernel):
    m = kernel_point(kernel, 16, backend="gpu", repeats=2)
    assert m["backend"] == "gpu" and m["checked"] is True


def test_kernel_point_rejects_bad_parameters():
    with pytest.raises(ConfigError, match="kernel: must be one of field_mul, ntt"):
        kernel_point("fft", 8)
    with pytest.raises(ConfigError, match="log2_size: must be an integer from 1 to 28"):
        kernel_point("ntt", 40)
    with pytest.raises(ConfigError, match="backend: must be one of auto, gpu, cpu"):
        kernel_point("ntt", 8, backend="tpu")
    with pytest.raises(ConfigError, match=f"at most {KERNELS['ntt'].cpu_max_log2} for ntt on the CPU"):
        kernel_point("ntt", 20, backend="cpu")


@pytest.mark.skipif(gpu_available(), reason="a GPU is present")
def test_gpu_requested_without_one_says_so():
    with pytest.raises(BackendError, match="no CUDA device"):
        kernel_point("ntt", 8, backend="gpu")


def test_the_msm_benchmark_is_found():
    from cuzklab.msm.bench import bench_msm
    assert find_bench("msm") is bench_msm


@pytest.mark.parametrize("candidates,named", [
    ((("cuzklab.msm.no_such_bench", "bench_msm"),), "cuzklab.msm.no_such_bench.bench_msm"),
    ((("cuzklab.msm.bench", "no_such_function"),), "cuzklab.msm.bench.no_such_function"),
])
def test_a_missing_kernel_benchmark_is_named(monkeypatch, candidates, named):
    monkeypatch.setitem(KERNELS, "msm", dataclasses.replace(KERNELS["msm"], candidates=candidates))
    with pytest.raises(KernelUnavailable, match=f"no benchmark for kernel 'msm'.*{re.escape(named)}"):
        kernel_point("msm", 8)


def test_kernel_notebook_sweep_records_each_point(tmp_path):
    grid = {"name": "kernels", "notebook": str(ROOT / "notebooks/sweep-kernels.ipynb"),
            "timeout_s": 120, "parameters": {"backend": "cpu", "repeats": 2},
            "points": [{"kernel": "ntt", "log2_size": 8}, {"kernel": "field_mul", "log2_size": 10},
                       {"kernel": "msm", "log2_size": 6}, {"kernel": "ntt", "log2_size": 24}]}
    result = run_sweep(grid, out=tmp_path / "k", jobs=2, progress=False, report=False)
    rows = {(r["kernel"], r["log2_size"]): r for _, r in result.table.iterrows()}
    for key in [("ntt", 8), ("field_mul", 10)]:
        assert rows[key]["status"] == "ok" and rows[key]["checked"] == True  # noqa: E712
        assert rows[key]["median_s"] > 0
    assert rows[("ntt", 24)]["status"] == "invalid"
    assert "at most 16 for ntt on the CPU" in rows[("ntt", 24)]["error"]
    msm = rows[("msm", 6)]
    assert msm["status"] == "ok" and msm["checked"] == True and msm["median_s"] > 0  # noqa: E712
