"""cuzklab: a workbench for the cuzk Groth16 proving pipeline.

Importing the package is cheap: sub-packages (field arithmetic, the simulator,
plots, sweeps) are imported on use, and GPU kernels are compiled on first call.
"""

__version__ = "0.1.0"

from .errors import CuzklabError  # noqa: E402  (the root of every error cuzklab raises)

__all__ = ["CuzklabError", "__version__"]
