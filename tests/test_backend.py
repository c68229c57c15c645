"""The CuPy-missing message names the cuzklab extra that fits the NVIDIA driver."""

import os
import sys

import pytest

from cuzklab import backend
from cuzklab.errors import BackendError


@pytest.mark.parametrize("version, extra", [((12, 4), "cuzklab[gpu-cuda12]"),
                                            ((13, 0), "cuzklab[gpu-cuda13]"),
                                            ((13, 2), "cuzklab[gpu-cuda13]"),
                                            ((14, 0), "cuzklab[gpu-cuda13]")])
def test_hint_names_the_extra_of_the_driver(version, extra):
    hint = backend.gpu_install_hint(version)
    assert extra in hint and f"CUDA {version[0]}.{version[1]}" in hint
    assert ("gpu-cuda12" in hint) == (extra == "cuzklab[gpu-cuda12]")


def test_hint_without_a_driver_names_both():
    hint = backend.gpu_install_hint(None)
    assert "cuzklab[gpu-cuda12]" in hint and "cuzklab[gpu-cuda13]" in hint
    assert "no driver" in hint


def test_hint_for_an_old_driver_says_to_update_it():
    hint = backend.gpu_install_hint((11, 8))
    assert "CUDA 11.8" in hint and "update the driver" in hint


def test_driver_version_from_nvidia_smi(tmp_path, monkeypatch):
    smi = tmp_path / "nvidia-smi"
    smi.write_text("#!/bin/sh\necho '| NVIDIA-SMI 550.54.15   Driver Version: 550.54.15   "
                   "CUDA Version: 12.4     |'\n")
    smi.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setattr(backend, "_libcuda_version", lambda: None)
    assert backend.cuda_driver_version() == (12, 4)
    assert "cuzklab[gpu-cuda12]" in backend.gpu_install_hint()


def test_missing_cupy_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)  # import cupy raises ImportError
    monkeypatch.setattr(backend, "cuda_driver_version", lambda: (13, 0))
    backend._cupy.cache_clear()
    try:
        with pytest.raises(BackendError, match=r"needs CuPy: .*cuzklab\[gpu-cuda13\]"):
            backend.xp("gpu")
    finally:
        backend._cupy.cache_clear()
