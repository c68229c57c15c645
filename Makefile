# cuzklab: two commands on a fresh machine — `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
PYTEST_ARGS ?=

.PHONY: demo test venv clean gpu-test bench example

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	$(PY) -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(PY) -m cuzklab.demo

test: $(STAMP)
	$(PY) -m pytest $(PYTEST_ARGS)

gpu-test: $(STAMP)
	$(PY) -m pytest -m gpu $(PYTEST_ARGS)

# The committed example under papermill_runs/example-locks/, rerun and published
# (relative paths, notebooks without outputs, report.html loading plotly from its CDN).
example: $(STAMP)
	rm -rf papermill_runs/locks
	$(PY) -m cuzklab sweep data/sweeps/locks.toml --jobs 2 --quiet
	$(PY) -m cuzklab.sweep.publish papermill_runs/locks papermill_runs/example-locks

# Everything but the committed README and example.
clean:
	rm -rf $(VENV) .pytest_cache
	find papermill_runs -mindepth 1 -maxdepth 1 ! -name README.md ! -name example-locks \
	  -exec rm -rf {} + 2>/dev/null || true
