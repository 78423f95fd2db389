#!/bin/bash
# Regenerate results/real_tools (issue 18, offline, no LLM): Table B3 on Persona2Web with the synthetic
# seed history (memory-following agent, every method; request-only script with Pulse) and the τ² retail
# gold replays with and without the retail_db seed history. Needs PULSE_DATA_DIR (π-Bench/Persona2Web
# text is read at run time, never copied here). Prints each run's wall time.
#     PULSE_DATA_DIR=/path/to/data scripts/real_tools.sh [RESULTS_DIR]
# PY (default .venv/bin/python) runs `python -m pulse.cli eval` (= `pulse eval`) and the report;
# scripts/reproduce_check.py sets it to its own interpreter in a fresh clone that has no .venv.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${PULSE_DATA_DIR:?set PULSE_DATA_DIR to the benchmark data directory}"
OUT=${1:-results/real_tools}
RUNS=$OUT/runs
PY=${PY:-.venv/bin/python}
mkdir -p "$OUT/summaries"
run() {  # name, then pulse eval overrides
  local name=$1; shift
  local s; s=$(date +%s)
  local log; log="$RUNS/logs/$(echo "$name" | tr / _).log"
  # resume=false: every run is regenerated from scratch (a run dir of an older config is replaced)
  "$PY" -m pulse.cli eval "$@" out_dir="$RUNS/$name" progress=false resume=false > "$log" 2>&1 \
    || { echo "$name failed: see $log" >&2; exit 1; }
  echo "$name wall_s=$(( $(date +%s) - s ))"
  cp "$RUNS/$name/summary.json" "$OUT/summaries/$(echo "$name" | sed 's|/|__|g').json"
}
mkdir -p "$RUNS/logs"
for m in none mem0 lightmem openclaw pma pulse_rule; do
  run b3_memory_following/$m benchmark=persona2web benchmark.seed_history=synthetic method=$m agent=memory_following
done
run p2w_request_only/pulse_rule benchmark=persona2web benchmark.seed_history=synthetic method=pulse_rule \
  agent=scripted agent.script=request_only
for m in none pulse_rule; do
  run tau2_gold_replay/none/$m benchmark=tau2_retail method=$m agent=scripted agent.script=gold
  run tau2_gold_replay/retail_db/$m benchmark=tau2_retail benchmark.seed_history=retail_db method=$m \
    agent=scripted agent.script=gold
done
"$PY" -m eval.real.persona2web.report "$RUNS"/b3_memory_following/{none,mem0,lightmem,openclaw,pma,pulse_rule} \
  "$RUNS"/p2w_request_only/pulse_rule --out "$OUT/table_b3.md"
