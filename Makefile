# cuzklab: two commands on a fresh machine — `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
PYTEST_ARGS ?=

.PHONY: demo test venv clean gpu-test bench

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

clean:
	rm -rf $(VENV) papermill_runs .pytest_cache
