#!/usr/bin/env python3
"""GPU MSM build and window variants, timed side by side on one device.

    python benchmarks/tune_msm.py [--group g1|g2] [--sizes 20,24] [--windows default|15,16]
        [--mul 'default;fp=cios'] [--hot 'default;K1,K2'] [--set NAME=V1,V2 ...]
        [--repeats R] [--jobs J] [--compile-only] [--json out.json]

Every combination of size, window, multiplier (``gpu.MULTIPLIERS``), the
kernels built with inline multiplications (``gpu.HOT``) and the integer
settings of ``cuzklab.msm.gpu`` named by ``--set`` (``NAME``, or
``NAME.key`` for a dict entry, e.g. ``--set INTEGRATE_THREADS.g1=16384,32768
--set REDUCE_GROUP=4,8``; 0 turns off ``AFFINE_ROUNDS``) runs ``cuzklab.msm.bench.bench_msm`` (points on
the device, CUDA-event medians after a warm-up, every run checked against
the exact result) and records the median and the phase times. The
kernels of every variant are compiled first by ``--jobs`` processes at once
into CuPy's disk cache, so compilation does not run one module at a time.
The JSON is rewritten after each run; a variant that fails is recorded with
its error and the others go on.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import itertools
import json
import multiprocessing as mpc
import pathlib
import sys
import time
import traceback

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from cuzklab.atomic import write_text  # noqa: E402
from cuzklab.msm import gpu  # noqa: E402

_HOT_DEFAULT = tuple(gpu.HOT)


def _mul(spec: str):
    """Return a gpu.MULTIPLIERS entry for ``spec`` ("default" or CUZKLAB_MUL-style pairs)."""
    if spec == "default":
        return None
    from cuzklab.field.cuda import multipliers
    given = {p.split("=")[0].strip().lower() for p in spec.split(",") if p.strip()}
    return {k: v for k, v in multipliers(spec).items() if k in given}


def _hot(spec: str) -> tuple[str, ...]:
    """Return a gpu.HOT value for ``spec`` ("default" or comma-separated kernel names)."""
    if spec == "default":
        return _HOT_DEFAULT
    names = tuple(t.strip() for t in spec.split(",") if t.strip())
    bad = [k for k in names if k not in gpu.TEMPLATED]
    if bad or not names:
        raise ValueError(f"--hot: expected kernel names among {list(gpu.TEMPLATED)}, got {spec!r}")
    return names


def _apply(group: str, mul: str, hot: str = "default") -> None:
    gpu.MULTIPLIERS[group] = _mul(mul)  # a bad spec fails here, before any work
    gpu.HOT = _hot(hot)


def _setting(text: str):
    """Return (NAME, [ints]) of a --set value, or raise ValueError naming what is wrong."""
    name, _, vals = text.partition("=")
    attr, _, key = name.partition(".")
    cur = getattr(gpu, attr, None)
    if not attr.isupper() or not isinstance(cur, (int, dict)) or isinstance(cur, bool) \
            or (key and (not isinstance(cur, dict) or key not in cur)) or (isinstance(cur, dict) and not key):
        raise ValueError(f"--set: {name!r} is not an integer setting of cuzklab.msm.gpu (NAME or NAME.key)")
    try:
        values = [int(v) for v in vals.split(",") if v.strip()]
    except ValueError:
        values = []
    if not values or min(values) < 0:
        raise ValueError(f"--set {name}: expected comma-separated integers >= 0, got {vals!r}")
    return name, values


def _assign(name: str, value: int) -> None:
    attr, _, key = name.partition(".")
    if key:
        getattr(gpu, attr)[key] = value
    else:
        setattr(gpu, attr, value)


def _compile(group: str, mul: str, hot: str) -> float:
    """Compile one variant's MSM modules (into CuPy's disk cache); return the seconds it took."""
    t0 = time.perf_counter()
    _apply(group, mul, hot)
    for f in (gpu.SOURCE, "bench_points.cu"):
        gpu.CupyRunner.module(f, group)
    return time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--group", choices=["g1", "g2"], default="g1")
    ap.add_argument("--sizes", default="20", help="comma-separated log2 sizes")
    ap.add_argument("--windows", default="default", help="'default' or comma-separated window sizes")
    ap.add_argument("--mul", default="default", help="';'-separated multiplier specs (e.g. 'default;fp=cios')")
    ap.add_argument("--glv", choices=["default", "on", "off"], default="default")
    ap.add_argument("--hot", default="default",
                    help="';'-separated gpu.HOT values: kernels with inline multiplications")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=V1,V2",
                    help="an integer setting of cuzklab.msm.gpu to vary (repeatable)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=4, help="processes compiling the variants' kernels")
    ap.add_argument("--compile-only", action="store_true", help="fill the kernel cache and stop")
    ap.add_argument("--json", default="tune_msm.json", help="output JSON path ('' for none)")
    args = ap.parse_args(argv)
    sizes = [int(t) for t in args.sizes.split(",") if t.strip()]
    windows = [None] if args.windows == "default" else [int(t) for t in args.windows.split(",")]
    muls = [t.strip() for t in args.mul.split(";") if t.strip()]
    hots = [t.strip() for t in args.hot.split(";") if t.strip()]
    if args.repeats < 1 or args.jobs < 1:
        ap.error("--repeats and --jobs must be >= 1")
    variants = list(itertools.product(muls, hots))
    for m, h in variants:  # bad values fail before any work
        try:
            _apply(args.group, m, h)
        except ValueError as exc:
            ap.error(str(exc))
    glv = {"default": None, "on": True, "off": False}[args.glv]
    try:
        settings = [_setting(t) for t in args.set]
    except ValueError as exc:
        ap.error(str(exc))

    from cuzklab.backend import device_name
    from cuzklab.msm.bench import bench_msm
    report = {"device": device_name("gpu"), "group": args.group, "compile_s": {}, "results": [], "errors": []}
    t0 = time.perf_counter()
    ctx = mpc.get_context("spawn")
    with cf.ProcessPoolExecutor(max_workers=min(args.jobs, len(variants)), mp_context=ctx) as pool:
        futs = {pool.submit(_compile, args.group, m, h): (m, h) for m, h in variants}
        for fut in cf.as_completed(futs):
            m, h = futs[fut]
            try:
                report["compile_s"][f"{m}|{h}"] = round(fut.result(), 1)
            except Exception as exc:
                report["errors"].append({"mul": m, "hot": h, "error": f"compile: {exc!r}"})
                print(f"compile failed for mul={m} hot={h}: {exc!r}", flush=True)
    print(f"compiled {len(variants)} variants in {time.perf_counter() - t0:.1f} s: {report['compile_s']}", flush=True)
    if args.compile_only:
        return 1 if report["errors"] else 0

    combos = list(itertools.product(*[[(name, v) for v in vals] for name, vals in settings]))
    for k, w, (m, h), combo in itertools.product(sizes, windows, variants, combos):
        try:
            _apply(args.group, m, h)
            for name, v in combo:
                _assign(name, v)
            r = bench_msm(k, "gpu", group=args.group, repeats=args.repeats, window=w, upload=False, glv=glv)
            r.update(mul=m, hot=h, settings=dict(combo))
            report["results"].append(r)
            phases = ", ".join(f"{name} {t * 1e3:.2f}" for name, t in r.get("phases_s", {}).items())
            extra = "".join(f" {name}={v}" for name, v in combo)
            print(f"{args.group} 2^{k} c={r['window']} mul={m} hot={h}{extra}: median {r['median_s'] * 1e3:.3f} ms "
                  f"(min {min(r['times_s']) * 1e3:.3f}), checked {r['checked']} [ms: {phases}]", flush=True)
        except Exception as exc:
            report["errors"].append({"log2_size": k, "window": w, "mul": m, "hot": h,
                                     "settings": dict(combo), "error": repr(exc)})
            traceback.print_exc()
        if args.json:
            write_text(args.json, json.dumps(report, indent=2))
    ok = not report["errors"] and all(r["checked"] for r in report["results"])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
