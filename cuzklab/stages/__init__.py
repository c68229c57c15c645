"""cuzk's proving stages as functions over real data, each timed.

``synthesize`` (or ``synth`` from a known witness) → ``prep_msm`` →
``ntt_h`` → ``batch_add`` → ``tail_msm`` → ``b_g2_msm`` → ``epilogue``;
``cuzklab.prove`` is their composition in sequence. Each takes a
``StageClock`` (optional) and returns its outputs with a ``StageTiming``
(wall clock, and CUDA event time on the GPU). On the CPU, synthesis,
prep_msm and b_g2_msm run native code on a pool of ``threads`` threads with
the GIL released (:mod:`cuzklab.native`).
"""

from ..errors import ConfigError
from .b_g2_msm import BG2MsmOutput, b_g2_msm
from .batch_add import BatchAddOutput, batch_add
from .epilogue import EpilogueConstants, epilogue, epilogue_constants
from .ntt_h import NttHOutput, ntt_h, quotient
from .prep_msm import PrepOutput, QuerySplit, prep_msm
from .synth import SynthOutput, synth, synthesize
from .tail_msm import TailMsmOutput, tail_msm
from .timing import StageClock, StageTiming

__all__ = ["synth", "synthesize", "prep_msm", "ntt_h", "batch_add", "tail_msm", "b_g2_msm", "epilogue",
           "epilogue_constants", "EpilogueConstants",
           "quotient", "SynthOutput", "PrepOutput", "QuerySplit", "NttHOutput",
           "BatchAddOutput", "TailMsmOutput", "BG2MsmOutput", "StageClock", "StageTiming",
           "ConfigError"]
