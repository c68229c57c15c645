"""PipelineConfig: defaults, validation of every key, overrides and the cuzk TOML."""

import math

import numpy as np
import pytest

from cuzklab.errors import ConfigError
from cuzklab.model import ADMISSIONS, LOCKS, PipelineConfig


def test_defaults_describe_the_documented_node():
    c = PipelineConfig()
    assert (c.partitions, c.partition_workers, c.gpu_workers_per_device) == (10, 10, 2)
    assert c.lock == "split_async" and c.gpu_threads == 32
    assert c.memory_gib == 754.0
    assert set(PipelineConfig.keys()) >= {
        "proofs", "concurrency", "partitions", "partition_workers", "admission", "gpus",
        "gpu_workers_per_device", "gpu_threads", "synthesis_threads", "lock", "memory_gib", "seed"}


def test_frozen():
    c = PipelineConfig()
    with pytest.raises(Exception):
        c.proofs = 3  # type: ignore[misc]


@pytest.mark.parametrize("key,value,words", [
    ("proofs", 0, "proofs: must be >= 1"),
    ("concurrency", 0, "concurrency: must be >= 1"),
    ("partitions", 0, "partitions: must be >= 1"),
    ("partitions", 65, "partitions: must be <= 64"),
    ("partition_workers", 0, "partition_workers: must be >= 1"),
    ("gpus", 0, "gpus: must be >= 1"),
    ("gpu_workers_per_device", 0, "gpu_workers_per_device: must be >= 1"),
    ("gpu_workers_per_device", 17, "gpu_workers_per_device: must be <= 16"),
    ("gpu_threads", -1, "gpu_threads: must be >= 0"),
    ("synthesis_threads", -2, "synthesis_threads: must be >= 0"),
    ("seed", -1, "seed: must be >= 0"),
    ("memory_gib", 0, "memory_gib: must be > 0"),
    ("budget_gib", -1, "budget_gib: must be >= 0"),
    ("budget_gib", 10_000, "budget_gib: must not exceed memory_gib"),
    ("lock", "spinlock", "lock: must be one of monolithic, wide_mutex"),
    ("admission", "fifo", "admission: must be one of semaphore"),
])
def test_out_of_range_values_name_the_key(key, value, words):
    with pytest.raises(ConfigError, match=words) as exc:
        PipelineConfig(**{key: value})
    assert exc.value.key == key


@pytest.mark.parametrize("key,value", [
    ("proofs", "3"), ("proofs", 2.5), ("proofs", True), ("lock", 3), ("memory_gib", "lots"),
])
def test_wrong_types_name_the_key(key, value):
    with pytest.raises(ConfigError, match=key):
        PipelineConfig(**{key: value})


def test_inconsistent_concurrency():
    with pytest.raises(ConfigError, match="concurrency: must be <= proofs"):
        PipelineConfig(proofs=3, concurrency=5)


def test_unknown_key():
    with pytest.raises(ConfigError, match="unknown key; allowed keys: proofs"):
        PipelineConfig.from_dict({"proofz": 3})


def test_numpy_scalars_are_accepted_as_plain_numbers():
    c = PipelineConfig(proofs=np.int64(4), concurrency=np.int64(2), memory_gib=np.float64(512))
    assert type(c.proofs) is int and c.proofs == 4 and c.memory_gib == 512.0


@pytest.mark.parametrize("lock", LOCKS)
@pytest.mark.parametrize("admission", ADMISSIONS)
def test_every_lock_and_admission_is_accepted(lock, admission):
    assert PipelineConfig(lock=lock, admission=admission).lock == lock


def test_overrides_parse_by_type():
    c = PipelineConfig().with_overrides(["proofs=7", "concurrency=3", "lock=interlock",
                                         "memory_gib=512"])
    assert (c.proofs, c.concurrency, c.lock, c.memory_gib) == (7, 3, "interlock", 512.0)
    with pytest.raises(ConfigError, match="proofs: expected an integer"):
        PipelineConfig().with_overrides(["proofs=many"])
    with pytest.raises(ConfigError, match="expected key=value"):
        PipelineConfig().with_overrides(["proofs"])
    with pytest.raises(ConfigError, match="nope: unknown key"):
        PipelineConfig().with_overrides(["nope=1"])


