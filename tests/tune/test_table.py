"""The machine-class table: its rows, its markdown and the pages it is written into."""

import json

import pytest

from cuzklab.tune import table


@pytest.fixture(scope="module")
def rows(quick_tunes):
    return [table.row(quick_tunes[m], executor="inline") for m in (144, 256)]


def test_rows_set_the_recommendation_beside_cuzks_defaults(rows, quick_tunes):
    for r in rows:
        rec = quick_tunes[r["memory_gib"]].recommended
        assert r["seconds_per_proof_mean"] == rec.robustness.mean()
        lo, hi = r["spread"]
        assert lo <= r["seconds_per_proof_mean"] <= hi and r["peak_rss_gib_max"] <= r["limit_gib"]
        d = r["cuzk_default"]
        assert d["label"] == "split_async pw=18 gw=2 gt=32 j=%d budget" % rec.knobs.concurrency
        # cuzk's defaults go through the same seeds and cost moves as the recommendation
        assert (d["seconds_per_proof_mean"] is None) == (d["failed_under"] is not None
                                                         or d["run_failed"])


def test_markdown_and_the_pages_it_is_written_into(rows, tmp_path):
    md = table.markdown(rows)
    lines = md.splitlines()
    assert len(lines) == 2 + len(rows) and all(line.count("|") == 9 for line in lines)
    assert f"{rows[1]['seconds_per_proof_mean']:.1f} (" in lines[3]
    kept = tmp_path / "rows.json"
    kept.write_text(json.dumps(rows))
    page = tmp_path / "page.md"
    page.write_text(f"intro\n{table.BEGIN}\nold table\n{table.END}\nafter\n")
    assert table.main(["--from", str(kept), "--write", str(page)]) == 0
    assert page.read_text() == f"intro\n{table.BEGIN}\n{md}\n{table.END}\nafter\n"
    bare = tmp_path / "bare.md"
    bare.write_text("no markers\n")
    with pytest.raises(SystemExit) as e:   # checked before any tuning
        table.main(["--write", str(bare)])
    assert e.value.code == 2
