"""A PoRep-shaped circuit whose witness is computed from the public inputs by evaluating it.

``porep_program(n)`` returns a :class:`CircuitProgram`: one R1CS and the gate
program that produced it. Like PoRep's SHA-256 and Merkle gadgets, most gates
are boolean and every gate reads gates of earlier layers:

* layer 0 unpacks each public input (a small integer, like a challenge index)
  into bits: one booleanity row ``(1 - b) * b = 0`` per bit, then rows
  ``(p + 2^i b) * 1 = p'`` that pack them back, the last one equal to the input;
* then layers of boolean gates over earlier bits, each one row with one B term
  (the selector t): ``CH``  w = t ? b : c, ``CHN`` w = t ? 1 - b : c, ``CHNN``
  w = t ? 1 - b : 1 - c; and a few field-valued rows (Merkle / Poseidon-like):
  ``FMUL`` w = (s + v) t and ``FLIN`` w = s + k v (B is the ONE input).

One R1CS serves every partition: ``inputs_for(seed)`` gives one partition's
public inputs, ``witness(inputs)`` evaluates the gates (native code, or the
NumPy twin with ``native=False``) and the witness satisfies the R1CS for any
inputs. The gate mix is solved so that A, B and C have the published 2.4, 1.0
and 2.2 non-zeros per row (see :mod:`.circuit`); operand b of each boolean gate
walks the bits in creation order and t the B-eligible ones (a quarter), so
a_aux and b_aux come out near 99.7 % and 25.4 %, and only ONE of the inputs is
in B. Bits are half 0, half 1; field rows give the few percent of other values.

``witness_work`` adds that many units of extra work per constraint to the
witness step (chained Fr multiplications standing for the rest of a real
circuit's witness code): 0 leaves the MatVec alone, 1 makes the one-thread
witness step about three times the one-thread MatVec, cuzk's 75 % / 25 %.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..field import Fr
from ..field.constants import FR, R as FR_MODULUS
from .circuit import A_PER_ROW, B_AUX_DENSITY, B_ONE_FRACTION, C_PER_ROW, default_inputs
from .r1cs import R1CS, SparseMatrix, Witness

# Opcodes, shared with cuzklab/native/cuzk_native.c.
UNPACK, PACK, CH, CHN, CHNN, FMUL, FLIN, CHECK = 1, 2, 3, 4, 5, 6, 7, 8
OPCODES = {"unpack": UNPACK, "pack": PACK, "ch": CH, "chn": CHN, "chnn": CHNN, "fmul": FMUL,
           "flin": FLIN, "check": CHECK}
#: Non-zeros (A, C) of each gate row; B has one term in every row.
ROW_TERMS = {UNPACK: (2, 0), PACK: (2, 1), CHECK: (1, 1), CH: (2, 2), CHN: (3, 2),
             CHNN: (2, 3), FMUL: (2, 1), FLIN: (2, 1)}

#: Share of the rows that layer 0 (input unpacking) may take; bits per input follow.
IO_FRACTION = 0.05
MAX_INPUT_BITS = 32
#: Field-valued gate rows: FLIN rows (B = ONE; the linear rows of circuit.py)
#: and FMUL rows; with the inputs they give the few percent of "other" values.
FLIN_FRACTION = B_ONE_FRACTION
FMUL_FRACTION = 0.06
#: Layer size as a share of the rows: the last layer's outputs are read by no
#: later gate, so this is about the share of aux variables outside A (1 - 99.7 %).
LAYER_FRACTION = 0.003
MIN_LAYER = 32
#: Random operands come from the last RECENT_LAYERS layers (locality of SHA rounds).
RECENT_LAYERS = 4
#: Share of new variables that may be a selector t (in B): b_aux.
P_B_ELIGIBLE = B_AUX_DENSITY
#: FLIN coefficients: a few fixed field constants (derived from a seed below).
NUM_KCONST = 16
#: Extra Fr multiplications per constraint and unit of witness_work, so that
#: with witness_work=1 the one-thread witness step is ~3x the one-thread MatVec
#: (cuzk phase 5: witness 75 %, MatVec 25 %). From the H200 host's 16-core Xeon
#: at 2^20 (benchmarks/results/cpu-stages-h200.json): 22 multiplications gave a
#: warm witness step of ~1.08 s against a 0.61 s MatVec, of which ~0.14 s is the
#: gates themselves (~41 ns per extra multiplication); 3 x 0.61 s needs ~39.
WORK_MULS_PER_UNIT = 40


def _mont(values) -> np.ndarray:
    """Return Python ints as (n, 8) uint32 Montgomery limbs."""
    return Fr.from_ints([int(v) % FR_MODULUS for v in values]).limbs


#: Coefficient table rows: 0, 1, -1, 2^i (i < 64), then the FLIN constants.
C_ZERO, C_ONE, C_NEG1, C_POW2 = 0, 1, 2, 3
C_K = C_POW2 + 64


def _kconst() -> list[int]:
    rng = np.random.default_rng(0x5EED_F11)
    return [int.from_bytes(rng.bytes(32), "little") % FR_MODULUS for _ in range(NUM_KCONST)]


def coefficient_table() -> np.ndarray:
    """Return the (3 + 64 + NUM_KCONST, 8) Montgomery limbs of every coefficient the rows use."""
    return _mont([0, 1, FR_MODULUS - 1] + [1 << i for i in range(64)] + _kconst())


def input_bits_for(num_constraints: int, num_inputs: int) -> int:
    """Return the bits per public input: as many as fit layer 0 in IO_FRACTION of the rows (1 to 32)."""
    if num_inputs < 2:
        raise ValueError(f"num_inputs must be >= 2 (ONE and at least one public input), got {num_inputs}")
    k = int(IO_FRACTION * num_constraints // (2 * (num_inputs - 1)))
    k = max(1, min(MAX_INPUT_BITS, k))
    if io_rows(num_inputs, k) > num_constraints // 2:
        raise ValueError(
            f"num_inputs={num_inputs} is too many for num_constraints={num_constraints}: unpacking "
            f"the inputs needs {io_rows(num_inputs, 1)} rows; allowed at most half the rows")
    return k


def io_rows(num_inputs: int, bits: int) -> int:
    """Return the rows of layer 0: per input, one booleanity row per bit and the packing rows."""
    return (num_inputs - 1) * (bits + max(1, bits - 1))


@dataclass(frozen=True, eq=False)
class CircuitProgram:
    """One R1CS and the gate program whose evaluation gives its witness (see the module docstring)."""

    r1cs: R1CS
    ops: np.ndarray       # (n,) uint8 opcodes
    args: np.ndarray      # (n, 3) int32 operands
    outs: np.ndarray      # (n,) int32 aux index written by each row, -1 for none
    layers: np.ndarray    # (L + 1,) int64 row offsets of the layers
    input_bits: int
    witness_work: float = 1.0
    seed: int = 0
    _tables: dict = field(default_factory=dict, repr=False)

    @property
    def num_constraints(self) -> int:
        """Return the number of rows."""
        return self.r1cs.num_constraints

    @property
    def num_inputs(self) -> int:
        """Return the number of public inputs, ONE included."""
        return self.r1cs.num_inputs

    @property
    def num_aux(self) -> int:
        """Return the number of aux variables (one per gate row that writes one)."""
        return self.r1cs.num_aux

    @property
    def work_q16(self) -> int:
        """Return the extra multiplications per gate in 1/65536 units (what the native code takes)."""
        return int(round(self.witness_work * WORK_MULS_PER_UNIT * 65536))

    def inputs_for(self, seed) -> list[int]:
        """Return one partition's public inputs (ONE first), the same for the same seed."""
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed must be an int >= 0, got {seed!r}")
        rng = np.random.default_rng([int(seed), self.seed, 0x1A9])
        vals = rng.integers(0, 1 << self.input_bits, size=self.num_inputs - 1, dtype=np.uint64)
        return [1] + [int(v) for v in vals]

    def check_inputs(self, inputs) -> list[int]:
        """Return ``inputs`` as ints, or raise ValueError naming the first bad one."""
        if isinstance(inputs, (str, bytes)) or not hasattr(inputs, "__len__"):
            raise TypeError(f"inputs must be a sequence of ints, got {type(inputs).__name__}")
        vals = list(inputs)
        if len(vals) != self.num_inputs:
            raise ValueError(f"inputs must hold {self.num_inputs} values (ONE first), got {len(vals)}")
        top = 1 << self.input_bits
        for i, v in enumerate(vals):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise TypeError(f"inputs[{i}] must be an int, got {type(v).__name__}")
            if i == 0 and v != 1:
                raise ValueError(f"inputs[0] must be 1 (the ONE variable), got {v}")
            if i and not 0 <= int(v) < top:
                raise ValueError(f"inputs[{i}] must be in [0, 2^{self.input_bits}), got {v}")
        return [int(v) for v in vals]

    def witness(self, inputs, *, threads: int = 1, native: bool = True) -> Witness:
        """Return the Witness of ``inputs``: the gates evaluated layer by layer.

        ``threads`` > 1 splits each layer over a pool (native only);
        ``native=False`` runs the NumPy twin (the oracle of the tests).
        """
        vals = self.check_inputs(inputs)
        inp = Fr.from_ints(vals)
        if not native:
            aux = _witness_twin(self, vals, inp.limbs)
            return Witness(inputs=inp, aux=Fr.from_mont_limbs(aux, "cpu", check=False))
        from ..native.synthesis import eval_gates
        canon = np.zeros((len(vals), 8), dtype=np.uint32)
        for i, v in enumerate(vals):
            canon[i, 0], canon[i, 1] = v & 0xFFFFFFFF, v >> 32
        aux = np.empty((self.num_aux, 8), dtype=np.uint32)   # pages fill as gates write
        tab = self._table()
        eval_gates(self.ops, self.args, self.outs, self.layers, inp.limbs, canon, aux,
                   tab[C_K:], tab[C_POW2:C_K], work_q16=self.work_q16, threads=threads)
        return Witness(inputs=inp, aux=Fr.from_mont_limbs(aux, "cpu", check=False))

    def _table(self) -> np.ndarray:
        t = self._tables.get("coeffs")
        if t is None:
            t = self._tables["coeffs"] = np.ascontiguousarray(coefficient_table())
        return t

    def on_device(self) -> R1CS:
        """Return the R1CS on the GPU backend, copied once and kept."""
        r = self._tables.get("gpu")
        if r is None:
            r = self._tables["gpu"] = self.r1cs.to("gpu")
        return r

    def stats(self) -> dict:
        """Return the R1CS's stats plus layers, input bits and the gate mix (JSON-able)."""
        names = {v: k for k, v in OPCODES.items()}
        counts = np.bincount(self.ops, minlength=9)
        return {**self.r1cs.stats(), "layers": int(len(self.layers) - 1),
                "input_bits": self.input_bits, "witness_work": self.witness_work,
                "gates": {names[i]: int(counts[i]) for i in sorted(names) if counts[i]}}


