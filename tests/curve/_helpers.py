"""Shared test inputs for the curve tests (no py_ecc needed)."""

from __future__ import annotations

from cuzklab.curve import reference as ref


def off_subgroup_point(group):
    """Return a point on the curve but (almost surely) outside the order-r subgroup."""
    F = ref.field_of(group)
    bcoef = ref.b_of(group)
    x = 5 if group == "g1" else (5, 1)
    while True:
        rhs = F.add(F.mul(F.sqr(x), x), bcoef)
        y = F.sqrt(rhs)
        if y is not None:
            return (x, y)
        x = x + 1 if group == "g1" else (x[0] + 1, x[1])
