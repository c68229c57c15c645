"""A daemon TOML per release reads to the configuration that release runs, and round-trips.

The example files are written here from what each release's config.rs
declares (keys, types, defaults), with values of our own.
"""

import pytest

from cuzklab.errors import ConfigError
from cuzklab.model import PipelineConfig
from cuzklab.model.cuzk_versions import DAEMON_KEYS, DAEMON_VERSIONS, daemon_settings

# Phase 7: no gpu_workers_per_device yet; partition_workers sizes the permits.
PHASE7 = """\
# a phase-7 node
[daemon]
listen = "127.0.0.1:9820"   # gRPC

[memory]
pinned_budget = "60GiB"

[gpus]
devices = [0]

[synthesis]
partition_workers = 12

[srs]
preload = ["porep-32g"]
"""

# Phases 8-12: gpu_workers_per_device = 0 is one worker; unknown keys are ignored.
PHASE9 = """\
[gpus]
devices = [0, 1]
gpu_workers_per_device = 0
gpu_threads = 48

[synthesis]
threads = 64

[pipeline]
synthesis_lookahead = 2
slot_size = 3

[telemetry]
endpoint = "http://collector:4317"
"""

PHASE12 = """\
[scheduler]
max_batch_size = 2
max_batch_wait_ms = 2500
sort_by_type = false

[logging]
level = "debug"
format = "json"
"""

# The newest: one memory budget; partition_workers deprecated (warned, ignored).
HEAD = """\
# cuzklab: memory_gib = 512
[daemon]
listen = "unix:///run/curio/cuzk.sock"
status_listen = "127.0.0.1:9821"

[memory]
total_budget = "auto"
safety_margin = "12GiB"
eviction_min_idle = "10m"

[gpus]
gpu_workers_per_device = 3

[synthesis]
partition_workers = 12

[pipeline]
max_parallel_synthesis = 0
max_gpu_queue_depth = 8
"""


def _defaults(version):
    return daemon_settings({}, version)[0]


@pytest.mark.parametrize("version", list(DAEMON_VERSIONS))
def test_an_empty_file_runs_each_release_with_its_own_defaults(version):
    s = _defaults(version)
    v = DAEMON_VERSIONS[version]
    assert s["gpus.gpu_threads"] == 0 and s["synthesis.threads"] == 0
    assert s["pipeline.enabled"] is True and s["scheduler.max_batch_wait_ms"] == 10000
    assert s["daemon.listen"] == "unix:///run/curio/cuzk.sock"
    c = PipelineConfig.from_cuzk_toml("", daemon_version=version)
    assert (c.gpu_threads, c.synthesis_threads, c.lock, c.admission) == \
        (0, 0, v.lock, v.admission)
    if version == "head":
        assert c.partition_workers == 18 and "synthesis.partition_workers" in s
        assert s["memory.total_budget"] == "auto" and s["memory.safety_margin"] == "5GiB"
        assert "memory.pinned_budget" in s          # deprecated, still parsed
    else:
        assert c.partition_workers == 20 and "pipeline.max_parallel_synthesis" not in s
        assert s["memory.pinned_budget"] == "50GiB"
        assert s["memory.working_memory_budget"] == "80GiB"
        assert "memory.total_budget" not in s and "daemon.status_listen" not in s
    assert c.gpu_workers_per_device == (1 if version == "phase7" else 2)
    assert ("gpus.gpu_workers_per_device" in s) == (version != "phase7")


def test_phase7_file_field_by_field():
    r = PipelineConfig.read_cuzk_toml(PHASE7, daemon_version="phase7")
    s = r.settings
    assert s["daemon.listen"] == "127.0.0.1:9820"
    assert s["memory.pinned_budget"] == "60GiB" and s["memory.working_memory_budget"] == "80GiB"
    assert s["gpus.devices"] == [0] and s["synthesis.partition_workers"] == 12
    assert s["srs.preload"] == ["porep-32g"] and s["srs.param_cache"] == "/data/zk/params"
    assert s["pipeline.synthesis_lookahead"] == 1 and s["pipeline.slot_size"] == 0
    c = r.config
    assert (c.gpus, c.gpu_workers_per_device, c.partition_workers) == (1, 1, 12)
    assert (c.lock, c.admission) == ("wide_mutex", "semaphore_prefix")


