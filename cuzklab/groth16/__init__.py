"""Groth16 over BLS12-381: R1CS, PoRep-shaped synthetic circuits, setup, prove, verify.

``porep_circuit`` makes a system and a satisfying witness; ``setup`` the
keys (secrets from an explicit rng); ``prove`` runs cuzk's stages
(:mod:`cuzklab.stages`) and returns the proof with a live Trace; ``verify``
checks a proof with py_ecc's pairing.
"""

from .circuit import constraints_for_domain, porep_circuit
from .keys import Proof, ProvingKey, ToxicWaste, VerifyingKey
from .prove import ProveResult, prove, stage_seconds
from .r1cs import R1CS, SparseMatrix, Witness
from .setup import setup, setup_with_toxic_waste
from .verify import verify

__all__ = ["R1CS", "SparseMatrix", "Witness", "porep_circuit", "constraints_for_domain",
           "ToxicWaste", "ProvingKey", "VerifyingKey", "Proof", "setup",
           "setup_with_toxic_waste", "prove", "ProveResult", "stage_seconds", "verify"]
