"""``cuzklab simulate``: run the daemon model from the command line."""

from __future__ import annotations

import json
import sys



def register(sub) -> None:
    """Add the ``simulate`` sub-command."""
    from ..cliargs import add_config_arguments, add_output_arguments
    p = sub.add_parser(
        "simulate", help="simulate the cuzk daemon on a configuration",
        description="Simulate the cuzk daemon (SimPy model) and print the run's summary.")
    p.add_argument("--profile", default=None, metavar="NAME|PATH",
                   help="profile name in data/profiles/ or a TOML path (default porep-32g)")
    p.add_argument("--seeds", type=_seeds, default=None, metavar="N",
                   help="run seeds seed..seed+N-1 and print the mean, spread and the fraction of "
                        "seeds that ran out of memory (the trace files are of the first seed)")
    add_config_arguments(p)
    p.add_argument("--workload", default=None, metavar="FILE.toml|NAME",
                   help="a mixed workload: [[stream]] tables of proof kind and arrival "
                        "(closed, poisson, periodic, replay), or a name in data/workloads/; "
                        "default one PoRep stream, closed loop")
    add_output_arguments(p)
    p.set_defaults(func=run)


def _seeds(text: str) -> int:
    import argparse
    try:
        n = int(text)
    except ValueError:
        n = 0
    if not 1 <= n <= 1000:
        raise argparse.ArgumentTypeError(f"--seeds must be a whole number from 1 to 1000, got {text!r}")
    return n


# Summary keys that seeds_summary() reports with mean and spread.
SEED_KEYS = ("seconds_per_proof", "wall_s", "proof_latency_s_mean", "gpu_prove_s_mean",
             "peak_rss_gib", "gpu_busy_fraction")


def seeds_summary(config, profile, n: int, workload=None) -> dict:
    """Simulate ``n`` seeds from ``config.seed``; return mean, spread and OOM fraction.

    Returns ``{"seeds": [...], "oom_fraction": f, "failed_fraction": f,
    "bottlenecks": {resource: count}, KEY: {"mean", "min", "max", "n"}}`` for each
    of :data:`SEED_KEYS`; a failed run has no ``seconds_per_proof`` and is left
    out of that key's mean (``n`` says how many seeds it covers). With a workload
    whose kinds have deadlines, ``deadline_misses: {kind: {"missed", "proofs",
    "deadline_s"}}`` sums them over the seeds.
    """
    from . import simulate
    seeds = [config.seed + i for i in range(n)]
    runs = [simulate(config.replace(seed=s), profile, workload=workload).summary() for s in seeds]
    out: dict = {"seeds": seeds,
                 "oom_fraction": sum(bool(r.get("oom")) for r in runs) / n,
                 "failed_fraction": sum(bool(r.get("run_failed")) for r in runs) / n,
                 "bottlenecks": {}}
    for r in runs:
        b = r["bottleneck"].get("resource")
        out["bottlenecks"][b] = out["bottlenecks"].get(b, 0) + 1
    misses: dict = {}
    for r in runs:
        for kind, k in (r.get("kinds") or {}).items():
            if k.get("deadline_misses") is None:
                continue
            m = misses.setdefault(kind, {"missed": 0, "proofs": 0, "deadline_s": k["deadline_s"]})
            m["missed"] += int(k["deadline_misses"])
            m["proofs"] += int(k["proofs"]) + int(k["not_completed"])
    if misses:
        out["deadline_misses"] = misses
    for k in SEED_KEYS:
        vals = [float(r[k]) for r in runs if r.get(k) is not None]
        out[k] = ({"mean": sum(vals) / len(vals), "min": min(vals), "max": max(vals), "n": len(vals)}
                  if vals else {"mean": None, "min": None, "max": None, "n": 0})
    return out


