# The two commands a person needs: `make demo` and `make test`.
# Both set everything up first (system packages, virtual environment, Python packages).

VENV    ?= .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
# mypy --strict on the whole package (the pure rules core included).
TYPED   := table_controller

.PHONY: demo test lint typecheck setup clean bench audit

setup: $(STAMP)

$(STAMP): pyproject.toml constraints.txt scripts/setup.sh
	@bash scripts/setup.sh $(VENV)
	@touch $(STAMP)

demo: $(STAMP)
	@$(BIN)/table-controller demo

# MicroPython's WebAssembly port: the test that runs the cube's frame code under MicroPython.
MPY_WASM := $(VENV)/micropython-wasm/node_modules/@micropython/micropython-webassembly-pyscript/micropython.mjs

$(MPY_WASM): scripts/micropython-wasm.sh
	@bash scripts/micropython-wasm.sh $(VENV)/micropython-wasm
	@touch $(MPY_WASM)

# Every test, the ones marked slow too (their mark gives them a time budget, reported at
# the end: tests/budgets.py); a hung test fails after pyproject.toml's `timeout`.
test: $(STAMP) $(MPY_WASM)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy $(TYPED)
	MICROPYTHON_WASM=$(abspath $(MPY_WASM)) $(BIN)/pytest

# The pinned versions (constraints.txt) against PyPI's vulnerability data. Needs the network
# to pypi.org, so it is not part of `make test`; run it before a release and after raising
# a version. --strict: a package it cannot look up fails the audit instead of passing unchecked.
audit: $(STAMP)
	@$(BIN)/python -m pip install -q pip-audit
	$(BIN)/pip-audit --requirement constraints.txt --no-deps --disable-pip --strict --progress-spinner off

bench: $(STAMP)
	$(BIN)/python bench/hands.py
	$(BIN)/python bench/vision.py
	$(BIN)/python bench/cube.py
	$(BIN)/python bench/table.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
