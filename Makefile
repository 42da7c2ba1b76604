# topspin-py: set-up, demo, tests and benchmarks.
#   make demo   install spin/gcc if missing, create .venv, install, verify an example
#   make test   the same set-up, then ruff and mypy over topspin_py/, tests/ and bench/,
#               then the test suite
#   make check  the quick tier for the edit loop: ruff, mypy and a few minutes of tests that
#               touch every stage (parse, detect, layout, codegen, splice, gcc, pan, report, CLI)
#   make bench  the same set-up plus matplotlib, then the benchmarks (side by side with plain
#               SPIN; reports and plots in bench/results/)

PYTHON  ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
# apt-get needs root: use sudo when we are not root and it is there.
SUDO    := $(shell [ "$$(id -u)" -eq 0 ] || { command -v sudo >/dev/null 2>&1 && echo sudo; })
EXAMPLE ?= examples/mutex.pml

.PHONY: demo test check bench system-deps venv bench-deps clean

system-deps:
	@missing=""; \
	command -v spin >/dev/null 2>&1 || missing="$$missing spin"; \
	command -v gcc  >/dev/null 2>&1 || missing="$$missing gcc"; \
	$(PYTHON) -c 'import ensurepip, venv' >/dev/null 2>&1 || missing="$$missing python3-venv"; \
	if [ -n "$$missing" ]; then \
		echo "installing$$missing with apt-get"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi; \
	spin -V

$(BIN)/topspin-py: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $@

venv: system-deps $(BIN)/topspin-py

# The bench extra (matplotlib) on top of the test set-up; a stamp, so it installs once.
$(VENV)/.bench-deps: $(BIN)/topspin-py
	$(BIN)/python -m pip install -q -e '.[test,bench]'
	touch $@

bench-deps: venv $(VENV)/.bench-deps

demo: venv
	$(BIN)/topspin-py verify $(EXAMPLE)

# ruff and mypy first: mypy is what sees a match over the AST's node kinds that misses one.
# The suite runs on every core (pytest-xdist); PYTEST_WORKERS=0 runs it in one process.
PYTEST_WORKERS ?= auto
# Python's bytecode for the package, as pip writes it when it installs a wheel: with
# PYTHONDONTWRITEBYTECODE set (as on our machines) every process would compile topspin_py
# again, about 0.4 s each, and the suite starts hundreds.  Only changed files are recompiled.
BYTECODE := $(BIN)/python -m compileall -q topspin_py

test: venv
	$(BYTECODE)
	$(BIN)/python -m ruff check topspin_py tests bench
	$(BIN)/python -m mypy
	$(BIN)/python -m pytest -q -ra --durations=25 -n $(PYTEST_WORKERS) --dist loadgroup tests

# One file or selection per stage, each chosen for being quick; `make test` runs them all again.
CHECK_TESTS := tests/promela/test_ast.py tests/promela/test_promela.py tests/symmetry/test_detect.py \
	tests/layout/test_layout.py tests/commands/test_strategy_labels.py tests/pan/test_pan_output.py \
	tests/symmetry/test_one_symmetry.py tests/pan/test_build_cache.py tests/architecture/test_import_graph.py \
	"tests/commands/test_cli.py::test_help_version_and_usage_errors_import_no_stage"
CHECK_DESELECT := -k "not hypercube and not table2"

check: venv
	$(BYTECODE)
	$(BIN)/python -m ruff check topspin_py tests bench
	$(BIN)/python -m mypy
	$(BIN)/python -m pytest -q -ra --durations=10 -n $(PYTEST_WORKERS) --dist loadgroup $(CHECK_DESELECT) $(CHECK_TESTS)

bench: bench-deps
	$(BYTECODE)
	MPLBACKEND=Agg $(BIN)/python -m bench

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache
