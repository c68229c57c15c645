"""The ``cuzklab`` command: sub-commands, help, and parts whose dependencies are missing."""

import builtins
import os
import stat
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


@pytest.fixture
def no_simulation(monkeypatch):
    import cuzklab.sim

    def fail(*args, **kwargs):
        raise AssertionError("the simulation started before the options were checked")
    monkeypatch.setattr(cuzklab.sim, "simulate", fail)


@pytest.mark.parametrize("argv,parts", [
    (["--profile", "nosuch"], ["--profile nosuch: unknown profile 'nosuch'; known profiles: "]),
    (["--profile", "{d}/missing.toml"], ["--profile ", "profile file not found"]),
    (["--profile", "{d}/adir"], ["--profile ", "adir: is a folder, not a file"]),
    (["--profile", "{d}/bin.toml"], ["--profile ", "bin.toml: not UTF-8 text"]),
    (["--profile", "{d}/bad.toml"], ["--profile ", "not valid TOML"]),
    (["--profile", "{d}/empty.toml"], ["--profile ", "missing table"]),
    (["--config", "{d}/missing.toml"], ["--config ", "missing.toml: no such file"]),
    (["--config", "{d}/missing"], ["--config ", "missing: no such file"]),
    (["--config", "{d}/adir"], ["--config ", "adir: is a folder, not a file"]),
    (["--config", "{d}/bin.toml"], ["--config ", "bin.toml: not UTF-8 text"]),
    (["--config", "{d}/bad.toml"], ["--config ", "bad.toml: toml: not valid TOML"]),
    (["--set", "proofs"], ["--set: proofs: expected key=value"]),
    (["--set", "nope=1"], ["--set: nope: unknown key; allowed keys: proofs"]),
    (["--set", "proofs=x"], ["--set: proofs: expected an integer, got 'x'"]),
    (["--set", "proofs=0"], ["--set: proofs: must be >= 1"]),
    (["--set", "proofs=1"], ["--set: concurrency: must be <= proofs (1)"]),
    (["--set", "lock=bogus"], ["--set: lock: must be one of"]),
    (["--set", "memory_gib=nan"], ["--set: memory_gib: must be a finite number, got nan"]),
    (["--set", "memory_gib=inf"], ["--set: memory_gib: must be a finite number, got inf"]),
    (["--config", "{d}/inf.toml"], ["--config ", "inf.toml: memory_gib: must be a finite number"]),
    (["--trace", "{d}/adir"], ["--trace ", "adir: is a folder; give a file name"]),
    (["--perfetto", "{d}/adir"], ["--perfetto ", "adir: is a folder; give a file name"]),
    (["--trace", "{d}/empty.toml/t.parquet"], ["--trace ", "empty.toml is a file, not a folder"]),
])
def test_simulate_bad_options_get_a_clear_error_before_work(cli_error, bad_files, no_simulation,
                                                              argv, parts):
    argv = [a.format(d=bad_files) for a in argv]
    cli_error(["simulate", "--json", *argv], *parts)


def test_simulate_into_a_missing_folder_is_an_error_and_files_are_0644(tmp_path, capsys,
                                                                      cli_error):
    out = tmp_path / "new" / "sub"
    cli_error(["simulate", "--json", "--set", "proofs=1", "--set", "concurrency=1",
               "--trace", str(out / "t.parquet")],
              "--trace ", f"the folder {out} does not exist")
    assert not (tmp_path / "new").exists()
    old = os.umask(0o022)
    try:
        assert cli.main(["simulate", "--json", "--set", "proofs=1", "--set", "concurrency=1",
                         "--trace", str(tmp_path / "t.parquet"),
                         "--perfetto", str(tmp_path / "t.json")]) == 0
    finally:
        os.umask(old)
    for name in ("t.parquet", "t.json"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o644


def test_phase_profiles_default_to_their_era_configuration(capsys):
    args = ["simulate", "--set", "proofs=2", "--set", "concurrency=2"]
    assert cli.main([*args, "--profile", "porep-32g@phase9"]) == 0
    head = capsys.readouterr().out.splitlines()[:2]
    assert "gpu_threads=0 lock=interlock admission=semaphore_prefix" in head[0]
    assert "era defaults     lock=interlock, gpu_threads=0 (all cores)" in head[1]
    assert "from profile porep-32g@phase9" in head[1]
    assert cli.main([*args, "--profile", "porep-32g@phase8", "--set", "lock=wide_mutex"]) == 0
    head = capsys.readouterr().out.splitlines()[:2]
    assert "gpu_threads=0 lock=wide_mutex" in head[0]          # --set wins
    assert "(explicit lock kept)" in head[1]
    assert cli.main(args) == 0                                  # the default profile: no line
    out = capsys.readouterr().out
    assert "lock=split_async" in out and "era defaults" not in out
