"""The ``cuzklab bench`` command: time a BLS12-381 kernel at one size.

    cuzklab bench field --backend gpu --log2-size 20
    cuzklab bench msm --backend gpu --log2-size 20 --group g1 --repeats 5 --json
    cuzklab bench msm --backend gpu --log2-size 20 --precomputed
    cuzklab bench ntt --backend cpu --log2-size 12

``field`` runs ``cuzklab.field.bench.bench_field``, ``msm``
``cuzklab.msm.bench.bench_msm_sizes`` and ``ntt``
``cuzklab.ntt.bench.bench_ntt``. Without ``--json`` a table is printed; with
it, the report as JSON (device name, sizes, every timing and the medians).
The command exits with status 1 when any timed result was not checked equal
to its reference (the report is printed first, so the figures are not lost).
"""

from __future__ import annotations

import importlib
import json
import sys

from .cliargs import int_at_least, require_backend
from .errors import CuzklabError

KERNELS = ("field", "msm", "ntt")
#: Default sizes per kernel and backend: seconds on a CPU, milliseconds on a GPU.
DEFAULT_LOG2 = {("field", "cpu"): 16, ("field", "gpu"): 20, ("msm", "cpu"): 8, ("msm", "gpu"): 20,
                ("ntt", "cpu"): 12, ("ntt", "gpu"): 20}


class BenchArgumentError(CuzklabError, ValueError):
    """A ``cuzklab bench`` option that the kernel does not take or allow (named in the message)."""


def check_args(kernel: str, log2_size: int, *, window=None, precomputed: bool = False) -> None:
    """Raise BenchArgumentError, naming the option, before any work when an option is out of range."""
    if precomputed and kernel != "msm":
        raise BenchArgumentError(f"--precomputed applies to msm only, not {kernel}")
    if window is not None:
        if kernel != "msm":
            raise BenchArgumentError(f"--window applies to msm only, not {kernel}")
        from .msm import digits
        if not digits.MIN_WINDOW <= window <= digits.MAX_WINDOW:
            raise BenchArgumentError(f"--window must be in [{digits.MIN_WINDOW}, {digits.MAX_WINDOW}], "
                                     f"got {window}")
    module = {"field": "cuzklab.field.bench", "msm": "cuzklab.msm.bench", "ntt": "cuzklab.ntt.domain"}[kernel]
    hi = importlib.import_module(module).MAX_LOG2_SIZE
    if not 0 <= log2_size <= hi:
        raise BenchArgumentError(f"--log2-size must be in [0, {hi}] for {kernel}, got {log2_size}")


def run_bench(kernel: str, backend: str, log2_size: int, *, repeats: int = 5,
              group: str = "g1", window=None, precomputed: bool = False) -> dict:
    """Return the benchmark report of ``kernel`` (a JSON-able dict with ``device``)."""
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {KERNELS}, got {kernel!r}")
    if kernel == "field":
        from .field.bench import bench_field
        return bench_field(backend, log2_size, repeats)
    if kernel == "msm":
        from .msm.bench import bench_msm_sizes
        return bench_msm_sizes([log2_size], backend, group=group, repeats=repeats, window=window,
                               precomputed=precomputed)
    from .ntt.bench import bench_ntt
    res = bench_ntt(log2_size, backend, repeats=repeats)
    return {"device": res.get("device"), "backend": backend, "results": [res]}


def unchecked(report: dict) -> list[dict]:
    """Return the results of ``report`` that were not checked equal to their reference.

    A result's ``checked`` is True (MSM, NTT) or the number of elements
    compared (field); False, 0 or a missing key counts as unchecked.
    """
    return [r for r in report.get("results", []) if not r.get("checked")]


def format_report(kernel: str, report: dict) -> str:
    """Return a human-readable table of a report."""
    if kernel == "field":
        from .field.bench import format_table
        return format_table(report)
    if kernel == "msm":
        from .msm.bench import format_table
        return format_table(report)
    lines = [f"device: {report.get('device')} ({report.get('backend')})"]
    for r in report.get("results", []):
        lines.append(f"{kernel} log2 n = {r.get('log2_size')}: median {r['median_s'] * 1e3:.3f} ms"
                     f" (checked: {r.get('checked')})")
    return "\n".join(lines)


def _handler(args) -> int:
    from .backend import gpu_available
    backend = args.backend or ("gpu" if gpu_available() else "cpu")
    require_backend(backend, "--backend")
    log2 = args.log2_size if args.log2_size is not None else DEFAULT_LOG2[(args.kernel, backend)]
    check_args(args.kernel, log2, window=args.window, precomputed=args.precomputed)
    report = run_bench(args.kernel, backend, log2, repeats=args.repeats, group=args.group,
                       window=args.window, precomputed=args.precomputed)
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(format_report(args.kernel, report))
    bad = unchecked(report)
    if bad:
        sizes = ", ".join(f"2^{r.get('log2_size')}" for r in bad)
        print(f"cuzklab: error: bench {args.kernel}: {len(bad)} result(s) not checked equal to the "
              f"reference ({sizes})", file=sys.stderr)
        return 1
    return 0


def register(subparsers) -> None:
    """Add the ``bench`` sub-command."""
    p = subparsers.add_parser("bench", help="time a field, MSM or NTT kernel at one size",
                              description=__doc__.split("\n\n")[0])
    p.add_argument("kernel", choices=KERNELS, help="what to time")
    p.add_argument("--backend", choices=("cpu", "gpu"), default=None,
                   help="array backend (default: gpu when one is usable, else cpu)")
    p.add_argument("--log2-size", type=int, default=None, metavar="K",
                   help="problem size 2^K (default: 20 on a GPU, small on a CPU)")
    p.add_argument("--repeats", type=int_at_least(1), default=5, metavar="N", help="timed runs (median reported)")
    p.add_argument("--group", choices=("g1", "g2"), default="g1", help="MSM group")
    p.add_argument("--window", type=int, default=None, metavar="C", help="MSM window bits (default: from n)")
    p.add_argument("--precomputed", action="store_true",
                   help="MSM over bases precomputed once for every window (cuzklab.msm.precompute)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=_handler)
