#!/usr/bin/env python3
"""MSM timings over sizes: G1 and G2, GPU (points on the device, and with upload) and CPU.

    python benchmarks/bench_msm.py [--backend gpu|cpu] [--group g1|g2|both]
        [--g1-sizes 16,18,20,22,24] [--g2-sizes 16,18,20] [--repeats R]
        [--windows C,...] [--precomputed off|on|both] [--glv default|on|off|both]
        [--upload-batches B,...] [--upload-streams on|off|both] [--upload-pool fresh|warm|both]
        [--kernels] [--json out.json]

Distinct points, random scalars below 2^254; every timed run is checked
against the exact result (see cuzklab/msm/bench.py). GPU timings are CUDA-event
medians after a warm-up; with upload, from pageable memory and from pinned
memory (``gpu.msm_gpu_from_host``, the points uploading in ``gpu.UPLOAD_BATCHES``
parts while the work goes on; ``--upload-batches`` times other part counts in the
same run, ``pinned_upload_by_batches`` in the JSON; ``--upload-pool warm`` keeps
CuPy's device pool between runs, as the points-on-device runs do). ``--kernels`` also
times each kernel launch of one more MSM per size (``kernels`` in the JSON: every
launch, and the sums by kernel), without a profiler's replays. The JSON (device, sizes,
every time, medians) is rewritten after each size, so a run stopped midway keeps what it
measured.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import traceback

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from cuzklab.atomic import write_text  # noqa: E402
from cuzklab.backend import device_name, gpu_available  # noqa: E402
from cuzklab.msm.bench import bench_msm, bench_msm_precomputed, format_table, kernel_times  # noqa: E402

DEFAULTS = {("gpu", "g1"): "16,18,20,22,24", ("gpu", "g2"): "16,18,20",
            ("cpu", "g1"): "6,8,10", ("cpu", "g2"): "4,6"}


def _sizes(text: str) -> list[int]:
    return [int(t) for t in text.split(",") if t.strip()]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backend", choices=["gpu", "cpu"], default=None,
                    help="default: gpu when one is usable, else cpu")
    ap.add_argument("--group", choices=["g1", "g2", "both"], default="both")
    ap.add_argument("--g1-sizes", default=None, help="comma-separated log2 sizes for G1")
    ap.add_argument("--g2-sizes", default=None, help="comma-separated log2 sizes for G2")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--windows", default=None,
                    help="comma-separated window sizes to try at every size (default: chosen from n)")
    ap.add_argument("--no-upload", action="store_true", help="skip the timings with upload from host")
    ap.add_argument("--precomputed", choices=["off", "on", "both"], default="off",
                    help="also (or only) time MSMs over bases precomputed for every window")
    ap.add_argument("--glv", choices=["default", "on", "off", "both"], default="default",
                    help="GLV split of G1 scalars on plain bases (default: cuzklab.msm.gpu.GLV and its threshold)")
    ap.add_argument("--upload-batches", default=None,
                    help="comma-separated part counts to time the pinned upload with too (besides "
                         "cuzklab.msm.gpu.UPLOAD_BATCHES)")
    ap.add_argument("--upload-streams", choices=["on", "off", "both"], default="on",
                    help="with --upload-batches: each part's first batch-affine round on a stream of its "
                         "own (cuzklab.msm.gpu.UPLOAD_STREAMS), on one stream, or both")
    ap.add_argument("--upload-pool", choices=["fresh", "warm", "both"], default="fresh",
                    help="pinned upload runs from device memory returned to the driver before each "
                         "run (fresh), from CuPy's pool holding the previous run's blocks, as the "
                         "points-on-device runs do (warm), or both")
    ap.add_argument("--kernels", action="store_true",
                    help="also time each kernel launch of one more MSM per size (GPU; CUDA events "
                         "around each launch, cuzklab.msm.bench.kernel_times)")
    ap.add_argument("--json", default="bench_msm.json", help="output JSON path ('' for none)")
    args = ap.parse_args(argv)
    try:
        ubatches = [] if args.upload_batches is None else _sizes(args.upload_batches)
    except ValueError:
        ubatches = [0]
    if (args.upload_batches is not None and not ubatches) or any(b < 1 for b in ubatches):
        ap.error(f"--upload-batches: expected comma-separated integers >= 1, got {args.upload_batches!r}")
    backend = args.backend or ("gpu" if gpu_available() else "cpu")
    if args.kernels and backend != "gpu":
        ap.error("--kernels times the GPU's kernel launches: it needs --backend gpu and a CUDA device")
    groups = ["g1", "g2"] if args.group == "both" else [args.group]
    report = {"device": device_name(backend), "backend": backend, "results": [], "errors": []}
    if backend == "gpu":
        from cuzklab.field.cuda import module_multipliers
        from cuzklab.msm import gpu as msm_gpu
        report["multipliers"] = {g: module_multipliers(msm_gpu.MULTIPLIERS.get(g)) for g in ("g1", "g2")}
    for g in groups:
        given = args.g1_sizes if g == "g1" else args.g2_sizes
        pres = {"off": [False], "on": [True], "both": [False, True]}[args.precomputed]
        glvs = {"default": [None], "on": [True], "off": [False], "both": [False, True]}[args.glv]
        if g != "g1":
            glvs = [None]
        runs = [(k, w, pre, gl) for k in _sizes(given or DEFAULTS[(backend, g)])
                for w in (_sizes(args.windows) if args.windows else [None]) for pre in pres
                for gl in ([None] if pre else glvs)]
        for k, window, pre, gl in runs:
            try:
                if pre:
                    r = bench_msm_precomputed(k, backend, group=g, repeats=args.repeats, window=window)
                else:
                    r = bench_msm(k, backend, group=g, repeats=args.repeats, window=window,
                                  upload=not args.no_upload, glv=gl, upload_batches=ubatches,
                                  upload_streams={"on": (True,), "off": (False,),
                                                  "both": (True, False)}[args.upload_streams],
                                  upload_pools={"fresh": ("fresh",), "warm": ("warm",),
                                                "both": ("fresh", "warm")}[args.upload_pool])
                report["results"].append(r)
                up = r.get("upload_median_s")
                pin = r.get("pinned_upload_median_s")
                pin_warm = r.get("pinned_upload_warm_median_s")
                phases = ", ".join(f"{p} {t * 1e3:.2f}" for p, t in r.get("phases_s", {}).items())
                kind = f" precomputed ({r['precompute_s']:.2f} s to build)" if pre else ""
                kind += " glv" if r.get("glv") else ""
                print(f"{g} 2^{k}: window {r['window']}{kind}, median {r['median_s'] * 1e3:.3f} ms"
                      + (f", with upload {up * 1e3:.3f} ms" if up is not None else "")
                      + (f" (pinned, {r['pinned_upload_batches']} part(s) overlapped: {pin * 1e3:.3f} ms)"
                         if pin is not None else "")
                      + (f" (pinned, pool warm: {pin_warm * 1e3:.3f} ms)" if pin_warm is not None else "")
                      + "".join(f" ({b} parts: {v['median_s'] * 1e3:.3f} ms)"
                                for b, v in r.get("pinned_upload_by_batches", {}).items())
                      + f", checked {r['checked']}" + (f" [ms: {phases}]" if phases else ""), flush=True)
                if args.kernels and not pre:
                    kt = kernel_times(k, g, window=window, glv=gl)
                    r["kernels"] = kt
                    r["checked"] = bool(r["checked"] and kt["checked"])
                    print(f"  kernels of one more MSM ({kt['total_ms']:.2f} ms in launches over "
                          f"{kt['span_ms']:.2f} ms from the first start to the last end, checked "
                          f"{kt['checked']}): " + ", ".join(
                              f"{name} {v['ms']:.2f} ms x{v['launches']}" for name, v in kt["by_kernel"].items()),
                          flush=True)
            except Exception as exc:  # keep the other sizes; record why this one failed
                report["errors"].append({"group": g, "log2_size": k, "window": window, "error": repr(exc)})
                traceback.print_exc()
            if args.json:
                write_text(args.json, json.dumps(report, indent=2))
    print(format_table(report))
    return 0 if not report["errors"] and all(r["checked"] for r in report["results"]) else 1


if __name__ == "__main__":
    sys.exit(main())
