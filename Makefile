# The two commands a person needs: `make demo` and `make test`.
# Both set everything up first (system packages, virtual environment, Python packages).

VENV    ?= .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
# The rules core: pure, and checked with mypy --strict.
CORE    := table_controller/cards.py table_controller/seats.py table_controller/rules

.PHONY: demo test lint typecheck setup clean bench

setup: $(STAMP)

$(STAMP): pyproject.toml scripts/setup.sh
	@bash scripts/setup.sh $(VENV)
	@touch $(STAMP)

demo: $(STAMP)
	@$(BIN)/table-controller demo

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy $(CORE)
	$(BIN)/pytest

bench: $(STAMP)
	$(BIN)/python bench/hands.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
