"""`pulse trace`: one self-contained HTML page of what happened in evaluation runs.

- `record.py`: the opt-in per-episode trace the harness writes (`PULSE_TRACE=1 pulse eval ...`);
- `load.py`: run directories -> the page's data (episodes, their timelines, checkpoints);
- `html.py`: the page (inline CSS and JavaScript, the data embedded; no server, no network);
- the hydra entry is `pulse/cli/trace.py` (configs/trace.yaml).
"""
