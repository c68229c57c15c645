"""``cuzklab prove``: bad options get a one-line error naming the option, before any work."""

from __future__ import annotations

import pytest

from cuzklab.errors import BackendError
from cuzklab import prove_commands as commands


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


def _result(prove_s, cold_s, warm=True, k=12):
    from cuzklab.groth16 import constraints_for_domain
    return {"constraints": constraints_for_domain(k), "log2_domain": k, "backend": "cpu",
            "device": "cpu", "verified": True, "stage_s": {"ntt_h": 0.1}, "circuit_s": 0.1,
            "setup_s": 1.0, "prove_s": prove_s, "prove_cold_s": cold_s, "warm": warm}


def test_the_figure_is_the_warm_proof_and_a_slower_warm_proof_is_said():
    lines = commands.report_lines(_result(0.5, 2.0))
    assert lines[0].startswith("domain 2^12 = 4,096 rows: 3,840 constraints + 256 public-input rows")
    assert lines[-1].startswith("prove 0.500 s (warm: the second proof; the first took 2.000 s)")
    assert "slower" not in lines[-1]
    slow = commands.report_lines(_result(0.6, 0.5))[-1]
    assert slow.startswith("prove 0.600 s (warm") and "slower than the first by 20 %" in slow
    cold = commands.report_lines(_result(2.0, 2.0, warm=False))[-1]
    assert cold.startswith("prove 2.000 s (the first proof")


def test_help_gives_the_constraint_count_of_a_domain():
    from cuzklab.groth16 import constraints_for_domain
    text = " ".join(commands.__doc__.split())
    assert "exactly 2^K" in text
    import argparse
    sub = argparse.ArgumentParser().add_subparsers()
    commands.register(sub)
    helptext = " ".join(sub.choices["prove"].format_help().split())
    for k in (12, 20):
        assert f"{constraints_for_domain(k):,} constraints" in helptext
