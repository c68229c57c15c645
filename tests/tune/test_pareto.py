"""The Pareto front and its figure."""

from cuzklab.plots.pareto import pareto_figure
from cuzklab.plots.tune_report import tune_report_html
from cuzklab.tune import Candidate, Knobs, pareto_front


def _c(pw, spp, peak, failed=False):
    return Candidate(Knobs(partition_workers=pw), {
        "seconds_per_proof": None if failed else spp, "peak_rss_gib": peak,
        "run_failed": failed, "proof_latency_s": 10.0, "bottleneck": {"resource": "gpu"}})


def test_front_is_the_undominated_points_by_memory():
    pts = [_c(1, 100, 90), _c(2, 60, 120), _c(3, 70, 130), _c(4, 50, 150), _c(5, 40, 200),
           _c(6, 30, 250, failed=True)]
    front = pareto_front(pts)
    assert [c.knobs.partition_workers for c in front] == [1, 2, 4, 5]
    brute = [c for c in pts if c.s_per_proof is not None and not any(
        o.s_per_proof is not None and o is not c and o.s_per_proof <= c.s_per_proof
        and o.metrics["peak_rss_gib"] <= c.metrics["peak_rss_gib"] for o in pts)]
    assert set(brute) == set(front)
    assert [c.knobs.partition_workers for c in pareto_front(pts, limit_gib=160)] == [1, 2, 4]


def test_figure_and_page(quick_tunes):
    res = quick_tunes[256]
    fig = pareto_figure(res)
    names = [t.name for t in fig.data]
    assert "recommended" in names and "Pareto front within the limit" in names
    front = next(t for t in fig.data if t.name == "Pareto front within the limit")
    assert list(front.x) == sorted(front.x)                       # by peak memory
    assert all(b >= a for a, b in zip(front.y, front.y[1:]))      # throughput only rises
    star = next(t for t in fig.data if t.name == "recommended")
    assert star.x[0] == res.recommended.metrics["peak_rss_gib"]
    # the front (its points marked) is drawn over the star's bars, so where the
    # recommendation is its last step the rise to it is not hidden under the red bar
    assert names.index("Pareto front within the limit") > names.index("recommended")
    assert "markers" in front.mode
    assert "limit 240 GiB" in fig.to_json() and "RAM 256 GiB" in fig.to_json()
    page = tune_report_html(res, fig)
    assert "cuzk daemon TOML" in page and res.recommended.knobs.label() in page