def test_phase9_file_field_by_field():
    r = PipelineConfig.read_cuzk_toml(PHASE9, daemon_version="phase9")
    c, s = r.config, r.settings
    assert s["gpus.gpu_workers_per_device"] == 0 and c.gpu_workers_per_device == 1
    assert (c.gpus, c.gpu_threads, c.synthesis_threads) == (2, 48, 64)
    assert s["pipeline.synthesis_lookahead"] == 2 and s["pipeline.slot_size"] == 3
    assert (c.partition_workers, c.lock, c.admission) == (20, "interlock", "semaphore_prefix")
    assert r.unmodeled == {"telemetry": {"endpoint": "http://collector:4317"}}
    assert any("[telemetry]" in n for n in r.notes)


def test_phase12_and_its_first_commit_differ_in_the_permit():
    for version, admission in (("phase12-split", "semaphore_prefix"), ("phase12", "semaphore")):
        r = PipelineConfig.read_cuzk_toml(PHASE12, daemon_version=version)
        assert (r.config.lock, r.config.admission) == ("split_async", admission)
        s = r.settings
        assert (s["scheduler.max_batch_size"], s["scheduler.max_batch_wait_ms"]) == (2, 2500)
        assert s["scheduler.sort_by_type"] is False
        assert (s["logging.level"], s["logging.format"]) == ("debug", "json")


def test_head_file_field_by_field():
    r = PipelineConfig.read_cuzk_toml(HEAD)
    c, s = r.config, r.settings
    assert s["daemon.status_listen"] == "127.0.0.1:9821"
    assert s["memory.safety_margin"] == "12GiB" and s["memory.eviction_min_idle"] == "10m"
    assert s["pipeline.max_gpu_queue_depth"] == 8 and s["pipeline.max_parallel_synthesis"] == 0
    # partition_workers is ignored; max_parallel_synthesis = 0 is the default 18.
    assert (c.partition_workers, c.admission, c.gpu_workers_per_device) == (18, "budget", 3)
    assert any("synthesis.partition_workers is deprecated" in n for n in r.notes)
    # auto: RAM (memory_gib) minus the safety margin.
    assert c.memory_gib == 512 and c.budget_gib == 500 and c.effective_budget_gib() == 500
    old = PipelineConfig.from_cuzk_toml(HEAD, daemon_version="phase11")
    assert (old.partition_workers, old.admission, old.budget_gib) == (12, "semaphore_prefix", 0)


@pytest.mark.parametrize("text,version", [(PHASE7, "phase7"), (PHASE9, "phase9"),
                                          (PHASE12, "phase12"), (HEAD, "head")])
def test_each_file_round_trips_unchanged_and_edits_touch_only_their_keys(text, version):
    c = PipelineConfig.from_cuzk_toml(text, daemon_version=version)
    assert c.to_cuzk_toml() == text
    edited = c.replace(gpu_threads=16, synthesis_threads=8)
    out = edited.to_cuzk_toml()
    assert PipelineConfig.from_cuzk_toml(out, daemon_version=version) == edited
    changed = [ln for ln in out.splitlines() if ln not in text.splitlines()]
    tables = [ln for ln in changed if ln.startswith("[")]   # a table the file lacked
    assert sorted(set(changed) - set(tables)) == ["gpu_threads = 16", "threads = 8"]
    assert set(tables) <= {"[gpus]", "[synthesis]"}
    assert _unmodeled(out, version) == _unmodeled(text, version)


def _unmodeled(text, version):
    return PipelineConfig.read_cuzk_toml(text, daemon_version=version).unmodeled


def test_what_a_release_cannot_say_is_kept_as_a_comment():
    c = PipelineConfig.from_cuzk_toml(PHASE7, daemon_version="phase7").replace(
        gpu_workers_per_device=2)
    out = c.to_cuzk_toml()
    assert "# cuzklab: gpu_workers_per_device = 2" in out and "[gpus]\ndevices = [0]\n" in out
    assert PipelineConfig.from_cuzk_toml(out, daemon_version="phase7") == c


