"""Stage ``ntt_h``: the quotient polynomial h = (a b - c) / Z and the H MSM.

a, b, c are evaluations on the domain. Each is interpolated (inverse NTT),
evaluated on the coset g·H (coset NTT), where Z is the non-zero constant
g^n - 1; then q = (a b - c) / Z pointwise, and a coset inverse NTT gives the
coefficients of h (degree <= n - 2). H = sum_j h_j [tau^j Z(tau) / delta]_1.

On the GPU the transforms run in place and keep bit-reversed intermediates
(DIF out, DIT back in), so only the final h is permuted to natural order.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..backend import check_backend, xp
from ..curve import Point
from ..field import Fr
from ..field.constants import FR
from ..groth16.keys import ProvingKey
from ..msm import msm
from ..ntt import coset_intt, coset_ntt, intt
from ..ntt.domain import COSET_GENERATOR, Domain, log2_of
from .synth import SynthOutput
from .timing import StageClock, StageTiming, lane_for, new_clock


@dataclass(frozen=True)
class NttHOutput:
    """h's coefficients (length n, natural order), the H point and the split of the time."""

    h: Fr
    h_point: Point
    ntt_s: float
    msm_s: float
    timing: StageTiming


def quotient(a: Fr, b: Fr, c: Fr) -> Fr:
    """Return the coefficients of h = (a b - c) / Z from domain evaluations a, b, c."""
    n = len(a)
    if len(b) != n or len(c) != n:
        raise ValueError(f"a, b, c must have one length, got {n}, {len(b)}, {len(c)}")
    log_n = log2_of(n, "len(a)")
    zinv = pow(Domain(log_n).vanishing_on_coset(), -1, FR.modulus)
    if a.backend == "gpu":
        return _quotient_gpu(a, b, c, log_n, zinv)
    ea, eb, ec = (coset_ntt(intt(x)) for x in (a, b, c))
    return coset_intt((ea * eb - ec) * zinv)


def _quotient_gpu(a: Fr, b: Fr, c: Fr, log_n: int, zinv: int) -> Fr:
    from ..ntt import gpu
    n = 1 << log_n
    n_inv = pow(n, -1, FR.modulus)
    g_inv = pow(COSET_GENERATOR, -1, FR.modulus)
    bufs = [x.limbs.copy() for x in (a, b, c)]
    to_coset = gpu.power_tables(COSET_GENERATOR, n, n_inv)
    for x in bufs:
        # coefficients times g^i, bit-reversed; then the coset evaluations, natural
        gpu.dif_inplace(x, log_n, inverse=True, natural_output=False, post_powers=to_coset)
        gpu.dit_passes(x, log_n, inverse=False)
    gpu.ab_minus_c_div_z(bufs[0], bufs[1], bufs[2], zinv)
    q = bufs[0]
    del bufs
    gpu.dif_inplace(q, log_n, inverse=True, natural_output=True,
                    post_powers=gpu.power_tables(g_inv, n, n_inv))
    return Fr.from_mont_limbs(q, check=False)


def ntt_h(out: SynthOutput, pk: ProvingKey, *, backend: str | None = None,
          clock: StageClock | None = None, on_quotient=None, while_quotient=None) -> NttHOutput:
    """Return the NttHOutput (h and H) of the synthesized a, b, c, timed as stage ``ntt_h``.

    ``on_quotient``: None, or a callable run with no arguments once h is
    computed, before the H MSM (the prover starts the other MSMs there).
    ``while_quotient``: None, or a callable run with no arguments once the
    transforms are queued on the device, before the wait for them: host work
    that the transforms hide (the prover computes the epilogue's constants
    there). On the CPU it runs after the transforms.
    """
    backend = out.a.backend if backend is None else check_backend(backend)
    if out.domain_size != pk.domain_size:
        raise ValueError(f"a, b, c have length {out.domain_size} but the key's domain is {pk.domain_size}")
    clock = new_clock(clock)
    lane = lane_for(backend)
    a, b, c = out.a, out.b, out.c
    if a.backend != backend:
        with clock.stage("h2d", lane, backend):
            a, b, c = a.to(backend), b.to(backend), c.to(backend)
    with clock.stage("ntt_h", lane, backend):
        t0 = clock.now()
        h = quotient(a, b, c)
        if while_quotient is not None:
            while_quotient()
        if backend == "gpu":
            xp("gpu").cuda.get_current_stream().synchronize()
        t1 = clock.now()
        if on_quotient is not None:
            on_quotient()
        bases = pk.h if pk.backend == backend else pk.h.to(backend)
        h_point = msm(bases, h[:len(h) - 1], backend=backend)
        t2 = clock.now()
    return NttHOutput(h=h, h_point=h_point, ntt_s=t1 - t0, msm_s=t2 - t1, timing=clock.last())
