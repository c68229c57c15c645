"""Grid files: expansion into points, stable ids, plain values, and every validation error."""

from __future__ import annotations

import ast
import datetime
import json
from pathlib import Path

import nbformat
import numpy as np
import pytest

from cuzklab.errors import SweepError
from cuzklab.sweep import load_grid
from cuzklab.sweep.points import NotPlainError, SweepPoint, point_id, to_plain

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
POINT_NB = HERE / "point.ipynb"


def grid_text(body: str, notebook: Path = POINT_NB) -> str:
    return f'name = "t"\nnotebook = "{notebook}"\n{body}'


def test_cartesian_product_with_fixed_values_points_and_repeats():
    g = load_grid(grid_text(
        'repeats = 2\n[parameters]\nblock_file = ""\n'
        '[grid]\nmode = ["ok", "raise"]\nvalue = [1, 2, 3]\n'
        '[[points]]\nmode = "kill"\nvalue = 9\n'))
    pts = g.expand()
    assert len(pts) == (2 * 3 + 1) * 2
    combos = {(p.parameters["mode"], p.parameters["value"], p.repeat) for p in pts}
    assert ("raise", 3, 1) in combos and ("kill", 9, 0) in combos
    assert all(p.parameters["block_file"] == "" for p in pts)
    assert len({p.id for p in pts}) == len(pts)
    assert g.varying == ("mode", "value")
    assert pts[0].label == "mode=ok value=1"
    assert pts[1].label == "mode=ok value=1 repeat=1"


def test_no_grid_means_one_point_of_the_fixed_values():
    pts = load_grid(grid_text('[parameters]\nvalue = 4\n')).expand()
    assert [p.parameters for p in pts] == [{"value": 4}]


def test_ids_are_stable_and_ignore_key_order_and_numpy_types():
    a = point_id({"mode": "ok", "value": 2}, 0)
    assert a == point_id({"value": 2, "mode": "ok"}, 0)
    assert a != point_id({"mode": "ok", "value": 2}, 1)
    assert a != point_id({"mode": "ok", "value": 3}, 0)
    p = SweepPoint.make({"mode": "ok", "value": np.int64(2)})
    assert p.id == a and type(p.parameters["value"]) is int
    text = grid_text('[grid]\nmode = ["ok"]\nvalue = [2]\n')
    assert load_grid(text).expand()[0].id == load_grid(text).expand()[0].id == a


def test_to_plain_converts_numpy_and_tuples():
    assert to_plain(np.float32(0.5)) == 0.5 and type(to_plain(np.float32(0.5))) is float
    assert to_plain(np.bool_(True)) is True
    assert to_plain(np.arange(3)) == [0, 1, 2]
    assert to_plain((1, "a", [np.int8(2)])) == [1, "a", [2]]
    assert to_plain({"k": np.int32(5)}) == {"k": 5}


@pytest.mark.parametrize("value", [float("nan"), float("inf"), datetime.date(2026, 1, 1),
                                   {1: "x"}, {"a"}, object()])
def test_to_plain_rejects_what_papermill_cannot_inject(value):
    with pytest.raises(NotPlainError, match="parameter 'v'"):
        to_plain(value, "v")


def test_a_value_that_cannot_be_injected_marks_only_its_point():
    g = load_grid(grid_text('[grid]\nvalue = [1, 2026-01-01]\n'))
    ok, bad = g.expand()
    assert ok.error is None
    assert "not a plain JSON value" in bad.error and "'value'" in bad.error


@pytest.mark.parametrize("body, message", [
    ('colour = 1\n', "unknown key 'colour'"),
    ('[grid]\nvalue = 3\n', "value must be a non-empty list"),
    ('[grid]\nvalue = []\n', "value must be a non-empty list"),
    ('[parameters]\nvalue = 1\n[grid]\nvalue = [1, 2]\n', "both in [parameters] and [grid]"),
    ('repeats = 0\n', "repeats must be an integer from 1"),
    ('timeout_s = -1\n', "timeout_s must be a number of seconds > 0"),
    ('timeout_s = "long"\n', "timeout_s must be a number"),
    ('timeout_s = inf\n', "timeout_s must be a number of seconds > 0 and finite, got inf"),
    ('[[points]]\n', "is empty"),
    ('points = [1, 2]\n', "points must be an array of tables"),
    ('[grid]\ncolour = ["red"]\n', "does not declare parameter colour; it declares: mode, value, block_file"),
    ('[parameters]\nresult_path = "x"\n', "'result_path' is set by the sweep runner"),
    ('[grid]\nvalue = [1, 2]\n[[points]]\nvalue = 2\n', "repeats point 2"),
    ('[report]\nx = "colour"\n', "is not a parameter of this grid"),
    ('[report]\ngoal = "best"\n', "goal must be 'min' or 'max'"),
    ('[report]\nfigure = 1\n', "unknown [report] key 'figure'"),
])
def test_grid_errors_name_the_problem(body, message):
    with pytest.raises(SweepError, match=_re(message)):
        load_grid(grid_text(body))


