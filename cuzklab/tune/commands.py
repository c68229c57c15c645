"""``cuzklab tune``: the best configuration for a node, with its evidence and a daemon TOML."""

from __future__ import annotations

import json
import sys


def register(sub) -> None:
    """Add the ``tune`` sub-command."""
    from ..cliargs import finite_number, int_at_least, positive_seconds
    from ..model.config import LOCKS
    from .parallel import EXECUTORS
    from .space import OBJECTIVES
    gib, margin = finite_number("GiB", gt=0), finite_number("GiB", ge=0)
    fraction = finite_number(ge=0, lt=1, note="0.1 = +-10 %")
    p = sub.add_parser(
        "tune", help="find the best daemon configuration for a node",
        description="Search the daemon model for the configuration with the most throughput "
                    "(or the lowest latency) whose peak RSS stays under RAM minus a margin, "
                    "check it with every stage cost moved and over seeds, and print it with "
                    "its evidence; optionally write a cuzk daemon TOML and an HTML report.")
    p.add_argument("--memory-gib", type=gib, required=True, metavar="GIB", help="host RAM")
    p.add_argument("--gpus", type=int_at_least(1), default=1, help="GPUs (default 1)")
    p.add_argument("--cores", type=int_at_least(1), default=None,
                   help="CPU cores (default: the profile's)")
    p.add_argument("--vram-gib", type=gib, default=None, metavar="GIB",
                   help="VRAM per GPU (default: the profile's)")
    p.add_argument("--profile", default=None, metavar="NAME|PATH",
                   help="profile name in data/profiles/ or a TOML path (default porep-32g)")
    p.add_argument("--proofs", type=int_at_least(1), default=20,
                   help="proofs per run (cuzk-bench -c; default 20)")
    p.add_argument("--concurrency", type=int_at_least(1), default=None, metavar="N",
                   help="proofs in flight (cuzk-bench -j; default: the tuner chooses)")
    p.add_argument("--objective", choices=OBJECTIVES, default="throughput",
                   help="what to optimize (default throughput)")
    p.add_argument("--max-latency-s", type=positive_seconds, default=None, metavar="S",
                   help="mean proof latency limit in seconds")
    p.add_argument("--margin-gib", type=margin, default=16.0, metavar="GIB",
                   help="RAM to keep free under the peak RSS (default 16)")
    p.add_argument("--locks", default=None, metavar="LOCK[,LOCK]",
                   help=f"lock strategies to search (default all: {','.join(LOCKS)})")
    p.add_argument("--seed", type=int_at_least(0), default=0, help="random seed (default 0)")
    p.add_argument("--seeds", type=int_at_least(1), default=3,
                   help="seeds the robustness check runs (default 3)")
    p.add_argument("--cost-move", type=fraction, default=0.10, metavar="FRACTION",
                   help="each stage cost is moved down and up by this fraction (default 0.1)")
    p.add_argument("--finalists", type=int_at_least(1), default=None, metavar="N",
                   help="candidates checked for robustness per round (default 3)")
    p.add_argument("--refine-rounds", type=int_at_least(0), default=None, metavar="N",
                   help="most rounds of local refinement (default 3; 0: the coarse grid only)")
    p.add_argument("--executor", choices=EXECUTORS, default="local",
                   help="where simulations run (default local: a process pool)")
    p.add_argument("--jobs", type=int_at_least(1), default=None,
                   help="processes for the local executor (default: the cores)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="Dask scheduler address for --executor dask")
    p.add_argument("--toml", default=None, metavar="OUT.toml",
                   help="write the recommended cuzk daemon TOML")
    p.add_argument("--html", default=None, metavar="OUT.html",
                   help="write the report with the Pareto figure")
    p.add_argument("--png", default=None, metavar="OUT.png",
                   help="write the Pareto figure as PNG (needs Chromium)")
    p.add_argument("--json", action="store_true", help="print exactly one JSON object")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def run(args) -> int:
    """Tune, print the answer and write the requested files; 1 when nothing can be recommended."""
    from pathlib import Path

    from ..cliargs import OptionError, input_file, output_file
    from ..errors import ConfigError, ProfileError
    from ..model.config import LOCKS
    from ..model.profile import Profile
    from . import tune
    locks = None
    if args.locks is not None:
        locks = tuple(x.strip() for x in args.locks.split(",") if x.strip())
        bad = [x for x in locks if x not in LOCKS]
        if bad or not locks:
            raise OptionError(f"--locks {args.locks}: each must be one of {', '.join(LOCKS)}")
    if args.concurrency is not None and args.concurrency > args.proofs:
        raise OptionError(f"--concurrency {args.concurrency}: must be <= --proofs ({args.proofs})")
    if args.margin_gib >= args.memory_gib:
        raise OptionError(f"--margin-gib {args.margin_gib:g}: must be less than --memory-gib "
                          f"({args.memory_gib:g})")
    if args.executor == "dask" and not args.scheduler:
        raise OptionError("--executor dask needs --scheduler ADDRESS (for example "
                          "tcp://10.0.0.5:8786)")
    if args.scheduler and args.executor != "dask":
        raise OptionError("--scheduler only applies to --executor dask")
    if args.profile is not None and Path(args.profile).exists():
        input_file(args.profile, "--profile", text=True)
    try:
        Profile.load(args.profile)
    except ProfileError as exc:
        raise ProfileError(f"--profile {args.profile}: {exc}") from None
    for option, path in (("--toml", args.toml), ("--html", args.html), ("--png", args.png)):
        if path:
            output_file(path, option)
    try:
        result = tune(args.memory_gib, args.gpus, profile=args.profile, proofs=args.proofs,
                      concurrency=args.concurrency, objective=args.objective,
                      max_latency_s=args.max_latency_s, margin_gib=args.margin_gib,
                      cores=args.cores, vram_gib=args.vram_gib, locks=locks, seed=args.seed,
                      seeds=args.seeds, cost_move=args.cost_move, executor=args.executor,
                      jobs=args.jobs, scheduler=args.scheduler,
                      **{k: v for k, v in (("finalists", args.finalists),
                                           ("refine_rounds", args.refine_rounds)) if v is not None},
                      progress=not args.quiet and not args.json)
    except ConfigError as exc:
        raise ConfigError("--" + exc.key.replace("_", "-"), str(exc).split(": ", 1)[-1]) from None
    written = []
    if args.toml and result.feasible:
        result.write_toml(args.toml)
        written.append(f"toml:  {args.toml}")
    if args.html or args.png:
        from ..plots.tune_report import write_tune_report
        write_tune_report(result, html=args.html, png=args.png)
        written += [f"{k}:  {v}" for k, v in (("html", args.html), ("png", args.png)) if v]
    if args.json:
        json.dump(result.to_dict(), sys.stdout, separators=(",", ":"))
        sys.stdout.write("\n")
    else:
        print(result.text())
        for line in written:
            print(line)
        if args.toml and not result.feasible:
            print(f"toml:  not written ({args.toml}): nothing to recommend", file=sys.stderr)
    return 0 if result.feasible else 1