def format_seeds(agg: dict) -> str:
    """Return a readable table of :func:`seeds_summary`'s result."""
    n = len(agg["seeds"])
    lines = [f"  seeds            {agg['seeds'][0]}..{agg['seeds'][-1]} ({n} runs)",
             f"  OOM risk         {agg['oom_fraction']:.0%} of seeds ran out of memory"
             f" ({round(agg['oom_fraction'] * n)}/{n})"]
    for k, unit, scale in (("seconds_per_proof", " s/proof", 1), ("wall_s", " s", 1),
                           ("gpu_prove_s_mean", " s", 1), ("peak_rss_gib", " GiB", 1),
                           ("gpu_busy_fraction", " %", 100)):
        v = agg[k]
        if v["n"] == 0:
            lines.append(f"  {k:<16} —")
            continue
        lines.append(f"  {k:<16} {v['mean'] * scale:.1f}{unit} mean, {v['min'] * scale:.1f}-"
                     f"{v['max'] * scale:.1f} over {v['n']}/{n} seeds")
    lines.append("  bottleneck       " + ", ".join(f"{b} {c}/{n}" for b, c in agg["bottlenecks"].items()))
    for kind, m in (agg.get("deadline_misses") or {}).items():
        d = m["deadline_s"]
        lines.append(f"  {kind:<16} {m['missed']} of {m['proofs']} proofs missed "
                     + (f"the {d:g} s deadline" if not isinstance(d, list) else "their deadline")
                     + f" over the {n} seeds")
    return "\n".join(lines)


def run(args) -> int:
    """Simulate, print the summary and write the requested files."""
    from ..cliargs import config_from_args, output_file, profile_arg
    from . import simulate
    profile = profile_arg(args.profile)
    config, era, kept = config_from_args(args, profile)
    workload = None
    if getattr(args, "workload", None):
        from ..errors import ConfigError
        from .workload import Workload
        try:
            workload = Workload.load(args.workload)
        except ConfigError as exc:
            raise ConfigError("--workload", str(exc)) from None
    for option, path in (("--trace", args.trace), ("--perfetto", args.perfetto)):
        if path:
            output_file(path, option)
    trace = simulate(config, profile, workload=workload)
    agg = seeds_summary(config, profile, args.seeds, workload=workload) if args.seeds else None
    if args.trace:
        trace.save(args.trace)
    if args.perfetto:
        trace.to_perfetto(args.perfetto)
    summary = trace.summary()
    if agg is not None:
        summary = {**summary, "over_seeds": agg}
    if args.json:
        json.dump(summary, sys.stdout, separators=(",", ":"))
        sys.stdout.write("\n")
    else:
        print(format_summary(summary, config, profile.name, era_defaults=era,
                             kept=kept, workload=workload))
        if agg is not None:
            print(f"over seeds (the table above is seed {config.seed}):")
            print(format_seeds(agg))
        if args.trace:
            print(f"trace:    {args.trace}")
        if args.perfetto:
            print(f"perfetto: {args.perfetto}  (open in https://ui.perfetto.dev)")
    if agg is not None:
        return 1 if agg["failed_fraction"] > 0 else 0
    return 1 if summary.get("run_failed") else 0


def _stream_text(st) -> str:
    if st.arrival == "closed":
        return f"{st.kind} closed" + (f" j={st.in_flight}" if st.in_flight else "") + \
            (f" x{st.count}" if st.count else "")
    many = f" x{st.per_arrival} at once" if st.per_arrival > 1 else ""
    if st.arrival == "periodic":
        return f"{st.kind} every {st.period_s:g} s{many}"
    if st.arrival == "poisson":
        return f"{st.kind} Poisson {st.rate_per_hour:g}/h{many}"
    return f"replay {st.path}"


