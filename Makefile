# The two commands of the README's Quick start: `make demo` and `make test`.
# Each creates or updates .venv itself.
VENV  := .venv
BIN   := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck unit bench bench-serial venv clean

$(STAMP): pyproject.toml constraints.txt scripts/bootstrap
	./scripts/bootstrap
	touch $@

venv: $(STAMP)

demo: $(STAMP)
	$(BIN)/rhuna-table demo

test: lint typecheck unit

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy engine display companion firmware_bridge hardware

unit: $(STAMP)
	$(BIN)/pytest

bench: $(STAMP)
	for b in benchmarks/*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

bench-serial: $(STAMP)
	$(BIN)/python benchmarks/serial.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
