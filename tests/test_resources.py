"""Shipped data files: found in the checkout first, else inside the package; copied on request."""

import textwrap
from pathlib import Path

import pytest

from cuzklab import resources
from cuzklab.cli import main
from cuzklab.errors import CuzklabError

ROOT = Path(__file__).resolve().parents[1]


def test_checkout_folders_win():
    assert resources.checkout_root() == ROOT
    assert resources.data_dir("profiles") == ROOT / "data" / "profiles"
    assert resources.data_dir("notebooks") == ROOT / "notebooks"
    assert resources.find("sweeps", "concurrency") == ROOT / "data" / "sweeps" / "concurrency.toml"
    assert resources.find("sweeps", "concurrency.toml") == resources.find("sweeps", "concurrency")
    assert resources.find("sweeps", "no-such-grid") is None
    with pytest.raises(ValueError, match="kind must be one of profiles, sweeps"):
        resources.data_dir("grids")


def test_installed_copies_are_used_outside_a_checkout(tmp_path, monkeypatch):
    monkeypatch.setattr(resources, "checkout_root", lambda: None)
    with pytest.raises(CuzklabError, match="the samples that ship with cuzklab were not found"):
        resources.data_dir("samples")
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "x.toml").write_text("")
    monkeypatch.setattr(resources, "packaged_dir", lambda kind: tmp_path / kind)
    assert resources.data_dir("profiles") == tmp_path / "profiles"
    from cuzklab.model import list_profiles
    monkeypatch.delenv("CUZKLAB_PROFILES", raising=False)
    assert list_profiles() == ["x"]


def test_profiles_env_overrides(tmp_path, monkeypatch):
    from cuzklab.model import profiles_dir
    monkeypatch.setenv("CUZKLAB_PROFILES", str(tmp_path))
    assert profiles_dir() == tmp_path


def test_copy_keeps_edited_files(tmp_path):
    dest = tmp_path / "grids"
    copied, kept = resources.copy_shipped("sweeps", dest)
    assert {p.name for p in copied} == {p.name for p in resources.shipped_files("sweeps")}
    assert not kept
    (dest / "concurrency.toml").write_text("# mine\n")
    copied, kept = resources.copy_shipped("sweeps", dest)
    assert not copied and (dest / "concurrency.toml") in kept
    assert (dest / "concurrency.toml").read_text() == "# mine\n"
    resources.copy_shipped("sweeps", dest, overwrite=True)
    assert (dest / "concurrency.toml").read_text() != "# mine\n"


def test_commands_list_and_copy(tmp_path, capsys):
    assert main(["notebooks"]) == 0
    assert "sweep-pipeline.ipynb" in capsys.readouterr().out
    assert main(["grids", str(tmp_path / "g")]) == 0
    out = capsys.readouterr().out
    assert "copied" in out and "cuzklab sweep" in out
    assert (tmp_path / "g" / "phase9-concurrency.toml").is_file()
    assert main(["samples", str(tmp_path / "s")]) == 0
    assert (tmp_path / "s" / "cuzk-daemon.log").is_file()
    assert main(["grids", str(tmp_path / "g")]) == 0
    assert "kept" in capsys.readouterr().out


def test_copy_into_a_missing_parent_is_an_error(tmp_path, capsys):
    assert main(["notebooks", str(tmp_path / "no" / "such")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cuzklab: error: DIR ") and "does not exist" in err
    assert len(err.strip().splitlines()) == 1


def test_grid_by_name_and_shipped_notebook(tmp_path, monkeypatch):
    from cuzklab.sweep.grid import find_grid, load_grid
    monkeypatch.chdir(tmp_path)
    assert find_grid("phase9-concurrency") == resources.find("sweeps", "phase9-concurrency")
    assert find_grid("elsewhere/concurrency") == Path("elsewhere/concurrency")
    # A grid outside the checkout names the pipeline notebook by its checkout path.
    (tmp_path / "mine.toml").write_text(textwrap.dedent("""\
        notebook = "notebooks/sweep-pipeline.ipynb"
        [grid]
        proofs = [2, 3]
        """))
    grid = load_grid(tmp_path / "mine.toml")
    assert grid.notebook == (ROOT / "notebooks" / "sweep-pipeline.ipynb").resolve()
    (tmp_path / "bad.toml").write_text('notebook = "notebooks/nope.ipynb"\n')
    from cuzklab.errors import SweepError
    with pytest.raises(SweepError, match="among the notebooks shipped with cuzklab"):
        load_grid(tmp_path / "bad.toml")
