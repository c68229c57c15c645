"""``cuzklab report``: a shareable HTML page (and optionally a PNG) from saved traces."""

from __future__ import annotations

import argparse


def register(subparsers) -> None:
    """Add the ``report`` sub-command to ``subparsers``."""
    p = subparsers.add_parser(
        "report", help="write a shareable HTML report (and PNG) from trace files",
        description="Write an offline-viewable HTML page with the headline and the figures "
                    "(timeline, stage breakdown, memory, utilization) of one or more traces "
                    "saved as Parquet; with two traces, a side-by-side comparison too.")
    p.add_argument("traces", nargs="+", metavar="TRACE.parquet",
                   help="trace file(s) written by Trace.save / cuzklab simulate")
    p.add_argument("--html", metavar="OUT.html", help="where to write the HTML page")
    p.add_argument("--png", metavar="OUT.png",
                   help="also write one PNG with every figure (needs Chrome or Chromium)")
    p.add_argument("--label", action="append", metavar="NAME",
                   help="a name for each trace, in order (default: profile and lock)")
    p.add_argument("--title", help="the page title")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Write the report described by ``args``; return the exit code."""
    from ..cliargs import OptionError, input_file, output_file
    if not args.html and not args.png:
        raise OptionError("cuzklab report needs --html OUT.html, --png OUT.png or both")
    if args.label and len(args.label) != len(args.traces):
        raise OptionError(f"--label must be given once per trace: {len(args.label)} times for "
                          f"{len(args.traces)} traces")
    for path in args.traces:
        input_file(path, "trace")
    for option, path in (("--html", args.html), ("--png", args.png)):
        if path:
            output_file(path, option)
    from ..trace import Trace
    from .export import find_chrome
    from .report import write_report
    if args.png and find_chrome() is None:
        from ..errors import ExportError
        raise ExportError("--png needs Chrome or Chromium and none was found: install one "
                          "(Debian/Ubuntu: apt-get install chromium) or set BROWSER_PATH; "
                          "--html works without it")
    traces = [Trace.load(p) for p in args.traces]
    out = write_report(traces, args.html, args.png, labels=args.label, title=args.title)
    for kind, path in out.items():
        print(f"{kind}: {path}")
    return 0