def value_mix(witness: Witness) -> dict[str, float]:
    """Return the shares of aux values equal to 0, to 1 and other (what prep_msm splits on)."""
    limbs = witness.aux.to("cpu").limbs
    n = max(1, limbs.shape[0])
    zero = ~limbs.any(axis=1)
    one = (limbs == np.asarray(FR.mont_r_limbs, dtype=np.uint32)).all(axis=1)
    return {"zero": float(zero.sum() / n), "one": float(one.sum() / n),
            "other": float(1 - (zero.sum() + one.sum()) / n)}


# ---------------------------------------------------------------- generation

def _gate_mix(n: int, n_io: int, io_a: int, io_c: int) -> dict[int, float]:
    """Return the probability of each gate opcode so that A and C hit their per-row targets."""
    ng = max(1, n - n_io)
    a_g = (A_PER_ROW * n - io_a) / ng
    c_g = (C_PER_ROW * n - io_c) / ng
    f = FLIN_FRACTION + FMUL_FRACTION
    a_b = (a_g - 2 * f) / (1 - f)        # boolean rows: CH (2,2), CHN (3,2), CHNN (2,3)
    c_b = (c_g - 1 * f) / (1 - f)
    p_chn = min(1.0, max(0.0, a_b - 2))
    p_chnn = min(1.0, max(0.0, c_b - 2))
    if p_chn + p_chnn > 1:
        p_chn, p_chnn = p_chn / (p_chn + p_chnn), p_chnn / (p_chn + p_chnn)
    p_ch = max(0.0, 1 - p_chn - p_chnn)
    b = 1 - f
    return {FLIN: FLIN_FRACTION, FMUL: FMUL_FRACTION, CH: b * p_ch, CHN: b * p_chn,
            CHNN: b * p_chnn}


class _Pool:
    """Variables of one class in creation order, with a FIFO cursor and a recency window."""

    def __init__(self, capacity: int):
        self.ids = np.empty(max(1, capacity), dtype=np.int64)
        self.n = 0
        self.fifo = 0

    def add(self, ids) -> None:
        ids = np.asarray(ids, dtype=np.int64)
        self.ids[self.n:self.n + ids.size] = ids
        self.n += ids.size

    def take_fifo(self, k: int) -> np.ndarray:
        got = self.ids[self.fifo:min(self.n, self.fifo + k)].copy()
        self.fifo += got.size
        return got

    def recent(self, k: int, window: int, rng) -> np.ndarray:
        lo = max(0, self.n - window)
        return self.ids[lo + rng.integers(0, self.n - lo, size=k)] if k else np.zeros(0, np.int64)


def porep_program(num_constraints: int, *, num_inputs: int | None = None,
                  witness_work: float = 1.0, rng=None) -> CircuitProgram:
    """Return a CircuitProgram: a PoRep-shaped R1CS whose witness the gates compute from the inputs.

    ``rng``: a numpy Generator or an int seed (None: seed 0); the same seed
    gives the same program. ``witness_work``: extra witness work per
    constraint (0: none; 1: witness ~75 % of one-thread synthesis).
    """
    if isinstance(num_constraints, bool) or not isinstance(num_constraints, (int, np.integer)):
        raise TypeError(f"num_constraints must be an int, got {type(num_constraints).__name__}")
    n = int(num_constraints)
    if n < 8:
        raise ValueError(f"num_constraints must be >= 8, got {n}")
    ni = default_inputs(n) if num_inputs is None else num_inputs
    if isinstance(ni, bool) or not isinstance(ni, (int, np.integer)):
        raise TypeError(f"num_inputs must be an int, got {type(ni).__name__}")
    ni = int(ni)
    if isinstance(witness_work, bool) or not isinstance(witness_work, (int, float)) \
            or not math.isfinite(witness_work) or witness_work < 0:
        raise ValueError(f"witness_work must be a number >= 0, got {witness_work!r}")
    seed = 0
    if rng is None:
        rng = np.random.default_rng(0)
    elif not isinstance(rng, np.random.Generator):
        if isinstance(rng, bool) or not isinstance(rng, (int, np.integer)):
            raise TypeError(f"rng must be None, a numpy Generator or an int seed, got {type(rng).__name__}")
        seed = int(rng)
        rng = np.random.default_rng(seed)
    k = input_bits_for(n, ni)
    ops, args, outs, ocol, layers = _generate(n, ni, k, rng)
    r1cs = _build_r1cs(n, ni, ops, args, outs, ocol)
    return CircuitProgram(r1cs=r1cs, ops=ops, args=args, outs=outs, layers=layers,
                          input_bits=k, witness_work=float(witness_work), seed=seed)


