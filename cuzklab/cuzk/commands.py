"""``cuzklab logs parse``: daemon logs, bench output and /status JSON to a summary and a trace."""

from __future__ import annotations

import argparse
import json
import sys

from ..cliargs import int_at_least
from ..model.cuzk_versions import DAEMON_VERSIONS


def register(subparsers) -> None:
    """Add the ``logs`` command and its ``parse`` sub-command."""
    logs = subparsers.add_parser(
        "logs", help="read what a real cuzk daemon and cuzk-bench wrote",
        description="Read what a real cuzk daemon and cuzk-bench wrote.")
    sub = logs.add_subparsers(dest="logs_command", metavar="SUBCOMMAND")
    p = sub.add_parser(
        "parse", help="parse daemon logs, cuzk-bench output and /status JSON",
        description="Parse daemon logs (stdout and stderr, with or without colours), "
                    "cuzk-bench output and /status JSON into a trace; print its summary "
                    "and the parse statistics.")
    p.add_argument("files", nargs="+", metavar="FILE", help="log, bench or status files")
    p.add_argument("--json", action="store_true",
                   help="print exactly one JSON object: the summary plus parse statistics")
    p.add_argument("--trace", metavar="FILE.parquet", help="write the trace as Parquet")
    p.add_argument("--perfetto", metavar="FILE.json",
                   help="write the trace as Chrome-trace JSON for Perfetto")
    p.add_argument("--config", metavar="FILE.toml",
                   help="the daemon's TOML (worker->GPU map, partitions, synthesis slots)")
    p.add_argument("--daemon-version", default=None, metavar="RELEASE",
                   choices=list(DAEMON_VERSIONS),
                   help="the daemon release whose TOML defaults --config takes: "
                        + ", ".join(DAEMON_VERSIONS) + " (default: the newest)")
    p.add_argument("--gpu-workers-per-device", type=int_at_least(1), default=None, metavar="GW",
                   help="GPU workers per GPU (>= 1) when the logs do not say")
    p.add_argument("--partitions", type=int_at_least(1), default=None, metavar="N",
                   help="partitions per proof, >= 1 (default: the most seen in one proof)")
    p.set_defaults(func=_parse)
    logs.set_defaults(func=lambda args: (logs.print_help(), 2)[1])


def _parse(args: argparse.Namespace) -> int:
    from ..cliargs import cuzk_config, output_file
    from .logs import parse_logs
    config = (cuzk_config(args.config, "--config", args.daemon_version) if args.config
              else None)
    for option, path in (("--trace", args.trace), ("--perfetto", args.perfetto)):
        if path:
            output_file(path, option)
    result = parse_logs(args.files, config=config,
                        gpu_workers_per_device=args.gpu_workers_per_device,
                        partitions=args.partitions, require_content=True)
    if args.trace:
        result.trace.save(args.trace)
    if args.perfetto:
        result.trace.to_perfetto(args.perfetto)
    summary = result.summary()
    if args.json:
        json.dump(summary, sys.stdout, sort_keys=False)
        sys.stdout.write("\n")
        return 0
    _print_human(summary, result)
    return 0


def _fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.3f}"
    return str(v)


def _print_human(summary: dict, result) -> None:
    out = sys.stdout
    st = summary["parse"]
    print(f"files:                {', '.join(st['files'])}", file=out)
    print(f"lines read:           {st['lines_read']} (parsed {st['parsed_total']}, "
          f"other {st['other']}, malformed {st['malformed']}, "
          f"unattributed {st['unattributed']})", file=out)
    print("parsed by kind:       " + ", ".join(f"{k}={v}" for k, v in st["parsed"].items()),
          file=out)
    if st["releases"] is not None:
        rel = st["releases"]
        print("daemon release:       " + (f"{rel[0]}" if len(rel) == 1 else
                                          f"{rel[0]} .. {rel[-1]}" if rel else
                                          "none prints all the formats seen")
              + " (from the line formats)", file=out)
    for s in st["malformed_samples"][:5]:
        print(f"  malformed {s['file']}:{s['line']} ({s['kind']}: {s['why']}): "
              f"{s['text'][:80]!r}", file=out)
    print(f"proofs:               {summary['proofs']} completed, {summary['failed']} not", file=out)
    for key in ("wall_s", "seconds_per_proof", "proof_latency_s_mean", "prove_s_mean",
                "gpu_busy_fraction"):
        print(f"{key + ':':<22}{_fmt(summary.get(key))}", file=out)
    if summary["stage_s"]:
        print("mean stage seconds:   " + ", ".join(f"{k}={v:.3f}"
                                                 for k, v in summary["stage_s"].items()),
              file=out)
    b = summary["bottleneck"]
    print(f"bottleneck:           {b.get('resource')} ({b.get('why')})", file=out)
    if summary.get("run_failed"):
        print(f"run failed:           {summary.get('failure_reason')}", file=out)
    bench = summary.get("bench")
    if bench:
        print(f"cuzk-bench:           {bench.get('completed')} completed, "
              f"{bench.get('failed')} failed, {_fmt(bench.get('seconds_per_proof'))} s/proof",
              file=out)
