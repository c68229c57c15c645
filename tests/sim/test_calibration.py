"""The model against cuzk's published measurements (the README's table)."""

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


def test_main_prints_the_table(capsys):
    assert cal.main([]) == 0
    out = capsys.readouterr().out
    assert "| case |" in out and "isolated" in out
