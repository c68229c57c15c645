"""``cuzklab live``: run a configuration for real over the stages and print its summary.

The same keys, checks and output as ``cuzklab simulate`` (``--set``,
``--config``, ``--json``, ``--trace``, ``--perfetto``), plus the circuit
size ``--log2-constraints K`` and the ``--backend``. Ctrl-C stops the run,
joins its threads and still writes the partial trace (marked interrupted).
"""

from __future__ import annotations

import json
import sys


def log2_constraints_arg(text: str) -> int:
    """Argparse type: a circuit size K accepted by the live executor."""
    import argparse

    from ..errors import ConfigError
    from . import check_log2
    try:
        k = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    try:
        return check_log2(k)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(exc.message) from None


def witness_work_arg(text: str) -> float:
    """argparse type of ``--witness-work``: a finite number >= 0."""
    from ..cliargs import finite_number
    return finite_number(ge=0, note="0: MatVec only; 1: the witness step ~75 % of synthesis")(text)


def register(sub) -> None:
    """Add the ``live`` sub-command."""
    from ..backend import BACKENDS
    from ..cliargs import add_config_arguments, add_output_arguments
    p = sub.add_parser(
        "live", help="run a configuration live: real stages, threads and locks",
        description="Run proofs through the real stages under the configured concurrency, "
                    "admission and lock strategy, and print the measured run's summary.")
    p.add_argument("--log2-constraints", type=log2_constraints_arg, required=True, metavar="K",
                   help="rows per partition circuit: 2^K (constraints = 2^K minus the public "
                        "inputs; K=20: 1,048,576 rows)")
    p.add_argument("--backend", choices=BACKENDS, default="cpu",
                   help="gpu: CUDA devices; cpu: CPU stand-ins for the devices (default cpu)")
    p.add_argument("--profile", default=None, metavar="NAME|PATH",
                   help="profile whose synthesis look-ahead sizes the hand-off channel "
                        "(default porep-32g)")
    add_config_arguments(p)
    p.add_argument("--witness-work", type=witness_work_arg, default=1.0, metavar="W",
                   help="extra witness work per constraint (0: MatVec only; 1, the default: the "
                        "witness step ~75 %% of synthesis, as in cuzk)")
    p.add_argument("--no-verify", action="store_true",
                   help="skip the pairing check of the proofs (for big runs)")
    add_output_arguments(p)
    p.set_defaults(func=run)


def run(args) -> int:
    """Run live, print the summary and write the requested files; 130 after Ctrl-C."""
    from ..cliargs import config_from_args, output_file, profile_arg, require_backend
    from . import run as run_live
    from .report import format_live, live_summary
    profile = profile_arg(args.profile)
    config, _, _ = config_from_args(args, profile)
    require_backend(args.backend, "--backend")
    for option, path in (("--trace", args.trace), ("--perfetto", args.perfetto)):
        if path:
            output_file(path, option)
    trace = run_live(config, log2_constraints=args.log2_constraints, backend=args.backend,
                     profile=profile, verify=not args.no_verify, witness_work=args.witness_work)
    if args.trace:
        trace.save(args.trace)
    if args.perfetto:
        trace.to_perfetto(args.perfetto)
    summary = live_summary(trace)
    if args.json:
        json.dump(summary, sys.stdout, separators=(",", ":"), default=str)
        sys.stdout.write("\n")
    else:
        print(format_live(summary, config))
        if args.trace:
            print(f"trace:    {args.trace}")
        if args.perfetto:
            print(f"perfetto: {args.perfetto}  (open in https://ui.perfetto.dev)")
    if summary.get("failure_reason") == "interrupted":
        print("cuzklab: interrupted; the partial trace was kept", file=sys.stderr)
        return 130
    return 1 if summary.get("run_failed") else 0
