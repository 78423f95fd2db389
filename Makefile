# Two commands do all the set-up on a fresh machine:
#   make demo   - create/reuse .venv, install, run the end-to-end CPU demo (`pulse demo`)
#   make test   - create/reuse .venv, install, run the test suite
#   make reproduce-check  - a fresh clone of HEAD runs `pulse demo` and a slice of the other tables;
#                           exit 1 when a figure differs from the committed results (.ci/run runs it)
#   make reproduce-update - the same clone's demo rewrites results/demo and the README's demo figures
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.pulse-installed

.PHONY: demo test test-all bench install clean-venv reproduce-check reproduce-update

$(STAMP): pyproject.toml Makefile
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	# CPU build of torch first (from local disk on the project machines); an unpinned torch would
	# pull a multi-GB CUDA build.
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e '.[dev]'
	# DeepSpeed for the two-rank ZeRO-2/3 CPU tests (tests/train/test_launch.py): an sdist whose setup.py
	# imports torch, so it is built against this torch (no build isolation: isolation would fetch a CUDA
	# torch); no ops are compiled (JIT on use). The version the GPU set pins (constraints/gpu-py311.txt).
	$(PY) -m pip install -q --no-build-isolation deepspeed==0.19.8
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/pulse demo $(ARGS)

# The linter and the formatter's check, then fast tiers + one end-to-end CPU run of the real CLI (GPU tests are deselected by default).
# Two pytest workers, one test file each at a time (pytest-xdist --dist loadfile): 4 min 16 s instead of
# about 5 min 50 s on 2 cores when measured (2026-12-04, 1120 tests); about 6 min for 1327 tests in CI on
# 2026-12-05. `ARGS='-n 0'` runs them in one process.
test: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m pytest -q -x --timeout=900 -n 2 --dist loadfile $(ARGS)

# A temporary clone of HEAD with nothing reused but this .venv (scripts/reproduce_check.py says how).
reproduce-check: $(STAMP)
	$(PY) scripts/reproduce_check.py $(ARGS)

reproduce-update: $(STAMP)
	$(PY) scripts/reproduce_check.py --update $(ARGS)

bench: $(STAMP)
	for f in bench/bench_*.py; do $(PY) $$f || exit 1; done

clean-venv:
	rm -rf $(VENV)