@pytest.mark.parametrize("version", list(DAEMON_VERSIONS))
def test_a_new_file_round_trips_under_every_release(version):
    c = PipelineConfig(partition_workers=7, gpu_workers_per_device=3, gpu_threads=16,
                       budget_gib=300, admission="budget", lock="interlock")
    text = c.to_cuzk_toml(daemon_version=version)
    assert PipelineConfig.from_cuzk_toml(text, daemon_version=version) == c


@pytest.mark.parametrize("text,key", [
    ("[gpus]\ngpu_threads = -1\n", "gpus.gpu_threads"),
    ("[gpus]\ngpu_workers_per_device = 2.5\n", "gpus.gpu_workers_per_device"),
    ('[pipeline]\nenabled = "yes"\n', "pipeline.enabled"),
    ("[gpus]\ndevices = [0, -1]\n", "gpus.devices"),
    ("[synthesis]\npartition_workers = true\n", "synthesis.partition_workers"),
    ("gpus = 3\n", "gpus"),
])
def test_values_the_daemon_refuses_are_errors_naming_the_key(text, key):
    with pytest.raises(ConfigError, match=rf"^{key}: .*refuse to start"):
        PipelineConfig.from_cuzk_toml(text)


def test_sizes_are_read_as_the_daemon_reads_them():
    r = PipelineConfig.read_cuzk_toml('[memory]\ntotal_budget = "1TiB"\n')
    assert r.config.budget_gib == 50 and any("50 GiB" in n for n in r.notes)
    assert PipelineConfig.from_cuzk_toml('[memory]\ntotal_budget = "600 GiB"\n').budget_gib \
        == 600
    assert PipelineConfig.from_cuzk_toml('[memory]\ntotal_budget = "Auto"\n').budget_gib == 50


def test_every_key_names_a_table_and_a_type():
    assert len({k.name for k in DAEMON_KEYS}) == len(DAEMON_KEYS)
    for k in DAEMON_KEYS:
        assert k.kind in ("u32", "u64", "bool", "str", "opt_str", "u32_list", "str_list")
    with pytest.raises(ConfigError, match="daemon_version: must be one of"):
        PipelineConfig.from_cuzk_toml("", daemon_version="phase13")


def test_the_docs_carry_the_tables_of_releases_and_keys():
    from pathlib import Path

    from cuzklab.model.cuzk_versions import daemon_keys_markdown, versions_markdown
    text = (Path(__file__).resolve().parents[2] / "docs" / "cuzk-daemon.md").read_text()
    assert versions_markdown() in text and daemon_keys_markdown() in text


def test_a_key_added_to_the_config_maps_through_its_one_table_line():
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Wider(PipelineConfig):
        synthesis_concurrency: int = 1

    c = Wider.from_cuzk_toml("[pipeline]\nsynthesis_concurrency = 0\n")
    assert c.synthesis_concurrency == 1                   # engine.rs: .max(1)
    out = c.replace(synthesis_concurrency=3).to_cuzk_toml()
    assert out == "[pipeline]\nsynthesis_concurrency = 3\n"
    assert Wider.from_cuzk_toml(out).synthesis_concurrency == 3


def test_a_budget_above_the_default_ram_is_accepted_as_the_daemon_does():
    r = PipelineConfig.read_cuzk_toml('[memory]\ntotal_budget = "1000GiB"\n')
    assert (r.config.budget_gib, r.config.memory_gib) == (1000, 1005)
    with pytest.raises(ConfigError, match="budget_gib"):
        PipelineConfig.from_cuzk_toml('[memory]\ntotal_budget = "1000GiB"\n', memory_gib=512)


def test_the_example_configs_of_a_curio_checkout_round_trip():
    # With CUZKLAB_CURIO_DIR pointing at a Curio checkout, its example daemon TOMLs
    # read under the newest release and write back byte for byte.
    import os
    from pathlib import Path
    root = os.environ.get("CUZKLAB_CURIO_DIR")
    if not root:
        pytest.skip("set CUZKLAB_CURIO_DIR to a Curio checkout")
    files = sorted(Path(root).glob("extern/cuzk/*.toml"))
    files = [f for f in files if f.name not in ("Cargo.toml", "rust-toolchain.toml")]
    assert files
    for f in files:
        text = f.read_text(encoding="utf-8")
        c = PipelineConfig.from_cuzk_toml(text)
        assert c.to_cuzk_toml() == text, f
