"""The live executor: a PipelineConfig run for real over cuzk's stages.

``run(config, log2_constraints=K, backend="cpu"|"gpu") -> Trace`` proves
``config.proofs`` proofs of ``config.partitions`` partitions each, every
partition a real Groth16 proof of a PoRep-shaped circuit of 2^K - inputs
constraints (K = 20: 1,048,576 rows, 1,048,248 constraints and 328 public
inputs), under exactly the concurrency, admission rule and lock strategy
that ``cuzklab.sim.simulate`` models, with real threads, mutexes, a bounded
channel and a byte budget. The Trace has the model's schema (source
``live``): the same summary, bottleneck analysis, plots, Parquet and
Perfetto export. See docs/live.md.
"""

from __future__ import annotations

import math
import threading

from ..errors import ConfigError

#: The (log2_constraints, seed, setup backend, witness work) -> Workload of recent runs: the
#: circuit and its keys are built once and reused by the next run of that size.
_WORKLOADS: dict = {}
_WORKLOADS_KEEP = 2
_WORKLOADS_LOCK = threading.Lock()


def check_log2(value) -> int:
    """Return ``value`` if it is an allowed circuit size K, else raise ConfigError naming it."""
    from .work import MAX_LOG2, MIN_LOG2
    if hasattr(value, "item") and not isinstance(value, bool):  # numpy integers
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, int) or not MIN_LOG2 <= value <= MAX_LOG2:
        raise ConfigError("log2_constraints",
                          f"must be an integer in [{MIN_LOG2}, {MAX_LOG2}] (2^K rows: "
                          f"K=20 is 1,048,576 rows), got {value!r}")
    return value


def check_slow(slow) -> dict:
    """Return ``slow`` ({stage: seconds added}) if valid, else raise ConfigError naming it."""
    from .executor import SLOWABLE
    if slow is None:
        return {}
    if not isinstance(slow, dict):
        raise ConfigError("slow", f"expected a dict {{stage: seconds}}, got {type(slow).__name__}")
    for k, v in slow.items():
        if k not in SLOWABLE:
            raise ConfigError("slow", f"unknown stage {k!r}; allowed: {', '.join(SLOWABLE)}")
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not (
                math.isfinite(v) and v >= 0):
            raise ConfigError("slow", f"{k}: expected seconds >= 0, got {v!r}")
    return {k: float(v) for k, v in slow.items()}


def check_witness_work(value) -> float:
    """Return ``value`` if it is an allowed witness work per constraint, else raise ConfigError."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
            math.isfinite(value) and value >= 0):
        raise ConfigError("witness_work", "must be a finite number >= 0 (0: MatVec only; "
                          f"1: the witness step ~75 % of one-thread synthesis), got {value!r}")
    return float(value)


def workload(log2_constraints: int, seed: int = 0, backend: str = "cpu",
             witness_work: float = 1.0):
    """Return the circuit program and keys of a run at 2^K (cached for the next run)."""
    from .work import build_workload
    key = (check_log2(log2_constraints), int(seed), backend, check_witness_work(witness_work))
    with _WORKLOADS_LOCK:
        hit = _WORKLOADS.get(key)
        if hit is None:
            hit = build_workload(log2_constraints, seed=seed, setup_backend=backend,
                                 witness_work=witness_work)
            _WORKLOADS[key] = hit
            while len(_WORKLOADS) > _WORKLOADS_KEEP:
                _WORKLOADS.pop(next(iter(_WORKLOADS)))
        return hit


def run(config=None, *, log2_constraints: int, backend: str = "cpu", profile=None,
        progress=None, verify: bool = True, slow: dict | None = None, witness_work: float = 1.0,
        pin_ahead: bool = True, **overrides):
    """Return the measured Trace of ``config`` run live at 2^``log2_constraints`` rows per partition.

    ``config``: a PipelineConfig, a dict of its keys or None (keyword overrides
    on top). ``backend``: "gpu" (one CUDA device per ``gpus``) or "cpu" (CPU
    stand-ins for the devices, each with its own mutex). ``profile`` only
    supplies the synthesis look-ahead that sizes the hand-off channel (as in
    the model). ``progress``: None for a tqdm bar on stderr (shown after 2 s),
    False for none, or a callable ``(done, total)``. ``verify``: pairing-check
    every partition proof after the run. ``slow``: seconds added to stages
    ({"b_g2_msm": 0.2}), to place a run where a what-if wants it.
    ``witness_work``: the witness program's extra work per constraint (0: the
    MatVec only; 1: cuzk's split, witness ~75 % of synthesis), which moves a run
    between synthesis-, GPU- and CPU-stage-bound. ``pin_ahead``: on a GPU,
    pin before the clock starts as many a/b/c buffers as the configuration can
    hold at once, so that the run measures a warm daemon (cuzk's pinned pool
    is never freed); False measures the pool growing from one buffer (the
    trace's live meta counts the buffers pinned and the seconds it took). A run that
    fails (``oom``, Ctrl-C: ``interrupted``, a stage error) still returns its
    trace, marked failed with the reason.
    """
    from ..cliargs import usable_backend
    from ..model import PipelineConfig, Profile
    from .devices import make_devices
    from .executor import LiveRun
    config = PipelineConfig.coerce(config)
    if overrides:
        config = config.replace(**overrides)
    check_log2(log2_constraints)
    usable_backend(backend)
    slow = check_slow(slow)
    check_witness_work(witness_work)
    if not isinstance(pin_ahead, bool):
        raise ConfigError("pin_ahead", f"expected True or False, got {pin_ahead!r}")
    if progress is not None and progress is not False and progress is not True \
            and not callable(progress):
        raise ConfigError("progress", "expected None, True, False or a callable(done, total)")
    prof = Profile.load(profile)
    # the hand-off channel, sized by the model's rule (cuzk phase 12: max(lookahead, pw))
    lookahead = int(prof["synth"]["pipeline_lookahead"])
    capacity = max(1, max(lookahead, config.partition_workers)
                   if prof["synth"].get("channel_autoscale", True) else lookahead)
    devices = make_devices(config.gpus, backend)
    work = workload(log2_constraints, config.seed, backend, witness_work)
    live = LiveRun(config, work, devices, backend=backend, channel_capacity=capacity,
                   profile=prof.name, progress=progress, verify=verify, slow=slow,
                   pin_ahead=pin_ahead)
    return live.run()


__all__ = ["run", "workload", "check_log2", "check_witness_work"]
