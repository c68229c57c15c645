"""The model against cuzk's published measurements (the README's table)."""

import math

import pytest

from cuzklab.sim import calibration as cal


@pytest.fixture(scope="module")
def rows():
    return {r["case"]: r for r in cal.run_table(cal.CASES)}


@pytest.fixture(scope="module")
def further_rows():
    return {r["case"]: r for r in cal.run_table(cal.FURTHER_CASES)}


@pytest.mark.parametrize("case", [c.name for c in cal.CASES])
def test_calibration_case(case, rows):
    row = rows[case]
    if case in cal.KNOWN_DEVIATIONS:
        pytest.xfail(cal.KNOWN_DEVIATIONS[case])
    assert row["ok"], f"{case}: model {row['model']} vs measured {row['measured']} ({row['error']})"


@pytest.mark.parametrize("case", [c.name for c in cal.FURTHER_CASES])
def test_further_published_measurements(case, further_rows):
    row = further_rows[case]
    if case in cal.KNOWN_DEVIATIONS:
        pytest.xfail(cal.KNOWN_DEVIATIONS[case])
    assert row["ok"], f"{case}: model {row['model']} vs measured {row['measured']} ({row['error']})"


def test_known_deviations_still_deviate(rows, further_rows):
    # If the model starts reproducing one, move it out of KNOWN_DEVIATIONS.
    both = {**rows, **further_rows}
    for case in cal.KNOWN_DEVIATIONS:
        assert case in both, f"{case} is not a calibration case"
        assert not both[case]["ok"], f"{case} now passes: update KNOWN_DEVIATIONS and the README"


def test_every_case_names_its_source():
    for case in cal.CASES + cal.FURTHER_CASES:
        assert case.source, case.name
        case.pipeline_config()  # valid config


def test_table_formats(rows, further_rows):
    text = cal.format_table(list(rows.values()))
    assert text.startswith("| case |") and "phase 8" in text
    marked = cal.format_table(list(further_rows.values()))
    assert ("(see below)" in marked) == any(c in further_rows for c in cal.KNOWN_DEVIATIONS)


def test_main_prints_the_table(rows, monkeypatch, capsys):
    # the table's rows are the module's (run_table is what the fixture ran, once)
    asked = []

    def run_table(cases, seeds, workers):
        asked.append((tuple(c.name for c in cases), seeds))
        return list(rows.values())

    monkeypatch.setattr(cal, "run_table", run_table)
    assert cal.main([]) == 0
    out = capsys.readouterr().out
    assert "| case |" in out and "isolated" in out
    assert asked == [(tuple(c.name for c in cal.CASES), tuple(cal.SEEDS))]


def test_prefix_pw10_differs_from_the_fixed_run_only_by_abc_past_the_kernels():
    # KNOWN_DEVIATIONS' reading of the pre-fix pw=10 peak: the fixed channel's ten
    # slots never fill, so the permit and channel fixes do not bind; what differs is
    # the a/b/c of the partitions between the kernels and the end of finalize, at
    # most one at a time.
    from cuzklab.model.profile import Profile
    from cuzklab.sim import simulate
    by_name = {c.name: c for c in cal.FURTHER_CASES}
    pre_case = by_name["phase 12 pre-fix, pw=10 j=20: peak RSS"]
    fix_case = by_name["phase 12 sweep, pw=10: peak RSS"]
    assert {**pre_case.config, "admission": "semaphore"} == fix_case.config
    pre = simulate(pre_case.pipeline_config(), pre_case.profile)
    fix = simulate(fix_case.pipeline_config(), fix_case.profile)
    pw = pre_case.config["partition_workers"]
    assert pre.counter("gpu_queue_depth")["value"].max() <= pw
    sp = pre.spans.set_index(["proof", "partition"])
    held = sorted([(t, 1) for t in sp.loc[sp["stage"] == "tail_msm", "end"]]
                  + [(t, -1) for t in sp.loc[sp["stage"] == "epilogue", "end"]])
    at_once = most = 0
    for _, step in held:
        at_once += step
        most = max(most, at_once)
    assert most == 1
    abc = Profile.load(pre_case.profile)["partition"]["abc_gib"]
    gap = pre.summary()["peak_rss_gib"] - fix.summary()["peak_rss_gib"]
    assert -1.0 <= gap <= abc


def test_throughput_and_memory_rows_are_held_to_ten_percent():
    for case in cal.CASES + cal.FURTHER_CASES:
        if case.metric in ("seconds_per_proof", "peak_rss_gib"):
            assert case.tolerance == 0.10, case.name


def test_the_pile_up_is_read_at_the_rss_cuzk_reported_it_at():
    # cuzk: 'up to 28 synthesized ProvingAssignment sets ... (~448 GiB)' with '668 GiB peak
    # RSS': one state. The model runs on to its RAM line before it fails.
    from cuzklab.model import PipelineConfig
    from cuzklab.sim import simulate
    case = next(c for c in cal.CASES if c.name.endswith("pile-up"))
    assert case.metric == f"waiting_at_rss:{cal.PREFIX_PEAK_GIB:g}" and case.tolerance == 0.15
    tr = simulate(case.pipeline_config(), case.profile)
    rss, q = tr.counter("rss_gib"), tr.counter("gpu_queue_depth")
    t = float(rss.loc[rss["value"] >= cal.PREFIX_PEAK_GIB, "t"].iloc[0])
    at = cal.measure(case, tr)
    assert at == float(q.loc[q["t"] <= t, "value"].max())
    assert at < float(q["value"].max())          # more wait by the OOM at 754 GiB
    small = simulate(PipelineConfig(proofs=1, concurrency=1), case.profile)
    assert math.isnan(cal.measure(case, small))  # never reaches 668 GiB: no value


def test_the_readme_tables_are_the_model_s_current_rows(rows, further_rows):
    # The README's two tables are this module's output (python -m cuzklab.sim.calibration
    # --further); a change of the model or the profiles that moves a row must move them too.
    from pathlib import Path
    readme = set((Path(__file__).parents[2] / "README.md").read_text().splitlines())
    for table in (rows, further_rows):
        text = cal.format_table(list(table.values()))
        stale = [line for line in text.splitlines()[2:] if line not in readme]
        assert not stale, ("README rows differ from the model's; run python -m "
                           "cuzklab.sim.calibration --further and paste its tables:\n" + "\n".join(stale))
        for case in table:
            if case in cal.KNOWN_DEVIATIONS:
                assert f"- {case}: {cal.KNOWN_DEVIATIONS[case]}" in readme, f"README's note on {case}"
