"""Calibrating the simulated task agent on a real model (issue 30 item 3).

`build.py` makes a deterministic set of probes from the generated suites: a task state (request,
a few tools, prior executed steps) plus one memory condition; `probe.py` puts each in front of a
real LLM over any OpenAI-compatible endpoint (or a local GGUF server it starts itself) and records
what the model does, one JSON line per probe (resumable); `classify.py` reads a reply; `fit.py`
fits the knobs of `eval.agents.behaviour.BehaviourParams` from the recorded outcomes, with 95 %
intervals, and writes fit.json, a README and the named behaviour YAML.
"""