def _re(text: str) -> str:
    import re
    return re.escape(text)


def test_bad_name_and_bad_toml_and_missing_files(tmp_path):
    with pytest.raises(SweepError, match="name must be a folder name"):
        load_grid(f'name = "a b"\nnotebook = "{POINT_NB}"\n')
    bad = tmp_path / "bad.toml"
    bad.write_text("name = [unclosed\n")
    with pytest.raises(SweepError, match="not valid TOML"):
        load_grid(bad)
    with pytest.raises(SweepError, match="grid file not found"):
        load_grid(tmp_path / "missing.toml")
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"\x00\xff\xfe")
    with pytest.raises(SweepError, match="not UTF-8 text"):
        load_grid(binary)
    with pytest.raises(SweepError, match="notebook 'nope.ipynb' not found"):
        load_grid('notebook = "nope.ipynb"\nname = "x"\n')
    with pytest.raises(TypeError, match="source must be"):
        load_grid(42)


def test_grid_name_defaults_to_the_file_stem_and_notebook_resolves_above_it(tmp_path):
    nbdir = tmp_path / "notebooks"
    nbdir.mkdir()
    (nbdir / "p.ipynb").write_bytes(POINT_NB.read_bytes())
    sub = tmp_path / "data" / "sweeps"
    sub.mkdir(parents=True)
    f = sub / "my-grid.toml"
    f.write_text('notebook = "notebooks/p.ipynb"\n[grid]\nvalue = [1, 2]\n')
    g = load_grid(f)
    assert g.name == "my-grid"
    assert g.notebook == (nbdir / "p.ipynb").resolve()


def _notebook(tmp_path, source: str, tags=("parameters",)) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(source, metadata={"tags": list(tags)})]
    p = tmp_path / "nb.ipynb"
    nbformat.write(nb, p)
    return p


def test_notebook_must_have_a_parameters_cell_declaring_result_path(tmp_path):
    p = _notebook(tmp_path, "x = 1", tags=())
    with pytest.raises(SweepError, match="no cell tagged 'parameters'"):
        load_grid(grid_text("", notebook=p))
    p = _notebook(tmp_path, "x = 1")
    with pytest.raises(SweepError, match="does not declare 'result_path'"):
        load_grid(grid_text("", notebook=p))


SWEEPS = sorted((ROOT / "data" / "sweeps").glob("*.toml"))


@pytest.mark.parametrize("path", SWEEPS, ids=[p.stem for p in SWEEPS])
def test_shipped_grids_validate_against_their_notebook(path):
    g = load_grid(path)
    pts = g.expand()
    assert pts and all(p.error is None for p in pts)
    if g.notebook.name == "sweep-kernels.ipynb":
        from cuzklab.sweep.kernels import KERNELS
        assert {p.parameters["kernel"] for p in pts} <= set(KERNELS)
        return
    assert g.notebook.name == "sweep-pipeline.ipynb"
    from cuzklab.model import PipelineConfig, list_profiles
    for p in pts:
        params = dict(p.parameters)
        assert params.pop("profile", "porep-32g") in list_profiles()
        workload = params.pop("workload", "")
        if workload:                      # a mixed workload: a shipped one or a path
            from cuzklab.sim.workload import Workload
            Workload.load(workload)
        PipelineConfig.from_dict(params)  # every point is a valid configuration