def _generate(n: int, ni: int, k: int, rng):
    ops = np.zeros(n, dtype=np.uint8)
    args = np.zeros((n, 3), dtype=np.int32)
    outs = np.full(n, -1, dtype=np.int32)
    ocol = np.full(n, -1, dtype=np.int64)    # variable of the row's C output term (-1: none)
    bits, bits_b, fields, fields_b = (_Pool(n) for _ in range(4))
    nvar = ni
    row = 0
    # Layer 0: unpack every input into k bits and pack them back.
    n_io = io_rows(ni, k)
    for j in range(1, ni):
        b = np.arange(nvar, nvar + k)
        ops[row:row + k] = UNPACK
        args[row:row + k, 0] = j
        args[row:row + k, 1] = np.arange(k)
        outs[row:row + k] = b - ni
        ocol[row:row + k] = b      # the bit itself (A and B of its booleanity row)
        nvar += k
        row += k
        bits.add(b)
        bits_b.add(b)
        if k == 1:
            ops[row], args[row, 0], ocol[row] = CHECK, b[0], j
            row += 1
            continue
        prev = b[0]
        for i in range(1, k):
            ops[row] = PACK
            args[row] = (prev, b[i], i)
            if i < k - 1:
                outs[row], ocol[row] = nvar - ni, nvar
                fields.add([nvar])
                prev = nvar
                nvar += 1
            else:
                ocol[row] = j
            row += 1
    assert row == n_io
    bits.fifo = bits.n            # the unpacked bits are in A and B already
    bits_b.fifo = bits_b.n
    fields.fifo = fields.n
    layers = [0, n_io]
    io_a = sum(ROW_TERMS[o][0] for o in ops[:n_io].tolist())
    io_c = sum(ROW_TERMS[o][1] for o in ops[:n_io].tolist())
    mix = _gate_mix(n, n_io, io_a, io_c)
    kinds = np.array(list(mix), dtype=np.uint8)
    probs = np.array([mix[c] for c in kinds])
    ops[n_io:] = rng.choice(kinds, size=n - n_io, p=probs / probs.sum())
    width = max(MIN_LAYER, math.ceil(LAYER_FRACTION * n))
    window = RECENT_LAYERS * width
    while row < n:
        hi = min(n, row + width)
        _layer(row, hi, ops, args, outs, ocol, ni, nvar, bits, bits_b, fields, fields_b,
               window, rng)
        nvar += hi - row
        row = hi
        layers.append(row)
    return ops, args, outs, ocol, np.asarray(layers, dtype=np.int64)


