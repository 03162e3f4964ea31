# The two commands of the quick start: `make run` and `make test` (`make check`, the
# inner loop, runs lint and every test but the e2e and slow ones).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run test check torture lint bench bench-scale bench-workload bench-hybrid bench-vectors recall-bench silence-bench floor-parts small-homes months install dev clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	touch $@

$(VENV)/.dev-installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $@ $(VENV)/.installed

install: $(VENV)/.installed
dev: $(VENV)/.dev-installed

# Initialize the default home (HEARTH_HOME, else ~/.hearth/home) if none
# exists, then serve it on loopback (PORT, default 8979) until Ctrl-C. It says
# how to put hearth and git-hearth on PATH (the README's commands use them
# bare), and, for a home that exists, when git has no identity for a person's
# commits (hearth init says so itself).
PORT ?= 8979
run: install
	@home="$${HEARTH_HOME:-$$HOME/.hearth/home}"; \
	if [ ! -d "$$home/.git" ]; then $(BIN)/hearth init "$$home"; \
	elif ! git -C "$$home" var GIT_COMMITTER_IDENT >/dev/null 2>&1; then \
	  echo "git has no name and email for your own commits yet; set them once with:"; \
	  echo '  git config --global user.name "Your Name"'; \
	  echo '  git config --global user.email "you@example.com"'; \
	fi; \
	echo "hearth: to use hearth and 'git hearth' as the README prints them, in another shell:"; \
	echo '  export PATH="$(abspath $(BIN)):$$PATH"'; \
	exec $(BIN)/hearth --home "$$home" serve --port $(PORT)

lint: dev
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports

# Everything, on TEST_JOBS processes (the tests of one file stay on one process,
# so a module's shared server is started once). Four on two cores: a test
# spends much of its time waiting on the processes it starts (a server coming
# up, a watcher settling), which more processes fill.
TEST_JOBS ?= 4
test: lint
	$(BIN)/pytest -n $(TEST_JOBS) --dist loadfile

# The inner loop (under 2 minutes on 2 cores): lint, then every test but the e2e
# and slow tiers (tests/conftest.py), on CHECK_JOBS processes, the property tests
# with a tenth of their examples (HEARTH_TESTS=check). `make test` runs them all.
CHECK_JOBS ?= 2
check: lint
	HEARTH_TESTS=check $(BIN)/pytest -m "not e2e and not slow" -q -n $(CHECK_JOBS)

# The torture suite in its long form (more rounds of each attack).
torture: dev
	HEARTH_TORTURE=long $(BIN)/pytest -m torture -p no:cacheprovider

bench: install
	$(BIN)/python bench/cli_startup.py
	$(BIN)/python bench/cli_large.py
	$(BIN)/python bench/commit_path.py
	$(BIN)/python bench/git_commit.py
	$(BIN)/python bench/search_index.py
	$(BIN)/python bench/http_service.py
	$(BIN)/python bench/load.py
	$(BIN)/python bench/ui_pages.py
	$(BIN)/python bench/mcp_roundtrip.py
	$(BIN)/python bench/answer_models.py
	$(BIN)/python bench/scale.py --sizes 1000,10000

# The scaling curve up to 100,000 files (5 to 20 minutes on 2 cores; the
# figures are in docs/performance.md).
bench-scale: install
	$(BIN)/python bench/scale.py --sizes 1000,10000,100000

# Issue 40's workload: a generated home of daily notes, topics and persona, served,
# each figure beside its baseline (SIZES=10000,100000 for the large home; the
# hybrid rows on a 1,000-file home with every vector real: 10 to 30 minutes).
SIZES ?= 10000
bench-workload: install
	$(BIN)/python bench/workload.py --sizes $(SIZES)

# Hybrid search and write-to-searchable with semantic ranking on, on the
# 10,000-file home (docs/search.md); and the full vector build of that home
# (about two hours of both cores here; progress every 30 s).
bench-hybrid: install
	$(BIN)/python bench/hybrid_search.py

bench-vectors: install
	$(BIN)/python bench/search_index.py --vectors-only --vector-files 10000 --vector-engines onnx

# Retrieval quality on LoCoMo-format conversations (the data stays outside the
# repository): make recall-bench LOCOMO=../shared/locomo-dev
LOCOMO ?= ../shared/locomo-dev
recall-bench: install
	$(BIN)/python bench/recall.py $(LOCOMO)

# Whether recall stays silent when the home holds nothing for the prompt: each
# conversation served as a home, prompts through the real agent-hook (about
# 7 minutes on 2 cores; QUESTIONS=40 samples 40 own questions a conversation).
QUESTIONS ?= 0
silence-bench: install
	$(BIN)/python bench/recall_silence.py $(LOCOMO) --questions $(QUESTIONS)

# A home lived in for months (issue 53): each conversation replayed session by
# session with the clock at its dates, observations proposed and reviewed with the
# review page's default action, then its questions asked as a runtime asks them;
# hearth, the issue's merge-every-proposal replay and the naive baseline (about
# 45 minutes on 2 loaded cores, most of it the review page's reads; PERSON=page
# for hearth alone; docs/performance.md).
PERSON ?= page,merge-all,naive
months: install
	$(BIN)/python bench/months.py $(LOCOMO) --person $(PERSON)

# The relevance floor with and without each of its parts (in-process, about a minute).
floor-parts: install
	$(BIN)/python bench/floor_parts.py $(LOCOMO) --questions $(QUESTIONS)

# Search in small lived-in homes of 10, 100 and 1,000 files (labelled queries, issue 48).
small-homes: install
	$(BIN)/python bench/small_homes.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
