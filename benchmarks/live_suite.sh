#!/usr/bin/env bash
# The live executor's figures on one GPU host, in one bounded run:
#   1. the live grid at 2^K (K=20 by default): interlock and split_async, gw 1 and 2,
#      three partition-worker settings, each with the witness work that places it
#      (pw=4 W=1: synthesis; pw=8 W=0.25; pw=12 W=0: the CPU stages around the GPU);
#   2. the same at small sizes (2^14 and 2^16, W=0, pw=12, and 12 proofs at 2^16),
#      where the GPU region's fixed costs outweigh the CPU work of a partition;
#   3. the thread scaling of the native CPU stages (bench_cpu_stages.py);
#   4. the contention curve (bench_contention.py);
#   0. first, the native library's build flags compared (bench_native_flags.py).
# Every step has a time limit of its own; its JSON and log go to $OUT (default
# benchmarks/results), so a step that runs out still leaves the others' figures.
#
#   OUT=dir K=20 bash benchmarks/live_suite.sh
#   OUT=/tmp/x BACKEND=cpu K=8 SMALL_K="6" bash benchmarks/live_suite.sh   # a smoke run, no GPU
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-benchmarks/results}
K=${K:-20}
SMALL_K=${SMALL_K:-"14 16"}
PY=${PYTHON:-python3}
TAG=${TAG:-h200}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1

step() {  # step NAME LIMIT_S COMMAND...
    local name=$1 limit=$2
    shift 2
    local t0=$SECONDS
    echo "== $name (limit ${limit} s)"
    timeout -k 5 "$limit" "$@" >"$OUT/$name.log" 2>&1
    local rc=$?
    echo "   $name: exit $rc after $((SECONDS - t0)) s"
    tail -n 25 "$OUT/$name.log"
}

grid() {  # grid NAME LIMIT_S K W PW [extra bench_live args]
    local name=$1 limit=$2 k=$3 w=$4 pw=$5
    shift 5
    step "$name" "$limit" "$PY" benchmarks/bench_live.py --log2-constraints "$k" \
        --witness-work "$w" --pw "$pw" --gw "${GW:-1,2}" --locks "${LOCKS:-interlock,split_async}" \
        --backend "${BACKEND:-gpu}" \
        --budget-s $((limit - 20)) --json "$OUT/$name.json" "$@"
}

step "native-flags-$TAG" "${LIMIT_FLAGS:-25}" "$PY" benchmarks/bench_native_flags.py \
    --points 4096 --json "$OUT/native-flags-$TAG.json"
# the small sizes first, split_async gw=2 first (the rows most likely GPU-bound); each
# grid's untimed warm-up run compiles the GPU kernels of its size on a fresh host
first=1
for k in $SMALL_K; do
    if [ $first = 1 ]; then limit=${LIMIT_FIRST:-90}; first=0; else limit=${LIMIT_SMALL:-25}; fi
    GW=2,1 LOCKS=split_async,interlock grid "live-${k}-w0-pw12-$TAG" "$limit" "$k" 0 12
done
last_small=${SMALL_K##* }
GW=2,1 LOCKS=split_async,interlock grid "live-${last_small}-w0-pw12-p12-$TAG" "${LIMIT_SMALL:-25}" \
    "$last_small" 0 12 --proofs 12
grid "live-${K}-w0-pw12-$TAG" "${LIMIT_CPU:-50}" "$K" 0 12
grid "live-${K}-w1-pw4-$TAG" "${LIMIT_SYNTH:-55}" "$K" 1 4
grid "live-${K}-w025-pw8-$TAG" "${LIMIT_MID:-40}" "$K" 0.25 8
step "cpu-stages-$TAG" "${LIMIT_STAGES:-55}" "$PY" benchmarks/bench_cpu_stages.py --log2 "$K" \
    --threads 1,2,4,8,16 --repeat 2 --json "$OUT/cpu-stages-$TAG.json"
step "contention-2p${K}-$TAG" "${LIMIT_CONTENTION:-40}" "$PY" benchmarks/bench_contention.py \
    --log2 "$K" --syntheses 0,1,2,4,8,12 --repeat 2 --json "$OUT/contention-2p${K}-$TAG.json"
echo "== suite done after $SECONDS s"
