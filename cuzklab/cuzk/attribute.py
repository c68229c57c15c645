"""Which GPU call printed this CUDA timing line?

The SupraSeal C2 side prints ``CUZK_TIMING`` / ``CUZK_NTT_H`` lines with no
job id and no timestamp, and the lines of two GPU workers interleave. A GPU
call is opened by a ``GPU_START`` timeline event (job, partition, worker) and
closed by its ``GPU_END``. Each line is given to one open call by this rule:

1. ``gpu_tid`` (where the line has it) is the index of the GPU thread inside
   the call, not the worker: a call on one GPU prints ``gpu_tid=0``; a
   multi-GPU call prints one line per GPU. A call takes one line of each
   kind per ``gpu_tid``.
2. The per-GPU mutex serializes the CUDA region, so the lines printed while
   it is held (``ntt_msm_h``, ``CUZK_NTT_H``, ``barrier_wait``,
   ``batch_add``, ``tail_msm``, ``mutex_held``) belong to the call that
   printed the last ``pre_lock_cpu_ms ... mutex_wait_ms`` line on that GPU
   and has not yet printed ``mutex_held_ms``.
3. Among the calls still allowed, each is scored by when it would have
   printed the line (its ``GPU_START`` time plus the durations the line and
   its earlier lines report) against the window between the timeline events
   around the line in the file; the call that fits best wins, and ties (misfits
   under ``FIT_TOLERANCE_MS`` count as fits) go to the oldest call
   (``GPU_START`` order). Without timeline times the rule is
   plain order: the oldest open call that still lacks that kind of line.

A call that reaches its ``GPU_END`` without a ``b_g2_msm`` line proves an
earlier mix-up of two calls' CPU-side lines, which is then undone (see
:meth:`Attributor._repair`); the ``epilogue_ms`` line of phases 7-11, whose
``pre_destructor_ms`` says when the call ends, is checked at ``GPU_END`` the
same way (:meth:`Attributor._repair_epilogue`). ``async_dealloc_ms`` is printed by a detached
thread after the call ended and is not attributed. A line no call can take is counted as unattributed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

# Lines printed while the per-GPU mutex is held (rule 2).
LOCKED_GROUPS = ("ntt_msm_h_ms", "ntt_h", "barrier_wait_ms", "batch_add_ms", "tail_msm_ms",
                 "mutex_held_ms")
# Lines that carry gpu_tid (rule 1).
TID_GROUPS = ("ntt_msm_h_ms", "barrier_wait_ms", "batch_add_ms", "tail_msm_ms")
UNATTRIBUTED_GROUPS = ("async_dealloc_ms",)
EPILOGUE_KEYS = ("epilogue_ms", "pre_destructor_ms")


@dataclass
class GpuCall:
    """One gpu_prove_start call: where it ran and what its CUDA lines said."""

    job_id: str
    partition: int
    worker: int
    gpu: int
    start_ms: float
    order: int
    end_ms: float | None = None
    values: dict[str, int] = field(default_factory=dict)
    tid_values: dict[int, dict[str, int]] = field(default_factory=dict)
    ntt_h: list[dict[str, int]] = field(default_factory=list)
    holding: bool = False
    lines: list[int] = field(default_factory=list)
    group_lines: dict[str, int] = field(default_factory=dict)

    # -- what the call has reported so far ------------------------------------
    def has(self, group: str, tid: int | None) -> bool:
        """Return True if this call already took a line of ``group`` (for ``tid``)."""
        if group == "ntt_h":
            return False          # one per circuit; any number allowed
        if group in TID_GROUPS:
            return group in self.tid_values.get(tid or 0, {})
        return group in self.values or group in self.group_lines

    @property
    def lock_ms(self) -> float | None:
        """Return when the call took the GPU mutex (ms since engine start), if known."""
        if "pre_lock_cpu_ms" not in self.values:
            return None
        return self.start_ms + self.values["pre_lock_cpu_ms"] + self.values["mutex_wait_ms"]

    @property
    def prep_start_ms(self) -> float:
        """Return when prep_msm began: after split_vectors, else at GPU_START."""
        return self.start_ms + self.values.get("setup_to_split_ms", 0)

    def predicted_ms(self, group: str, values: dict[str, int], tid: int) -> float | None:
        """Return when this call would have printed a line of ``group``, if computable."""
        v = self.values
        if group == "split_vectors_ms":
            return self.start_ms + values["setup_to_split_ms"]
        if group == "prep_msm_ms":
            return self.prep_start_ms + values["prep_msm_ms"]
        if group == "b_g2_msm_ms":
            if "prep_msm_ms" not in v:
                return None
            return self.prep_start_ms + v["prep_msm_ms"] + values["b_g2_msm_ms"]
        if group == "pre_lock_cpu_ms":
            return self.start_ms + values["pre_lock_cpu_ms"] + values["mutex_wait_ms"]
        if group == "epilogue_ms":        # phases 7-11: measured from the call's entry
            return self.start_ms + values["pre_destructor_ms"]
        lock = self.lock_ms
        if lock is None:
            return None
        t = self.tid_values.get(tid, {})
        if group == "ntt_msm_h_ms":
            return lock + values["ntt_msm_h_ms"]
        if group == "ntt_h":
            return lock + values.get("total", 0)
        if group == "barrier_wait_ms":
            return lock + t.get("ntt_msm_h_ms", 0) + values["barrier_wait_ms"]
        if group == "batch_add_ms":
            return lock + t.get("ntt_msm_h_ms", 0) + t.get("barrier_wait_ms", 0) \
                + values["batch_add_ms"]
        if group == "tail_msm_ms":
            return lock + values["gpu_total_ms"]
        if group == "mutex_held_ms":
            return lock + values["mutex_held_ms"]
        return None

    def take(self, group: str, values: dict[str, int], tid: int | None, line_no: int) -> None:
        """Record a line of ``group`` as this call's."""
        self.lines.append(line_no)
        self.group_lines[group] = line_no
        if group == "ntt_h":
            self.ntt_h.append(dict(values))
        elif group in TID_GROUPS:
            d = self.tid_values.setdefault(tid or 0, {})
            d.update({k: val for k, val in values.items() if k != "gpu_tid"})
            d[group] = values[group]
        else:
            self.values.update(values)


