"""Shareable reports: offline HTML, PNG through the system Chromium, the CLI."""

import re

import pytest

from cuzklab.cli import main
from cuzklab.errors import ExportError
from cuzklab.plots import export, find_chrome, report_html, write_report
from cuzklab.sim import simulate

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def traces():
    a = simulate(proofs=3, concurrency=3, lock="interlock")
    b = simulate(proofs=3, concurrency=3)
    return a, b


def test_html_is_offline_and_has_the_headline(traces, tmp_path):
    out = write_report(traces[1], tmp_path / "r.html")["html"]
    text = out.read_text()
    # plotly.js inlined once, no script fetched from a CDN.
    assert not re.search(r"<script[^>]+src=\"https?://", text)
    assert text.count("Plotly.newPlot") == 4
    assert len(text) > 3_000_000  # the inlined plotly.js bundle
    assert "s/proof" in text and "cuzklab-headline" in text
    assert "Partition timeline" in text and "Host memory" in text


def test_two_traces_add_a_comparison(traces):
    text = report_html(list(traces), ["pinned", "current"])
    assert "comparison" in text and "lock interlock → split_async" in text
    assert text.count("cuzklab-headline") == 2


def test_png_through_chromium(traces, tmp_path):
    if find_chrome() is None:
        pytest.skip("needs Chrome or Chromium")
    out = write_report(traces[1], None, tmp_path / "r.png")["png"]
    data = out.read_bytes()
    assert data.startswith(PNG_MAGIC) and len(data) > 50_000


def test_a_tab_not_ready_is_asked_again_other_failures_are_not(tmp_path, monkeypatch):
    # kaleido's tab can answer before its scripts have loaded on a loaded machine
    monkeypatch.setattr(export, "find_chrome", lambda: "/bin/true")
    monkeypatch.setenv("BROWSER_PATH", "/bin/true")   # restored after the test
    monkeypatch.setattr(export.time, "sleep", lambda s: None)

    class Fig:
        def __init__(self, fails):
            self.fails, self.calls = list(fails), 0

        def write_image(self, path, **kw):
            self.calls += 1
            if self.fails:
                raise self.fails.pop(0)
            open(path, "wb").write(PNG_MAGIC)

    not_ready = RuntimeError("ReferenceError: kaleido_scopes is not defined")
    fig = Fig([not_ready, not_ready])
    assert export.write_png(fig, tmp_path / "a.png").read_bytes() == PNG_MAGIC
    assert fig.calls == 3
    fig = Fig([not_ready] * export.PNG_ATTEMPTS)
    with pytest.raises(ExportError, match="is not defined"):
        export.write_png(fig, tmp_path / "b.png")
    assert fig.calls == export.PNG_ATTEMPTS and not (tmp_path / "b.png").exists()
    fig = Fig([RuntimeError("the browser crashed")])
    with pytest.raises(ExportError, match="crashed"):
        export.write_png(fig, tmp_path / "c.png")
    assert fig.calls == 1


def test_png_without_chrome_is_a_clear_error(traces, tmp_path, monkeypatch):
    monkeypatch.setattr(export, "find_chrome", lambda: None)
    with pytest.raises(ExportError, match="apt-get install chromium"):
        write_report(traces[1], None, tmp_path / "r.png")
    assert not (tmp_path / "r.png").exists()


def test_cli_report(traces, tmp_path, capsys):
    p = tmp_path / "run.parquet"
    traces[1].save(p)
    html = tmp_path / "out" / "report.html"
    assert main(["report", str(p), "--html", str(html)]) == 2   # no such folder: an error
    assert "does not exist" in capsys.readouterr().err
    html.parent.mkdir()
    assert main(["report", str(p), "--html", str(html)]) == 0
    assert html.exists() and "html:" in capsys.readouterr().out
    assert main(["report", str(p)]) == 2
    assert "--html" in capsys.readouterr().err
    assert main(["report", str(p), str(p), "--html", str(html), "--label", "one"]) == 2


def test_cli_png_without_chrome(traces, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(export, "find_chrome", lambda: None)
    p = tmp_path / "run.parquet"
    traces[1].save(p)
    assert main(["report", str(p), "--html", str(tmp_path / "r.html"),
                 "--png", str(tmp_path / "r.png")]) == 2
    assert "needs Chrome or Chromium" in capsys.readouterr().err
    assert main(["report", str(tmp_path / "missing.parquet"), "--html",
                 str(tmp_path / "r.html")]) == 2


@pytest.mark.parametrize("argv,parts", [
    (["{t}"], ["needs --html OUT.html, --png OUT.png or both"]),
    (["{t}", "{t}", "--html", "{d}/r.html", "--label", "one"],
     ["--label must be given once per trace: 1 times for 2 traces"]),
    (["{d}/missing.parquet", "--html", "{d}/r.html"], ["trace ", "missing.parquet: no such file"]),
    (["{d}/adir", "--html", "{d}/r.html"], ["trace ", "adir: is a folder, not a file"]),
    (["{d}/empty.toml", "--html", "{d}/r.html"], ["empty.toml is not a readable Parquet trace"]),
    (["{d}/bad.toml", "--html", "{d}/r.html"], ["bad.toml is not a readable Parquet trace"]),
    (["{t}", "--html", "{d}/adir"], ["--html ", "adir: is a folder; give a file name"]),
    (["{t}", "--html", "{d}/empty.toml/r.html"], ["--html ", "empty.toml is a file, not a folder"]),
    (["{t}", "--png", "{d}/adir"], ["--png ", "adir: is a folder; give a file name"]),
])
def test_cli_bad_options_get_a_clear_error_before_work(traces, bad_files, cli_error, monkeypatch,
                                                      argv, parts):
    import cuzklab.plots.report as R
    t = bad_files / "run.parquet"
    traces[1].save(t)

    def fail(*args, **kwargs):
        raise AssertionError("the report was written before the options were checked")
    monkeypatch.setattr(R, "write_report", fail)
    cli_error(["report", *(a.format(t=t, d=bad_files) for a in argv)], *parts)
