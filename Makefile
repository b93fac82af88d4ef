# The two commands a newcomer needs:   make book   and   make test
# Everything runs inside .venv (created on first use from the pinned requirements.txt).

PYTHON    ?= python3
VENV      := .venv
BIN       := $(VENV)/bin
STAMP     := $(VENV)/.installed
CHAPTERS  := $(sort $(wildcard notebooks/*.md))
NOTEBOOKS := $(CHAPTERS:.md=.ipynb)
PACKAGE   := $(shell find src -name '*.py') pyproject.toml
DATA      := $(shell find data -type f)
SUDO      := $(if $(filter 0,$(shell id -u)),,sudo)
# Without the public logs in ../shared/traces (a fresh clone elsewhere), the chapters listed in
# notebooks/needs_real_logs.txt are rendered from their committed outputs instead of being
# executed again.
REAL_LOG_CHAPTERS := $(addprefix notebooks/,$(shell grep -v '^\#' notebooks/needs_real_logs.txt))
ifeq ($(wildcard ../shared/traces),)
NOTEBOOKS := $(filter-out $(REAL_LOG_CHAPTERS),$(NOTEBOOKS))
endif
BOOK_SRC  := _config.yml _toc.yml $(wildcard book/*.md book/_ext/*.py book/_static/*) \
             src/masrl/presentation/masrl-charts.js $(NOTEBOOKS) $(DATA)
# Vega, Vega-Lite and vega-embed for the interactive charts: from the npm registry, versions
# pinned in package-lock.json, into node_modules (ignored by git); the book serves its own copy.
NODE_STAMP := node_modules/.installed

.PHONY: help install system-deps node-deps notebooks book test unit lint check-data stats clean freeze

help:            ## list the targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*##/\t/'

install: $(STAMP) ## create .venv, install pinned requirements and the masrl package
$(STAMP): requirements.txt pyproject.toml
	@test -x $(BIN)/python || { echo "creating $(VENV) with $(PYTHON)"; $(PYTHON) -m venv $(VENV); }
	@echo "installing the pinned requirements into $(VENV) (1-2 minutes; pip prints only problems)"
	@$(BIN)/python -m pip install --quiet --upgrade pip
	@$(BIN)/python -m pip install --quiet -r requirements.txt
	@echo "installing masrl into $(VENV) (editable)"
	@$(BIN)/python -m pip install --quiet --no-deps -e .
	@touch $@

system-deps:     ## Debian's chromium for the browser test and npm for the chart libraries (if missing)
	@command -v chromium >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium >/dev/null; }
	@command -v npm >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq npm >/dev/null; }

node-deps: $(NODE_STAMP) ## install the pinned chart libraries into node_modules (npm ci)
$(NODE_STAMP): package.json package-lock.json
	@command -v npm >/dev/null 2>&1 || $(MAKE) system-deps
	@echo "installing the pinned chart libraries into node_modules (npm ci)"
	@npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	@touch $@

notebooks: $(NOTEBOOKS) ## execute the chapters whose source, data or package changed (papermill)
notebooks/%.ipynb: notebooks/%.md $(PACKAGE) $(DATA) | $(STAMP)
	@echo "executing $<"
	@$(BIN)/python scripts/execute_notebook.py $<
# the scale-gap, training-run and counterfactual-credit chapters quote the benchmarks' recorded figures
notebooks/34_scale.ipynb notebooks/26_training_runs.ipynb notebooks/27_counterfactual_credit.ipynb: $(wildcard benchmarks/results/*.json)

book: _build/html/index.html ## execute changed chapters, then build the book into _build/html
# quiet (-q): Sphinx's status lines and the parsers' configuration dumps go; warnings stay on
# stderr (and fail the build, -W); jupyter-book's own lines go to _build/book.log
_build/html/index.html: $(BOOK_SRC) $(NODE_STAMP) | $(STAMP)
	@echo "building the book into _build/html (jupyter-book; a warning fails the build)"
	@mkdir -p _build
	@$(BIN)/jupyter-book build . --path-output . -W --keep-going -q > _build/book.log \
	  || { cat _build/book.log; exit 1; }
	@touch $@
	@echo "the book is ready: open _build/html/index.html"

test: book system-deps ## run every test: unit, data, nbval on the notebooks, browser
	$(BIN)/python -m pytest tests notebooks --nbval --nbval-sanitize-with nbval-sanitize.cfg \
	  --nbval-current-env -p no:cacheprovider

unit: $(STAMP)    ## the fast tests: package, data and commands (no chapters, no book, no browser)
	$(BIN)/python -m pytest tests --ignore=tests/chapters --ignore=tests/book -p no:cacheprovider -q

lint: $(STAMP)    ## ruff on the package, tests and scripts; nbQA + ruff on the executed chapters
	$(BIN)/ruff check src tests scripts benchmarks book
	$(BIN)/nbqa ruff notebooks/*.ipynb

check-data: $(STAMP) ## validate the data files
	$(BIN)/masrl check-data

stats: $(STAMP)  ## print the corpus statistics
	$(BIN)/masrl stats

freeze: $(STAMP) ## re-pin requirements.txt from the current .venv
	{ grep '^#' requirements.txt; $(BIN)/python -m pip freeze --all --exclude-editable \
	  | grep -v '^masrl\|^pip=='; } > requirements.txt.new
	mv requirements.txt.new requirements.txt

clean:           ## remove the built book (keeps .venv and the executed notebooks)
	rm -rf _build
