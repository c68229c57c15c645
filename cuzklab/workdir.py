"""``cuzklab notebooks``, ``cuzklab grids``, ``cuzklab samples``: the shipped files, in a working folder.

An installed cuzklab carries its notebooks, sweep grids and sample daemon
logs inside the package (:mod:`cuzklab.resources`). Without a folder each
command lists them; ``cuzklab notebooks DIR`` copies the notebooks into
``DIR`` (``grids`` the grids, ``samples`` the sample logs) so they can be
opened, edited and run there. A file already in ``DIR`` is kept unless
``--force``.
"""

from __future__ import annotations

from pathlib import Path

# Sub-command -> (kind in cuzklab.resources, what it copies, what to do next).
COMMANDS = {
    "notebooks": ("notebooks", "the notebooks (explorer, kernels, cuzk logs, sweep notebooks)",
                  "open them with: jupyter lab {dir}"),
    "grids": ("sweeps", "the sweep grids (TOML)",
              "run one with: cuzklab sweep {dir}/concurrency.toml"),
    "samples": ("samples", "the sample cuzk daemon, cuzk-bench and /status files",
                "parse them with: cuzklab logs parse {dir}/cuzk-daemon.log "
                "{dir}/cuzk-bench-batch.txt {dir}/cuzk-status.json"),
}


def register(subparsers) -> None:
    """Add the ``notebooks``, ``grids`` and ``samples`` sub-commands."""
    for command, (kind, what, _) in COMMANDS.items():
        p = subparsers.add_parser(
            command, help=f"list or copy {what.split(' (')[0]} shipped with cuzklab",
            description=f"Without DIR, list {what} shipped with cuzklab; with DIR, copy them "
                        f"into DIR (made if missing; files already there are kept).")
        p.add_argument("dir", nargs="?", type=Path, default=None, metavar="DIR",
                       help="folder to copy into")
        p.add_argument("--force", action="store_true",
                       help="overwrite files of the same name in DIR")
        p.set_defaults(func=_run, workdir_command=command)


def _run(args) -> int:
    from .cliargs import OptionError, output_dir
    from .resources import copy_shipped, shipped_files
    kind, _, hint = COMMANDS[args.workdir_command]
    if args.dir is None:
        for p in shipped_files(kind):
            print(p)
        return 0
    dest = output_dir(args.dir, "DIR")
    if not dest.exists() and not dest.parent.is_dir():
        raise OptionError(f"DIR {args.dir}: the folder {dest.parent} does not exist")
    copied, kept = copy_shipped(kind, dest, overwrite=args.force)
    for p in copied:
        print(f"copied  {p}")
    for p in kept:
        print(f"kept    {p} (exists; --force overwrites)")
    print(hint.format(dir=dest))
    return 0
