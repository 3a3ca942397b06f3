# The two commands a person needs: `make demo` and `make test`.
# Both set up what they need first (system packages, virtual environment, Python packages):
# `make demo` the core alone, `make test` everything. A table, the director's laptop and a
# developer add what they need with `make setup-pi`, `setup-director`, `setup-print`
# (README, "Installing").

VENV    ?= .venv
BIN     := $(VENV)/bin
# One stamp per set of packages installed (pyproject.toml's extras; core: the package
# alone). A set that holds others stamps them too, so `make test` then `make demo` does
# not install again, while `make demo` then `make test` installs the rest.
STAMP   := $(VENV)/.installed
# mypy --strict on the whole package (the pure rules core included).
TYPED   := table_controller

.PHONY: demo test lint typecheck setup setup-feed setup-pi setup-print setup-director \
	setup-test clean bench audit

setup: $(STAMP)-core
setup-feed setup-pi setup-print setup-director setup-test: setup-%: $(STAMP)-%

# What each set holds besides itself and the core.
HOLDS_pi       := feed
HOLDS_director := feed
HOLDS_test     := feed pi print director

.PRECIOUS: $(STAMP)-%
$(STAMP)-%: pyproject.toml setup.py constraints.txt scripts/setup.sh table_controller/bots/_solver.c
	@bash scripts/setup.sh $(VENV) $*
	@touch $@ $(STAMP)-core $(foreach set,$(HOLDS_$*),$(STAMP)-$(set))

demo: $(STAMP)-core
	@$(BIN)/table-controller demo

# MicroPython's WebAssembly port: the test that runs the cube's frame code under MicroPython.
MPY_WASM := $(VENV)/micropython-wasm/node_modules/@micropython/micropython-webassembly-pyscript/micropython.mjs

$(MPY_WASM): scripts/micropython-wasm.sh
	@bash scripts/micropython-wasm.sh $(VENV)/micropython-wasm
	@touch $(MPY_WASM)

# Every test, the ones marked slow too (their mark gives them a time budget, reported at
# the end: tests/budgets.py); a hung test fails after pyproject.toml's `timeout`. The files
# run in a process for each core (pytest-xdist), each file whole in one of them, so its
# module's browser and servers are started once: most tests wait on a browser, a broker or
# a child process, and two at a time halve the suite's time on 2 cores.
test: $(STAMP)-test $(MPY_WASM)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy $(TYPED)
	MICROPYTHON_WASM=$(abspath $(MPY_WASM)) $(BIN)/pytest -n auto --dist loadfile

# The pinned versions (constraints.txt) against the package index's vulnerability data. Needs
# the network to the package index, so it is not part of `make test`; run it before a release and after raising
# a version. --strict: a package it cannot look up fails the audit instead of passing unchecked.
audit: $(STAMP)-core
	@$(BIN)/python -m pip install -q pip-audit
	$(BIN)/pip-audit --requirement constraints.txt --no-deps --disable-pip --strict --progress-spinner off

bench: $(STAMP)-test
	$(BIN)/python bench/hands.py
	$(BIN)/python bench/vision.py
	$(BIN)/python bench/cube.py
	$(BIN)/python bench/table.py
	$(BIN)/python bench/review.py
	$(BIN)/python bench/verdicts.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis table_controller/bots/_solver.*.so
