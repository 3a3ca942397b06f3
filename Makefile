# The two commands a person needs: `make demo` and `make test`.
# Both set everything up first (system packages, virtual environment, Python packages).

VENV    ?= .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
# mypy --strict on the whole package (the pure rules core included).
TYPED   := table_controller

.PHONY: demo test lint typecheck setup clean bench

setup: $(STAMP)

$(STAMP): pyproject.toml scripts/setup.sh
	@bash scripts/setup.sh $(VENV)
	@touch $(STAMP)

demo: $(STAMP)
	@$(BIN)/table-controller demo

# MicroPython's WebAssembly port: the test that runs the cube's frame code under MicroPython.
MPY_WASM := $(VENV)/micropython-wasm/node_modules/@micropython/micropython-webassembly-pyscript/micropython.mjs

$(MPY_WASM): scripts/micropython-wasm.sh
	@bash scripts/micropython-wasm.sh $(VENV)/micropython-wasm
	@touch $(MPY_WASM)

test: $(STAMP) $(MPY_WASM)
	$(BIN)/ruff check .
	$(BIN)/mypy $(TYPED)
	MICROPYTHON_WASM=$(abspath $(MPY_WASM)) $(BIN)/pytest

bench: $(STAMP)
	$(BIN)/python bench/hands.py
	$(BIN)/python bench/vision.py
	$(BIN)/python bench/cube.py
	$(BIN)/python bench/table.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
