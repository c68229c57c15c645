"""The headline: the run in a paragraph, with an OOM warning when it failed."""

import pytest

from cuzklab.plots import headline

from .synthetic import pipeline_trace


def test_html_headline_has_throughput_memory_and_bottleneck():
    tr = pipeline_trace(proofs=3, partitions=2)
    s = tr.summary()
    h = headline(s, memory_gib=754)
    assert f"{s['seconds_per_proof']:.1f} s/proof" in h
    assert f"peak RSS {s['peak_rss_gib']:.0f} GiB of 754 GiB RAM" in h
    assert f"bound by {s['bottleneck']['resource']}" in h
    assert "evidence:" in h and "mean waits" in h
    assert "⚠" not in h
    assert h.startswith('<div class="cuzklab-headline"')


def test_oom_warning_from_a_trace():
    tr = pipeline_trace(proofs=4, partitions=3, memory_gib=300, oom_at=100.0)
    h = headline(tr)
    assert "OUT OF HOST MEMORY" in h and "RSS passed 300" in h
    assert "bound by host_memory" in h
    md = headline(tr, fmt="markdown")
    assert "**⚠ OUT OF HOST MEMORY" in md and "<div" not in md


def test_escapes_html_and_validates():
    s = pipeline_trace(proofs=1, partitions=1).summary()
    assert "&lt;b&gt;" in headline(s, label="<b>")
    with pytest.raises(ValueError, match="fmt must be one of"):
        headline(s, fmt="pdf")
    with pytest.raises(TypeError, match="summary must be a dict"):
        headline(["not", "a", "summary"])


def test_a_run_without_completed_proofs():
    s = {"proofs": 0, "failed": 3, "seconds_per_proof": None, "peak_rss_gib": 70.0,
         "bottleneck": {"resource": None}, "oom": False, "run_failed": True,
         "failure_reason": "vram_oom"}
    h = headline(s, fmt="markdown")
    assert "— s/proof" in h and "run failed: vram_oom" in h and "no bottleneck" in h
