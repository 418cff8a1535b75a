# make run   - the local stack (both regions) with demo credentials, in the foreground
# make test  - install everything, lint, validate the template, run every test (three workers; TEST_WORKERS=0: one process)
# make check - the inner loop: ruff, ruff format, mypy and the unit tests (under 2 minutes)
# make fuzz  - schemathesis over the three OpenAPI documents against the local stack (bigger budget)
# make bench - cold start, warm latency, through-the-stack latency
# make invoke FUNCTION=GatewayPaymentsFunction EVENT=events/gateway_charge.json [SET="name=value ..."]
#              - one function of the running local stack on an event file (what sam local invoke
#              does, without Docker); SET fills the event's ${name} placeholders
# make package - the layer and function zips for Lambda (python3.12, arm64) without Docker, checked
#              against Lambda's limits, and .aws-sam/package/template.yaml for sam deploy
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
SAM_VENV := .venv-sam
PY := $(VENV)/bin/python
# This machine's pip configuration names index folders that do not exist; hide that noise.
QUIET_PIP := { grep -v "is ignored: it is neither a file nor a directory" || true; }

.PHONY: help install system-packages run wait test check lint validate package unit integration e2e bench openapi translations fuzz invoke clean

help:
	@echo "make run | make test | make check | make package | make fuzz | make bench | make invoke FUNCTION=... EVENT=... | make openapi | make translations | make lint | make validate | make clean"

$(VENV)/.installed: pyproject.toml layers/core/requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip 2>&1 | $(QUIET_PIP)
	$(PY) -m pip install -q -e ".[dev]" 2>&1 | $(QUIET_PIP)
	touch $@

# aws-sam-cli pins its own boto3 and pydantic: it lives in a virtualenv of its own.
$(SAM_VENV)/.installed:
	test -x $(SAM_VENV)/bin/python || $(PYTHON) -m venv $(SAM_VENV)
	$(SAM_VENV)/bin/python -m pip install -q "aws-sam-cli>=1.120" 2>&1 | $(QUIET_PIP)
	touch $@

# Programs the documentation's examples run (tests/e2e/test_doc_examples.py); Debian's packages.
# Commands the tests need, each also the name of its Debian package (chromium: the browser tests).
SYSTEM_TOOLS := curl jq chromium
system-packages:
	@missing=$$(for tool in $(SYSTEM_TOOLS); do command -v $$tool >/dev/null || echo $$tool; done); \
	if [ -n "$$missing" ]; then \
	  if command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	  else echo "please install: $$missing"; exit 1; fi; \
	fi

install: $(VENV)/.installed $(SAM_VENV)/.installed system-packages

# make run PORT_BASE=4000 MOTO_PORT=5100: a second stack beside another (python -m devstack --help: every port)
run: $(VENV)/.installed
	$(PY) -m devstack $(if $(PORT_BASE),--port-base $(PORT_BASE)) $(if $(MOTO_PORT),--moto-port $(MOTO_PORT))

# Until `make run` (in another terminal or in the background) answers on every API; the standard
# library only, so it never races make run's first install of the virtualenv.
wait:
	$(PYTHON) -m devstack.wait

FUNCTION ?= GatewayAccessFunction
EVENT ?= events/gateway_health.json
REGION ?= mz
SET ?=
invoke: $(VENV)/.installed
	$(PY) -m devstack.invoke $(FUNCTION) $(EVENT) --region $(REGION) $(foreach pair,$(SET),--set $(pair))

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

