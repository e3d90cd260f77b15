#!/usr/bin/env bash
# The prepared run for a CUDA machine with a preinstalled torch (2.11 to 2.14.1) and no network:
#   bash scripts/gpu/check.sh OUT_DIR [PYTHON]              PYTHON defaults to python3
# and its rehearsal on a machine without a GPU, every stage on the CPU:
#   bash scripts/gpu/check.sh --rehearse OUT_DIR [PYTHON]   PYTHON defaults to a new torch 2.11.0 venv
# Stages: the bundle's missing wheels (build/wheelhouse, `make gpu-bundle`), the overlay build
# (MAX_JOBS = cores), the CUDA tests, then each operator's own stages as its stack declares them in pr.toml
# (scripts/gpu/stages.py), named <stack>-<stage>: compiled code against eager bit for bit, accuracy sweeps
# against their bounds, benchmarks against the copy bandwidth. Each stage logs to OUT_DIR/<stage>.log
# and adds a line to OUT_DIR/summary.txt as it ends, so a run cut short keeps what it has.
# Exits 1 when any stage fails, an accuracy bound or the 90% bandwidth target included.
set -uo pipefail
rehearse=0
if [ "${1:-}" = --rehearse ]; then rehearse=1; shift; fi
out=${1:?usage: bash scripts/gpu/check.sh [--rehearse] OUT_DIR [PYTHON]}
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")/../.."
jobs=${MAX_JOBS:-$(nproc)}
failed=0
: >"$out/summary.txt"

note() { echo "gpu_check: $*" | tee -a "$out/summary.txt"; }

stage() {  # stage NAME COMMAND...: run, log to OUT_DIR/NAME.log, time it, keep going on failure
  local name=$1 started=$SECONDS; shift
  echo "gpu_check: $name ..."
  if "$@" >"$out/$name.log" 2>&1; then
    note "$name ok in $((SECONDS - started))s"
  else
    note "$name FAILED (exit $?) in $((SECONDS - started))s: $(grep -v '^\s*$' "$out/$name.log" | tail -n 1)"
    failed=$((failed + 1))
    return 1
  fi
}

note_lines() {  # note_lines STAGE PATTERN: the stage's log lines that match (an extended regex), into the summary
  grep -E -- "$2" "$out/$1.log" | while read -r line; do note "$line"; done
}

if [ $rehearse = 1 ]; then
  note "rehearsal on the CPU: CUDA-only steps run their CPU counterpart or are skipped"
  if [ -n "${2:-}" ]; then python=$2; else
    stage rehearsal-venv "${SYSTEM_PYTHON:-python3}" -m scripts.gpu.rehearsal_venv build/rehearsal/torch-2.11.0 || exit 1
    python=$(tail -n 1 "$out/rehearsal-venv.log")
  fi
  version=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  stage gpu-bundle "$python" -m scripts.gpu.bundle --python-version "$version" --out build/rehearsal/wheelhouse \
    || exit 1
  wheelhouse=build/rehearsal/wheelhouse cuda=AUTO device=cpu
else
  python=${2:-python3}
  wheelhouse=build/wheelhouse cuda=ON device=cuda
fi

{ echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"; echo "mode: $([ $rehearse = 1 ] && echo rehearsal || echo GPU)";
  echo "cores: $(nproc), MAX_JOBS=$jobs, cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  nvidia-smi -L 2>/dev/null || echo "gpu: none visible to nvidia-smi"
  echo "python: $python ($("$python" --version 2>&1))"
  "$python" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' 2>&1 | tail -n 1
} >"$out/machine.txt"
cat "$out/machine.txt"

stage bundle "$python" -m scripts.gpu.install_bundle --wheelhouse "$wheelhouse" && note "$(tail -n 1 "$out/bundle.log")"
stage overlay "$python" -m scripts.overlay.build --python "$python" --cuda "$cuda" --jobs "$jobs" || {
  note "the overlay did not build: no later stage can run; see $out/overlay.log"; exit 1; }
grep '^overlay: skipped' "$out/overlay.log" | tee -a "$out/summary.txt"

# the CUDA tests: test_cbrt_cuda.py's, and each operator test file's (test_<op>_op.py) that name CUDA
stage cuda-tests "$python" -m pytest test/test_cbrt_cuda.py test/test_*_op.py -k cuda -q -p no:cacheprovider -rs \
  --junitxml="$out/cuda-tests.xml" \
  && note "$(grep -E '[0-9]+ (passed|skipped|failed)' "$out/cuda-tests.log" | tail -n 1)"
# Each operator's own stages, as its stack declares them in pr.toml (scripts/gpu/stages.py): on a CUDA machine
# their cuda command, in the rehearsal their CPU counterpart
export python out jobs
stages=$("$python" -m scripts.gpu.stages --device "$device") || { note "the stages of pr.toml did not load"; exit 1; }
while IFS=$'\t' read -r name command summary counterpart; do
  [ -n "$name" ] || continue
  [ -z "$counterpart" ] || note "$name: $counterpart"
  stage "$name" bash -c "$command"
  [ -z "$summary" ] || note_lines "$name" "$summary"
done <<<"$stages"
if [ $failed = 0 ]; then note "all stages passed"; else note "$failed stage(s) failed"; fi
exit $((failed > 0))
