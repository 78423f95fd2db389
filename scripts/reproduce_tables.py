"""Reproduce the offline Table 1-3 rows (= `pulse reproduce`; eval/reproduce.py says how):

    .venv/bin/python scripts/reproduce_tables.py --runs outputs/tables/runs --out results/tables \
        --checkpoint 'outputs/demo/s{seed}/grpo_pulse/grpo/final' \
        --base 'outputs/demo/s{seed}/sft_run/sft/final'
"""

from __future__ import annotations

import sys

from eval.reproduce import main

if __name__ == "__main__":
    sys.exit(main())
