"""``cuzklab prove``: bad options get a one-line error naming the option, before any work."""

from __future__ import annotations

import pytest

from cuzklab.errors import BackendError
from cuzklab.groth16 import commands


@pytest.fixture
def no_work(monkeypatch):
    def fail(*args, **kwargs):
        raise AssertionError("the proof started before the options were checked")
    monkeypatch.setattr(commands, "prove_once", fail)


@pytest.mark.parametrize("argv,parts", [
    (["--log2-constraints", "1"], ["--log2-constraints", "must be in [2, 28], got 1"]),
    (["--log2-constraints", "29"], ["--log2-constraints", "must be in [2, 28], got 29"]),
    (["--log2-constraints", "x"], ["--log2-constraints", "expected an integer in [2, 28], got 'x'"]),
    ([], ["--log2-constraints", "required"]),
    (["--log2-constraints", "4", "--seed", "-1"], ["--seed", "must be >= 0, got -1"]),
    (["--log2-constraints", "4", "--seed", "x"], ["--seed", "expected an integer >= 0, got 'x'"]),
    (["--log2-constraints", "4", "--threads", "0"], ["--threads", "must be >= 1, got 0"]),
    (["--log2-constraints", "4", "--threads", "-3"], ["--threads", "must be >= 1, got -3"]),
    (["--log2-constraints", "4", "--backend", "tpu"], ["--backend", "invalid choice: 'tpu'"]),
    (["--log2-constraints", "4", "--b-g2-backend", "tpu"], ["--b-g2-backend", "invalid choice"]),
])
def test_bad_options_get_a_clear_error_before_work(cli_error, no_work, argv, parts):
    cli_error(["prove", *argv], *parts)


@pytest.mark.parametrize("option", ["--backend", "--b-g2-backend"])
def test_a_gpu_backend_without_a_gpu_is_named_before_work(cli_error, no_work, monkeypatch, option):
    import cuzklab.backend as B

    def no_cupy():
        raise BackendError("the 'gpu' backend needs CuPy")
    monkeypatch.setattr(B, "_cupy", no_cupy)
    cli_error(["prove", "--log2-constraints", "4", option, "gpu"], f"{option} gpu: ",
              "needs CuPy")
