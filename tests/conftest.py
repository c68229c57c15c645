"""Shared test set-up: GPU and browser tests skip where the machine lacks them."""

from __future__ import annotations

import shutil

import pytest


def _gpu_available() -> bool:
    from cuzklab.backend import gpu_available
    return gpu_available()


def pytest_collection_modifyitems(config, items):
    need_gpu = any("gpu" in item.keywords for item in items)
    has_gpu = _gpu_available() if need_gpu else False
    has_browser = shutil.which("chromium") is not None or shutil.which("chromium-browser") is not None
    skip_gpu = pytest.mark.skip(reason="needs a CUDA device and CuPy")
    skip_browser = pytest.mark.skip(reason="needs Chromium (apt-get install chromium)")
    for item in items:
        if "gpu" in item.keywords and not has_gpu:
            item.add_marker(skip_gpu)
        if "browser" in item.keywords and not has_browser:
            item.add_marker(skip_browser)


@pytest.fixture(params=["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def backend(request):
    """Run a test once on the NumPy path and once on the CuPy path."""
    return request.param


@pytest.fixture
def cli_error(capsys):
    """Return ``check(argv, *parts)``: run ``cuzklab argv`` and assert one clean error line.

    The line starts ``cuzklab: error: ``, holds every one of ``parts`` (the
    option's name, what is allowed), the exit code is 2 and no traceback is
    printed; ``check`` returns the line.
    """
    def check(argv, *parts):
        from cuzklab.cli import main
        try:
            rc = main(list(argv))
        except SystemExit as exc:
            rc = exc.code
        err = capsys.readouterr().err
        assert rc == 2, err
        assert err.startswith("cuzklab: error: ") and err.count("\n") == 1, err
        assert "Traceback" not in err, err
        for part in parts:
            assert part in err, (part, err)
        return err
    return check


@pytest.fixture
def bad_files(tmp_path):
    """A folder of bad inputs: a folder, an empty file, malformed TOML, non-UTF-8 bytes, an infinity."""
    (tmp_path / "adir").mkdir()
    (tmp_path / "empty.toml").write_text("")
    (tmp_path / "bad.toml").write_text("a = [\n")
    (tmp_path / "bin.toml").write_bytes(b"\x00\xff\xfe binary")
    (tmp_path / "inf.toml").write_text("# cuzklab: memory_gib = inf\n")  # a cuzk TOML, not finite
    return tmp_path
