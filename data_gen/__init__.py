"""Deterministic Persona2Web-style data generator for the Pulse memory policy (no LLM, no network).

Pipeline (a module per step):
  world/personas.py     personas with ground-truth preferences and habits
  world/history.py      a year of web actions where preferences appear only as repetition
  world/preferences.py  preferences / habits / revisions derived back from the history
  world/tasks.py        three-level tasks (L1 "my usual", L2 values, L3 all explicit)
  world/tool_calls.py   trajectory events (request, messages, candidate calls, tool results)
  cases.py              case types: how a prefix exercises one labelling rule
  decision_memory.py    the memory snapshot of one decision point (task memory + distractors, ids m1..mN)
  build.py              generate_examples / build_dataset (atomic DatasetDict + card)
Labels come from the one gold rule, `pulse.core.gold.gold_decision`, applied to what the policy sees.

Run: `.venv/bin/python -m data_gen.build --out artifacts/data/pulse_v1`;
tests: `.venv/bin/python -m pytest tests/data_gen -q`; bench: `.venv/bin/python bench/bench_generator.py`.
Other domains (professional personas, personal apps) are data: pass `DomainSpec`s to
`generate_examples(cfg, domains=...)`.
"""