def _field_operands(k: int, ni: int, fields: _Pool, window: int, rng) -> np.ndarray:
    """Return k random field operands: public inputs or recent aux field variables."""
    lo = max(0, fields.n - window)
    u = rng.integers(0, (ni - 1) + (fields.n - lo), size=k)
    out = u + 1
    aux = u >= ni - 1
    out[aux] = fields.ids[lo + u[aux] - (ni - 1)]
    return out


def _layer(lo, hi, ops, args, outs, ocol, ni, nvar, bits, bits_b, fields, fields_b, window, rng):
    t = ops[lo:hi]
    new = np.arange(nvar, nvar + (hi - lo), dtype=np.int64)
    if fields_b.n == 0:
        t[t == FMUL] = FLIN                 # no field selector exists yet: B = ONE
    boolean = np.flatnonzero((t == CH) | (t == CHN) | (t == CHNN))
    field_rows = np.flatnonzero((t == FMUL) | (t == FLIN))
    a = args[lo:hi]
    # boolean rows: b walks the bits (FIFO), c is recent, t is a B-eligible bit
    nb = boolean.size
    b_op = bits.take_fifo(nb)
    b_op = np.concatenate([b_op, bits.recent(nb - b_op.size, window, rng)])
    a[boolean, 0] = b_op
    a[boolean, 1] = bits.recent(nb, window, rng)
    sel = bits_b.take_fifo(nb)
    sel = np.concatenate([sel, bits_b.recent(nb - sel.size, window, rng)])
    a[boolean, 2] = rng.permutation(sel) if sel.size else sel
    # field rows: s walks the aux fields (FIFO), v is recent or an input
    nf = field_rows.size
    s_op = fields.take_fifo(nf)
    s_op = np.concatenate([s_op, _field_operands(nf - s_op.size, ni, fields, window, rng)])
    a[field_rows, 0] = s_op
    a[field_rows, 1] = _field_operands(nf, ni, fields, window, rng)
    fm = field_rows[t[field_rows] == FMUL]
    if fm.size:
        fsel = fields_b.take_fifo(fm.size)
        fsel = np.concatenate([fsel, fields_b.recent(fm.size - fsel.size, window, rng)])
        a[fm, 2] = rng.permutation(fsel)
    fl = field_rows[t[field_rows] == FLIN]
    a[fl, 2] = rng.integers(0, NUM_KCONST, size=fl.size)
    outs[lo:hi] = new - ni
    ocol[lo:hi] = new
    eligible = rng.random(hi - lo) < P_B_ELIGIBLE
    bmask = np.zeros(hi - lo, dtype=bool)
    bmask[boolean] = True
    bits.add(new[bmask])
    bits_b.add(new[bmask & eligible])
    fields.add(new[~bmask])
    fields_b.add(new[~bmask & eligible])


