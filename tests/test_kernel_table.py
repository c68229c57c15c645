"""The README's kernel tables are written from the result files, and only from checked ones."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]


@pytest.fixture(scope="module")
def kt():
    spec = importlib.util.spec_from_file_location("kernel_table", ROOT / "benchmarks" / "kernel_table.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def results(kt, tmp_path):
    """A copy of the result files the tables read, to change one at a time."""
    out = tmp_path / "results"
    out.mkdir()
    for name in kt.CURRENT.values():
        shutil.copy(kt.RESULTS / name, out / name)
    return out


def _edit(path: Path, change) -> None:
    d = json.loads(path.read_text())
    change(d)
    path.write_text(json.dumps(d))


def test_the_readme_tables_match_the_result_files(kt, capsys):
    assert kt.main(["--check", str(ROOT / "README.md")]) == 0, capsys.readouterr().err


def test_figures_ratios_and_targets_come_from_the_files(kt):
    d = kt.collect()
    sp = json.loads((kt.RESULTS / kt.CURRENT["ntt_sppark"]).read_text())
    (r20,) = [r for r in sp["ntt"] if r["log2_size"] == 20]
    md = kt.markdown(d)
    line = next(x for x in md.splitlines() if x.startswith("| Fr NTT 2^20, forward"))
    assert f"{r20['ntt_cuzklab_ms']:.3f} ms" in line and f"({r20['ntt_ratio']:.2f})" in line
    assert ("**met**" in line) == (r20["ntt_cuzklab_ms"] <= 0.25)
    ahead = sum(r["ntt_ratio"] < 1 for r in sp["ntt"])
    assert f"ahead at {ahead} of {len(sp['ntt'])} sizes" in md
    # a ratio that two decimals would print as 1.00 keeps a third, so the faster side shows
    assert kt._ratio(0.9951) == "0.995" and kt._ratio(1.004) == "1.004" and kt._ratio(0.96) == "0.96"


def test_a_target_is_judged_on_the_figure(kt, results):
    def faster(d):
        for r in d["ntt"]:
            if r["log2_size"] == 20:
                r["ntt_cuzklab_ms"], r["ntt_ratio"] = 0.2, 0.2 / r["ntt_sppark_ms"]
    _edit(results / kt.CURRENT["ntt_sppark"], faster)
    line = next(x for x in kt.markdown(kt.collect(results)).splitlines()
                if x.startswith("| Fr NTT 2^20, forward"))
    assert "0.200 ms" in line and "≤ 0.25 ms: **met**" in line


@pytest.mark.parametrize("key, change, message", [
    ("msm_run", lambda d: [r.update(checked=False) for r in d["results"] if r["group"] == "g2"],
     "G2 MSM 2^20 was not checked"),
    ("ntt_sppark", lambda d: d.update(problems=["cuzklab NTT ntt 2^20 not checked"]), "reported problems"),
    ("prove", lambda d: d["results"][0].update(verified=False), "not verified"),
    ("field_fr", lambda d: d["reports"][0]["results"][0].update(checked=0), "fr multiply was not checked"),
])
def test_an_unchecked_figure_is_refused_with_its_file(kt, results, key, change, message, capsys):
    _edit(results / kt.CURRENT[key], change)
    with pytest.raises(kt.Stale, match=re.escape(message)):
        kt.collect(results)
    assert kt.main(["--results", str(results)]) == 1
    err = capsys.readouterr().err
    assert kt.CURRENT[key] in err and message in err


def test_a_stale_page_fails_the_check_and_write_mends_it(kt, results, tmp_path, capsys):
    page = tmp_path / "page.md"
    page.write_text(f"before\n{kt.BEGIN}\n| old |\n{kt.END}\nafter\n")
    assert kt.main(["--check", str(page), "--results", str(results)]) == 1
    assert "differ from the result files" in capsys.readouterr().err
    assert kt.main(["--write", str(page), "--results", str(results)]) == 0
    text = page.read_text()
    assert text.startswith("before\n") and text.endswith("after\n") and "| old |" not in text
    assert kt.main(["--check", str(page), "--results", str(results)]) == 0


def test_bad_pages_and_folders_are_one_clear_error(kt, tmp_path, capsys):
    page = tmp_path / "no-markers.md"
    page.write_text("nothing here\n")
    with pytest.raises(SystemExit, match="exactly one pair of lines"):
        kt.main(["--write", str(page)])
    with pytest.raises(SystemExit):
        kt.main(["--check", str(tmp_path / "missing.md")])
    assert "no such page" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        kt.main(["--results", str(tmp_path / "nowhere")])
    assert "--results: no such folder" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert kt.main(["--results", str(tmp_path / "empty")]) == 1
    assert "no such result file" in capsys.readouterr().err
