#!/usr/bin/env bash
# Reproduce the offline Table 1-3 style results: every experiment config x both suites x seeds,
# then render the tables. Results come from the *simulated* task agent unless you pass agent=openai
# overrides (they are labelled as such everywhere).
#
#   CHECKPOINT=outputs/train/RUN/final BASE_MODEL=artifacts/models/tiny_qwen3 scripts/reproduce_tables.sh
#   SEEDS="0 1 2" TABLES="table1" OUT=outputs/tables scripts/reproduce_tables.sh agent.behaviour.decay_per_step=0.1
#
#   BASE_MODEL=artifacts/models/tiny_qwen3 ROWS="table2/flat_no_rl" SEEDS=0 scripts/reproduce_tables.sh
#
# Rows that need the trained checkpoint are skipped (with a note) when CHECKPOINT is empty.
# CHECKPOINT=rule runs those rows with the non-learned rule policy instead, labelled "<method>-rule".
# Rows that need the untrained base (pulse_no_rl, flat_no_rl: "Flat Memory + Pulse w/o RL") are
# skipped when BASE_MODEL is empty. Every skipped row is listed again at the end.
# ROWS: space-separated "tableK/row" names to run (default: every config of TABLES).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
SEEDS=${SEEDS:-"0 1 2"}
TABLES=${TABLES:-"table1 table2 table3"}
BENCHMARKS=${BENCHMARKS:-"pibench_sim mcp_persona_sim"}
OUT=${OUT:-outputs/tables}
CHECKPOINT=${CHECKPOINT:-}
BASE_MODEL=${BASE_MODEL:-}
ROWS=${ROWS:-}
skipped=()

for table in $TABLES; do
  for exp in configs/experiment/"$table"/*.yaml; do
    name=$(basename "$exp" .yaml)
    if [[ -n "$ROWS" && " $ROWS " != *" $table/$name "* ]]; then continue; fi
    method=$(sed -n 's/^  - override \/method: //p' "$exp")
    policy=$(sed -n 's/^policy: //p' "configs/method/$method.yaml")
    mode=$(sed -n 's/^mode: //p' "configs/method/$method.yaml")
    impl=$(sed -n 's/^impl: //p' "configs/method/$method.yaml")
    [[ "$impl" == "none" ]] && policy=none
    extra=()
    if [[ "$policy" == "trained" && "$mode" != "start_only" && -z "$CHECKPOINT" ]]; then
      echo "skip $table/$name: needs CHECKPOINT (a trained policy)"; skipped+=("$table/$name (CHECKPOINT)"); continue; fi
    if [[ "$policy" == "trained" && "$mode" != "start_only" && "$CHECKPOINT" == "rule" ]]; then
      extra=(method.policy=rule "method.name=${method}-rule"); fi
    if [[ "$policy" == "base" && -z "$BASE_MODEL" ]]; then
      echo "skip $table/$name: needs BASE_MODEL (the untrained base)"; skipped+=("$table/$name (BASE_MODEL)"); continue; fi
    for bench in $BENCHMARKS; do
      for seed in $SEEDS; do
        $PY -m pulse.eval experiment="$table/$name" benchmark="$bench" seed="$seed" progress=false \
          out_dir="$OUT/runs/$table/$name/$bench/seed$seed" \
          ${CHECKPOINT:+policy.name_or_path=$CHECKPOINT} ${BASE_MODEL:+base_policy.name_or_path=$BASE_MODEL} \
          ${extra[@]+"${extra[@]}"} "$@"
      done
    done
  done
done
if (( ${#skipped[@]} )); then echo "rows not run: ${skipped[*]}"; fi
$PY -m pulse.tables "$OUT/runs" --out "$OUT"
