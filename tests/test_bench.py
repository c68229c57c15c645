"""The ``cuzklab bench`` command and the MSM benchmark on the CPU."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from cuzklab import bench
from cuzklab.cli import main
from cuzklab.msm import bench as MB


def test_bench_msm_cpu_json(capsys):
    assert main(["bench", "msm", "--backend", "cpu", "--log2-size", "3", "--repeats", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    (r,) = report["results"]
    assert report["device"] and r["n"] == 8 and r["checked"] is True
    assert r["group"] == "g1" and len(r["times_s"]) == 1 and r["median_s"] > 0


def test_bench_msm_table_g2(capsys):
    assert main(["bench", "msm", "--backend", "cpu", "--log2-size", "1", "--repeats", "1",
                 "--group", "g2", "--window", "2"]) == 0
    out = capsys.readouterr().out
    assert "g2" in out and "True" in out


def test_bench_field_and_ntt(capsys):
    assert main(["bench", "field", "--backend", "cpu", "--log2-size", "4", "--repeats", "1"]) == 0
    assert "fp" in capsys.readouterr().out
    assert main(["bench", "ntt", "--backend", "cpu", "--log2-size", "4", "--repeats", "1", "--json"]) == 0
    (r,) = json.loads(capsys.readouterr().out)["results"]
    assert r["checked"] is True and r["n"] == 16


def test_a_result_not_checked_equal_exits_non_zero(capsys, monkeypatch):
    from cuzklab.curve.affine import Point
    from cuzklab.curve import reference as ref
    # a wrong oracle: every timed MSM now disagrees with it
    monkeypatch.setattr(MB, "expected", lambda group, limbs, seed=1: Point(group, ref.generator(group)))
    assert main(["bench", "msm", "--backend", "cpu", "--log2-size", "3", "--repeats", "1", "--json"]) == 1
    captured = capsys.readouterr()
    (r,) = json.loads(captured.out)["results"]  # the figures are still printed
    assert r["checked"] is False
    assert captured.err.startswith("cuzklab: error: bench msm: 1 result(s) not checked equal") and "2^3" in captured.err


def test_unchecked_counts_false_zero_and_missing():
    report = {"results": [{"checked": True}, {"checked": 8}, {"checked": False}, {"checked": 0}, {}]}
    assert bench.unchecked(report) == [{"checked": False}, {"checked": 0}, {}]


def test_bad_arguments(capsys):
    with pytest.raises(SystemExit):
        main(["bench", "msm", "--repeats", "0"])
    with pytest.raises(SystemExit):
        main(["bench", "fft"])
    with pytest.raises(ValueError):
        MB.bench_msm(30, "cpu")
    with pytest.raises(ValueError, match="group"):
        MB.bench_msm(2, "cpu", group="g3")
    with pytest.raises(ValueError):
        bench.run_bench("fft", "cpu", 2)


@pytest.mark.parametrize("argv,message", [
    (["bench", "field", "--precomputed"], "--precomputed applies to msm only, not field"),
    (["bench", "ntt", "--window", "5"], "--window applies to msm only, not ntt"),
    (["bench", "msm", "--window", "1"], r"--window must be in \[2, 24\], got 1"),
    (["bench", "msm", "--log2-size", "40"], r"--log2-size must be in \[0, 27\] for msm, got 40"),
    (["bench", "field", "--log2-size", "-3"], r"--log2-size must be in \[0, 28\] for field, got -3"),
])
def test_bad_options_get_a_clear_error_before_work(capsys, argv, message):
    import re
    assert main([*argv, "--backend", "cpu"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cuzklab: error: ") and re.search(message, err) and "Traceback" not in err


@pytest.mark.parametrize("argv,parts", [
    (["bench", "msm", "--repeats", "x"], ["--repeats", "expected an integer >= 1, got 'x'"]),
    (["bench", "msm", "--repeats", "0"], ["--repeats", "must be >= 1, got 0"]),
    (["bench", "msm", "--log2-size", "x"], ["--log2-size", "invalid int value: 'x'"]),
    (["bench", "msm", "--group", "g3"], ["--group", "invalid choice: 'g3'"]),
    (["bench", "fft"], ["kernel", "invalid choice: 'fft'"]),
])
def test_bad_option_values_are_one_error_line(cli_error, argv, parts):
    cli_error(argv, *parts)


def test_a_gpu_backend_without_a_gpu_is_named_before_work(cli_error, monkeypatch):
    import cuzklab.backend as B
    from cuzklab.errors import BackendError

    def no_cupy():
        raise BackendError("the 'gpu' backend needs CuPy")

    def fail(*args, **kwargs):
        raise AssertionError("the benchmark started before the options were checked")
    monkeypatch.setattr(B, "_cupy", no_cupy)
    monkeypatch.setattr(bench, "run_bench", fail)
    cli_error(["bench", "msm", "--backend", "gpu", "--log2-size", "4"], "--backend gpu: ", "needs CuPy")


def test_bench_msm_precomputed_cpu(capsys):
    assert main(["bench", "msm", "--backend", "cpu", "--log2-size", "2", "--repeats", "1",
                 "--precomputed", "--json"]) == 0
    (r,) = json.loads(capsys.readouterr().out)["results"]
    assert r["precomputed"] is True and r["checked"] is True and r["precompute_s"] > 0
    assert r["windows"] * r["n"] * 2 * 4 * 12 == r["table_bytes"]


def test_bench_points_exact_oracle():
    pts = MB.bench_points("g1", 16, "cpu")
    assert len(pts) == 16 and len({p for p in pts.to_ints()}) == 16
    limbs = MB.bench_scalars(16, 2)
    from cuzklab.msm import msm_naive
    from cuzklab.msm import digits as D
    assert MB.expected("g1", limbs) == msm_naive(pts, D.limbs_to_ints(limbs))


def test_readme_repeat_count_matches_the_benchmark_scripts():
    import re
    from pathlib import Path
    root = Path(__file__).parents[1]
    readme = (root / "README.md").read_text()
    (said,) = set(re.findall(r"On an NVIDIA H200\.\*\* CUDA-event medians of (\d+)", readme))
    for script in ("bench_field.py", "bench_msm.py", "bench_ntt.py"):
        text = (root / "benchmarks" / script).read_text()
        (default,) = re.findall(r'add_argument\("--repeats", type=int, default=(\d+)', text)
        assert default == said, f"{script} repeats {default}, the README says medians of {said}"


def test_compare_sppark_ratios_and_unchecked_results():
    import importlib.util
    from pathlib import Path
    path = Path(__file__).parents[1] / "benchmarks" / "compare_sppark.py"
    spec = importlib.util.spec_from_file_location("compare_sppark", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    msm = {"results": [{"group": "g1", "glv": True, "log2_size": 20, "median_s": 0.014, "upload_median_s": 0.04,
                        "checked": True},
                       {"group": "g1", "glv": False, "log2_size": 20, "median_s": 0.015, "checked": True}]}
    ntt = {"results": [{"log2_size": 20, "variant": "ntt", "median_s": 0.0003, "checked": True},
                       {"log2_size": 20, "variant": "coset_intt", "median_s": 0.0004, "checked": False}]}
    sp_msm = [{"op": "g1_msm", "log2": 20, "device_ms": 28.0, "upload_ms": 40.0}]
    sp_ntt = [{"op": "fr_ntt", "log2": 20, "ntt_ms": 0.3, "intt_ms": 0.3, "coset_ntt_ms": 0.3, "coset_intt_ms": 0.2}]
    table, problems = mod.compare(msm, ntt, sp_msm, sp_ntt)
    (m,) = table["msm"]  # the GLV (default) row only
    assert m["ratio"] == pytest.approx(0.5) and m["upload_ratio"] == pytest.approx(1.0)
    (n,) = table["ntt"]
    assert n["ntt_ratio"] == pytest.approx(1.0) and n["coset_intt_ratio"] == pytest.approx(2.0)
    assert problems == ["cuzklab NTT coset_intt 2^20 not checked"]
    assert "| 2^20 | 14.00 ms | 28.00 ms | 0.50 |" in mod.markdown(table)


def test_compare_sppark_takes_either_pair_alone(tmp_path, capsys):
    mod = _script("compare_sppark.py")
    ntt = tmp_path / "ntt.json"
    ntt.write_text(json.dumps({"device": "GPU", "results": [
        {"log2_size": 20, "variant": "ntt", "median_s": 0.0003, "checked": True}]}))
    sp = tmp_path / "sp.jsonl"
    sp.write_text('{"op": "fr_ntt", "log2": 20, "ntt_ms": 0.25, "intt_ms": 0.3, "coset_ntt_ms": 0.3, '
                  '"coset_intt_ms": 0.3}\n# ntt all checks passed\n')
    out = tmp_path / "cmp.json"
    assert mod.main(["--ntt", str(ntt), "--sppark-ntt", str(sp), "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "G1 MSM" not in text and "| 2^20 | 0.300 / 0.250 ms (1.20) |" in text
    report = json.loads(out.read_text())
    assert report["msm"] == [] and report["ntt"][0]["ntt_ratio"] == pytest.approx(1.2)
    with pytest.raises(SystemExit):
        mod.main(["--ntt", str(ntt)])
    assert "--ntt and --sppark-ntt go together" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        mod.main([])
    assert "give --msm with --sppark-msm" in capsys.readouterr().err


def test_bench_field_script_exits_non_zero_when_unchecked(tmp_path, monkeypatch, capsys):
    import importlib.util
    from pathlib import Path
    path = Path(__file__).parents[1] / "benchmarks" / "bench_field.py"
    spec = importlib.util.spec_from_file_location("bench_field_script", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    argv = ["--backend", "cpu", "--cpu-log2-size", "4", "--repeats", "1", "--json", str(tmp_path / "f.json")]
    assert mod.main(argv) == 0
    real = mod.bench_field

    def unchecked(*args, **kwargs):
        rep = real(*args, **kwargs)
        rep["results"][0]["checked"] = 0
        return rep
    monkeypatch.setattr(mod, "bench_field", unchecked)
    assert mod.main(argv) == 1
    assert "not checked: cpu fr mul" in capsys.readouterr().err


def _script(name: str):
    path = Path(__file__).parents[1] / "benchmarks" / name
    spec = importlib.util.spec_from_file_location(name[:-3] + "_script", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_region_load_benchmark_checks_its_options_and_needs_a_gpu(capsys, monkeypatch):
    mod = _script("bench_region_load.py")
    with pytest.raises(SystemExit):
        mod.main(["--syntheses", "0"])
    assert "--syntheses" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        mod.main(["--log2", "30"])
    assert "--log2 must be in [8, 26]" in capsys.readouterr().err
    import cuzklab.backend as B
    monkeypatch.setattr(B, "gpu_available", lambda: False)
    assert mod.main(["--log2", "8"]) == 2
    assert "needs a CUDA GPU" in capsys.readouterr().err


def test_the_synth_split_benchmark_splits_each_run_s_synthesis_spans(tmp_path, capsys):
    mod = _script("bench_synth_split.py")
    out = tmp_path / "split.json"
    assert mod.main(["--log2", "8", "--backend", "cpu", "--proofs", "1", "--runs",
                     "solo1,split_async-gw2-pw4-w1", "--json", str(out)]) == 0
    res = json.loads(out.read_text())
    assert len(res["alone"]) == 4 and res["proofs"] == 1
    assert set(res["runs"]) == {"solo1", "split_async-gw2-pw4-w1"}
    for name, r in res["runs"].items():
        assert len(r["spans_s"]) == (1 if name == "solo1" else 4)
        # the synthesis runs inside its span: a span is never shorter than its call
        assert r["span_median_s"] >= r["inner_median_s"] - 1e-3
        assert r["inner_median_s"] >= r["witness_median_s"]
    import cuzklab.live.work as W
    assert W.synthesize.__name__ == "synthesize"  # the spy is taken off again
    with pytest.raises(SystemExit):
        mod.main(["--log2", "8", "--backend", "cpu", "--runs", "nope"])
    assert "--runs: unknown nope; allowed: solo1, solo16" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        mod.main(["--proofs", "0"])
    assert "--proofs must be at least 1" in capsys.readouterr().err


def test_bench_msm_upload_pools_checked_before_work():
    with pytest.raises(ValueError, match="upload_pools must name 'fresh' and/or 'warm'"):
        MB.bench_msm(4, "cpu", repeats=1, upload_pools=("cold",))
    with pytest.raises(ValueError, match="upload_pools"):
        MB.bench_msm(4, "cpu", repeats=1, upload_pools=())


def test_the_batch_sum_benchmark_checks_its_options_and_needs_a_gpu(capsys, monkeypatch):
    mod = _script("bench_batch_sum.py")
    for argv, message in ((["--share", "0"], "--share must be in (0, 1]"),
                          (["--repeats", "0"], "--repeats must be >= 1"),
                          (["--g1", "x"], "--g1/--g2: expected comma-separated integers"),
                          (["--g2", "30"], "sizes must lie in 10..26")):
        with pytest.raises(SystemExit):
            mod.main(argv)
        assert message in capsys.readouterr().err, argv
    monkeypatch.setattr(mod, "gpu_available", lambda: False)
    assert mod.main(["--g1", "10", "--g2", "", "--json", ""]) == 2
    assert "no CUDA device" in capsys.readouterr().err


def test_the_contention_loads_benchmark_times_visits_and_three_loads(tmp_path, capsys):
    mod = _script("bench_contention_loads.py")
    out = tmp_path / "loads.json"
    assert mod.main(["--quick", "--json", str(out)]) == 0
    res = json.loads(out.read_text())
    for how in ("free", "pinned"):
        visits = res["prep_visits"][how]
        assert len(visits) == 2
        for v in visits:
            assert len(v["s"]) == len(v["faults"]) == mod.PREP_CALLS
            assert min(v["s"]) <= v["median_s"] <= max(v["s"])
    assert {v["cpu"] for v in res["prep_visits"]["pinned"]} <= {res["prep_visits"]["pinned_to"]}
    assert set(res["b_g2_beside"]) == set(mod.LOADS)
    assert set(res["b_g2_beside"]["synth"]) == {"0", "1"}
    assert set(res["b_g2_beside"]["chain"]) == {"1"}          # the solo point is timed once
    assert res["b_g2_slowdown"]["synth"]["0"] == 1.0
    from cuzklab.native.msm_g2 import PHASES
    for kind, pts in res["b_g2_beside"].items():   # each visit's phases beside its figure
        for s, visits in pts.items():
            ph = res["b_g2_phases"][kind][s]
            assert len(ph) == len(visits)
            for v in ph:
                widths = v.pop("widths_s")           # the pool of 2: widths 0, 1 and 2
                assert len(widths) == 3 and min(widths) >= 0
                assert list(v) == list(PHASES) and min(v.values()) >= 0
    printed = capsys.readouterr().out
    assert "b_g2_msm beside" in printed and "its phases" in printed and "windows" in printed
    with pytest.raises(SystemExit):
        mod.main(["--rounds", "0"])
    assert "--rounds must be >= 1, got 0" in capsys.readouterr().err


def test_the_contention_loads_benchmark_says_who_had_the_cpus_during_a_call():
    import os
    import threading
    import time
    mod = _script("bench_contention_loads.py")
    me = threading.get_native_id()
    if not os.path.exists(f"/proc/self/task/{me}/schedstat"):
        pytest.skip("no per-thread schedstat on this kernel")
    assert me in mod._tasks()
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            pass
    th = threading.Thread(target=spin, daemon=True)
    th.start()
    try:
        def call():  # the "pool" is this thread, spinning 0.2 s; the load, the other one
            t = time.perf_counter()
            while time.perf_counter() - t < 0.2:
                pass
            return {"windows_s": 0.2}
        ph = mod.accounted(call, {me}, {th.native_id})
    finally:
        stop.set()
        th.join()
    assert ph["windows_s"] == 0.2 and ph["wall_s"] >= 0.2
    # both threads ran (the GIL hands the CPU between them), neither longer than the wall
    for who in ("pool_cpu_s", "load_cpu_s"):
        assert 0 < ph[who] <= ph["wall_s"] + 0.01
    assert ph["pool_wait_s"] >= 0
    assert mod._schedstat({-1}) == (0.0, 0.0)   # a thread that is not there counts nothing


def test_the_steps_benchmark_marks_b_g2_after_each_calibration_step(tmp_path, capsys):
    mod = _script("bench_b_g2_after_steps.py")
    out = tmp_path / "steps.json"
    assert mod.main(["--quick", "--json", str(out)]) == 0
    res = json.loads(out.read_text())
    assert [m["after"] for m in res["marks"]] == [
        "the start", "the start, again", "syntheses at once", "MatVecs at once",
        "memory bandwidth", "the pool step"]
    for m in res["marks"]:
        lo, hi = m["one_call_range_s"]
        assert 0 < lo <= m["one_call_s"] <= hi and m["calls_at_once_s"] > 0
    assert [m["at_s"] for m in res["marks"]] == sorted(m["at_s"] for m in res["marks"])
    assert [r["calls"] for r in res["pool_step_rows"]] == [1, 2]
    assert "after memory bandwidth" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        mod.main(["--pool", "1"])
    assert "--pool must be >= 2, got 1" in capsys.readouterr().err


def test_the_compare_benchmark_keeps_traces_by_name_and_attributes_its_worst_row(tmp_path):
    mod = _script("bench_compare.py")
    from cuzklab.calibrate.compare import remodel, trace_name
    out, traces = tmp_path / "compare.json", tmp_path / "traces"
    assert mod.main(["--quick", "--profile", "porep-live-h200", "--locks", "interlock",
                     "--in-process", "--row-repeats", "2", "--traces", str(traces),
                     "--json", str(out)]) == 0
    res = json.loads(out.read_text())
    assert len(res["rows"]) == 2 and res["verdict"]["worst"]["attribution"]
    for r in res["rows"]:
        for side in ("live", "model"):
            assert r[side]["gpu_hold_s"] > 0
            for p in (1, 2):   # each pass's trace, under the name compare --live-traces reads
                assert (traces / trace_name(r["config"], r["witness_work"], side, p)).exists()
    # judged again from the JSON and its traces: the live figures come back from the files
    for r in res["rows"]:
        r["live"].pop("gpu_hold_s")
    again = remodel(res, "porep-live-h200", live_traces=traces)
    assert all(r["live"]["gpu_hold_s"] > 0 for r in again["rows"])


def test_the_compare_benchmarks_curve_visits_the_calibrations_counts_too():
    mod = _script("bench_compare.py")
    from cuzklab.model.profile import Profile
    # a live profile fitted beside 6 syntheses: the curve's own counts and that one
    assert mod.curve_counts(Profile.load("porep-live-2p20-h200")) == [0, 1, 2, 4, 6, 8, 12]
    # a profile with no calibration's counts: the curve's own
    assert mod.curve_counts(Profile.load("porep-32g")) == list(mod.CURVE_COUNTS)


def test_the_tail_msm_benchmark_checks_its_options_and_needs_a_gpu(capsys, monkeypatch):
    mod = _script("bench_tail_msm.py")
    for argv, message in ((["--g1", "x"], "--g1: expected comma-separated integers"),
                          (["--g2-windows", "0"], "--g2-windows: expected integers >= 1"),
                          (["--g1-rounds", "default,y"], "--g1-rounds: expected comma-separated")):
        with pytest.raises(SystemExit) as exc:
            mod.main(argv)
        assert message in str(exc.value), argv
    with pytest.raises(SystemExit):
        mod.main(["--repeats", "0"])
    assert "--repeats must be >= 1" in capsys.readouterr().err
    monkeypatch.setattr(mod, "gpu_available", lambda: False)
    assert mod.main(["--json", ""]) == 2
    assert "no CUDA device" in capsys.readouterr().err


def test_the_combine_benchmark_checks_its_results_and_shapes(tmp_path, capsys):
    mod = _script("bench_combine.py")
    out = tmp_path / "c.json"
    assert mod.main(["--shapes", "g1:3:4,g2:2:3", "--repeats", "2", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["results"]
    assert [(r["group"], r["windows"], r["c"], r["checked"]) for r in rows] == [("g1", 3, 4, True), ("g2", 2, 3, True)]
    # the whole step from the device's limbs, on Python ints and in native code, both checked
    assert all(r["python_from_limbs_s"] > 0 and r["native_from_limbs_s"] > 0 for r in rows)
    with pytest.raises(SystemExit, match="group:windows:c"):
        mod.main(["--shapes", "g1:x:4"])
    with pytest.raises(SystemExit, match="group g1 or g2"):
        mod.main(["--shapes", "g3:2:4"])


def test_cpu_stages_table_shows_both_ceilings():
    mod = _script("bench_cpu_stages.py")
    row = {"threads": 8, "synth_s": 1.0, "synth_us_per_constraint": 0.5, "witness_share": 0.5,
           "matvec_s": 0.1, "matvec_efficiency": 0.9, "prep_msm_s": 0.01, "prep_msm_efficiency": 0.6,
           "prep_msm_ns_per_scalar": 1.5, "prep_msm_serial_s": 0.001, "b_g2_msm_s": 0.5,
           "b_g2_msm_efficiency": 0.7, "b_g2_us_per_point": 10.0}
    res = {"log2_domain": 20, "constraints": 1, "scalars": 1, "b_g2_tail": 1,
           "host": {"cpu": "x", "cores": 16}, "rows": [row],
           "ceiling": [{"threads": 8, "efficiency": 0.77}],
           "bw_ceiling": [{"threads": 8, "gbps": 41.5, "efficiency": 0.58}],
           "cuzk": {"synth_s": 29.0, "synth_us_per_constraint": 0.223, "prep_msm_s": [1.3, 1.7],
                    "b_g2_msm_s": [0.38, 0.5]}}
    text = mod.table(res)
    assert "ceiling (eff)   bw GB/s (eff)" in text
    assert "0.77   41.5 (0.58)" in text


def test_prep_passes_times_both_passes_and_checks_the_gather(tmp_path, capsys):
    mod = _script("bench_prep_passes.py")
    out = tmp_path / "p.json"
    assert mod.main(["--log2", "8", "--repeat", "2", "--json", str(out)]) == 0
    res = json.loads(out.read_text())
    assert res["checked"] is True and res["repeat"] == 2
    assert set(res["passes"]) == {"classify", "gather"}
    assert all(len(p["times_s"]) == 2 and p["min_ms"] > 0 for p in res["passes"].values())
    for bad, word in ((["--log2", "40"], "--log2"), (["--repeat", "0"], "--repeat")):
        with pytest.raises(SystemExit):
            mod.main(bad)
        assert word in capsys.readouterr().err


def test_the_profiling_script_checks_its_window_before_it_needs_a_gpu(capsys):
    mod = _script("profile_kernels.py")
    for bad in ("1", "25"):
        with pytest.raises(SystemExit):
            mod.main(["--msm", "20", "--msm-window", bad])
        assert "--msm-window must be in 2..24" in capsys.readouterr().err


def test_msm_benchmark_kernel_times_need_the_gpu(capsys):
    mod = _script("bench_msm.py")
    with pytest.raises(SystemExit):
        mod.main(["--backend", "cpu", "--kernels", "--json", ""])
    assert "--kernels times the GPU's kernel launches" in capsys.readouterr().err


def _rejudged(jobs: str, tmp_path, capsys) -> tuple:
    """Run rejudge_live_jobs.py on ``jobs``; return the script, its JSON and its printout."""
    mod = _script("rejudge_live_jobs.py")
    out = tmp_path / "rejudged.json"
    assert mod.main(["--jobs", jobs, "--markdown", "--json", str(out)]) == 0
    return mod, json.loads(out.read_text()), capsys.readouterr().out


def _stored(name: str) -> dict:
    return json.loads((Path("benchmarks/results") / name).read_text())


def test_the_rejudge_script_judges_stored_jobs_on_profiles_made_again(tmp_path, capsys):
    # the thirty-third H200 job: four gw=2 rows on its own host's profile, which the job
    # itself derived with this version's b_g2_msm split: judged again, the same errors
    mod, res, text = _rejudged("33", tmp_path, capsys)
    (job,) = res["jobs"]
    stored = _stored("compare-live-h200-r26-samehost-tracked-gw2.json")["rows"]
    assert job["errors"] == pytest.approx([r["error"]["seconds_per_proof"] for r in stored],
                                          abs=2e-4)
    assert job["rows"] == 4 and job["within_10"] == sum(abs(e) <= 0.1 for e in job["errors"])
    assert "| thirty-third (2026-12-05, `-r26-samehost-tracked-gw2`" in text
    assert res["total"]["rows"] == 4 and "all jobs: " in text
    for bad, msg in (("99", "unknown job(s) [99]"), ("x", "expected job numbers")):
        with pytest.raises(SystemExit):
            mod.main(["--jobs", bad])
        assert msg in capsys.readouterr().err


def test_the_rejudge_script_judges_stored_curves_on_their_jobs_profiles(tmp_path, capsys):
    # the thirty-eighth job's curve, stored in its comparison: judged again on the profile
    # made from its calibration, the same slowdowns as the comparison judged them
    mod, res, text = _rejudged("38", tmp_path, capsys)
    (curve,) = res["curves"]
    stored = _stored("compare-live-h100-r31-samehost-tracked.json")["contention"]
    assert [p["b_g2_msm_live_x"] for p in curve["points"]] == pytest.approx(
        [r["b_g2_msm_live_x"] for r in stored["rows"]], abs=1e-4)
    # its worst point, b_g2_msm beside twelve, the model below live
    assert curve["worst"]["error"] == pytest.approx(-stored["target"]["max_abs_error"], abs=2e-3)
    assert curve["met"] is stored["target"]["met"] is True
    assert "| thirty-eighth (2026-12-05, `compare-live-h100-r31-samehost-tracked.json`)" in text
    assert res["total"]["curves"] == 1 and "contention curves: 1 of 1" in text
    # a curve without rows: no rows' summary
    _, res, text = _rejudged("26", tmp_path, capsys)
    assert res["jobs"] == [] and len(res["curves"]) == 1 and "all jobs" not in text


def test_the_rejudge_script_sets_each_job_beside_its_host_checks(tmp_path, capsys):
    import math
    mod = _script("rejudge_live_jobs.py")
    # jobs whose only error is the host's pace lie on error = 1 / pace - 1: slope -1, r = -1
    jobs = [{"job": n, "checks": {"synth": 1.0, "b_g2_msm": p, "rows": 12},
             "median_error": 1 / p - 1, "within_10": 6, "rows": 12}
            for n, p in ((1, 0.8), (2, 1.0), (3, 1.25), (4, 1.4))]
    fit = mod.pace_fit(jobs + [{"job": 5, "checks": None, "median_error": 0.5}])
    assert fit["jobs"] == 4 and fit["r"] == pytest.approx(-1.0) and fit["slope"] == pytest.approx(-1.0)
    assert fit["intercept"] == pytest.approx(0.0, abs=1e-4)
    assert mod.pace_fit(jobs[:2]) is None
    # each row over the jobs: the plain and the host-tracked means, in first-seen order
    rows = mod.by_row([{"row_errors": [{"row": "a", "error": 0.2, "tracked": 0.02},
                                       {"row": "b", "error": -0.1, "tracked": None}]},
                       {"row_errors": [{"row": "a", "error": -0.04, "tracked": -0.12}]}])
    assert [r["row"] for r in rows] == ["a", "b"]
    assert rows[0]["plain_mean"] == pytest.approx(0.08) and rows[0]["plain_within_10"] == 1
    assert rows[0]["tracked_mean"] == pytest.approx(-0.05) and rows[0]["tracked_within_10"] == 1
    assert rows[1]["tracked_jobs"] == 0 and "tracked_mean" not in rows[1]
    # the figure: the target band, the pace-alone curve, one marker per job with checks,
    # each labelled with its number
    from cuzklab.plots.model_vs_live import pace_figure
    fig = pace_figure(jobs + [{"job": 5, "checks": None, "median_error": 0.5}], fit,
                      kinds={1: "h100"})
    marks = [t for t in fig.data if t.mode == "markers+text"]
    assert sorted(t for m in marks for t in m.text) == ["1", "2", "3", "4"]
    curve = next(t for t in fig.data if "pace alone" in t.name)
    assert all(math.isclose(y, 100 * (1 / x - 1)) for x, y in zip(curve.x, curve.y))
    assert "r = -1.00" in fig.layout.title.text
    assert not any("re-paced" in (t.name or "") for t in fig.data)
    # a job re-paced to its first checks: an open marker at its pace, joined to its plain one
    jobs[3]["repaced"] = {"checks": 3, "median_error": 0.02, "within_10": 12, "rows": 12}
    fig = pace_figure(jobs, fit, repaced_total={"checks": 3, "within_10": 12, "rows": 12,
                                                "plain_within_10": 6})
    (paced,) = [t for t in fig.data if "re-paced" in (t.name or "")]
    assert list(paced.x) == [1.4] and list(paced.y) == pytest.approx([2.0])
    assert "12 of 12 rows within 10 % (the plain profile 6)" in fig.layout.title.text
    # a job whose rows ran on its profile re-paced right before them: a marker of its own
    fig = pace_figure(jobs, fit, kinds={1: "h100"}, repaced_before={4})
    (ran,) = [t for t in fig.data if "re-paced right before" in (t.name or "")]
    assert list(ran.text) == ["4"] and ran.marker.symbol == "circle-dot"
    marks = [t for t in fig.data if t.mode == "markers+text"]
    assert sorted(t for m in marks for t in m.text) == ["1", "2", "3", "4"]
    # labels keep clear of one another and of the markers: two jobs at one pace and error
    twins = [{"job": n, "checks": {"synth": 1.0, "b_g2_msm": 1.0, "rows": 12},
              "median_error": 0.0, "within_10": 6, "rows": 12} for n in (7, 8)]
    places = [p for t in pace_figure(twins + jobs[:2], fit).data
              if t.mode == "markers+text" for p in t.textposition]
    assert places[0] != places[1]
    # a crowd at one pace and error: the eight places next to the marker, then none that a
    # line to it could reach without crossing a label: the rest have no label and are named
    # in the subtitle, so every job is labelled or named once
    crowd = [{"job": n, "checks": {"synth": 1.0, "b_g2_msm": 1.0, "rows": 12},
              "median_error": 0.0, "within_10": 6, "rows": 12} for n in range(10, 22)]
    fig = pace_figure(crowd + jobs[:2], fit)
    near = [t for m in fig.data if m.mode == "markers+text" for t in m.text if t]
    far = [a for a in fig.layout.annotations if a.showarrow]
    assert all(a.axref == "x" and a.ayref == "y" for a in far)
    title = fig.layout.title.text
    bare = (title.split("not labelled: ")[1].split(" (")[0].split(", ")
            if "not labelled: " in title else [])
    assert sorted(near + [a.text for a in far] + bare) == sorted(
        str(n) for n in [1, 2] + list(range(10, 22)))
    tails = [(a.ax, a.ay) for a in far]
    assert len(set(tails)) == len(tails)  # no two far labels on one spot
    # on the stored jobs, no label set off on a line has the line pass another job's marker
    # (a reader takes the marker the line crosses for the label's: the forty-sixth's line
    # once ran through the sixtieth's)
    stored = json.loads((Path(__file__).resolve().parents[1] / "benchmarks" / "results"
                         / "rejudge-live-jobs.json").read_text())
    fig = pace_figure(stored["jobs"], stored["total"]["pace"], repaced_before=set(mod.REPACED))
    marks = [(j["checks"]["b_g2_msm"], 100 * e) for j in stored["jobs"] if j.get("checks")
             for e in [j["median_error"]] + ([j["repaced"]["median_error"]]
                                             if j.get("repaced") else [])]
    far = [a for a in fig.layout.annotations if a.showarrow]
    assert far
    for a in far:
        for t in (0.25, 0.5, 0.75):
            px, py = a.x + t * (a.ax - a.x), a.y + t * (a.ay - a.y)
            assert not any(abs(px - mx) < 0.006 and abs(py - my) < 1.0
                           for mx, my in marks if mx != a.x), a.text
    # nor do two labels overlap, or a leader line run through a label (the sixty-first's
    # number once sat under the sixty-third's line)
    lo, hi = fig.layout.xaxis.range
    dx = 0.05 * (hi - lo)
    off = {"top center": (0, 3.0), "bottom center": (0, -3.0), "middle right": (dx / 2, 0),
           "middle left": (-dx / 2, 0), "top right": (dx / 3, 2.5),
           "bottom right": (dx / 3, -2.5), "top left": (-dx / 3, 2.5),
           "bottom left": (-dx / 3, -2.5)}
    at = {t: (x + off[w][0], y + off[w][1]) for m in fig.data if m.mode == "markers+text"
          for x, y, t, w in zip(m.x, m.y, m.text, m.textposition) if t}
    at.update({a.text: (a.ax, a.ay) for a in far})
    names = sorted(at)
    for i, n in enumerate(names):
        for o in names[i + 1:]:
            assert not (abs(at[n][0] - at[o][0]) < dx / 2
                        and abs(at[n][1] - at[o][1]) < 3.0), (n, o)
    for a in far:
        for n, (lx, ly) in at.items():
            if n != a.text:
                assert not any(abs(a.x + t / 10 * (a.ax - a.x) - lx) < dx / 3
                               and abs(a.y + t / 10 * (a.ay - a.y) - ly) < 1.5
                               for t in range(1, 10)), (a.text, n)
    # the stored rejudging: the thirty-eighth job's checks are its rows' medians
    _, res, text = _rejudged("38", tmp_path, capsys)
    (job,) = res["jobs"]
    assert job["checks"]["rows"] == 12 and job["median_error"] == pytest.approx(
        sorted(job["errors"])[5:7][0] / 2 + sorted(job["errors"])[5:7][1] / 2, abs=1e-4)
    assert f"x{job['checks']['synth']:.2f} / x{job['checks']['b_g2_msm']:.2f} |" in text
    assert res["total"]["pace"] is None  # one job: no fit
    # re-paced by default to its three earliest checks
    assert job["repaced"]["checks"] == 3 and res["total"]["repaced"]["jobs"] == 1


def test_the_rejudge_script_sets_when_the_syntheses_end_beside_the_live_runs(tmp_path, capsys):
    from cuzklab.calibrate.compare import synth_ends, synth_waves
    from cuzklab.trace import TraceBuilder
    mod = _script("rejudge_live_jobs.py")
    tb = TraceBuilder(source="live")
    tb.span(0, 0, "queue", "admission", 1.0, 1.5)
    tb.span(0, 0, "synth", "synth.0", 1.5, 2.0)
    tb.span(0, 1, "synth", "synth.1", 1.5, 3.0)
    tb.span(0, 0, "b_g2_msm", "final.0", 2.5, 4.0)
    assert synth_ends(tb.build()) == {"first": 1.0, "last": 2.0, "end": 3.0}
    assert synth_ends(TraceBuilder(source="live").build()) is None
    # one synthesis started after the first ended: it is the later wave, the two before the first
    assert synth_waves(tb.build()) is None  # both started before either ended
    tb.span(0, 2, "synth", "synth.0", 2.0, 4.25)
    assert synth_waves(tb.build()) == {"first": 1.0, "later": 2.25, "later_over_first": 2.25}
    # with each synthesis's steps: the later witness step over the first wave's, and where the
    # steps carry the thread's CPU seconds (a live run's), the CPU too: here the later one
    # took twice the wall for the same CPU (the rest of its time without a core)
    steps = [[0, 0, 0.4, 0.1, 0.4], [0, 1, 0.6, 0.9, 0.6], [0, 2, 1.0, 1.25, 0.5]]
    w = synth_waves(tb.build(synth_steps=steps))
    assert w["witness_later_over_first"] == 2.0 and w["cpu_later_over_first"] == 1.0
    w = synth_waves(tb.build(synth_steps=[x[:4] for x in steps]))  # a model's: no CPU
    assert w["witness_later_over_first"] == 2.0 and "cpu_later_over_first" not in w
    rows = [{"witness_work": 0.0, "partition_workers": 12, "first": f, "last": -0.2, "end": e}
            for f, e in ((-0.3, 0.0), (-0.1, -0.1), (0.2, 0.05))]
    (g,) = mod.waves([{"waves": rows}, {"waves": []}])
    assert (g["rows"], g["first_median"], g["last_median"], g["end_median"]) == (3, -0.1, -0.2, 0.0)
    # how the run's error follows the first end's; the last's does not move: no correlation
    assert g["r_first"] == pytest.approx(0.4336, abs=1e-4) and g["r_last"] is None
    assert (g["pace_rows"], g["pace_median"], g["r_pace"]) == (0, None, None)
    paced = [dict(r, pace=p) for r, p in zip(rows, (-0.2, -0.1, 0.1))]
    (g,) = mod.waves([{"waves": paced}])
    assert g["pace_rows"] == 3 and g["pace_median"] == -0.1
    assert g["r_pace"] == pytest.approx(mod._corr([-0.2, -0.1, 0.1], [0.0, -0.1, 0.05]))
    assert "later_rows" not in g  # no row had a later wave on both sides
    later = [dict(r, later_live=x, later_model=y)
             for r, x, y in zip(rows, (1.2, 1.3, 1.4), (0.8, 0.9, 1.0))]
    (g,) = mod.waves([{"waves": later + rows}])
    assert (g["later_rows"], g["later_live_median"], g["later_model_median"]) == (3, 1.3, 0.9)
    # the forty-sixth job: every row has host checks and a saved live trace
    _, res, text = _rejudged("46", tmp_path, capsys)
    (job,) = res["jobs"]
    assert len(job["waves"]) == 12
    assert {(g["witness_work"], g["partition_workers"], g["rows"])
            for g in res["total"]["waves"]} == {(0.0, 12, 4), (0.25, 8, 4), (1.0, 4, 4)}
    assert "when the syntheses end, the host-tracked model over live - 1" in text
    assert "  W=0 pw=12 (4 rows): first " in text
    # pw=8 and pw=4 start syntheses after the first wave, on both sides; pw=12 none (12 in all)
    later = {g["partition_workers"]: g.get("later_rows") for g in res["total"]["waves"]}
    assert later == {12: None, 8: 4, 4: 4}
    assert "a later synthesis over a first-wave one x" in text
    # the GPU worker's cycle, model over live, by lock and GPU workers (three rows each)
    assert {(c["lock"], c["gw"], c["rows"]) for c in res["total"]["cycles"]} == {
        ("interlock", 1, 3), ("interlock", 2, 3), ("split_async", 1, 3), ("split_async", 2, 3)}
    assert "the GPU worker's cycle (one prep_msm start to the next on a worker)" in text
    one = [{"lock": "split_async", "gw": 1, "cycle": c} for c in (-0.4, -0.2, -0.3)]
    assert mod.cycles([{"waves": one + [{"lock": "interlock", "gw": 1, "cycle": None}]}]) == [
        {"lock": "split_async", "gw": 1, "rows": 3, "median": -0.3}]


def test_the_rejudge_script_sets_each_curve_beside_an_even_share_of_the_cores():
    mod = _script("rejudge_live_jobs.py")
    # a pool of 16 beside 12 one-thread syntheses on 16 cores: 28 threads, 16/28 of the cores
    assert mod.even_share_x(16, 12, 16) == pytest.approx(1.75)
    assert mod.even_share_x(16, 0, 16) == 1.0 and mod.even_share_x(8, 4, 16) == 1.0
    assert mod.even_share_x(8, 12, 16) == pytest.approx(1.25)
    curves = [{"points": [{"syntheses": 0, "b_g2_msm_live_x": 1.0, "b_g2_msm_even_x": 1.0},
                          {"syntheses": 12, "b_g2_msm_live_x": x, "b_g2_msm_even_x": 1.75}]}
              for x in (1.75, 2.1, 2.45)]
    (e,) = mod.over_even_share(curves)
    assert e["syntheses"] == 12 and e["curves"] == 3
    assert (e["low"], e["median"], e["high"]) == pytest.approx((1.0, 1.2, 1.4))
    # the forty-first job's curve, on its 16-vCPU host with a pool of 16
    from pathlib import Path as _P
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        c = mod.judge_curve(next(c for c in mod.CURVES if c[0] == 41), _P(tmp))
    assert c["cores"] == 16 and c["pool_threads"] == 16
    assert [p["b_g2_msm_even_x"] for p in c["points"]] == pytest.approx(
        [1.0, 17 / 16, 18 / 16, 20 / 16, 24 / 16, 28 / 16])
    # and on weights fitted on its own points: on all five every point is within the
    # target, the worst no worse than the calibration's weight gives
    fits = {tuple(f["points"]): f for f in c["line_fits"]}
    assert set(fits) == set(mod.LINE_POINTS)
    everything = fits[(1, 2, 4, 8, 12)]
    assert everything["met"] and abs(everything["worst"]["error"]) <= abs(c["worst"]["error"])
    assert all(0.25 <= f["weight"] <= 8 for f in c["line_fits"])
    (total,) = [t for t in mod.line_fits_total([c, {"line_fits": []}])
                if t["points"] == [1, 2, 4, 8, 12]]
    assert total == {"points": [1, 2, 4, 8, 12], "curves": 1, "met": 1, "held_out_met": None}
    # fitted on a few of its points, the others judged alone: the forty-first's curve meets
    # the target on its other points with the weight of those beside 2, 8 and 12 (worst
    # 10.8 %) and of those beside 2, 4 and 12 (5.8 %)
    assert abs(fits[(2, 8, 12)]["held_out"]["error"]) == pytest.approx(0.108, abs=0.002)
    assert fits[(2, 8, 12)]["held_out"]["syntheses"] not in (2, 8, 12)
    assert fits[(2, 4, 12)]["held_out"]["met"] is True
    assert fits[(1, 2, 4, 8, 12)]["held_out"] is None
    (held,) = [t for t in mod.line_fits_total([c]) if t["points"] == [2, 4, 12]]
    assert held["held_out_met"] == 1


def test_the_rejudge_script_repaces_a_profile_to_a_jobs_earliest_checks(tmp_path, capsys):
    mod = _script("rejudge_live_jobs.py")
    # the earliest checks of the rows at the calibration's witness work, once each
    def row(w, *ats, repeats=()):
        hc = {"before": {"at": ats[0]}, "after": {"at": ats[1]}}
        return {"witness_work": w, "host_check": hc,
                "live": {"repeats": [{"host_check": {"before": {"at": a}, "after": {"at": b}}}
                                     for a, b in repeats]}}
    stored = [{"rows": [row(0.25, 1, 2), row(1.0, 30, 40), row(1.0, 10, 20, repeats=[(10, 20), (5, 6)])]}]
    assert [c["at"] for c in mod.earliest_checks(stored, 3)] == [5, 6, 10]
    assert [c["at"] for c in mod.earliest_checks(stored, 9, 0.25)] == [1, 2]
    # the forty-second job (the forty-first's profile, its second pass, the host a fifth
    # slower than at the calibration): re-paced to its first three checks, every row within
    # 10 %, where the plain model had one
    assert mod.main(["--jobs", "42", "--repace", "3", "--json", str(tmp_path / "r.json")]) == 0
    out = capsys.readouterr().out
    (job,) = json.loads((tmp_path / "r.json").read_text())["jobs"]
    assert job["within_10"] == 1 and job["repaced"]["checks"] == 3
    assert job["repaced"]["within_10"] == job["repaced"]["rows"] == 11
    assert job["repaced"]["ratios"]["b_g2_msm"] > 1.1
    assert "re-paced to each job's 3 earliest host checks: 11 of 11 rows" in out
    # and at both witness works: its W=0 checks over its W=1 ones set the W=0 synthesis
    both = job["repaced"]["both_works"]
    assert both["checks_at_0"] == 3 and both["rows"] == 11 and 0.1 < both["synth_ratio_at_0"] < 0.4
    assert "and at both witness works" in out
    assert job["repaced"]["line_only"]["rows"] == 11 and "on that line alone" in out
    with pytest.raises(SystemExit):
        mod.main(["--repace", "-1"])
    assert "--repace" in capsys.readouterr().err


def test_the_rejudge_script_judges_a_repaced_job_on_its_repaced_profile(tmp_path, capsys,
                                                                         monkeypatch):
    # the forty-second job as if it had run on its calibration re-paced to its first three
    # checks: judged on that profile, its rows come out as --repace 3 judges them
    import shutil
    mod = _script("rejudge_live_jobs.py")
    results = tmp_path / "results"
    results.mkdir()
    for name in ("calibrate-live-h100-r32.json",
                 "compare-live-h100-r32-samehost-tracked-pass2.json"):
        shutil.copy(mod.RESULTS / name, results / name)
    stored = [json.loads((results / "compare-live-h100-r32-samehost-tracked-pass2.json")
                         .read_text())]
    (results / "repace-r32.json").write_text(json.dumps(
        {"checks": mod.earliest_checks(stored, 3), "date": "2026-12-05T17:00:00Z"}))
    monkeypatch.setattr(mod, "RESULTS", results)
    assert mod.main(["--jobs", "42", "--json", str(tmp_path / "a.json")]) == 0
    (before,) = json.loads((tmp_path / "a.json").read_text())["jobs"]
    monkeypatch.setattr(mod, "REPACED", {42: "repace-r32.json"})
    assert mod.main(["--jobs", "42", "--repace", "0", "--json", str(tmp_path / "b.json")]) == 0
    capsys.readouterr()
    (after,) = json.loads((tmp_path / "b.json").read_text())["jobs"]
    assert after["errors"] == pytest.approx(before["repaced"]["errors"], abs=2e-4)
    assert after["within_10"] == 11 and before["within_10"] == 1


def test_row_noise_pools_the_spread_within_each_row_and_judges_as_compare_does(tmp_path, capsys):
    import math
    mod = _script("row_noise.py")
    # the pooled within-row SD of logs: a row's level does not enter it
    sd, dof = mod.pooled_sd([[1.0, math.e ** 0.2], [10.0, 10.0 * math.e ** 0.2], [5.0]])
    assert dof == 2 and sd == pytest.approx(math.sqrt(2 * 2 * 0.1 ** 2 / 2))
    assert mod.pooled_sd([[3.0]]) == (None, 0)
    # no noise: every row always within; much noise: almost never
    assert mod.p_all_within([0.0] * 12, 1, 0.10, 200) == 1.0
    assert mod.p_all_within([1.0] * 12, 3, 0.10, 200) < 0.01
    # the lower median of two is the faster run, biased: two runs do no better than one,
    # three do better than either
    sds = [0.08] * 12
    p1, p2, p3 = (mod.p_all_within(sds, n, 0.10, 4000) for n in (1, 2, 3))
    assert p2 < p3 and p1 < p3 and abs(p2 - p1) < 0.1
    # a stored job of two rows, three runs each, with and without host checks
    job = {"rows": [
        {"config": {"lock": "interlock", "gpu_workers_per_device": 1, "partition_workers": 4},
         "witness_work": 1.0,
         "live": {"repeats": [{"seconds_per_proof": v, "tracked": {"seconds_per_proof": 1.0}}
                              for v in (1.0, 1.1, 0.9)]}},
        {"config": {"lock": "interlock", "gpu_workers_per_device": 1, "partition_workers": 8},
         "witness_work": 0.25, "live": {"repeats": [{"seconds_per_proof": 2.0}]}}]}
    (tmp_path / "compare-live-x.json").write_text(json.dumps(job))
    rows = mod.repeated_rows([tmp_path / "compare-live-x.json"])
    assert len(rows) == 1 and rows[0]["key"] == ("interlock", 1, 4, 1.0)
    # a job's later passes over its rows, one run each (NAME-passN beside NAME), are more
    # runs of the same rows; another job's file is not
    one = {"config": {"lock": "split_async", "gpu_workers_per_device": 2, "partition_workers": 12},
           "witness_work": 0.0}
    for name, v, t in (("y", 0.7, 0.72), ("y-pass2", 0.6, 0.61), ("y-pass3", 0.65, None),
                       ("z", 0.9, None)):
        p = tmp_path / "passes" / f"compare-live-{name}.json"
        p.parent.mkdir(exist_ok=True)
        p.write_text(json.dumps({"rows": [dict(one, live={"seconds_per_proof": v},
                                              model_tracked={"seconds_per_proof": t} if t else None)]}))
    assert mod.pass_job("compare-live-y-pass2.json") == "compare-live-y.json"
    (passes,) = mod.repeated_rows(sorted((tmp_path / "passes").glob("*.json")))
    assert passes["job"] == "compare-live-y.json" and passes["key"] == ("split_async", 2, 12, 0.0)
    assert passes["live"] == [0.7, 0.6, 0.65] and passes["tracked"] == [0.72, 0.61, None]
    out = tmp_path / "noise.json"
    assert mod.main(["--results", str(tmp_path), "--trials", "200", "--json", str(out)]) == 0
    rep = json.loads(out.read_text())
    logs = [math.log(v) for v in (1.0, 1.1, 0.9)]
    m = sum(logs) / 3
    want = math.sqrt(sum((x - m) ** 2 for x in logs) / 2)
    assert rep["pooled"]["sd"] == pytest.approx(want) and rep["pooled"]["tracked_sd"] == pytest.approx(want)
    assert [p["runs"] for p in rep["probabilities"]] == [1, 2, 3, 4, 5]
    assert "every one of the 1 rows within 10 %" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        mod.main(["--results", str(tmp_path / "none")])
    assert "no stored comparison" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        mod.main(["--target", "1.5"])
    assert "--target must lie between 0 and 1" in capsys.readouterr().err


def test_the_readme_jobs_table_is_the_stored_rejudging():
    # README's table of comparison jobs is rejudge_live_jobs.py --markdown over the stored
    # files; its JSON keeps what that printed, so an edit of one without the other shows here
    root = Path(__file__).parents[1]
    mod = _script("rejudge_live_jobs.py")
    stored = json.loads((root / "benchmarks" / "results" / "rejudge-live-jobs.json").read_text())
    readme = set((root / "README.md").read_text().splitlines())
    lines = mod.markdown(stored["jobs"]).splitlines()
    assert len(lines) == 2 + len(mod.JOBS)
    curves = mod.markdown_curves(stored["curves"]).splitlines()
    assert len(curves) == 2 + len(mod.CURVES)
    lines += curves
    stale = [line for line in lines if line not in readme]
    assert not stale, "run python benchmarks/rejudge_live_jobs.py --markdown --json ... :\n" + "\n".join(stale)


def test_the_rejudge_script_judges_every_job_on_one_pool_weight_when_asked(tmp_path, capsys):
    mod = _script("rejudge_live_jobs.py")
    for bad in ("0", "-1", "nan"):
        with pytest.raises(SystemExit):
            mod.main(["--jobs", "46", "--pool-weight", bad])
        assert "--pool-weight: expected a weight > 0" in capsys.readouterr().err
    fitted = mod._load_profile(46, "r33", tmp_path)
    even = mod._load_profile(46, "r33", tmp_path, 1.0)
    assert fitted.get("node", "cpu_pool_weight") != 1.0
    assert even.get("node", "cpu_pool_weight") == 1.0
    assert even.get("synth", "work_core_s") == fitted.get("synth", "work_core_s")
    # the same rows, simulated again at the even share: the model's side moves, the live stays
    base = mod.judge(mod.JOBS[[j[0] for j in mod.JOBS].index(46)], tmp_path)
    moved = mod.judge(mod.JOBS[[j[0] for j in mod.JOBS].index(46)], tmp_path, 0, 1.0)
    assert base["rows"] == moved["rows"] == 12 and base["errors"] != moved["errors"]


def test_the_rejudge_script_judges_the_neighbour_trial_when_asked(tmp_path, capsys):
    # the sixty-fifth job's curve on its calibration made again with the b_g2_msm pool's
    # width and neighbour slowdown: the same live points, another model, fitted on 3, 6, 11
    mod = _script("rejudge_live_jobs.py")
    plain = mod._load_profile(65, "r41", tmp_path)
    trial = mod._load_profile(65, "r41", tmp_path, neighbour=True)
    assert "neighbour_slowdown" not in plain["b_g2_msm"]
    assert trial["b_g2_msm"]["pool_width"] == pytest.approx(14.622)
    assert plain.get("synth", "work_core_s") == trial.get("synth", "work_core_s")
    out = tmp_path / "trial.json"
    assert mod.main(["--jobs", "65", "--neighbour", "--json", str(out)]) == 0
    (curve,) = json.loads(out.read_text())["curves"]
    stored = _stored("contention-curve-live-h100-r41.json")["contention"]
    assert [p["b_g2_msm_live_x"] for p in curve["points"]] == pytest.approx(
        [r["b_g2_msm_live_x"] for r in stored["rows"]], abs=1e-4)
    same = curve["same_pass"]
    assert same["counts"] == [3, 6, 11] and "neighbour_slowdown" in same
    assert curve["met"] is True


def test_the_witness_beside_pool_benchmark_sets_both_rules_beside_its_timings(tmp_path, capsys):
    mod = _script("bench_witness_beside_pool.py")
    out = tmp_path / "beside.json"
    assert mod.main(["--log2", "8", "--backend", "cpu", "--works", "1,0", "--repeat", "1",
                     "--pool-threads", "2", "--json", str(out)]) == 0
    res = json.loads(out.read_text())
    assert list(res["works"]) == ["0", "1"] and res["pool_threads"] == 2
    for key, m in res["works"].items():
        wit = m["witness"]
        assert wit["witness_work"] == float(key) and wit["alone_s"] > 0 and wit["beside_s"] > 0
        assert wit["rule_zero_part"] >= 1.0  # a rule's slowdown is never below 1
    # an H100 host's stored timings judged again: the step's two parts from W=0 and W=1
    # give the W=0.25 step within 5 %, the W=0 part alone (the rest as alone) 27 % short
    stored = Path(__file__).resolve().parents[1] / "benchmarks" / "results" / \
        "witness-beside-pool-h100.json"
    again = tmp_path / "again.json"
    assert mod.main(["--judge", str(stored), "--json", str(again)]) == 0
    res = json.loads(again.read_text())
    mid = res["works"]["0.25"]["witness"]
    assert 1.4 < res["work_part_slowdown"] < 1.5
    assert abs(mid["rule_both_parts"] / mid["slowdown"] - 1) < 0.05
    assert mid["rule_zero_part"] / mid["slowdown"] - 1 < -0.2
    assert "the part the witness work adds: x1.44" in capsys.readouterr().out
    for argv, message in ((["--works", "0.25,1"], "0 among them"),
                          (["--works", "a"], "--works: numbers >= 0"),
                          (["--repeat", "0"], "--repeat must be at least 1"),
                          (["--judge", str(tmp_path / "none.json")], "--judge: cannot read")):
        with pytest.raises(SystemExit):
            mod.main(argv)
        assert message in capsys.readouterr().err
