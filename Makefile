# Thin list of targets; each one is a script under scripts/.
PYTHON ?= $(VENV)/bin/python
VENV := .venv
SYSTEM_PYTHON ?= python3
PYTORCH_SRC ?=
# STACK= picks one stack of topics.toml for apply, pytorch and pr (default: the first listed there); BRANCH= the
# branch apply commits it on (default: the stack's name). Neither names an operator: both come from topics.toml.
STACK ?=
BRANCH ?=
PYTEST_ARGS ?=

.PHONY: all help venv overlay demo base patches check-patches apply lint format test test-slow bench frontier cross-arch mutants pytorch pr \
	clean gpu-bundle gpu-rehearse upstream-lint-tools

## venv, overlay build of the patch set, and the demo of every operator (the default)
all: overlay demo

# What PyTorch's CI sets and torch reads (docs/TESTING.md: Inductor refuses an implicit fallback for an operator
# with a decomposition, hypothesis runs the pytorch_ci profile, functorch errors on custom-op aliasing). Every run
# of the tests, here or in CI, is a CI run; the setting reaches the targets' prerequisites too.
test test-slow mutants gpu-rehearse pytorch: export CI = true

# uv installs the 5 GB of wheels in parallel (about a minute, where pip takes two or more); pip is the
# fallback. Copies, not links into uv's cache: the overlay rewrites files of the venv.
UV_VERSION := 0.9.30
$(VENV)/.requirements-stamp: requirements.txt
	@echo "venv: installing requirements.txt into $(VENV) (first time: about a minute)"
	@test -x $(VENV)/bin/python || $(SYSTEM_PYTHON) -m venv $(VENV)
	@$(VENV)/bin/python -m pip install -q --disable-pip-version-check uv==$(UV_VERSION) \
	  && $(VENV)/bin/uv pip install -q --link-mode=copy --python $(VENV)/bin/python -r requirements.txt \
	  || { echo "venv: uv failed; installing with pip"; \
	       $(VENV)/bin/python -m pip install -q --disable-pip-version-check -r requirements.txt; }
	@cp requirements.txt $@

## the venv with torch==2.14.1 and the test requirements (.venv)
venv: $(VENV)/.requirements-stamp

# With PYTHON=/some/python the overlay goes into that interpreter's torch and no venv is made.
# CPU kernels only unless CUDA=AUTO (CUDA too where torch and nvcc have it) or CUDA=ON (refuses a CPU-only torch);
# MAX_JOBS= caps the compile jobs.
## build the patch set's operators into one library loaded by the venv's torch
overlay: $(if $(filter $(VENV)/bin/python,$(PYTHON)),venv)
	$(SYSTEM_PYTHON) -m scripts.overlay.build --python $(PYTHON) $(if $(CUDA),--cuda $(CUDA))

# Reruns only when the installed overlay (build/overlay/ready.stamp) or demo.toml changed; else shows the last output.
## each operator against its numpy counterpart, with its gradients and a gradcheck (demo.toml)
demo: overlay
	@if [ build/demo.txt -nt build/overlay/ready.stamp ] && [ build/demo.txt -nt demo.toml ]; then \
	echo "demo (overlay and demo.toml unchanged, last run):"; \
	else $(PYTHON) -m scripts.overlay.demo >build/demo.txt.tmp || { cat build/demo.txt.tmp; exit 1; }; \
	mv build/demo.txt.tmp build/demo.txt; fi; cat build/demo.txt

## the pinned PyTorch files the wheel ships, as a one-commit git repo (build/base)
base:
	$(SYSTEM_PYTHON) -m scripts.patchset.base

## write patches/<stack>/ from the sources (one series per stack)
patches:
	$(SYSTEM_PYTHON) -m scripts.patchset.patches

## fail if patches/ differs from what its sources make
check-patches:
	$(SYSTEM_PYTHON) -m scripts.patchset.patches --check

## apply a stack to a PyTorch checkout, one commit per topic (PYTORCH_SRC=, STACK=, BRANCH=)
apply:
	@test -n "$(PYTORCH_SRC)" || { echo "usage: make apply PYTORCH_SRC=/path/to/pytorch [STACK=<stack>] [BRANCH=<name>]"; exit 2; }
	$(SYSTEM_PYTHON) -m scripts.upstream.apply_checkout "$(PYTORCH_SRC)" $(STACK_FLAGS)

## ruff on this repo's Python, clang-format on the upstream C++ and CUDA, actionlint on the workflows
lint: venv
	$(VENV)/bin/python -m scripts.lint

## the same checks as lint, fixing in place what they can
format: venv
	$(VENV)/bin/python -m scripts.lint --fix

# Upstream's own Python linters (scripts/upstream/upstream_lint.py), apart from this repo's ruff: a ruff and a flake8
# at the versions PyTorch pins, which test/test_patches.py runs on the lines each series adds.
UPSTREAM_LINT := $(VENV)/upstream-lint
$(UPSTREAM_LINT)/.stamp: scripts/upstream/upstream_lint_requirements.txt $(VENV)/.requirements-stamp
	@rm -rf $(UPSTREAM_LINT)
	$(VENV)/bin/uv pip install -q --python $(VENV)/bin/python --target $(UPSTREAM_LINT) -r $< \
	  || $(VENV)/bin/python -m pip install -q --disable-pip-version-check --target $(UPSTREAM_LINT) -r $<
	@cp $< $@

