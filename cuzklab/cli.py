"""The ``cuzklab`` command.

Each sub-package contributes its sub-commands through a small module with a
``register(subparsers)`` function that adds parsers and sets ``func`` on them;
this file only lists those modules. A module whose third-party dependency is
not installed (e.g. plotly on a bare GPU host) is left out, and ``--help``
says which package would bring it back, so the other commands still work.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from .errors import CuzklabError

# Modules that add sub-commands, in the order they appear in --help.
COMMAND_MODULES = (
    "cuzklab.sim.commands",        # simulate
    "cuzklab.live.commands",       # live
    "cuzklab.tune.commands",       # tune
    "cuzklab.prove_commands",      # prove
    "cuzklab.bench",               # bench field|msm|ntt
    "cuzklab.plots.commands",      # report
    "cuzklab.sweep.commands",      # sweep, sweep-report
    "cuzklab.cuzk.commands",       # logs parse
    "cuzklab.calibrate.commands",  # calibrate, compare
    "cuzklab.workdir",             # notebooks, grids, samples
)


class _Parser(argparse.ArgumentParser):
    """An argument parser whose mistakes read like every other cuzklab error.

    One line on stderr, ``cuzklab: error: argument --OPTION: ...``, then exit
    code 2 (``SystemExit``, as argparse does); sub-command parsers are of this
    class too, so every option of every command reports the same way.
    """

    def error(self, message: str):
        self.exit(2, f"cuzklab: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser with every available sub-command."""
    parser = _Parser(
        prog="cuzklab",
        description="Workbench for the cuzk Groth16 proving pipeline.")
    from . import __version__
    parser.add_argument("--version", action="version", version=f"cuzklab {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    missing = []
    for name in COMMAND_MODULES:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name is None or exc.name.split(".")[0] == "cuzklab":
                if exc.name is not None and name.startswith(exc.name):
                    continue  # that part of the workbench is not present
                raise
            missing.append(f"{name.split('.')[1]} (needs {exc.name.split('.')[0]})")
            continue
        mod.register(sub)
    if missing:
        parser.epilog = ("unavailable here: " + ", ".join(missing)
                         + "; install cuzklab with its dependencies (pip install -e .)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        rc = args.func(args)
    except CuzklabError as exc:
        print(f"cuzklab: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("cuzklab: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader (e.g. `| head`) closed the pipe: stop quietly, as Unix tools do.
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    return int(rc or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
