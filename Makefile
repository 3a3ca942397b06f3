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

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy $(TYPED)
	$(BIN)/pytest

bench: $(STAMP)
	$(BIN)/python bench/hands.py
	$(BIN)/python bench/vision.py
	$(BIN)/python bench/cube.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