# sam validate --lint, then cfn-lint with its informational and experimental rules too, in both
# stacks' AWS regions, on the root template and each nested one (stacks/*.yaml); a finding fails
# the build unless docs/operations.md ("cfn-lint") justifies ignoring its rule here. Then each
# stack's resource count after SAM's transform (at most 250 per stack).
CFN_LINT_IGNORED := I4010
TEMPLATES := template.yaml $(sort $(wildcard stacks/*.yaml))
validate: $(SAM_VENV)/.installed
	for template in $(TEMPLATES); do \
	  SAM_CLI_TELEMETRY=0 AWS_DEFAULT_REGION=af-south-1 $(SAM_VENV)/bin/sam validate --lint --template $$template; \
	done
	$(SAM_VENV)/bin/cfn-lint --include-checks I --include-experimental --ignore-checks $(CFN_LINT_IGNORED) \
	  --regions af-south-1 eu-west-1 --non-zero-exit-code informational --template $(TEMPLATES)
	$(SAM_VENV)/bin/python -m devstack.resource_count

# The deployable artifacts without Docker: pip installs the core layer's requirements as wheels for
# manylinux2014_aarch64 / CPython 3.12 (never a source build); zips, sizes, arm64 extensions, the
# imports every function needs, and the packaged template (docs/operations.md, "Packaging").
package: $(VENV)/.installed
	$(PY) -m devstack.package

# pytest-xdist: TEST_WORKERS processes (one per core here), each with its own local stack (the
# e2e fixtures are per session, and each worker is a session). --dist loadfile keeps a test file on
# one worker, so its module fixtures are made once and its tests run in order; the files go out
# slowest first (tests/conftest.py, pytest_collection_modifyitems), not by xdist's test count.
# make test and make e2e run three workers (TEST_WORKERS=3; 0: one process, to debug a test in
# order): on two cores the CPU is busy the whole run, so the local stack keeps a burst's wait for
# a CPU from looking like a timeout (longer AWS client timeouts, three times a function's timeout
# in the e2e product stack) and costs little (environments forked with the layer imported, moto's
# straight DynamoDB answers). A clean clone: 13.6 minutes, from 30 in one process. The unit tests
# have no stack: make check and make unit use two. docs/testing.md: the measured costs.
TEST_WORKERS ?= 3
PARALLEL := -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder
UNIT_PARALLEL := -n 2 --dist loadfile --no-loadscope-reorder
SLOWEST := --durations=20

check: lint
	$(PY) -m pytest tests/unit -q $(UNIT_PARALLEL)

unit: $(VENV)/.installed
	$(PY) -m pytest tests/unit -q $(UNIT_PARALLEL)

integration: $(VENV)/.installed
	$(PY) -m pytest tests/integration -q $(PARALLEL)

e2e: $(VENV)/.installed
	$(PY) -m pytest tests/e2e -q $(PARALLEL) $(SLOWEST)

# The two virtualenvs install at once, then lint, validate and package run at once (pip's downloads
# and sam's start wait on I/O while mypy and cfn-lint compute; each one's output is printed whole
# when it ends), then every test.
SIDE_BY_SIDE := --no-print-directory -j3 --output-sync=target
test:
	$(MAKE) $(SIDE_BY_SIDE) install
	$(MAKE) $(SIDE_BY_SIDE) lint validate package
	$(PY) -m pytest -q $(PARALLEL) $(SLOWEST)

# The fuzz harness with a bigger budget than make test's (FUZZ_EXAMPLES per operation; docs/testing.md).
FUZZ_EXAMPLES ?= 200
fuzz: $(VENV)/.installed
	FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(PY) -m pytest tests/e2e/test_fuzz.py -q -p no:cacheprovider

bench: $(VENV)/.installed
	$(PY) -m bench

openapi: $(VENV)/.installed
	$(PY) -m devstack.openapi

# The catalogues: the pages' templates' messages into each language's pages.po, the e-mail and SMS
# templates' into messages.po (docs/notifications.md); translate the new
# empty ones by hand (tests/unit/test_page_locale.py and test_messages.py fail while one is missing or left empty).
translations: $(VENV)/.installed
	mkdir -p .local
	$(VENV)/bin/pybabel extract -F babel.cfg --no-location --omit-header -o .local/pages.pot .
	$(VENV)/bin/pybabel update -i .local/pages.pot -d layers/core/python/mzpay/http/locale -D pages --width 100 --ignore-obsolete --ignore-pot-creation-date
	$(VENV)/bin/pybabel extract -F babel-messages.cfg --no-location --omit-header -o .local/messages.pot .
	$(VENV)/bin/pybabel update -i .local/messages.pot -d layers/core/python/mzpay/messages/locale -D messages --width 100 --ignore-obsolete --ignore-pot-creation-date

clean:
	rm -rf $(VENV) $(SAM_VENV) .local .aws-sam .pytest_cache .mypy_cache .ruff_cache
