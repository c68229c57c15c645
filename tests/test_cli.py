"""The ``cuzklab`` command: sub-commands, help, and parts whose dependencies are missing."""

import builtins
import sys

import pytest

from cuzklab import cli


def test_help_lists_the_commands(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for cmd in ("simulate", "prove", "bench", "report", "sweep", "logs"):
        assert cmd in out


def test_no_command_prints_help_and_exits_2(capsys):
    assert cli.main([]) == 2
    assert "COMMAND" in capsys.readouterr().out


def test_a_command_whose_dependency_is_missing_is_left_out(monkeypatch, capsys):
    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == "plotly" or name.startswith("plotly."):
            raise ModuleNotFoundError("No module named 'plotly'", name="plotly")
        return real_import(name, *args, **kwargs)

    for mod in [m for m in sys.modules if m.startswith("cuzklab.plots") or m.startswith("plotly")]:
        monkeypatch.delitem(sys.modules, mod)
    monkeypatch.setattr(builtins, "__import__", fake_import)
    parser = cli.build_parser()
    assert "plots (needs plotly)" in (parser.epilog or "")
    assert cli.main(["simulate", "--json", "--set", "proofs=1", "--set", "concurrency=1"]) == 0


def test_parser_mistakes_are_one_error_line(cli_error):
    cli_error(["nosuch"], "argument COMMAND: invalid choice: 'nosuch'", "(see 'cuzklab --help')")
    cli_error(["logs", "parse"], "required: FILE", "(see 'cuzklab logs parse --help')")
    cli_error(["bench", "msm", "--repeats", "x"], "argument --repeats", "'x'")


def test_help_still_exits_0(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["prove", "--help"])
    assert exc.value.code == 0 and "--log2-constraints" in capsys.readouterr().out
