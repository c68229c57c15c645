"""Groth16 over BLS12-381: R1CS, PoRep-shaped synthetic circuits, keys, setup, verify.

``porep_circuit`` makes a system and a satisfying witness; ``porep_program``
a system and the gate program that computes its witness from public inputs;
``setup`` the keys (secrets from an explicit rng); ``verify`` checks a proof
with py_ecc's pairing. The prover, which composes cuzk's stages, is
:func:`cuzklab.prove.prove`; this package knows nothing of the stages.
"""

from .circuit import constraints_for_domain, porep_circuit
from .keys import Proof, ProvingKey, ToxicWaste, VerifyingKey
from .program import CircuitProgram, porep_program
from .r1cs import R1CS, SparseMatrix, Witness
from .setup import setup, setup_with_toxic_waste
from .verify import verify

__all__ = ["R1CS", "SparseMatrix", "Witness", "porep_circuit", "constraints_for_domain",
           "porep_program", "CircuitProgram", "ToxicWaste", "ProvingKey", "VerifyingKey",
           "Proof", "setup", "setup_with_toxic_waste", "verify"]
