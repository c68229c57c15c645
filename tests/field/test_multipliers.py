"""The choice of Montgomery multiplier (integer CIOS or FP64 pipe) reaches the compiler options."""

from __future__ import annotations

import pytest

from cuzklab.field import cuda


def test_defaults_and_environment(monkeypatch):
    monkeypatch.delenv("CUZKLAB_MUL", raising=False)
    assert cuda.multipliers() == cuda.MULTIPLIERS
    monkeypatch.setenv("CUZKLAB_MUL", "fr=cios, FP=f64")
    assert cuda.multipliers() == {"fr": "cios", "fp": "f64"}
    opts = cuda.compile_options(("-DX=1",))
    assert "-DCUZK_FR_MUL_F64=0" in opts and "-DCUZK_FP_MUL_F64=1" in opts
    assert opts[-1] == "-DX=1"
    assert cuda.multipliers("fr=f64") == {"fr": "f64", "fp": cuda.MULTIPLIERS["fp"]}


@pytest.mark.parametrize("spec", ["fr", "fr=fast", "fq=f64", "fr=f64,fp"])
def test_bad_spec_names_the_variable(spec):
    with pytest.raises(ValueError, match="CUZKLAB_MUL"):
        cuda.multipliers(spec)
