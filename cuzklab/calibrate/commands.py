"""``cuzklab calibrate`` and ``cuzklab compare``.

::

    cuzklab calibrate --live --log2-constraints K [--backend cpu|gpu] --name NAME
                      [--gpu-threads N] [--proofs P] [--contention 0,5,10] [--contention-rounds N]
                      [--witness-work W] [--out DIR] [--json FILE]
    cuzklab calibrate --logs FILE... --name NAME [--base PROFILE] [--set key=value]...
                      [--out DIR] [--json FILE]
    cuzklab calibrate --measurements FILE.json --name NAME [--out DIR] [--json FILE]
    cuzklab calibrate --repace PROFILE --name NAME [--checks N] [--other-work W]
                      [--out DIR] [--json FILE]
    cuzklab compare --profile NAME|PATH --log2-constraints K [--backend cpu|gpu]
                    [--config cuzk.toml] [--set key=value]... [--grid FILE]
                    [--witness-work W] [--repeats N] [--track-host]
                    [--contention 0,1,2,4,8,12 [--gpu-threads N] [--contention-rounds N]]
                    [--json FILE] [--html FILE]
    cuzklab compare --profile NAME|PATH --logs RUN [RUN ...] [--set key=value]...
                    [--json FILE] [--html FILE]
      (RUN: a daemon log, or the files of one run joined by commas: its log,
       cuzk-bench output, /status JSON)
    cuzklab compare --profile NAME|PATH --measured FILE.json[,FILE.json...]
                    [--live-traces DIR[,DIR...]] [--json FILE] [--html FILE]
      (several files: the passes of one job, each row judged on its median run)

Every bad input is one ``cuzklab: error: ...`` line and exit code 2 before
any measurement starts.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import shlex
import sys


def _counts(text: str) -> list[int]:
    try:
        vals = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers >= 0, got {text!r}") from None
    if not vals or min(vals) < 0:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers >= 0, got {text!r}")
    return vals


def _name(text: str) -> str:
    from ..errors import ConfigError
    from .live import check_name
    try:
        return check_name(text)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(exc.message) from None


def _command(argv_tail: str) -> str:
    return "cuzklab " + argv_tail


def register(sub) -> None:
    """Add the ``calibrate`` and ``compare`` sub-commands."""
    from ..backend import BACKENDS
    from ..cliargs import add_config_arguments, int_at_least
    from ..live.commands import log2_constraints_arg, witness_work_arg
    p = sub.add_parser(
        "calibrate", help="fit a profile to this machine (--live) or to a daemon's logs (--logs)",
        description="Measure this machine with the live executor, or read a cuzk daemon's "
                    "logs, and write data/profiles/NAME.toml with the provenance of every "
                    "number and the configurations it was fitted on.")
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--live", action="store_true", help="measure this machine live")
    how.add_argument("--logs", nargs="+", metavar="FILE",
                     help="the files of one run of a cuzk daemon (its log, cuzk-bench output, "
                          "/status JSON)")
    how.add_argument("--measurements", metavar="FILE.json",
                     help="make the profile again from the measurements of an earlier "
                          "calibrate --live --json (nothing is measured)")
    how.add_argument("--repace", metavar="PROFILE",
                     help="re-pace a profile of calibrate --live to this host's speed of the "
                          "moment: time --checks host checks (a one-thread synthesis and "
                          "b_g2_msm calls on the calibration's pool) and scale those stages' "
                          "figures by the checks over the profile's (under a minute at 2^20)")
    p.add_argument("--name", type=_name, required=True, help="the profile's name (NAME.toml)")
    p.add_argument("--log2-constraints", type=log2_constraints_arg, default=None, metavar="K",
                   help="--live: rows per partition circuit, 2^K")
    p.add_argument("--backend", choices=BACKENDS, default="cpu",
                   help="--live: gpu (CUDA) or cpu (CPU stand-ins); default cpu")
    p.add_argument("--gpu-threads", type=int_at_least(0), default=0, metavar="N",
                   help="--live: the prep_msm / b_g2_msm pool (0, the default: every core)")
    p.add_argument("--proofs", type=int_at_least(1), default=3, metavar="P",
                   help="--live: proofs of each solo run (medians over them; default 3)")
    p.add_argument("--contention", type=_counts, default=None, metavar="S,S,...",
                   help="--live: concurrent syntheses to time prep_msm and b_g2_msm beside "
                        f"(default {_default_counts()}; 0 must be among them)")
    p.add_argument("--contention-rounds", type=int_at_least(1), default=None, metavar="N",
                   help="--live: passes over the contention counts, each there and back "
                        f"(default {_rounds()}; fewer on a quiet machine, more on a shared one)")
    p.add_argument("--witness-work", type=witness_work_arg, default=1.0, metavar="W",
                   help="--live: the witness program's work per constraint (default 1)")
    p.add_argument("--base", default="porep-32g", metavar="PROFILE",
                   help="--logs: the profile whose other values the new one keeps")
    p.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                   help="--logs: a configuration key the logs do not show (repeatable)")
    p.add_argument("--checks", type=int_at_least(1), default=None, metavar="N",
                   help=f"--repace: host checks to time (default {_repace_checks()})")
    p.add_argument("--other-work", type=witness_work_arg, default=None, metavar="W",
                   help="--repace: also time each check's one-thread synthesis at witness "
                        "work W (e.g. 0) and record its ratio to the calibration's, so that "
                        "runs at other witness works are modelled on the line through the two")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="folder to write NAME.toml into (default: the profiles folder)")
    p.add_argument("--json", default=None, metavar="FILE",
                   help="also write the measurements as JSON")
    p.set_defaults(func=run_calibrate)

    c = sub.add_parser(
        "compare", help="simulate and run live the same configurations (or read a daemon's "
                        "runs from its logs): the model's error",
        description="Simulate each configuration on the profile and run it live (or, with "
                    "--logs, read each run of a cuzk daemon from its logs and simulate the "
                    "configuration it ran), then print and write the model's error per "
                    "metric; rows the profile was fitted on are marked.")
    c.add_argument("--profile", required=True, metavar="NAME|PATH", help="the profile to judge")
    c.add_argument("--log2-constraints", type=log2_constraints_arg, default=None, metavar="K",
                   help="rows per partition circuit of the live runs, 2^K (required unless "
                        "--measured or --logs)")
    c.add_argument("--backend", choices=BACKENDS, default="cpu",
                   help="gpu (CUDA) or cpu (CPU stand-ins); default cpu")
    add_config_arguments(c)
    c.add_argument("--grid", default=None, metavar="FILE",
                   help="a TOML grid ([parameters] and [grid] tables, or points = [...])")
    c.add_argument("--witness-work", type=witness_work_arg, default=1.0, metavar="W",
                   help="the witness program's work per constraint (default 1)")
    c.add_argument("--measured", default=None, metavar="FILE.json[,FILE.json...]",
                   help="judge the profile against the live rows of an earlier compare JSON "
                        "(the model is simulated again; nothing runs live); several joined by "
                        "commas are the passes of one job, one run a row each: each row is "
                        "judged on its median run, as --repeats would")
    c.add_argument("--logs", nargs="+", default=None, metavar="RUN",
                   help="judge the profile against a cuzk daemon's own runs instead of live "
                        "ones: each RUN is a daemon log, or the files of one run joined by "
                        "commas (log,cuzk-bench output,/status JSON); its configuration is read "
                        "from them, --set gives what they do not show")
    c.add_argument("--live-traces", default=None, metavar="DIR[,DIR...]",
                   help="--measured: the folder of its live traces (bench_compare.py --traces), "
                        "one per --measured file in its order: each row's GPU hold and "
                        "b_g2_msm pool pace from its median run, and its timeline on the "
                        "--html page")
    c.add_argument("--repeats", type=int_at_least(1), default=1, metavar="N",
                   help="run the configurations N times over, pass after pass; each row is "
                        "then its run of median s/proof, with every run's figures and their "
                        "spread beside the target (default 1)")
    c.add_argument("--track-host", action="store_true",
                   help="time a one-thread synthesis and b_g2_msm calls on the run's pool "
                        "alone before and after every live run, and judge the model also at "
                        "the host's speed of those checks (docs/calibrate.md)")
    c.add_argument("--contention", type=_counts, default=None, metavar="S,S,...",
                   help="also measure the contention curve at these counts, with the model's "
                        "(counts the profile's pool weight was fitted on, e.g. 3,6,11, are "
                        "marked fitted; with them the weight is also fitted again on the "
                        "curve's own points there and the others judged on it)")
    c.add_argument("--gpu-threads", type=int_at_least(1), default=None, metavar="N",
                   help="the contention curve's pool (default: the profile's calibration pool)")
    c.add_argument("--contention-rounds", type=int_at_least(1), default=None, metavar="N",
                   help=f"passes over the contention counts, each there and back (default {_rounds()})")
    c.add_argument("--json", default=None, metavar="FILE", help="write the comparison as JSON")
    c.add_argument("--html", default=None, metavar="FILE",
                   help="write a page with the table and each row's two timelines")
    c.set_defaults(func=run_compare)


def _repace_checks() -> int:
    from .hostcheck import REPACE_CHECKS
    return REPACE_CHECKS


def _default_counts() -> str:
    from .live import DEFAULT_CONTENTION
    return ",".join(map(str, DEFAULT_CONTENTION))


def _rounds() -> int:
    from .measure import CONTENTION_ROUNDS
    return CONTENTION_ROUNDS


def _stored_measurements(path) -> dict:
    """Return the ``measurements`` of a ``calibrate --live --json`` file (or the file's object)."""
    from ..errors import ConfigError
    try:
        data = json.loads(open(path, encoding="utf-8").read())
    except (OSError, ValueError) as exc:
        raise ConfigError("--measurements", f"{path}: not readable JSON: {exc}") from None
    meas = data.get("measurements", data) if isinstance(data, dict) else None
    if not isinstance(meas, dict) or meas.get("method") != "live":
        raise ConfigError("--measurements", f"{path}: not the JSON of calibrate --live --json "
                          "(no live measurements in it)")
    return meas


def run_calibrate(args) -> int:
    """Measure (or read the logs), write the profile, print where it went."""
    from ..cliargs import input_file, output_dir, output_file, require_backend
    from ..errors import ConfigError
    from .toml import write_profile
    if args.out:
        output_dir(args.out, "--out")
    if args.json:
        output_file(args.json, "--json")
    cmd = _command(shlex.join(sys.argv[1:])) if sys.argv[1:2] == ["calibrate"] else ""
    for flag, value in (("--checks", args.checks), ("--other-work", args.other_work)):
        if value is not None and not args.repace:
            raise ConfigError(flag, "only goes with --repace")
    if args.repace:
        return _repace(args, cmd)
    if args.measurements:
        from .live import derive_profile
        meas = _stored_measurements(input_file(args.measurements, "--measurements", text=True))
        try:
            res = derive_profile(meas, args.name, command=cmd)
        except ConfigError as exc:
            raise ConfigError("--measurements", f"{args.measurements}: {exc}") from None
    elif args.live:
        if args.log2_constraints is None:
            raise ConfigError("--log2-constraints", "is required with --live (e.g. 18)")
        require_backend(args.backend, "--backend")
        from .live import DEFAULT_CONTENTION, calibrate_live
        counts = list(DEFAULT_CONTENTION) if args.contention is None else args.contention
        if 0 not in counts:
            raise ConfigError("--contention", f"must include 0 (the solo point), got "
                              f"{','.join(map(str, counts))}")
        def progress(i, n, what, seconds):
            print(f"calibrate [{i}/{n}] {what} ({seconds:.0f} s so far)", file=sys.stderr,
                  flush=True)
        res = calibrate_live(args.log2_constraints, name=args.name, backend=args.backend,
                             gpu_threads=args.gpu_threads, proofs=args.proofs,
                             contention=counts, witness_work=args.witness_work,
                             command=cmd, progress=progress,
                             contention_rounds=args.contention_rounds)
    else:
        for f in args.logs:
            input_file(f, "--logs", text=True)
        from ..cliargs import profile_arg
        profile_arg(args.base, "--base")
        sets = _set_keys(args.sets)
        from .logs import calibrate_logs
        try:
            res = calibrate_logs(args.logs, name=args.name, base=args.base, config=sets,
                                 command=cmd)
        except ConfigError as exc:
            if exc.key != "logs":
                raise
            raise ConfigError("--logs", exc.message) from None
    path = write_profile(res["text"], args.name, args.out)
    if args.json:
        from ..atomic import write_text
        write_text(args.json, json.dumps({"profile": str(path), "calibration": res["calibration"],
                                          "measurements": res["measurements"]},
                                         indent=1, default=str))
    print(format_calibration(res, path))
    return 0


def _repace(args, cmd: str) -> int:
    """``calibrate --repace``: time host checks, write the profile scaled to them."""
    from ..cliargs import profile_arg, require_backend
    from .hostcheck import REPACE_CHECKS, calibration_size, check_other_work, repace
    prof = profile_arg(args.repace, "--repace")
    size = calibration_size(prof)
    other = check_other_work(prof, args.other_work)
    require_backend(size["backend"], "--repace")
    n = args.checks or REPACE_CHECKS
    also = "" if other is None else f" (the synthesis also at {other:g})"
    print(f"calibrate --repace {prof.name}: {n} host checks at 2^{size['log2_constraints']}, "
          f"witness work {size['witness_work']:g}{also}, {size['backend']} backend, a pool of "
          f"{size['gpu_threads'] or 'every'} threads", file=sys.stderr, flush=True)

    def progress(i, total, seconds):
        print(f"calibrate --repace [{i}/{total}] host check ({seconds:.0f} s so far)",
              file=sys.stderr, flush=True)
    path, res = repace(prof, args.name, checks=n, directory=args.out, command=cmd,
                       other_work=other, progress=progress)
    if args.json:
        from ..atomic import write_text
        write_text(args.json, json.dumps({"profile": str(path), **res}, indent=1, default=str))
    print(format_repace(res, path))
    return 0


def format_repace(res: dict, path) -> str:
    """The lines ``calibrate --repace`` prints: the ratios and each figure it moved."""
    r = res["ratios"]
    lines = [f"profile {pathlib.Path(path).stem}: {path}",
             f"  {res['repaced_from']} re-paced: synthesis x{r['synth']:.3f}, b_g2_msm "
             f"x{r['b_g2_msm']:.3f} (the geometric mean of {len(res['checks'])} host checks over the profile's "
             "figures; above 1: this host is slower now than at the calibration)"]
    for key, c in res["changed"].items():
        lines.append(f"  {key}: {c['from']:.6g} -> {c['to']:.6g}")
    if res.get("synth_ratio_at_other") is not None:
        lines.append(f"  a one-thread synthesis at witness work {res['other_work']:g}: "
                     f"x{res['synth_ratio_at_other']:.4f} one at the calibration's "
                     "([calibration] synth_ratio_at_other; other witness works on their line)")
    spread = [c["synth_s"] for c in res["checks"]]
    if len(spread) > 1:
        lo, hi = min(spread), max(spread)
        lines.append(f"  the checks' one-thread syntheses spread {100 * (hi / lo - 1):.0f} % "
                     f"({lo:.4g}-{hi:.4g} s)")
    far = [f"{stage} x{v:.3g}" for stage, v in r.items() if not 0.5 <= v <= 2.0]
    if far:
        lines.append(f"  note: {', '.join(far)} {'is' if len(far) == 1 else 'are'} beyond what "
                     "the stored jobs' hosts moved at 2^20 (x0.55-1.5): at a small size a check "
                     "times microseconds of work, which overheads and other processes swing; at "
                     "2^20, was the profile calibrated on this host?")
    return "\n".join(lines)


def run_compare(args) -> int:
    """Simulate and run live each configuration; print the table and write JSON/HTML."""
    from ..cliargs import config_from_args, output_file, profile_arg, require_backend
    from ..errors import ConfigError
    from .compare import compare, format_table, load_grid
    prof = profile_arg(args.profile)
    require_backend(args.backend, "--backend")
    for option, path in (("--json", args.json), ("--html", args.html)):
        if path:
            output_file(path, option)
    if args.measured and args.logs:
        raise ConfigError("--logs", "cannot be used with --measured: judge either a stored "
                          "comparison or a daemon's logs")
    if args.measured:
        return _remeasured(args, prof)
    if args.logs:
        return _logged(args, prof)
    if args.live_traces:
        raise ConfigError("--live-traces", "is read with --measured (the traces of a stored "
                          "comparison); give --measured FILE.json too")
    if args.log2_constraints is None:
        raise ConfigError("--log2-constraints", "is required to run live (e.g. 18); judging "
                          "stored rows (--measured) or a daemon's runs (--logs) needs none")
    if args.grid:
        configs = load_grid(args.grid)
        try:
            configs = [c.with_overrides(args.sets) for c in configs]
        except ConfigError as exc:
            raise ConfigError("--set", str(exc)) from None
    else:
        config, _, _ = config_from_args(args, prof)
        configs = [config]
    if args.contention_rounds is not None and args.contention is None:
        raise ConfigError("--contention-rounds", "is the contention curve's: give --contention too")
    if args.contention is not None and (0 not in args.contention or max(args.contention) == 0):
        raise ConfigError("--contention", "must hold 0 (the solo point) and at least one count "
                          f"above it, got {','.join(map(str, args.contention))}")
    pool = args.gpu_threads or int(prof.get("calibration", "gpu_threads", 0) or 0) or None
    if args.contention is not None and pool is None:
        raise ConfigError("--gpu-threads", "is required with --contention when the profile "
                          "records no calibration pool")
    res = compare(configs, profile=prof, log2_constraints=args.log2_constraints,
                  backend=args.backend, witness_work=args.witness_work,
                  keep_traces=bool(args.html), repeats=args.repeats,
                  track_host=args.track_host)
    print(format_table(res))
    if args.contention is not None:
        from .contention import contention_curve
        curve = contention_curve(prof, args.log2_constraints, args.contention,
                                 pool_threads=pool, backend=args.backend,
                                 witness_work=args.witness_work, rounds=args.contention_rounds)
        res["contention"] = curve
        print(format_curve(curve, prof.data.get("calibration")))
    return _write_comparison(args, res)


def _set_keys(sets: list[str]) -> dict:
    """Return the configuration keys ``--set`` gives (checked), and only those: what
    the logs do not show, over what they do."""
    from ..errors import ConfigError
    from ..model import PipelineConfig
    try:
        values = PipelineConfig().with_overrides(sets).to_dict()
    except ConfigError as exc:
        raise ConfigError("--set", str(exc)) from None
    named = {a.partition("=")[0].strip() for a in sets}
    return {k: v for k, v in values.items() if k in named}


def _write_comparison(args, res: dict) -> int:
    """Write a comparison's --json (without its traces) and --html page; say where."""
    from .compare import jsonable
    if args.json:
        from ..atomic import write_text
        write_text(args.json, json.dumps(jsonable(res), indent=1, default=str))
        print(f"json: {args.json}")
    if args.html:
        from ..plots.model_vs_live import compare_html
        compare_html(res, args.html)
        print(f"html: {args.html}")
    return 0


def _logged(args, prof) -> int:
    """compare --logs: the model beside each run of a cuzk daemon, read from its logs."""
    from ..cliargs import input_file
    from ..errors import ConfigError
    from .compare import format_table
    from .logcompare import compare_logs
    for option, given in (("--log2-constraints", args.log2_constraints is not None),
                          ("--grid", args.grid), ("--config", args.config),
                          ("--repeats", args.repeats != 1), ("--track-host", args.track_host),
                          ("--contention", args.contention is not None),
                          ("--contention-rounds", args.contention_rounds is not None),
                          ("--gpu-threads", args.gpu_threads is not None),
                          ("--witness-work", args.witness_work != 1.0),
                          ("--live-traces", args.live_traces)):
        if given:
            hint = (" (the logs give each run's configuration; --set what they do not show)"
                    if option == "--config" else "")
            raise ConfigError(option, f"cannot be used with --logs: nothing runs live{hint}")
    runs = []
    for arg in args.logs:
        files = [f for f in arg.split(",") if f.strip()]
        if not files:
            raise ConfigError("--logs", f"{arg!r} names no file")
        runs.append([input_file(f.strip(), "--logs", text=True) for f in files])
    sets = _set_keys(args.sets)
    try:
        res = compare_logs(runs, profile=prof, overrides=sets, keep_traces=bool(args.html))
    except ConfigError as exc:
        if exc.key not in ("logs", "set", "profile"):
            raise
        raise ConfigError(f"--{exc.key}", exc.message) from None
    print(format_table(res))
    for r in res["rows"]:
        rel = ", ".join(r["releases"]) or "no release recognised"
        print(f"  {_short_run(r)}: {', '.join(pathlib.Path(f).name for f in r['logs'])} "
              f"({rel})")
    return _write_comparison(args, res)


def _short_run(row: dict) -> str:
    from .compare import _short
    c = row["config"]
    return f"{_short(c)} ({c['proofs']} proofs, j={c['concurrency']})"


def _remeasured(args, prof) -> int:
    """compare --measured: the model again, against the live rows of earlier comparisons
    (one, or the passes of one job joined by commas, each row judged on its median run)."""
    from ..cliargs import input_file
    from ..errors import ConfigError
    from .compare import format_table, merge_passes, remodel
    names = [n.strip() for n in args.measured.split(",")]
    if not all(names):
        raise ConfigError("--measured", f"expected FILE.json or FILE.json,FILE.json,...; got "
                          f"{args.measured!r}")
    stored, paths = [], []
    for name in names:
        path = input_file(name, "--measured", text=True)
        try:
            one = json.loads(path.read_text(encoding="utf-8"))
            _ = [(r["config"], r["live"]["seconds_per_proof"]) for r in one["rows"]]
        except (ValueError, KeyError, TypeError):
            raise ConfigError("--measured", f"{path} is not the JSON of cuzklab compare (needs "
                              "rows with config and live)") from None
        stored.append(one)
        paths.append(path)
    for option, given in (("--grid", args.grid), ("--contention", args.contention),
                          ("--contention-rounds", args.contention_rounds),
                          ("--track-host", args.track_host)):
        if given:
            raise ConfigError(option, "cannot be used with --measured (nothing runs live)")
    traces = None
    if args.live_traces:
        traces = [pathlib.Path(t.strip()) for t in args.live_traces.split(",")]
        if len(traces) != len(paths):
            raise ConfigError("--live-traces", f"give one folder per --measured file, joined by "
                              f"commas in the same order: {len(paths)} files, {len(traces)} "
                              "folders")
        for t in traces:
            if not t.is_dir():
                raise ConfigError("--live-traces", f"{t} is not a folder (give the --traces "
                                  "folder of the comparison's bench_compare.py run)")
    try:
        merged = merge_passes(stored, traces) if len(stored) > 1 else stored[0]
    except ConfigError as exc:
        raise ConfigError("--measured", exc.message) from None
    merged = {**merged, "measured_files": [p.name for p in paths]}
    res = remodel(merged, prof, live_traces=traces[0] if traces and len(stored) == 1 else None,
                  keep_traces=bool(args.html))
    print(format_table(res))
    from .contention import has_load
    if has_load(res.get("contention")):
        print(format_curve(res["contention"], res.get("calibration")))
    how = f"measured with profile {stored[0].get('profile')}"
    if len(paths) > 1:
        how = f"{len(paths)} passes, each row judged on its median run; {how}"
    print(f"live side: {', '.join(p.name for p in paths)} ({how})")
    if args.html and not any(r.get("traces") for r in res["rows"]):
        print("html: no saved live traces (--live-traces), so the page has no timelines")
    return _write_comparison(args, res)


def calibration_points_text(curve: dict, calibration: dict | None) -> str:
    """Return the calibration's b_g2_msm points beside the curve's live ones at the same
    counts (:func:`~cuzklab.calibrate.contention.calibration_points`); '' where either side
    lacks them."""
    from .contention import calibration_points
    pairs = calibration_points(curve, calibration)
    if not pairs:
        return ""
    ratios = [x / y for _, x, y in pairs]
    lo, hi = min(ratios), max(ratios)
    where = ("above" if lo > 1.10 else "below" if hi < 1 / 1.10 else "within 10 % of"
             if max(hi, 1 / lo) <= 1.10 else "apart from")
    return ("the calibration's points, fitted on, against this curve's live ones there: "
            + ", ".join(f"beside {c} x{x:.2f} | x{y:.2f}" for c, x, y in pairs)
            + f" (x{lo:.2f}-{hi:.2f}): the weight was fitted on points {where} this curve"
            + (", and the model's curve follows them" if where in ("above", "below") else ""))


def format_curve(curve: dict, calibration: dict | None = None) -> str:
    """Return the contention curve, live against model, as a text table.

    ``calibration``: the profile's ``[calibration]`` table, to set the points its pool
    weight was fitted on beside the curve (:func:`calibration_points_text`).
    """
    lines = [f"contention, pool of {curve['pool_threads']}: seconds live|model, slowdown "
             "live|model and its error (model / live - 1)",
             f"{'syntheses':>9} {'fit':>3}  {'prep_msm s':>15} {'x':>11} {'err':>5}  "
             f"{'b_g2_msm s':>15} {'x':>11} {'err':>5}"]
    for r in curve["rows"]:
        cells = []
        for s in ("prep_msm", "b_g2_msm"):
            cells.append(f"{r[f'{s}_live_s']:>7.4f}|{r[f'{s}_model_s']:<7.4f} "
                         f"{r.get(f'{s}_live_x', 1):>5.2f}|{r.get(f'{s}_model_x', 1):<5.2f} "
                         f"{100 * r.get(f'{s}_x_error', 0):>+4.0f}%")
        lines.append(f"{r['syntheses']:>9} {'yes' if r['fitted'] else '':>3}  " + "  ".join(cells))
    if curve["rows"] and all("host_probe_live_x" in r for r in curve["rows"]):
        from .contention import raw_prep_reason
        why = raw_prep_reason(curve)
        how = (f"prep_msm is its raw seconds: {why}" if why else
               "prep_msm is each call over the host probe timed around it (the model's over "
               "its own probe)")
        lines.append(f"{how}; its raw slowdown / the probe's, live (model): "
                     + ", ".join(f"{r['syntheses']}: x{r.get('prep_msm_raw_live_x', 1):.2f}"
                                 f" / x{r['host_probe_live_x']:.2f}"
                                 + (f" (x{r.get('prep_msm_raw_model_x', r['prep_msm_model_x']):.2f}"
                                    f" / x{r['host_probe_model_x']:.2f})"
                                    if "host_probe_model_x" in r else "")
                                 for r in curve["rows"]))
    if curve.get("slowdowns") == "paired":
        lines.append("live slowdowns: the median over passes of a visit beside S syntheses over "
                     "the visit beside none in the same pass")
    t = curve.get("target") or {}
    if t.get("max_abs_error") is not None:
        lines.append(f"slowdown: worst {100 * t['max_abs_error']:.1f} % over the points not fitted "
                     f"(target {100 * t['slowdown_error']:.0f} %): "
                     f"{'met' if t['met'] else 'NOT met'}")
    text = calibration_points_text(curve, calibration)
    if text:
        lines.append(text)
    text = same_pass_text(curve)
    if text:
        lines.append(text)
    return "\n".join(lines)


def same_pass_text(curve: dict) -> str:
    """Return the curve judged on the pool weight fitted again on its own points at the
    calibration's counts (``same_pass``), '' where the curve did not visit them."""
    from .contention import CURVE_TARGET
    same = (curve or {}).get("same_pass")
    if not same:
        return ""
    live = {r["syntheses"]: r for r in curve["rows"]}
    cells = ", ".join(f"{p['syntheses']}: x{live[p['syntheses']]['b_g2_msm_live_x']:.2f}|"
                      f"x{p['b_g2_msm_model_x']:.2f} {100 * p['b_g2_msm_x_error']:+.0f}%"
                      for p in same["rows"] if not p.get("fitted"))
    return (f"pool weight fitted again on this curve's own points beside "
            f"{', '.join(map(str, same['counts']))} (the calibration's counts, timed in the same "
            f"passes): {same['pool_weight']:.3g} (the profile's {same['profile_pool_weight']:.3g}); "
            f"b_g2_msm live|model on it: {cells}; worst {100 * same['max_abs_error']:.1f} % over "
            f"the other points (target {100 * CURVE_TARGET:.0f} %): "
            f"{'met' if same['met'] else 'NOT met'}")


def syntheses_spread_text(curve: dict | None) -> str:
    """Return how the one-thread syntheses of the k-at-once curve's widest count spread:
    the slowest over the fastest, and their threads' CPU seconds over their seconds ('' for a
    curve recorded before these were kept)."""
    rows = [r for r in (curve or {}).get("rows") or () if r.get("durations_s")]
    if not rows:
        return ""
    r = rows[-1]
    d, c = r["durations_s"], r.get("cpu_s") or []
    text = (f"{r['syntheses']} one-thread syntheses at once: {min(d):.3g}-{max(d):.3g} s, "
            f"the slowest x{max(d) / min(d):.2f} the fastest")
    if len(c) == len(d) and sum(d) > 0:
        text += f"; their threads on a core {100 * sum(c) / sum(d):.0f} % of that time"
    return text


def witness_at_once_text(curve: dict | None) -> str:
    """Return how the witness step of one-thread syntheses at the k-at-once curve's other
    witness work slowed with k (medians over its rounds), '' where the curve has none."""
    other = (curve or {}).get("at_other") or {}
    rows = [r for r in other.get("rows") or () if r.get("witness_s")]
    if not rows or rows[0]["witness_median_s"] <= 0:
        return ""
    base = rows[0]["witness_median_s"]
    parts = ", ".join(f"{r['syntheses']}: {r['witness_median_s'] * 1e3:.3g} ms"
                      for r in rows)
    last = rows[-1]
    return (f"witness work {other['witness_work']:g}, k one-thread syntheses at once "
            f"({other['rounds']} rounds), the witness step's median: {parts} "
            f"(x{last['witness_median_s'] / base:.2f} at {last['syntheses']} over "
            f"{rows[0]['syntheses']}; the model shares the cores as fitted at the calibration's work)")


def witness_spread_text(curve: dict | None) -> str:
    """Return how far apart the witness steps of the k-at-once curve's syntheses ended, at
    the calibration's witness work and the other one (the model's synth.witness_spread and
    its line), '' where the curve kept none."""
    from .live import witness_spread
    curve = curve or {}
    here = witness_spread(curve.get("rows"))
    if not here:
        return ""
    other = curve.get("at_other") or {}
    there = witness_spread(other.get("rows"))
    text = (f"the witness steps of syntheses started together end apart: rms log "
            f"{here['spread']:.3f} over their waves' medians")
    if there:
        text += f", {there['spread']:.3f} at witness work {other['witness_work']:g}"
    return text + " (synth.witness_spread)"


def _ms(seconds: float) -> str:
    """Return ``seconds`` in milliseconds to three figures, never in exponent form."""
    ms = seconds * 1e3
    return f"{ms:.0f}" if ms >= 100 else f"{ms:.3g}"


def beside_pool_text(mvp: dict | None) -> str:
    """Return how a W=0 witness step and one prep_msm slowed beside b_g2_msm calls back to
    back on their pool (the MatVec pool step's extra timings; the witness step also at the
    calibration's own work where it was timed there), and where each went: the witness
    steps into the model's ``synth.witness_pool_slowdown``
    (:func:`~cuzklab.calibrate.compare.witness_pool_slowdown_at`), prep_msm not; '' where
    it has none."""
    mvp = mvp or {}
    parts = []
    at = mvp.get("witness_at_work") or {}
    for key, what, where in (
            ("witness", "the W=0 witness step", "[calibration] witness_beside_pool"),
            ("witness_at_work", f"at witness work {float(at.get('witness_work', 1)):g}",
             "with the one above, [calibration] witness_work_beside_pool"),
            ("prep_msm", "one prep_msm", "measured, not in the model")):
        r = mvp.get(key)
        if r and r.get("alone_s", 0) > 0:
            parts.append(f"{what} {_ms(r['alone_s'])} ms alone, "
                         f"{_ms(r['beside_s'])} ms beside them (x{r['slowdown']:.2f}; "
                         f"{where})")
    if not parts:
        return ""
    return (f"beside {mvp.get('calls')} b_g2_msm calls back to back on their pool: "
            + "; ".join(parts))


def format_calibration(res: dict, path=None) -> str:
    """Return what a calibration measured and fitted, in a few lines."""
    import sys as _sys
    if _sys.version_info >= (3, 11):
        import tomllib as _toml
    else:  # pragma: no cover
        import tomli as _toml
    data = _toml.loads(res["text"])
    cal = res["calibration"]
    lines = [f"profile {data['name']}" + (f": {path}" if path else ""),
             f"  {cal['method']} calibration of {cal['date']}; fitted on "
             f"{len(cal['fitted_on'])} configuration(s)"]
    if cal["method"] == "live":
        n, s, g = data["node"], data["synth"], data["gpu"]
        lines += [
            f"  node: {n['cores']} effective cores, {n['ddr_gbps']} GB/s copy bandwidth, "
            f"pool weight {n['cpu_pool_weight']} (fit)"
            + (f", MatVec pool weight {s['matvec_weight']} (fit)" if "matvec_weight" in s
               else ""),
            f"  synth {s['work_core_s']:.4g} s on one thread, x{s['max_threads']} on all; "
            f"prep_msm {data['prep_msm']['solo_s']:.4g} s; b_g2_msm "
            f"{data['b_g2_msm']['solo_s_at_all_cores']:.4g} s",
            f"  GPU region: ntt_h {g['ntt_h_s']:.4g} s, batch_add {g['batch_add_s']:.4g} s, "
            f"tail_msm {g['tail_msm_s']:.4g} s; idle RSS "
            f"{data['memory']['srs_gib'] + data['memory']['runtime_gib']:.3f} GiB"]
        hs = (res.get("measurements") or {}).get("host_speed")
        if hs and hs.get("rows"):
            xs = [r["chain_s"] * 1e3 for r in hs["rows"]]
            lines.append(f"  host speed: a one-thread probe took {min(xs):.3g}-{max(xs):.3g} ms "
                         f"over the {len(xs)} marks (spread {hs['spread'] * 100:.0f} %)")
        curve = (res.get("measurements") or {}).get("cores_curve")
        mvp = (res.get("measurements") or {}).get("matvec_pool")
        for text in (syntheses_spread_text(curve), witness_at_once_text(curve),
                     witness_spread_text(curve), beside_pool_text(mvp)):
            if text:
                lines.append(f"  {text}")
    else:
        for t, entries in data.items():
            if isinstance(entries, dict) and t != "calibration":
                lines.append(f"  {t}: " + ", ".join(f"{k} {v:.4g}" for k, v in entries.items()
                                                     if isinstance(v, (int, float))))
    return "\n".join(lines)