def _build_r1cs(n, ni, ops, args, outs, ocol) -> R1CS:
    """Return the R1CS of the rows: A, B, C columns and coefficient-table indices per type."""
    na = int((outs >= 0).sum())
    ac = np.zeros((3, n), dtype=np.int64)
    ak = np.zeros((3, n), dtype=np.int64)
    bc = np.zeros((1, n), dtype=np.int64)
    bk = np.full((1, n), C_ONE, dtype=np.int64)
    cc = np.zeros((3, n), dtype=np.int64)
    ck = np.zeros((3, n), dtype=np.int64)
    x, y, z = (args[:, i].astype(np.int64) for i in range(3))

    def put(mask, cols, coefs, slot_c, slot_k):
        for s, (col, coef) in enumerate(zip(cols, coefs)):
            slot_c[s, mask] = col[mask] if isinstance(col, np.ndarray) else col
            slot_k[s, mask] = coef[mask] if isinstance(coef, np.ndarray) else coef

    m = ops == UNPACK
    put(m, [0, ocol], [C_ONE, C_NEG1], ac, ak)
    bc[0, m] = ocol[m]
    ck[:, m] = C_ZERO
    m = ops == PACK
    put(m, [x, y], [C_ONE, C_POW2 + z], ac, ak)
    bc[0, m] = 0
    put(m, [ocol], [C_ONE], cc, ck)
    m = ops == CHECK
    put(m, [x], [C_ONE], ac, ak)
    bc[0, m] = 0
    put(m, [ocol], [C_ONE], cc, ck)
    m = ops == CH
    put(m, [x, y], [C_ONE, C_NEG1], ac, ak)
    put(m, [ocol, y], [C_ONE, C_NEG1], cc, ck)
    m = ops == CHN
    put(m, [0, x, y], [C_ONE, C_NEG1, C_NEG1], ac, ak)
    put(m, [ocol, y], [C_ONE, C_NEG1], cc, ck)
    m = ops == CHNN
    put(m, [y, x], [C_ONE, C_NEG1], ac, ak)
    put(m, [ocol, 0, y], [C_ONE, C_NEG1, C_ONE], cc, ck)
    m = ops == FMUL
    put(m, [x, y], [C_ONE, C_ONE], ac, ak)
    put(m, [ocol], [C_ONE], cc, ck)
    m = ops == FLIN
    put(m, [x, y], [C_ONE, C_K + z], ac, ak)
    bc[0, m] = 0
    put(m, [ocol], [C_ONE], cc, ck)
    sel = (ops == CH) | (ops == CHN) | (ops == CHNN) | (ops == FMUL)
    bc[0, sel] = z[sel]
    tab = coefficient_table()

    def matrix(cols, kidx):
        coeffs = np.ascontiguousarray(tab[kidx.reshape(-1)])
        return SparseMatrix(cols=cols, coeffs=Fr.from_mont_limbs(coeffs, "cpu", check=False), rows=n)

    return R1CS(ni, na, matrix(ac, ak), matrix(bc, bk), matrix(cc, ck))


def _witness_twin(prog: CircuitProgram, vals: list[int], inputs: np.ndarray) -> np.ndarray:
    """Return the aux limbs by the NumPy twin: layer 0 in Python ints, the rest layer-vectorized."""
    ni, na = prog.num_inputs, prog.num_aux
    z = np.zeros((ni + na, 8), dtype=np.uint32)
    z[:ni] = inputs
    ops, args, outs = prog.ops, prog.args.astype(np.int64), prog.outs
    io = int(prog.layers[1])
    zint = {j: v for j, v in enumerate(vals)}
    for i in range(io):
        op, (x, y, k) = int(ops[i]), args[i].tolist()
        if op == UNPACK:
            w = (vals[x] >> y) & 1
        elif op == PACK:
            w = (zint[x] + (1 << k) * zint[y]) % FR_MODULUS
        else:
            continue
        if outs[i] >= 0:
            zint[ni + int(outs[i])] = w
    if zint:
        idx = np.array([v for v in zint if v >= ni], dtype=np.int64)
        if idx.size:
            z[idx] = _mont([zint[int(v)] for v in idx])
    tab = prog._table()
    one = Fr.ones(1)
    for lo, hi in zip(prog.layers[1:-1].tolist(), prog.layers[2:].tolist()):
        t = ops[lo:hi]
        f = lambda col: Fr.from_mont_limbs(z[args[lo:hi, col]], "cpu", check=False)  # noqa: E731
        b, c, s = f(0), f(1), f(2)
        w = Fr.zeros(hi - lo)
        for code, val in ((CH, lambda: s * (b - c) + c),
                          (CHN, lambda: s * (one - b - c) + c),
                          (CHNN, lambda: s * (c - b) + one - c),
                          (FMUL, lambda: (b + c) * s),
                          (FLIN, lambda: b + Fr.from_mont_limbs(
                              tab[C_K + np.where(t == FLIN, args[lo:hi, 2], 0)], "cpu",
                              check=False) * c)):
            m = t == code
            if m.any():
                w.limbs[m] = val().limbs[m]
        write = outs[lo:hi] >= 0
        z[ni + outs[lo:hi][write]] = w.limbs[write]
    return z[ni:].copy()