def test_phase_grids_replay_the_documented_experiments():
    p9 = load_grid(ROOT / "data/sweeps/phase9-concurrency.toml").expand()
    assert [(p.parameters["proofs"], p.parameters["concurrency"]) for p in p9] == \
        [(5, 5), (10, 10), (15, 15), (20, 15)]
    assert {(p.parameters["gpu_workers_per_device"], p.parameters["partition_workers"],
             p.parameters["profile"]) for p in p9} == {(2, 10, "porep-32g@phase9")}
    p11 = load_grid(ROOT / "data/sweeps/phase11-gpu-threads.toml").expand()
    assert sorted((p.parameters["gpu_threads"], p.parameters["gpu_workers_per_device"])
                  for p in p11) == [(0, 2), (0, 3), (0, 4), (32, 2), (32, 3), (32, 4)]
    assert {(p.parameters["proofs"], p.parameters["concurrency"]) for p in p11} == {(20, 15)}
    p12 = load_grid(ROOT / "data/sweeps/phase12-permit-pileup.toml").expand()
    assert {p.parameters["admission"] for p in p12} == {"semaphore", "semaphore_prefix"}
    assert {(p.parameters["partition_workers"], p.parameters["concurrency"]) for p in p12} == \
        {(12, 15)}


def test_pipeline_notebook_defaults_are_the_config_defaults():
    import papermill
    from cuzklab.model import DEFAULT_PROFILE, PipelineConfig
    declared = papermill.inspect_notebook(str(ROOT / "notebooks/sweep-pipeline.ipynb"))
    defaults = {k: ast.literal_eval(v["default"]) for k, v in declared.items()}
    assert defaults.pop("result_path") == ""
    assert defaults.pop("profile") == DEFAULT_PROFILE
    assert defaults.pop("workload") == ""          # one PoRep stream, closed loop
    assert defaults.pop("oom_seeds") == 3          # seeds behind each point's OOM risk
    assert defaults == PipelineConfig().to_dict()


def test_sweep_notebooks_are_committed_without_outputs():
    for path in [ROOT / "notebooks/sweep-pipeline.ipynb", ROOT / "notebooks/sweep-kernels.ipynb",
                 POINT_NB]:
        nb = json.loads(path.read_text())
        for cell in nb["cells"]:
            if cell["cell_type"] == "code":
                assert cell["outputs"] == [] and cell["execution_count"] is None, path


def test_cli_reports_grid_errors_before_running(tmp_path, capsys):
    from cuzklab.cli import main
    bad = tmp_path / "bad.toml"
    bad.write_text(f'notebook = "{POINT_NB}"\n[grid]\ncolour = ["red"]\n')
    assert main(["sweep", str(bad), "--out", str(tmp_path / "out")]) == 2
    assert "does not declare parameter colour" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()  # nothing ran, nothing was written
    with pytest.raises(SystemExit):
        main(["sweep", str(bad), "--jobs", "0"])
    assert "expected a positive integer" in capsys.readouterr().err


@pytest.mark.parametrize("argv,parts", [
    (["{d}/missing.toml"], ["GRID ", "missing.toml: no such file"]),
    (["{d}/adir"], ["GRID ", "adir: is a folder, not a file"]),
    (["{d}/bin.toml"], ["GRID ", "bin.toml: not UTF-8 text"]),
    (["{d}/bad.toml"], ["bad.toml: not valid TOML"]),
    (["{g}", "--jobs", "0"], ["argument --jobs/-j: expected a positive integer, got 0"]),
    (["{g}", "--timeout-s", "0"], ["argument --timeout-s: expected a finite number of seconds > 0"]),
    (["{g}", "--timeout-s", "inf"], ["argument --timeout-s: ", "finite", "got inf"]),
    (["{g}", "--timeout-s", "nan"], ["argument --timeout-s: ", "got nan"]),
    (["{g}", "--out", "{d}/empty.toml"], ["--out ", "empty.toml: is a file, not a folder"]),
    (["{g}", "--out", "{d}/empty.toml/sub"], ["--out ", "empty.toml is a file, not a folder"]),
    (["{g}", "--executor", "nope"], ["argument --executor: invalid choice: 'nope'"]),
    (["{g}", "--executor", "dask"], ["--executor dask needs --scheduler"]),
    (["{g}", "--scheduler", "tcp://10.0.0.5:8786"], ["--scheduler only applies to --executor dask"]),
    (["{g}", "--executor", "dask", "--scheduler", "nonsense"],
     ["argument --scheduler: expected a Dask scheduler address [PROTOCOL://]HOST:PORT"]),
    (["{g}", "--executor", "dask", "--scheduler", "tcp://host:99999"], ["argument --scheduler: "]),
])
def test_cli_bad_options_get_a_clear_error_before_work(cli_error, bad_files, monkeypatch, argv,
                                                       parts):
    import cuzklab.sweep.run as R
    grid = bad_files / "grid.toml"
    grid.write_text(grid_text("[grid]\nvalue = [1, 2]\n"))

    def fail(*args, **kwargs):
        raise AssertionError("a point started before the options were checked")
    monkeypatch.setattr(R, "run_point", fail)
    monkeypatch.chdir(bad_files)  # the default --out, papermill_runs/t, would be made here
    cli_error(["sweep", *(a.format(d=bad_files, g=grid) for a in argv)], *parts)
    assert not (bad_files / "papermill_runs").exists()


