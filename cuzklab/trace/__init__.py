"""Traces: the one format every source produces and every consumer reads."""

from ..errors import TraceError
from .schema import CPU_STAGES, GPU_STAGES, STAGES, WAIT_STAGES
from .summary import bottleneck, summarize, union_length
from .trace import Trace, TraceBuilder


def load(path) -> Trace:
    """Read a trace from a Parquet file written by ``Trace.save``."""
    return Trace.load(path)


__all__ = ["Trace", "TraceBuilder", "STAGES", "GPU_STAGES", "CPU_STAGES",
           "WAIT_STAGES", "summarize", "bottleneck", "union_length", "load", "TraceError"]
