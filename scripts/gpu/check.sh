#!/usr/bin/env bash
# The prepared run for a CUDA machine with a preinstalled torch (2.11 to 2.14.1) and no network:
#   bash scripts/gpu/check.sh OUT_DIR [PYTHON]              PYTHON defaults to python3
# and its rehearsal on a machine without a GPU, every stage on the CPU:
#   bash scripts/gpu/check.sh --rehearse OUT_DIR [PYTHON]   PYTHON defaults to a new torch 2.11.0 venv
# Stages: the bundle's missing wheels (build/wheelhouse, `make gpu-bundle`), the overlay build
# (MAX_JOBS = cores), the CUDA tests, eager CUDA against torch.compile'd CUDA bit for bit, the accuracy sweep
# against the correctly rounded reference with libdevice's documented bounds (scripts/gpu/bounds.py), and
# throughput against a device-to-device copy, its share of copy bandwidth printed beside the H200 model's
# prediction (scripts/gpu/throughput_model.py). Each stage logs to OUT_DIR/<stage>.log
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

note_lines() {  # note_lines STAGE PATTERN: the stage's log lines that match, into the summary
  grep -- "$2" "$out/$1.log" | while read -r line; do note "$line"; done
}

bench_against_model() {  # the measured share of copy bandwidth next to the model's (docs/CUDA_KERNEL.md)
  note_lines bench ' model [0-9.]* (H200'
}

sweep() {  # the accuracy sweep of every dtype, then its verdict against the documented bounds
  "$python" -m scripts.measure.accuracy --dtypes float16 bfloat16 float32 float64 --json "$out/accuracy.json" "$@" \
    && "$python" -m scripts.gpu.bounds "$out/accuracy.json"
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
if [ $device = cuda ]; then
  stage bitwise "$python" -m scripts.gpu.bitwise --device cuda --json "$out/bitwise.json"
  note_lines bitwise '^bitwise: .*differ'
  stage accuracy sweep --candidates 'torch.cbrt (cuda)' --workers "$jobs" --float64-count 10000000
  note_lines accuracy '^bounds: '
  stage bench "$python" -m scripts.gpu.bench --device cuda --json "$out/bench.json"
  bench_against_model
else
  note "bitwise: no CUDA here; the counterpart compares torch.compile'd CPU code with the eager CPU kernel"
  stage bitwise "$python" -m scripts.gpu.bitwise --device cpu --sample 1048576 --json "$out/bitwise.json"
  note_lines bitwise '^bitwise: .*differ'
  note "accuracy: no CUDA here; the counterpart sweeps the CPU kernel on the first 2^22 inputs of each dtype"
  stage accuracy sweep --candidates torch.cbrt --workers 2 --limit 4194304 --float64-count 100000
  note_lines accuracy '^bounds: '
  note "bench: no CUDA here; the counterpart measures the CPU at 2^16 and 2^18, without the 90% target"
  stage bench "$python" -m scripts.gpu.bench --device cpu --exponents 16 18 --json "$out/bench.json"
  bench_against_model
fi
if [ $failed = 0 ]; then note "all stages passed"; else note "$failed stage(s) failed"; fi
exit $((failed > 0))
