# Studio: the two commands are `make run` (train a small program, see it improve)
# and `make test` (set up and run every check). Both create .venv on first use.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | sha256sum | cut -c1-16)

.PHONY: run test lint typecheck unit bench clean-venv

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet --upgrade "pip==26.3"
	@$(BIN)/python -m pip install --quiet -e ".[dev]"
	@rm -f $(VENV)/.installed-* && touch $(STAMP)

run: $(STAMP)
	$(BIN)/python scripts/demo.py

test: $(STAMP) lint typecheck unit

lint: $(STAMP)
	$(BIN)/ruff check optimizer_core studio tests bench scripts manage.py
	$(BIN)/ruff format --check optimizer_core studio tests bench scripts manage.py

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest -q

bench: $(STAMP)
	$(BIN)/python bench/run_fit_bench.py

clean-venv:
	rm -rf $(VENV)