def format_summary(s: dict, config=None, profile: str = "", *, era_defaults: dict | None = None,
                   kept=(), workload=None) -> str:
    """Return a short readable table of a run's summary.

    ``era_defaults`` are the configuration keys the profile set (its ``[config]``
    table) and ``kept`` the keys of that table the user set explicitly; the
    header names both.
    """
    def f(v, unit="", nd=1):
        return "—" if v is None else f"{v:.{nd}f}{unit}"
    lines = []
    if config is not None:
        lines.append(f"profile {profile}: proofs={config.proofs} j={config.concurrency} "
                     f"pw={config.partition_workers} gw={config.gpu_workers_per_device} "
                     f"gpu_threads={config.gpu_threads} lock={config.lock} "
                     f"admission={config.admission}")
        if era_defaults or kept:
            era = ", ".join(f"{k}={v}" + (" (all cores)" if k.endswith("_threads") and v == 0
                                          else "") for k, v in (era_defaults or {}).items())
            line = f"  era defaults     {era or 'none applied'} from profile {profile}"
            if kept:
                line += f" (explicit {', '.join(kept)} kept)"
            lines.append(line + "; --set KEY=VALUE overrides")
    if workload is not None:
        lines.append("  workload         " + ", ".join(_stream_text(st) for st in workload.streams)
                     + (f"; arrivals for {workload.duration_s:g} s" if workload.duration_s
                        else "")
                     + (f"; Curio's MaxPending {workload.max_pending} (every kind)"
                        if workload.max_pending else ""))
    lines += [
        f"  completed        {s['proofs']} proofs, {s['failed']} failed"
        + (f"  (run failed: {s['failure_reason']})" if s.get("run_failed") else ""),
        f"  throughput       {f(s['seconds_per_proof'], ' s/proof')}",
        f"  wall             {f(s['wall_s'], ' s')}",
        f"  proof latency    {f(s['proof_latency_s_mean'], ' s')} mean from submit, "
        f"{f(s.get('prove_s_mean'), ' s')} from first synthesis",
        f"  GPU time/proof   {f(s.get('gpu_prove_s_mean'), ' s')} (cuzk-bench prove=)",
        f"  peak RSS         {f(s['peak_rss_gib'], ' GiB')}",
        f"  GPU busy         {f(None if s['gpu_busy_fraction'] is None else 100 * s['gpu_busy_fraction'], ' %', 0)}",
    ]
    b = s["bottleneck"]
    lines.append(f"  bottleneck       {b.get('resource')}: {b.get('why', '')}")
    util = b.get("evidence", {}).get("utilization", {})
    if util:
        lines.append("  utilization      " + ", ".join(f"{k} {100 * v:.0f}%" for k, v in util.items()))
    if s.get("stage_s"):
        lines.append("  stage mean (s)   " + ", ".join(f"{k} {v:.2f}" for k, v in s["stage_s"].items()))
    for kind, k in (s.get("kinds") or {}).items():
        miss = ("" if k.get("deadline_misses") is None else
                f", {k['deadline_misses']} missed the {k['deadline_s']:g} s deadline"
                if not isinstance(k["deadline_s"], list) else
                f", {k['deadline_misses']} missed their deadline")
        wait = ("" if "client_wait_s_mean" not in k else
                f"; waited {f(k['client_wait_s_mean'])} s mean ({f(k['client_wait_s_max'], ' s')} "
                f"max) for a MaxPending slot")
        if "prove_timeouts" in k:
            wait += (f"; {k['prove_timeouts']} at the daemon past Curio's "
                     f"{workload.prove_timeout_s:g} s ProveTimeout" if workload is not None
                     else f"; {k['prove_timeouts']} past Curio's ProveTimeout")
        lines.append(f"  {kind:<16} {k['proofs']} done ({k['priority']}), latency p50/p95/p99 "
                     f"{f(k['latency_s_p50'])}/{f(k['latency_s_p95'])}/{f(k['latency_s_p99'], ' s')}"
                     f" from arrival{miss}; {k['srs_loads']} SRS loads ({f(k['srs_load_s'], ' s')})"
                     f"{wait}")
    return "\n".join(lines)

