# Thin list of targets; each one is a script under scripts/.
PYTHON ?= $(VENV)/bin/python
VENV := .venv
SYSTEM_PYTHON ?= python3
PYTORCH_SRC ?=
BRANCH ?= cbrt
PYTEST_ARGS ?=

.PHONY: all venv overlay demo base patches check-patches apply lint format test test-fast bench pytorch pr clean

all: overlay demo

$(VENV)/.requirements-stamp: requirements.txt
	@echo "venv: installing requirements.txt into $(VENV) (first time: a few minutes)"
	@test -x $(VENV)/bin/python || $(SYSTEM_PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install -q --disable-pip-version-check -r requirements.txt
	@cp requirements.txt $@

venv: $(VENV)/.requirements-stamp

overlay: venv
	$(PYTHON) -m scripts.overlay_build --python $(PYTHON)

demo: overlay
	$(PYTHON) -m scripts.demo

base:
	$(SYSTEM_PYTHON) -m scripts.base

patches:
	$(SYSTEM_PYTHON) -m scripts.patches

check-patches:
	$(SYSTEM_PYTHON) -m scripts.patches --check

apply:
	@test -n "$(PYTORCH_SRC)" || { echo "usage: make apply PYTORCH_SRC=/path/to/pytorch [BRANCH=cbrt]"; exit 2; }
	$(SYSTEM_PYTHON) -m scripts.apply_checkout "$(PYTORCH_SRC)" --branch "$(BRANCH)"

lint: venv
	$(VENV)/bin/python -m scripts.lint

format: venv
	$(VENV)/bin/python -m scripts.lint --fix

test: overlay lint
	$(VENV)/bin/python -m pytest test $(PYTEST_ARGS)

bench: overlay
	$(PYTHON) -m scripts.bench

clean:
	rm -rf build
