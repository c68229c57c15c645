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


def test_module_multipliers_override_the_defaults(monkeypatch):
    monkeypatch.delenv("CUZKLAB_MUL", raising=False)
    opts = cuda.compile_options((), mul={"fp": "cios"})
    assert "-DCUZK_FP_MUL_F64=0" in opts
    assert f"-DCUZK_FR_MUL_F64={int(cuda.MULTIPLIERS['fr'] == 'f64')}" in opts
    for bad in ({"fq": "cios"}, {"fp": "fast"}):
        with pytest.raises(ValueError, match="mul"):
            cuda.compile_options((), mul=bad)


def test_header_hash_covers_the_include_folders(tmp_path):
    # an edited header in a -I folder changes the options, so CuPy's disk
    # cache cannot hand back a kernel built against the old header
    (tmp_path / "extra.cuh").write_text("// one\n")
    before = cuda.compile_options((f"-I{tmp_path}",))
    assert before != cuda.compile_options(())
    (tmp_path / "extra.cuh").write_text("// two\n")
    cuda.headers_hash.cache_clear()
    assert cuda.compile_options((f"-I{tmp_path}",)) != before


def test_even_odd_multiplier_reaches_the_options(monkeypatch):
    monkeypatch.setenv("CUZKLAB_MUL", "fp=eo")
    assert cuda.multipliers()["fp"] == "eo"
    opts = cuda.compile_options(())
    assert "-DCUZK_FP_MUL_EO=1" in opts and "-DCUZK_FP_MUL_F64=0" in opts
    assert "-DCUZK_FR_MUL_EO=0" in opts
    # a module's own even/odd switch (the NTT's) is left alone: no second definition
    opts = cuda.compile_options(("-DCUZK_FR_MUL_EO=1",), mul={"fr": "eo"})
    assert [o for o in opts if o.startswith("-DCUZK_FR_MUL_EO=")] == ["-DCUZK_FR_MUL_EO=1"]
    assert "-DCUZK_FP_MUL_EO=1" in opts