## upstream's ruff and flake8, at PyTorch's versions, for the upstream lint of the series
upstream-lint-tools: $(UPSTREAM_LINT)/.stamp

## lint and this repo's tests against the overlay (CI=true)
test: overlay lint upstream-lint-tools
	$(VENV)/bin/python -m pytest test -m "not slow" --junitxml=build/test-results/overlay.xml $(PYTEST_ARGS)

# The tests marked slow (conftest.py): exhaustive proofs and cross-architecture builds. CI runs them after make test.
## the tests marked slow: exhaustive proofs and cross-architecture builds
test-slow: overlay
	$(VENV)/bin/python -m pytest test -m slow --junitxml=build/test-results/slow.xml $(PYTEST_ARGS)

# Replays the planted bugs of docs/TESTING.md in a scratch copy; minutes (kernel bugs rebuild the overlay there).
## replay the planted bugs of docs/TESTING.md and say which tests catch them
mutants: overlay
	$(VENV)/bin/python -m scripts.testing.mutants

## every stack's benchmark, the command pr.toml declares for its figures (docs/*BENCHMARKS.md)
bench: overlay
	$(PYTHON) -m scripts.measure.declared

# float32 candidates from the shipped kernel to a correctly rounded one: misrounded results of all 2^32 inputs and
# speed beside numpy.cbrt on every CPU build; writes docs/CBRT_KERNEL.md's frontier section (minutes).
## cbrt's float32 candidates: misrounded results and speed (docs/CBRT_KERNEL.md)
frontier: overlay
	$(PYTHON) -m scripts.measure.frontier

# Vectorized<T>::cbrt() built with GCC and clang-19 for aarch64 (NEON, SVE256, SVE128), ppc64le, s390x and x86, run
# under qemu-user (natively on an aarch64 host where its CPU can), same bits.
# Headers patched in a scratch copy of the wheel's (build/vec-tests); the venv is not touched. Then the vec tests.
## Vectorized code built for other architectures and compilers, run under qemu-user
cross-arch: venv
	$(VENV)/bin/python -m scripts.cross_arch.check --include "$$($(VENV)/bin/python -m scripts.cross_arch.vec_tests --print-include)"
	$(VENV)/bin/python -m scripts.cross_arch.vec_tests
	$(VENV)/bin/python -m scripts.cross_arch.kernels

# Wheels for scripts/gpu/check.sh on a machine without network (build/wheelhouse, carried along).
## the wheels scripts/gpu/check.sh needs on a machine without network
gpu-bundle:
	$(SYSTEM_PYTHON) -m scripts.gpu.bundle

# Every stage of scripts/gpu/check.sh on the CPU, in a torch 2.11.0 venv (REHEARSE_PYTHON= for another).
REHEARSE_OUT ?= build/gpu-rehearsal
## every stage of the GPU check on the CPU, in a torch 2.11.0 venv
gpu-rehearse: venv
	SYSTEM_PYTHON=$(SYSTEM_PYTHON) bash scripts/gpu/check.sh --rehearse $(REHEARSE_OUT) $(REHEARSE_PYTHON)

# make pytorch: STACK=<stack>, BRANCH=, PYTORCH_SRC=<checkout> (default: shallow clone of the pinned tag into build/pytorch), MAX_JOBS=,
# USE_CUDA=0|1, CCACHE=0|1, PYTORCH_PYTHON=<interpreter>, SKIP_DEPS=1, DRY_RUN=1 (print the commands, run nothing).
STACK_FLAGS = $(if $(STACK),--stack "$(STACK)") $(if $(BRANCH),--branch "$(BRANCH)")
PYTORCH_FLAGS = $(STACK_FLAGS) $(if $(PYTORCH_SRC),--src "$(PYTORCH_SRC)") \
	$(if $(MAX_JOBS),--max-jobs "$(MAX_JOBS)") $(if $(USE_CUDA),--use-cuda "$(USE_CUDA)") \
	$(if $(CCACHE),--ccache "$(CCACHE)") $(if $(PYTORCH_PYTHON),--python "$(PYTORCH_PYTHON)") \
	$(if $(filter 1 yes true,$(SKIP_DEPS)),--skip-deps) $(if $(filter 1 yes true,$(DRY_RUN)),--dry-run)

## build PyTorch with a stack applied and run the upstream suites of its Test Plans
pytorch:
	$(SYSTEM_PYTHON) -m scripts.upstream.pytorch_build $(PYTORCH_FLAGS)

# make pr [STACK=<stack>] [PYTORCH_SRC=<checkout>] [FIXES=<issue number or URL>]: build/pr/<stack>/PR.md and that
# stack's complete series (patches/<stack>/, or made on the checkout).
## build/pr/<stack>/PR.md and the stack's complete series (STACK=, PYTORCH_SRC=, FIXES=)
pr:
	$(SYSTEM_PYTHON) -m scripts.upstream.pr $(if $(STACK),--stack "$(STACK)") $(if $(PYTORCH_SRC),--pytorch-src "$(PYTORCH_SRC)") $(if $(FIXES),--fixes "$(FIXES)")

## remove build/
clean:
	rm -rf build

## this list
help:
	@$(SYSTEM_PYTHON) -m scripts.help Makefile
