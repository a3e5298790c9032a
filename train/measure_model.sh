#!/usr/bin/env bash
# Measures an exported model and writes its card: evaluation table, episodes of every
# built-in task on its fixed seeds, latency bench, then models/MODEL_CARD.md (the card),
# docs/meadow-nano-record.md (the full record) and models/meadow-nano.targets.json
# (train/model_card.py).
#   train/measure_model.sh RUN_DIR [GGUF] [LINEAGE TEXT]
set -euo pipefail
cd "$(dirname "$0")/.."
RUN="$1"
GGUF="${2:-models/meadow-nano.gguf}"
LINEAGE="${3:-}"
CLI="${CLI:-build/meadow-mind}"
# the synthetic rows' stream: stage 13 (the full scene + word-table mix) for every model, so
# cards stay comparable whatever stage a recipe ends on
EVAL_STAGE="${EVAL_STAGE:-13}"
# 600 tables (about 4,800 decisions) a synthetic row: its standard error (tables as the unit) is
# 0.003-0.004, at 200 tables 0.005-0.007, larger than the gaps to the bars; 600 take ~6 minutes more
EVAL_TABLES="${EVAL_TABLES:-600}"
PY=/usr/bin/python3
. train/blas_env.sh  # OpenBLAS kernels pinned: the float32 eval rows retrace

$PY -m train.eval_table --ckpt "$RUN/ckpt.pt" --gguf "$GGUF" --cli "$CLI" --stage "$EVAL_STAGE" --tables "$EVAL_TABLES" --threads 2 --json "$RUN/eval.json"
: > "$RUN/plays.txt"
for t in cartpole mountaincar frozenlake lunarlander maze; do
  n=$("$CLI" list --json | $PY -c "import json,sys; print(len([x for x in json.load(sys.stdin) if x['name']=='$t'][0]['seeds']))")
  # one episode prints only its "seed N:" line; several end with a "verdict:" line
  v=$("$CLI" play "$t" --model "$GGUF" --episodes "$n" 2>&1 | grep -E '^verdict:|^seed 0:' | tail -1 |
      sed 's/^verdict: //; s/^seed 0: //') || true
  echo "$t: $v" | tee -a "$RUN/plays.txt"
done
# the relabelling tests of tests/mind/trained_model_test.cpp, on this model, every table set
MEADOW_TEST_ALL_TARGETS=1 MEADOW_TEST_TRAINED_MODEL="$GGUF" build/tests/test_mind \
  --gtest_filter='TrainedModel.*' > "$RUN/relabelling.txt" 2>&1 || true
"$CLI" bench --model "$GGUF" --threads 2 --decisions 200 > "$RUN/bench.json"
$PY -m train.model_card --ckpt "$RUN/ckpt.pt" --gguf "$GGUF" --eval "$RUN/eval.json" --bench "$RUN/bench.json" \
  --plays "$RUN/plays.txt" --relabelling "$RUN/relabelling.txt" --lineage "$LINEAGE"