@pytest.mark.parametrize("address", ["tcp://10.0.0.5:8786", "10.0.0.5:8786", "tls://[::1]:8786",
                                     "scheduler.local:8786"])
def test_scheduler_addresses_that_parse(address):
    from cuzklab.sweep.commands import _scheduler_address
    assert _scheduler_address(address) == address


PIPELINE_NB = ROOT / "notebooks" / "sweep-pipeline.ipynb"


@pytest.mark.parametrize("body, parts", [
    ('[grid]\nlock = ["interlock", "wide_mutx"]\n',
     ["t.toml:4: [grid] lock = 'wide_mutx': must be one of monolithic, wide_mutex, interlock"]),
    ('[parameters]\nadmission = "budgt"\n',
     ["t.toml:4: [parameters] admission = 'budgt': must be one of semaphore"]),
    ('[[points]]\nproofs = 4\n[[points]]\nproofs = 6\nlock = "nope"\n',
     ["t.toml:7: [[points]] number 2 lock = 'nope'"]),
    ('[grid]\nprofile = ["porep-32g", "porep-64g"]\n',
     ["t.toml:4: [grid] profile = 'porep-64g': unknown profile", "porep-32g@phase9"]),
    ('[grid]\npartition_workers = [4, -1]\n',
     ["[grid] partition_workers = -1: must be >= 1"]),
    ('[grid]\npartition_worker = [4, 8]\n[report]\nx = "partition_workers"\n',
     ["t.toml:4: [grid] partition_worker: notebook sweep-pipeline.ipynb does not declare "
      "parameter partition_worker (did you mean 'partition_workers'?)"]),
    ('[grid]\nproofs = [4, 8]\n[report]\nmetric = "seconds_per_prof"\n',
     ["t.toml:6: [report] metric = 'seconds_per_prof': the pipeline notebook records no such "
      "metric; metrics: seconds_per_proof"]),
    ('[grid]\nproofs = [4, 8]\n[[report.published]]\nproofs = 4\nseconds_per_proof = "fast"\n',
     ["[[report.published]] number 1 seconds_per_proof must be a number"]),
    ('[grid]\nproofs = [4, 8]\n[[report.published]]\nseconds_per_proof = 40.0\n',
     ["names the point by its parameters"]),
])
def test_values_and_report_metrics_are_checked_with_their_line(tmp_path, body, parts):
    path = tmp_path / "t.toml"
    path.write_text(f'name = "t"\nnotebook = "{PIPELINE_NB}"\n{body}')
    with pytest.raises(SweepError) as err:
        load_grid(path)
    for part in parts:
        assert part in str(err.value)


def test_values_only_known_together_are_left_to_the_point(tmp_path):
    # concurrency 30 > proofs 20 is a rule between two keys: that point is invalid
    # when it runs, the grid itself loads
    g = load_grid(f'name = "t"\nnotebook = "{PIPELINE_NB}"\n[grid]\nconcurrency = [10, 30]\n')
    assert len(g.expand()) == 2


def test_kernel_notebook_values_are_checked(tmp_path):
    nb = ROOT / "notebooks" / "sweep-kernels.ipynb"
    with pytest.raises(SweepError, match=r"kernel = 'fft': must be one of field_mul"):
        load_grid(f'name = "t"\nnotebook = "{nb}"\n[grid]\nkernel = ["ntt", "fft"]\n')
    with pytest.raises(SweepError, match="the kernels notebook records no such metric"):
        load_grid(f'name = "t"\nnotebook = "{nb}"\n[grid]\nkernel = ["ntt"]\n'
                  f'[report]\nmetric = "seconds"\n')


def test_cli_names_the_misspelt_value_before_any_point_runs(tmp_path, capsys):
    from cuzklab.cli import main
    bad = tmp_path / "bad.toml"
    bad.write_text(f'notebook = "{PIPELINE_NB}"\n[grid]\nlock = ["wide_mutx"]\n')
    assert main(["sweep", str(bad), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cuzklab: error: ") and "bad.toml:3: [grid] lock = 'wide_mutx'" in err
    assert not (tmp_path / "out").exists()
