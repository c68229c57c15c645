"""The demo's closing hints name commands that exist and say what they really do."""

from __future__ import annotations

import shlex
from pathlib import Path

from cuzklab import cli, demo
from cuzklab.sweep import load_grid
from cuzklab.sweep.results import write_point
from cuzklab.sweep.run import plan_sweep

ROOT = Path(__file__).resolve().parents[1]
GRID = ROOT / "data" / "sweeps" / "concurrency.toml"


def test_every_hint_is_a_valid_command():
    parser = cli.build_parser()
    for line in demo.hints("data/sweeps/concurrency.toml", "papermill_runs/concurrency")[1:]:
        command = line.strip().split("  ")[0]
        argv = shlex.split(command)
        assert argv[0] == "cuzklab"
        parser.parse_args(argv[1:])   # exits on an unknown option


def test_resume_hint_matches_what_resume_runs(tmp_path):
    lines = demo.hints("g.toml", tmp_path)
    resume = next(x for x in lines if "--resume" in x)
    again = next(x for x in lines if x.strip().startswith("cuzklab sweep g.toml ") and
                 "--resume" not in x)
    assert "only the points without a result or that did not end ok" in resume
    assert "every point again" in again
    grid = load_grid(GRID, check_notebook=False)
    points = grid.expand()[:3]
    write_point(tmp_path, points[0], {"status": "ok", "metrics": {}})
    write_point(tmp_path, points[1], {"status": "failed", "metrics": {}})
    _, todo, _ = plan_sweep(grid, tmp_path, resume=True)
    ids = {p.id for p in todo}
    assert points[0].id not in ids and points[1].id in ids and points[2].id in ids
    _, todo, _ = plan_sweep(grid, tmp_path, resume=False)
    assert len(todo) == len(grid.expand())
