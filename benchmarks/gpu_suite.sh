#!/usr/bin/env bash
# Every GPU test and the GPU benchmarks in one go, for a CUDA host with CuPy.
#
#   bash benchmarks/gpu_suite.sh OUT_DIR [--quick]
#
# Runs from the repository root without installing cuzklab (PYTHONPATH=.); set
# PYTHON to choose the interpreter. Writes OUT_DIR/gpu-tests.log and one JSON
# per benchmark (field, msm, ntt, prove). --quick keeps to small sizes. Each
# step has a time limit, so one slow step cannot take the rest with it.
# STEPS=gpu-tests,field,msm,ntt,prove (the default: all) runs only those;
# TEST_JOBS=N runs the tests in N processes (pytest-xdist), which compile
# their kernels in parallel. MSM_FLAGS replaces the MSM variants (default:
# "--precomputed both --glv both"; e.g. "--glv both" leaves out precomputed bases).
set -uo pipefail
out="${1:?usage: gpu_suite.sh OUT_DIR [--quick]}"
quick="${2:-}"
py="${PYTHON:-python3}"
cd "$(dirname "$0")/.."
mkdir -p "$out"
export PYTHONPATH=".${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
export CUPY_CACHE_DIR="${CUPY_CACHE_DIR:-${TMPDIR:-/tmp}/cuzklab-cupy-cache}"
if [ "$quick" = "--quick" ]; then
  g1=16,20; g2=16; ntt=20,24; prove=16,20
else
  g1=16,18,20,22,24; g2=16,18,20; ntt=16-27; prove=20,22,24
fi
steps=",${STEPS:-gpu-tests,field,msm,ntt,prove},"
jobs=()
if [ -n "${TEST_JOBS:-}" ]; then jobs=(-n "$TEST_JOBS"); fi
step() {  # step NAME SECONDS CMD...
  local name="$1" limit="$2"; shift 2
  case "$steps" in *",$name,"*) ;; *) return 0 ;; esac
  echo "== $name (limit ${limit}s)"
  timeout "$limit" "$@" 2>&1 | tee "$out/$name.log" | tail -25
  echo "== $name: exit ${PIPESTATUS[0]}"
}
step gpu-tests 900 "$py" -m pytest -p no:cacheprovider -m gpu -q --timeout 300 ${jobs[@]+"${jobs[@]}"} \
  tests/field tests/curve tests/msm tests/ntt tests/groth16 tests/stages
step field 300 "$py" benchmarks/bench_field.py --backend gpu --ops mul,sqr --json "$out/field.json"
read -r -a msm_flags <<< "${MSM_FLAGS:---precomputed both --glv both}"
step msm 900 "$py" benchmarks/bench_msm.py --backend gpu --group both "${msm_flags[@]}" \
  --g1-sizes "$g1" --g2-sizes "$g2" --json "$out/msm.json"
step ntt 600 "$py" benchmarks/bench_ntt.py --backend gpu --sizes "$ntt" --json "$out/ntt.json"
step prove 900 "$py" benchmarks/bench_prove.py --backend gpu --b-g2-backend gpu \
  --sizes "$prove" --json "$out/prove.json"
