# Two commands do all the set-up on a fresh machine: `make run` and `make test`.
# Both create .venv and install the project into it when pyproject.toml is newer than the venv.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint types contracts pytest bench browser bubblewrap postgresql clean constraints

$(STAMP): pyproject.toml constraints.txt setup.py dungeon/_fastcore.c
	@echo "make: installing the project and its dependencies into $(VENV) (about a minute, once)" >&2
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --progress-bar off -c constraints.txt -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/arena match
	@echo "next: source .venv/bin/activate, then 'arena --help' lists every command (README.md has an example of each)"

test: $(STAMP) browser bubblewrap postgresql lint types contracts pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

types: $(STAMP)
	$(BIN)/mypy

# The import contracts of pyproject.toml: the layering of the packages.
contracts: $(STAMP)
	$(BIN)/lint-imports

pytest: $(STAMP)
	$(BIN)/pytest -q -n auto --dist loadfile

# The replay viewer's test renders the HTML in a real headless Chromium, from Debian's packages.
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then (apt-get update -qq && apt-get install -y -qq chromium >/dev/null); \
	  else echo "make: Chromium is missing; install Debian's 'chromium' package for the viewer test" >&2; fi; }

# Untrusted programs (Penguins players, tournament entries) run under bubblewrap (server/sandbox/).
bubblewrap:
	@command -v bwrap >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then (apt-get update -qq && apt-get install -y -qq bubblewrap >/dev/null); \
	  else echo "make: bwrap is missing; install Debian's 'bubblewrap' package for the sandbox tests" >&2; fi; }

# The ladder's tests run on SQLite and on a real PostgreSQL server they start themselves (in a
# temporary folder, unix socket only): Debian's server binaries, when root.
postgresql:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then (apt-get update -qq && apt-get install -y -qq postgresql >/dev/null); \
	  else echo "make: PostgreSQL is missing; install Debian's 'postgresql' package for the ladder tests" >&2; fi; }

bench: $(STAMP)
	$(BIN)/python -m bench

# The newest versions pyproject.toml allows, frozen into constraints.txt (in a scratch venv).
constraints:
	rm -rf .venv-fresh && $(PYTHON) -m venv .venv-fresh
	.venv-fresh/bin/python -m pip install --quiet --upgrade pip
	.venv-fresh/bin/python -m pip install --quiet -e '.[test]'
	{ head -3 constraints.txt; .venv-fresh/bin/python -m pip freeze --exclude-editable; } > constraints.new
	mv constraints.new constraints.txt && rm -rf .venv-fresh

# The venv, the tools' caches, the build's leftovers and what the README's example commands write.
OUTPUTS := logs logs.key results*.json results*.json.journal r.json r.json.journal big.json \
	big.json.journal *.png match.html game.html fork.jsonl cs312 game1 \
	*-class tokens.csv ladder
clean:
	rm -rf $(VENV) .venv-fresh .mypy_cache .ruff_cache .pytest_cache .hypothesis .import_linter_cache
	rm -rf build dist *.egg-info dungeon/_fastcore*.so
	rm -rf $(OUTPUTS)
