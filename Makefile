# The two entry points of a fresh clone (only Python >= 3.11 and pip needed):
#   make demo   run evalfmt on the bundled fixtures
#   make test   run the whole test suite
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: demo test walls node-deps bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@# byte-compile once: some machines set PYTHONDONTWRITEBYTECODE, and every cold start of the
	@# CLI (pre-commit runs one per commit) would otherwise compile evalfmt from source again
	$(BIN)/python -m compileall -q evalfmt
	touch $(STAMP)

node-deps:
	./scripts/node-deps.sh

demo: $(STAMP)
	./scripts/demo.sh

# The walls (docs/internals.md): the import layers, ruff, then mypy. A broken layer, a ruff finding or
# a mypy error fails the build (mypy prints its whole report then, else only its summary line).
walls: $(STAMP)
	$(BIN)/lint-imports --no-cache
	$(BIN)/ruff check --no-cache evalfmt tests
	@out=$$($(BIN)/mypy 2>&1) || { echo "$$out"; exit 1; }; echo "$$out" | tail -n 1

test: $(STAMP) node-deps walls
	$(BIN)/python -m pytest $(PYTEST_ARGS)

bench: $(STAMP)
	@echo "benchmarks are run by hand: see benchmarks/README.md"

clean:
	rm -rf $(VENV) .cache build dist *.egg-info .pytest_cache .hypothesis .mypy_cache .ruff_cache .import_linter_cache
