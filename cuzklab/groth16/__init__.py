"""Groth16 over BLS12-381: R1CS, PoRep-shaped synthetic circuits, setup, prove, verify."""

from .r1cs import R1CS, SparseMatrix, Witness
from .circuit import porep_circuit, constraints_for_domain

__all__ = ["R1CS", "SparseMatrix", "Witness", "porep_circuit", "constraints_for_domain"]