# Misfits below this many milliseconds count as fits: a call enters the CUDA side
# a little after its GPU_START (a blocking-pool hand-off), and every printed
# duration is truncated to whole milliseconds.
FIT_TOLERANCE_MS = 10.0


def _distance(p: float | None, lo: float, hi: float) -> float:
    if p is None or (math.isinf(lo) and math.isinf(hi)):
        return 0.0
    d = lo - p if p < lo else p - hi if p > hi else 0.0
    return 0.0 if d <= FIT_TOLERANCE_MS else d


class Attributor:
    """Hand each CUDA timing line to one open GPU call (rules in the module docstring)."""

    def __init__(self):
        self.open: list[GpuCall] = []
        self.closed: list[GpuCall] = []
        self.holder: dict[int, GpuCall] = {}      # gpu -> call holding its mutex
        self.repairs = 0
        self._order = 0

    def start(self, job_id: str, partition: int, worker: int, gpu: int, t_ms: float) -> GpuCall:
        """Open a call at its GPU_START event and return it."""
        call = GpuCall(job_id, partition, worker, gpu, t_ms, self._order)
        self._order += 1
        self.open.append(call)
        return call

    def end(self, job_id: str, partition: int, worker: int, t_ms: float) -> GpuCall | None:
        """Close the call of a GPU_END event and return it (None if never opened)."""
        for call in self.open:
            if call.job_id == job_id and call.partition == partition and call.worker == worker:
                call.end_ms = t_ms
                self.open.remove(call)
                self._repair(call)
                self._repair_epilogue(call, t_ms)
                self.closed.append(call)
                if self.holder.get(call.gpu) is call:
                    del self.holder[call.gpu]
                return call
        return None

    def _repair(self, call: GpuCall) -> None:
        """Fix a prep_msm / b_g2_msm mix-up that GPU_END makes certain.

        A call's b_g2_msm line is printed before its GPU_END (the finalizer
        joins the thread that prints it). A call that ends without one, while
        another open call holds a b_g2_msm line, had its lines given to that
        call: the one that took a b_g2_msm line last gets it back, and the two
        calls' prep_msm lines (the first mix-up) are swapped.
        """
        if "b_g2_msm_ms" in call.values or "prep_msm_ms" not in call.values:
            return
        others = [c for c in self.open if "b_g2_msm_ms" in c.values
                  and "prep_msm_ms" in c.values]
        if not others:
            return
        other = max(others, key=lambda c: c.group_lines.get("b_g2_msm_ms", -1))
        for key in ("b_g2_msm_ms", "num_circuits"):
            if key in other.values:
                call.values[key] = other.values.pop(key)
        call.group_lines["b_g2_msm_ms"] = other.group_lines.pop("b_g2_msm_ms", -1)
        call.values["prep_msm_ms"], other.values["prep_msm_ms"] = \
            other.values["prep_msm_ms"], call.values["prep_msm_ms"]
        self.repairs += 1

    def _repair_epilogue(self, call: GpuCall, t_end: float) -> None:
        """Give a call ending at ``t_end`` the epilogue line that ends just before it.

        The epilogue ends ``pre_destructor_ms`` after the call's entry, and the
        call returns right after it; of this call's and the open calls'
        epilogue lines, the one that puts that end closest to ``t_end`` is
        this call's (the two calls swap).
        """
        def misfit(values):
            return abs(call.start_ms + values["pre_destructor_ms"] - t_end)

        mine = {k: call.values[k] for k in EPILOGUE_KEYS if k in call.values}
        others = [c for c in self.open if "epilogue_ms" in c.values]
        if not others:
            return
        best = min(others, key=lambda c: misfit(c.values))
        theirs = {k: best.values[k] for k in EPILOGUE_KEYS}
        if mine and misfit(mine) <= misfit(theirs) + FIT_TOLERANCE_MS:
            return
        for k in EPILOGUE_KEYS:
            best.values.pop(k, None)
        best.group_lines.pop("epilogue_ms", None)
        call.values.update(theirs)
        call.group_lines["epilogue_ms"] = call.group_lines.get("epilogue_ms", -1)
        if mine:
            best.values.update(mine)
            best.group_lines["epilogue_ms"] = -1
        self.repairs += 1

    def drop(self, job_id: str) -> None:
        """Forget the open calls of a failed job (they will print no more lines)."""
        for call in [c for c in self.open if c.job_id == job_id and not c.lines]:
            self.open.remove(call)

    def assign(self, group: str, values: dict[str, int], line_no: int,
               t_lo: float = -math.inf, t_hi: float = math.inf) -> GpuCall | str:
        """Return the call that takes this line, or a string saying why none does."""
        if group in UNATTRIBUTED_GROUPS:
            return "printed after the call ended"
        tid = values.get("gpu_tid") if group in TID_GROUPS else None
        pool = [c for c in self.open if not c.has(group, tid)]
        if group in LOCKED_GROUPS:
            holders = [c for c in pool if c.holding]
            pool = holders or [c for c in pool if c.lock_ms is not None] or pool
        elif group == "pre_lock_cpu_ms":
            free = [c for c in pool if c.gpu not in self.holder]
            pool = free or pool
        elif group == "b_g2_msm_ms":
            pool = [c for c in pool if "prep_msm_ms" in c.values] or pool
        if not pool:
            return "no open GPU call lacks this line"
        best = min(pool, key=lambda c: (_distance(c.predicted_ms(group, values, tid or 0),
                                                  t_lo, t_hi), c.order))
        best.take(group, values, tid, line_no)
        if group == "pre_lock_cpu_ms":
            best.holding = True
            self.holder[best.gpu] = best
        elif group == "mutex_held_ms":
            best.holding = False
            if self.holder.get(best.gpu) is best:
                del self.holder[best.gpu]
        return best
