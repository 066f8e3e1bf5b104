# The two commands of the README's Quick start: `make demo` and `make test`.
# Each creates or updates .venv itself.
VENV  := .venv
BIN   := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-loaded lint typecheck unit web web-check bench bench-all soak bench-serial venue venv clean dist pi-rehearsal

# web/: npm ci from the committed lock file, then esbuild; rebuilt only when a source changed
# the service's JSON Schemas too: web/gen-types.mjs makes the pages' payload types from them
WEB_SRC := $(shell find web/src web/pages -type f -not -path 'web/src/generated/*' 2>/dev/null) \
	web/build.mjs web/gen-types.mjs web/package.json web/tsconfig.json \
	$(wildcard docs/*.schema.json) docs/topics.json
WEB_DEPS := web/node_modules/.ci-stamp
WEB_BUILT := web/dist/BUILT

$(STAMP): pyproject.toml constraints.txt scripts/bootstrap
	./scripts/bootstrap
	touch $@

venv: $(STAMP)

$(WEB_DEPS): web/package-lock.json $(STAMP)
	cd web && npm ci --no-audit --no-fund
	touch $@

$(WEB_BUILT): $(WEB_DEPS) $(WEB_SRC)
	cd web && npm run --silent build

web: $(WEB_BUILT)

# the pages' types (tsc --noEmit) and biome's lint + format check
web-check: $(WEB_DEPS)
	cd web && npm run --silent check

demo: $(STAMP) $(WEB_BUILT)
	$(BIN)/rhuna-table demo

# the checks (ruff, mypy, tsc and biome) run beside the suite, not before it: they take a core
# for about a minute on a fresh clone while the suite's workers wait on brokers and browsers.
# The suite keeps the terminal; the checks' output follows it, and either failing fails the test
test: $(STAMP) $(WEB_BUILT)
	@log=$$(mktemp); trap 'rm -f "$$log"' EXIT; \
	$(MAKE) --no-print-directory -j3 --output-sync=target lint typecheck web-check >"$$log" 2>&1 & \
	checks=$$!; \
	$(MAKE) --no-print-directory unit; unit=$$?; \
	wait $$checks; status=$$?; cat "$$log"; \
	[ $$status -eq 0 ] || echo "make test: a check failed (its output is above)" >&2; \
	[ $$unit -eq 0 ] && [ $$status -eq 0 ]

# the whole suite beside a CPU hog (one busy process a core, started and stopped here): the
# load a shared CI machine may meet; it must pass as make test does
test-loaded: $(STAMP) $(WEB_BUILT)
	./scripts/with-cpu-hog $(MAKE) test

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy settings engine firmware_bridge tags hardware display companion

# the suite's files on TEST_JOBS workers (pytest-xdist; a file stays on one worker, so its
# module fixtures — a broker, a browser — are shared as before). 4 on two cores: most of a
# test's time is a wait on a broker, a service or a browser, not a core. Quiet, one commit,
# minutes apart: 452 s at 4 against 535 at 3 (2026-12-07, the pages in Chromium's headless
# shell, which left a core idle); earlier 489-564 s at 3 against 691 at 2. The claim's races
# that three workers brought out are found (f98f7fd). --no-loadscope-reorder: the files in
# tests/conftest.py's order, longest first (xdist's own order is by the number of tests,
# which put Chromium's files last). TEST_JOBS=0: serially
TEST_JOBS ?= 4
unit: $(STAMP) $(WEB_BUILT)
	$(BIN)/pytest -n $(TEST_JOBS) --dist loadfile --no-loadscope-reorder

# every figure in one table, with its target and verdict (JSON: test-artefacts/bench/)
bench: $(STAMP)
	$(BIN)/python -m benchmarks.bench

# each benchmark script's own, longer report
bench-all: $(STAMP)
	for b in benchmarks/*.py; do case $$b in */__init__.py|*/bench.py|*/soak.py) continue;; esac; \
	  m=$$(basename $$b .py); echo "== benchmarks.$$m"; $(BIN)/python -m benchmarks.$$m || exit 1; done

# the long forms: the 100,000-command soak (RSS, threads and descriptors flat), 10,000 draws
# with faults, snapshots on and off at 150 a second, kill -9 at 100 moments and the fault suite
# (make test runs a short form of each)
soak: $(STAMP) $(WEB_BUILT)
	$(BIN)/python -m benchmarks.soak --commands 100000 --json test-artefacts/bench/soak.json
	$(BIN)/python -m benchmarks.reads --draws 10000
	$(BIN)/python -m benchmarks.snapshots
	RHUNA_SOAK_KILLS=100 $(BIN)/pytest -p no:randomly -n $(TEST_JOBS) --dist loadfile \
	  tests/companion/table/test_store_crash.py tests/companion/table/test_wal_damage.py \
	  tests/companion/table/test_start_exits.py tests/companion/mqtt/test_retained_flood.py \
	  tests/companion/mqtt/test_claim_clocks.py tests/companion/mqtt/test_broker_bounds.py \
	  tests/companion/mqtt/test_standby_will.py

bench-serial: $(STAMP)
	$(BIN)/python -m benchmarks.serial_bridge

# a convention on loopback: 100 table brokers bridged to one venue (docs/convention.md);
# VENUE_ARGS="--tables 250 --pace 1" for the big run
venue: $(STAMP)
	$(BIN)/python -m benchmarks.venue $(VENUE_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache web/node_modules web/dist

# the release archive a Pi installs from: the checkout's files and the built pages, so the Pi
# needs no Node (issue 44; docs/hardware.md, "Installing the software")
dist: $(STAMP) $(WEB_BUILT)
	$(BIN)/python -m scripts.dist

# the Pi's path rehearsed (issue 44): an arm64 Debian system under qemu-user (built once, cached
# in /var/cache/rhuna-pi-rehearsal), make dist's archive unpacked as a user's folder, install.sh
# as root, then docs/hardware.md's Pi blocks in order; as root; long: never in make test.
# PI_SUITES="bookworm trixie" by default
PI_SUITES ?= bookworm trixie
pi-rehearsal: dist
	for s in $(PI_SUITES); do $(BIN)/python -m scripts.pi_rehearsal --suite $$s || exit 1; done
