#!/usr/bin/env bash
# One prepared run for a CUDA machine with a preinstalled torch and no network:
#   bash scripts/gpu_check.sh OUT_DIR [PYTHON]
# Builds the overlay against that torch, runs the CUDA tests and the exhaustive float32
# accuracy on the GPU, benchmarks against device-to-device copy, and leaves every result
# and log in OUT_DIR. Budget: under 10 minutes on 16 cores.
set -uo pipefail
out=${1:?usage: bash scripts/gpu_check.sh OUT_DIR [PYTHON]}
python=${2:-python3}
mkdir -p "$out"
cd "$(dirname "$0")/.."
status=0

stage() {  # stage NAME COMMAND...: run, log to OUT_DIR/NAME.log, time it, keep going on failure
  local name=$1; shift
  local started=$SECONDS
  echo "gpu_check: $name ..."
  if "$@" >"$out/$name.log" 2>&1; then result=ok; else result="FAILED (exit $?)"; status=1; fi
  echo "gpu_check: $name $result in $((SECONDS - started))s" | tee -a "$out/summary.txt"
}

{ nvidia-smi -L; "$python" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'; } \
  >"$out/machine.txt" 2>&1
# torchgen needs PyYAML and functorch's headers need nlohmann-json; install them offline if a
# wheelhouse was carried along (see README, "GPU check").
if [ -d build/wheelhouse ]; then
  "$python" -m pip install -q --no-index --find-links build/wheelhouse PyYAML nlohmann-json >"$out/pip.log" 2>&1
fi
stage overlay make overlay PYTHON="$python" SYSTEM_PYTHON="$python"
if grep -q "FAILED" "$out/summary.txt"; then
  echo "gpu_check: the overlay did not build; see $out/overlay.log"
  exit 1
fi
stage cuda-tests "$python" -m pytest test/test_cbrt_cuda.py test/test_cbrt_op.py -q -p no:cacheprovider \
  --junitxml="$out/cuda-tests.xml"
stage accuracy "$python" -m scripts.accuracy --dtypes float32 float16 bfloat16 --candidates "torch.cbrt (cuda)" \
  --workers 8 --json "$out/accuracy.json"
stage bench "$python" -m scripts.bench_gpu --output "$out/bench_gpu.md"
cat "$out/summary.txt"
exit $status
