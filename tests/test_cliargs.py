"""The shared argparse number types: what they accept and the one error line they give."""

import argparse

import pytest

from cuzklab.cliargs import finite_number, positive_seconds


@pytest.mark.parametrize("kind,text,value", [
    (dict(unit="GiB", gt=0), "256", 256.0), (dict(unit="GiB", gt=0), "1e-3", 0.001),
    (dict(unit="GiB", ge=0), "0", 0.0), (dict(ge=0, lt=1), "0.1", 0.1),
    (dict(ge=0, lt=1), "0", 0.0), (dict(), "-7.5", -7.5)])
def test_accepts_finite_numbers_in_range(kind, text, value):
    assert finite_number(**kind)(text) == value


@pytest.mark.parametrize("kind,text,message", [
    (dict(unit="GiB", gt=0), "x", "expected a number of GiB > 0, got 'x'"),
    (dict(unit="GiB", gt=0), "0", "expected a finite number of GiB > 0, got 0"),
    (dict(unit="GiB", gt=0), "inf", "expected a finite number of GiB > 0, got inf"),
    (dict(unit="GiB", ge=0), "-1", "expected a finite number of GiB >= 0, got -1"),
    (dict(unit="GiB", ge=0), "nan", "expected a finite number of GiB >= 0, got nan"),
    (dict(ge=0, lt=1, note="0.1 = +-10 %"), "1",
     "expected a finite number in [0, 1) (0.1 = +-10 %), got 1"),
    (dict(gt=0, lt=1), "0", "expected a finite number in (0, 1), got 0"),
    (dict(), "-inf", "expected a finite number, got -inf"),
])
def test_rejects_with_what_is_allowed(kind, text, message):
    with pytest.raises(argparse.ArgumentTypeError) as e:
        finite_number(**kind)(text)
    assert str(e.value) == message


def test_positive_seconds_is_one_of_them():
    assert positive_seconds("2.5") == 2.5
    with pytest.raises(argparse.ArgumentTypeError, match="finite number of seconds > 0, got 0"):
        positive_seconds("0")
    with pytest.raises(ValueError, match="gt or ge"):
        finite_number(gt=0, ge=0)


@pytest.mark.parametrize("argv,parts", [
    (["tune", "--memory-gib", "-2"], ["argument --memory-gib: expected a finite number of GiB > 0",
                                      "got -2"]),
    (["tune", "--memory-gib", "256", "--cost-move", "x"], ["argument --cost-move:", "[0, 1)",
                                                            "got 'x'"]),
    (["live", "--log2-constraints", "4", "--witness-work", "-1"],
     ["argument --witness-work: expected a finite number >= 0", "MatVec only", "got -1"]),
    (["live", "--log2-constraints", "4", "--witness-work", "nan"], ["--witness-work", "got nan"]),
    (["sweep", "grid.toml", "--timeout-s", "0"],
     ["argument --timeout-s: expected a finite number of seconds > 0, got 0"]),
])
def test_commands_give_one_error_line_naming_the_option(cli_error, argv, parts):
    cli_error(argv, *parts)
