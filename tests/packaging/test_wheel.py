"""The wheel works away from the checkout: built, installed into a new virtualenv, run elsewhere.

The new environment sees the test interpreter's installed dependencies (a
``.pth`` line naming its site-packages, so nothing is downloaded) but not the
checkout: the current folder is a fresh temporary one, there is no
PYTHONPATH, and an editable install of cuzklab in those site-packages is not
activated (its ``.pth`` hook is not processed from a plain path line).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# What a source distribution holds (MANIFEST.in): enough to build the wheel.
SOURCE_ITEMS = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "cuzklab", "data",
                "notebooks")
TWO_POINT_GRID = """\
name = "two-points"
notebook = "notebooks/sweep-pipeline.ipynb"
timeout_s = 120
[parameters]
proofs = 3
concurrency = 3
partition_workers = 4
[grid]
lock = ["interlock", "split_async"]
"""

pytestmark = pytest.mark.slow


def _setuptools_builds_offline() -> bool:
    try:
        import setuptools
    except ImportError:
        return False
    major, minor = (int(x) for x in setuptools.__version__.split(".")[:2])
    return (major, minor) >= (70, 1)


def _run(argv, cwd, env, timeout=180) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(a) for a in argv], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)
    assert proc.returncode == 0, (f"{' '.join(map(str, argv))} exited {proc.returncode}\n"
                                  f"stdout:\n{proc.stdout[-3000:]}\nstderr:\n{proc.stderr[-3000:]}")
    return proc


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """Build the wheel from a copy of the source tree (the checkout stays untouched)."""
    src = tmp_path_factory.mktemp("src")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints", "*.egg-info")
    for item in SOURCE_ITEMS:
        p = ROOT / item
        if p.is_dir():
            shutil.copytree(p, src / item, ignore=ignore)
        else:
            shutil.copy2(p, src / item)
    dist = tmp_path_factory.mktemp("dist")
    argv = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", dist, src]
    if _setuptools_builds_offline():
        argv[4:4] = ["--no-build-isolation", "--no-index"]
    _run(argv, cwd=src, env=os.environ.copy(), timeout=300)
    wheels = list(dist.glob("cuzklab-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


@pytest.fixture(scope="module")
def venv(tmp_path_factory, wheel) -> tuple[Path, dict]:
    """A new virtualenv with only the wheel installed; returns its folder and environment."""
    base = tmp_path_factory.mktemp("venv")
    env_dir = base / "env"
    _run([sys.executable, "-m", "venv", "--without-pip", env_dir], cwd=base, env=os.environ.copy())
    py = env_dir / "bin" / "python"
    # The test interpreter's pip installs into the new environment, with no index.
    _run([sys.executable, "-m", "pip", "--python", py, "install", "-q", "--no-deps",
          "--no-index", wheel], cwd=base, env=os.environ.copy())
    purelib = Path(_run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                        cwd=base, env=os.environ.copy()).stdout.strip())
    deps = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (purelib / "zz-test-dependencies.pth").write_text("\n".join(sorted(deps)) + "\n")
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "CUZKLAB_PROFILES", "JUPYTER_PATH",
                        "VIRTUAL_ENV")}
    env["PATH"] = f"{env_dir / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["JUPYTER_DATA_DIR"] = str(base / "jupyter-data")  # no user-level kernel specs
    env["JUPYTER_CONFIG_DIR"] = str(base / "jupyter-config")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    # The sweep's notebooks run on this environment's own Python.
    _run([py, "-m", "ipykernel", "install", "--sys-prefix", "--name", "python3"], cwd=base,
         env=env)
    return env_dir, env


def test_wheel_ships_the_data_files(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for path in [*(ROOT / "data" / "profiles").glob("*.toml"),
                 *(ROOT / "data" / "sweeps").glob("*.toml"),
                 *(ROOT / "data" / "workloads").glob("*.toml"),
                 *(ROOT / "data" / "samples").iterdir(),
                 *(ROOT / "notebooks").glob("*.ipynb")]:
        kind = "notebooks" if path.suffix == ".ipynb" else path.parent.name
        assert f"cuzklab/_data/{kind}/{path.name}" in names, path
    assert any(n.endswith(".cu") for n in names)


def test_installed_package_runs_away_from_the_checkout(venv, tmp_path):
    env_dir, env = venv
    py, cli = env_dir / "bin" / "python", env_dir / "bin" / "cuzklab"
    work = tmp_path / "work"
    work.mkdir()

    where = json.loads(_run([py, "-c", (
        "import json, cuzklab, cuzklab.resources as r, cuzklab.model as m, cuzklab.cuzk as c;"
        "print(json.dumps([cuzklab.__file__, str(m.profiles_dir()), str(c.samples_dir()),"
        " str(r.data_dir('notebooks')), str(r.checkout_root())]))")], cwd=work, env=env).stdout)
    for p in where[:4]:
        assert Path(p).resolve().is_relative_to(env_dir.resolve()), where
    assert where[4] == "None"

    summary = json.loads(_run([cli, "simulate", "--set", "proofs=3", "--set", "concurrency=3",
                               "--json"], cwd=work, env=env).stdout)
    assert summary["proofs"] == 3 and summary["seconds_per_proof"] > 0
    variant = json.loads(_run([cli, "simulate", "--profile", "porep-32g@phase9", "--set",
                               "proofs=2", "--set", "concurrency=2", "--json"], cwd=work, env=env).stdout)
    assert variant["proofs"] == 2

    _run([cli, "samples", "samples"], cwd=work, env=env)
    parsed = json.loads(_run([cli, "logs", "parse", "samples/cuzk-daemon.log",
                              "samples/cuzk-bench-batch.txt", "samples/cuzk-status.json",
                              "--json"], cwd=work, env=env).stdout)
    assert parsed["proofs"] >= 1

    copied = _run([cli, "grids", "grids"], cwd=work, env=env).stdout
    assert (work / "grids" / "concurrency.toml").is_file(), copied
    _run([cli, "notebooks", "notebooks"], cwd=work, env=env)
    assert (work / "notebooks" / "sweep-pipeline.ipynb").is_file()
    # The copied log notebook reads the installed sample run by default.
    _run([py, "-m", "papermill", "--no-progress-bar", "-k", "python3",
          "-p", "compare_with_sim", "False", "notebooks/03-cuzk-logs.ipynb", "03-out.ipynb"],
         cwd=work, env=env, timeout=240)
    executed = (work / "03-out.ipynb").read_text()
    assert "lines_read" in executed and '"output_type": "error"' not in executed

    # A two-point sweep whose grid names the shipped notebook by its checkout path;
    # run from a folder without a notebooks/ copy, so the packaged notebook is used.
    sweep_dir = tmp_path / "elsewhere"
    sweep_dir.mkdir()
    (sweep_dir / "two.toml").write_text(TWO_POINT_GRID)
    _run([cli, "sweep", "two.toml", "--jobs", "2", "--quiet", "--no-report", "--out", "runs"],
         cwd=sweep_dir, env=env, timeout=300)
    import pandas as pd
    table = pd.read_csv(sweep_dir / "runs" / "results.csv")
    assert len(table) == 2 and set(table["status"]) == {"ok"}, table.to_dict("records")
    assert sorted(table["lock"]) == ["interlock", "split_async"]
    assert (table["proofs"] == 3).all() and (table["seconds_per_proof"] > 0).all()
    assert not (ROOT / "runs").exists()