def test_budget_auto_and_explicit():
    assert PipelineConfig().effective_budget_gib() == 749.0
    assert PipelineConfig(budget_gib=512).effective_budget_gib() == 512


@pytest.mark.parametrize("config", [
    PipelineConfig(),
    PipelineConfig(proofs=30, concurrency=20, partition_workers=12, admission="semaphore_prefix",
                   gpus=2, gpu_workers_per_device=3, gpu_threads=0, synthesis_threads=64,
                   lock="interlock", memory_gib=512, seed=9),
    PipelineConfig(admission="budget", budget_gib=400, lock="two_lock"),
])
def test_cuzk_toml_round_trip(config, tmp_path):
    path = tmp_path / "cuzk.toml"
    text = config.to_cuzk_toml(path)
    assert path.read_text() == text
    assert PipelineConfig.from_cuzk_toml(path) == config
    assert PipelineConfig.from_cuzk_toml(text) == config


def test_reads_a_daemon_toml_written_by_hand():
    text = """
[gpus]
devices = [0, 1]
gpu_workers_per_device = 3
gpu_threads = 0

[synthesis]
threads = 48
partition_workers = 12

[memory]
total_budget = "512GiB"
safety_margin = "5GiB"
"""
    c = PipelineConfig.from_cuzk_toml(text, proofs=5, concurrency=5)
    assert (c.gpus, c.gpu_workers_per_device, c.gpu_threads) == (2, 3, 0)
    # The newest daemon ignores the deprecated partition_workers: the budget
    # admits syntheses, at most max_parallel_synthesis (default 18) at once.
    assert (c.synthesis_threads, c.partition_workers, c.admission) == (48, 18, "budget")
    assert math.isclose(c.budget_gib, 512.0) and c.proofs == 5
    old = PipelineConfig.from_cuzk_toml(text, daemon_version="phase12", proofs=5, concurrency=5)
    assert (old.partition_workers, old.admission, old.budget_gib) == (12, "semaphore", 0.0)


def test_budget_mode_when_only_memory_table_is_present():
    c = PipelineConfig.from_cuzk_toml('[memory]\ntotal_budget = "auto"\n')
    assert c.admission == "budget" and c.budget_gib == 0.0


def test_bad_toml_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="not valid TOML"):
        PipelineConfig.from_cuzk_toml("[gpus\n")
    with pytest.raises(ConfigError, match="file not found"):
        PipelineConfig.from_cuzk_toml(str(tmp_path / "missing.toml"))
    # The daemon reads a size it cannot parse as 50 GiB (config.rs parse_size); so does
    # the workbench, with a note. A value of the wrong type stops the daemon: an error.
    r = PipelineConfig.read_cuzk_toml('[memory]\ntotal_budget = "lots"\n')
    assert r.config.budget_gib == 50.0 and any("50 GiB" in n for n in r.notes)
    with pytest.raises(ConfigError, match="memory.total_budget"):
        PipelineConfig.from_cuzk_toml('[memory]\ntotal_budget = 512\n')
    with pytest.raises(ConfigError, match="gpus.devices"):
        PipelineConfig.from_cuzk_toml('[gpus]\ndevices = 3\n')


def test_monolithic_disables_the_pipeline_and_extra_tables_are_written(tmp_path):
    import sys
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib
    c = PipelineConfig(lock="monolithic")
    text = c.to_cuzk_toml(extra={"daemon": {"listen": "127.0.0.1:9820"},
                                 "srs": {"param_cache": "/var/tmp/params"}})
    doc = tomllib.loads(text)
    assert doc["pipeline"]["enabled"] is False
    assert doc["daemon"]["listen"] == "127.0.0.1:9820"
    assert doc["srs"]["param_cache"] == "/var/tmp/params"
    assert PipelineConfig.from_cuzk_toml(text) == c
    with pytest.raises(ConfigError, match=r"extra.gpus: the table \[gpus\] is written"):
        c.to_cuzk_toml(extra={"gpus": {"devices": [0]}})
    with pytest.raises(ConfigError, match="extra.srs: expected a table"):
        c.to_cuzk_toml(extra={"srs": "x"})
