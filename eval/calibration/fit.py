"""Fit the simulated agent's behaviour knobs from recorded probes (eval/calibration/probe.py).

    python -m eval.calibration.fit results/calibration/qwen_coder_1_5b \
        --yaml configs/agent/behaviour/calibrated_qwen_coder_1_5b.yaml

Writes `<dir>/fit.json` (knob -> value, 95 % interval, n probes, conditions) and `<dir>/README.md`,
and with `--yaml` the named behaviour (the keys of configs/agent/behaviour/default.yaml, fitted
values where probed, the default's elsewhere). Off-target replies (a call to another tool or
artifact) and text replies say nothing about the slot: they are left out of a slot knob's
denominator and counted in the README.

Knobs (`eval.agents.behaviour.BehaviourParams`):
  p_follow_explicit       share of `explicit` probes whose call has the stated value (Wilson)
  p_use_delivered         share of fresh `supplement_right` probes whose call has the note's value
  decay_per_step          ML fit of rate(age) = p0 * exp(-decay * age) over ages 0 / 2 / 5
  load_penalty            ML fit of rate(L) = q / (1 + lp * max(0, L / 1000 - 1)) over the load
                          probes' delivered tokens L (context_budget_tokens fixed at 1000)
                          (both: interval = union of the 95 % profile-likelihood and bootstrap ones)
  p_override_stated       rate(`conflict`: the note's value wins) / p_use_delivered, clipped
  p_apply_out_of_context  rate(`out_of_context`) / p_use_delivered, clipped
                          (both: interval = union of the bootstrap one and the Wilson bounds' ratios)
  p_hold_abandon / p_hold_ask_user / p_hold_repeat
                          shares of the hold outcomes over every hold probe (Wilson)
Reported, no knob: being misled by a wrong note (same mechanism as p_use), the chance of the note's
value with no note (`control`), an irrelevant note changing the target argument (paired with
`control` on the same state), what a re-plan after a hold does with its evidence.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

from eval.calibration.build import LOADS, load_block
from eval.calibration.classify import norm

Z = 1.959964
# missing_copied: the call omits the target argument right after a prior call of the same tool that the
# probe showed without it (prior calls never carry the target argument, build.py `_prior`): the model
# copied that call's shape, a probe artifact, not a decision about the note
UNINFORMATIVE = ("off_target", "no_call", "missing_copied")
HOLD_OUTCOMES = ("abandon", "ask_user", "repeat", "replan")


def wilson(k: int, n: int) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + Z * Z / n
    c = (p + Z * Z / (2 * n)) / d
    h = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


def read(path: Path) -> list[dict[str, Any]]:
    out = []
    for line in path.read_text().splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return out


def reclassify(rec: dict[str, Any]) -> dict[str, Any]:
    """The record's outcome from its stored call and reply by the current classifier (so a classifier
    fix applies to recorded probes without running the model again)."""
    from eval.calibration.classify import classify_hold, classify_single

    call = rec.get("call")
    if rec["condition"].startswith("hold_"):
        outcome = classify_hold(rec, call, rec.get("reply") or "")
        slot = classify_single(rec, call) if outcome == "replan" else ""
    else:
        outcome, slot = classify_single(rec, call), ""
        if outcome == "missing" and any(c["tool"] == rec["tool"] for c in rec.get("prior", ())):
            outcome = "missing_copied"
    return {**rec, "outcome": outcome, "slot_outcome": slot}


def informative(recs, cond: str) -> list[dict[str, Any]]:
    return [r for r in recs if r["condition"] == cond and r["outcome"] not in UNINFORMATIVE]


def emitted(r: dict[str, Any]) -> str | None:
    call = r.get("call")
    if not call or r["outcome"] in UNINFORMATIVE or r["slot"] not in call["args"]:
        return None
    return norm(call["args"][r["slot"]])


def rate(recs, cond: str, success: str = "note") -> dict[str, Any]:
    rs = informative(recs, cond)
    k = sum(r["outcome"] == success for r in rs)
    lo, hi = wilson(k, len(rs))
    return {
        "value": k / len(rs) if rs else None,
        "interval": [lo, hi],
        "k": k,
        "n": len(rs),
        "conditions": [cond],
    }


def _nll_decay(theta, ages, ys):
    p0, d = theta
    p = np.clip(p0 * np.exp(-d * ages), 1e-6, 1 - 1e-6)
    return -np.sum(ys * np.log(p) + (1 - ys) * np.log(1 - p))


def _nll_load(theta, loads, ys, budget=1000.0):
    q, lp = theta
    p = np.clip(q / (1 + lp * np.maximum(0.0, loads / budget - 1)), 1e-6, 1 - 1e-6)
    return -np.sum(ys * np.log(p) + (1 - ys) * np.log(1 - p))


def ml_fit(nll, xs: np.ndarray, ys: np.ndarray, hi: float) -> tuple[float, float]:
    """(level-0 rate, rate parameter) maximising the binomial likelihood; parameter in [0, hi]."""
    from scipy.optimize import minimize

    best = None
    for start in (0.0, 0.1, 0.5, 2.0):
        r = minimize(
            nll,
            x0=[max(0.05, min(0.95, ys.mean() or 0.5)), start],
            args=(xs, ys),
            bounds=[(1e-3, 1.0), (0.0, hi)],
            method="L-BFGS-B",
        )
        if best is None or r.fun < best.fun:
            best = r
    return float(best.x[0]), float(best.x[1])


def profile_interval(nll, xs: np.ndarray, ys: np.ndarray, hi: float, grid: int = 201) -> tuple[float, float]:
    """95 % profile-likelihood interval of the rate parameter (level-0 rate maximised out at each
    grid value): where 2 * (nll - min nll) <= 3.84. Unlike the bootstrap it is not degenerate when
    every probe of a level has the same outcome."""
    from scipy.optimize import minimize_scalar

    ts = np.linspace(0.0, hi, grid)
    prof = np.array(
        [
            minimize_scalar(lambda q, t=t: nll((q, t), xs, ys), bounds=(1e-3, 1.0), method="bounded").fun
            for t in ts
        ]
    )
    inside = ts[2 * (prof - prof.min()) <= 3.841]
    return (float(inside.min()), float(inside.max()))


def bootstrap(groups: list[np.ndarray], stat, n_boot: int = 500, seed: int = 0) -> tuple[float, float]:
    """2.5 / 97.5 percentiles of `stat(*resampled groups)` (each group resampled within itself)."""
    rng = np.random.default_rng(seed)
    vals = []
    for _ in range(n_boot):
        v = stat(*[g[rng.integers(0, len(g), len(g))] if len(g) else g for g in groups])
        if v is not None and np.isfinite(v):
            vals.append(v)
    if not vals:
        return (float("nan"), float("nan"))
    return (float(np.percentile(vals, 2.5)), float(np.percentile(vals, 97.5)))


def _ys(recs, cond) -> np.ndarray:
    return np.array([r["outcome"] == "note" for r in informative(recs, cond)], dtype=float)


def fit_decay(recs, n_boot=500) -> dict[str, Any]:
    levels = {"supplement_right": 0, "age_2": 2, "age_5": 5}
    data = [(a, _ys(recs, c)) for c, a in levels.items()]

    def est(*ys):
        xs = np.concatenate([np.full(len(y), a, float) for (a, _), y in zip(data, ys)])
        return ml_fit(_nll_decay, xs, np.concatenate(ys), 5.0)[1]

    groups = [y for _, y in data]
    if sum(len(g) for g in groups) == 0 or sum(len(g) > 0 for g in groups) < 2:
        return {
            "value": None,
            "interval": [0.0, 5.0],
            "n": int(sum(len(g) for g in groups)),
            "conditions": list(levels),
            "rates": {},
        }
    value = est(*groups)
    xs = np.concatenate([np.full(len(y), a, float) for (a, _), y in zip(data, groups)])
    prof = profile_interval(_nll_decay, xs, np.concatenate(groups), 5.0)
    boot = bootstrap(groups, est, n_boot)
    return {
        "value": value,
        "interval": [min(prof[0], boot[0]), max(prof[1], boot[1])],
        "profile_interval": list(prof),
        "bootstrap_interval": list(boot),
        "n": int(sum(len(y) for y in groups)),
        "rates": {str(a): [float(y.mean()) if len(y) else None, len(y)] for a, y in data},
        "conditions": list(levels),
        "method": "binomial ML of p0*exp(-decay*age); interval: the union of the 95% profile-likelihood "
        "and bootstrap intervals",
    }


def fit_load(recs, n_boot=500) -> dict[str, Any]:
    from pulse.agent.tokens import count_tokens

    data = []
    for c, level in LOADS.items():
        rs = informative(recs, c)
        xs = np.array([count_tokens("\n".join(load_block(level, r["note"]))) for r in rs], float)
        data.append((level, xs, np.array([r["outcome"] == "note" for r in rs], float)))

    def est_groups(*pairs):
        xs = np.concatenate([p[:, 0] for p in pairs])
        ys = np.concatenate([p[:, 1] for p in pairs])
        return ml_fit(_nll_load, xs, ys, 20.0)[1]

    groups = [np.stack([x, y], axis=1) if len(x) else np.zeros((0, 2)) for _, x, y in data]
    if sum(len(g) > 0 for g in groups) < 2:
        return {
            "value": None,
            "interval": [0.0, 20.0],
            "n": int(sum(len(g) for g in groups)),
            "conditions": list(LOADS),
            "rates": {},
        }
    value = est_groups(*groups)
    xs_all = np.concatenate([g[:, 0] for g in groups])
    ys_all = np.concatenate([g[:, 1] for g in groups])
    q, _ = ml_fit(_nll_load, xs_all, ys_all, 20.0)
    # the same form with the budget free too (reported: does a budget of 1000 tokens fit the model?)
    free = []
    for budget in (100, 200, 300, 400, 500, 600, 700, 800, 1000):
        qb, lpb = ml_fit(lambda t, x, y, b=budget: _nll_load(t, x, y, b), xs_all, ys_all, 50.0)
        free.append((_nll_load((qb, lpb), xs_all, ys_all, budget), budget, qb, lpb))
    nll_b, best_b, q_b, lp_b = min(free)

    prof = profile_interval(_nll_load, xs_all, ys_all, 20.0)
    boot = bootstrap(groups, est_groups, n_boot)

    def pred(q, lp, b, x):
        return float(q / (1 + lp * max(0.0, x / b - 1)))

    return {
        "value": value,
        "q": q,
        "predicted": {str(level): pred(q, value, 1000, float(x.mean())) for level, x, _ in data if len(x)},
        "free_budget": {
            "context_budget_tokens": best_b,
            "load_penalty": lp_b,
            "q": q_b,
            "nll": float(nll_b),
            "nll_at_1000": float(_nll_load((q, value), xs_all, ys_all, 1000.0)),
            "predicted": {
                str(level): pred(q_b, lp_b, best_b, float(x.mean())) for level, x, _ in data if len(x)
            },
        },
        "profile_interval": list(prof),
        "bootstrap_interval": list(boot),
        "interval": [min(prof[0], boot[0]), max(prof[1], boot[1])],
        "n": int(sum(len(g) for g in groups)),
        "rates": {
            str(level): [float(y.mean()) if len(y) else None, len(y), float(x.mean()) if len(x) else None]
            for level, x, y in data
        },
        "conditions": list(LOADS),
        "context_budget_tokens": 1000,
        "method": "binomial ML of q/(1+lp*max(0,L/1000-1)) over delivered tokens L; interval: the union of "
        "the 95% profile-likelihood and bootstrap intervals",
    }


def ratio(recs, cond: str, base: str = "supplement_right", n_boot=500) -> dict[str, Any]:
    """rate(cond) / rate(base), clipped to [0, 1], with a bootstrap interval."""
    a, b = _ys(recs, cond), _ys(recs, base)

    def est(a, b):
        return min(1.0, a.mean() / b.mean()) if len(a) and len(b) and b.mean() > 0 else None

    v = est(a, b)
    (alo, ahi), (blo, bhi) = wilson(int(a.sum()), len(a)), wilson(int(b.sum()), len(b))
    wil = (min(1.0, alo / bhi) if bhi else 0.0, min(1.0, ahi / blo) if blo else 1.0)
    boot = bootstrap([a, b], est, n_boot)
    return {
        "value": v,
        "interval": [min(wil[0], boot[0]), max(wil[1], boot[1])],
        "wilson_ratio_interval": list(wil),
        "bootstrap_interval": list(boot),
        "n": len(a),
        "rate": [float(a.mean()) if len(a) else None, int(a.sum()), len(a)],
        "conditions": [cond, base],
        "method": f"rate({cond}) / rate({base}), clipped to [0, 1]; interval: the union of the bootstrap one "
        "and [Wilson low / Wilson high, Wilson high / Wilson low] of the two rates (not degenerate when "
        "every probe agrees)",
    }


def holds(recs) -> dict[str, Any]:
    rs = [r for r in recs if r["condition"].startswith("hold_")]
    out: dict[str, Any] = {
        "n": len(rs),
        "counts": {o: sum(r["outcome"] == o for r in rs) for o in HOLD_OUTCOMES},
    }
    by = {}
    for cond in ("hold_right", "hold_wrong", "hold_irrelevant"):
        c = [r for r in rs if r["condition"] == cond]
        re = [r for r in c if r["outcome"] == "replan"]
        adopted = sum(r.get("slot_outcome") == "note" for r in re)
        changed = sum(
            emitted(r) is not None and emitted(r) != norm(r["held_args"].get(r["slot"], "")) for r in re
        )
        by[cond] = {
            "n": len(c),
            "counts": {o: sum(r["outcome"] == o for r in c) for o in HOLD_OUTCOMES},
            "replan_took_evidence_value": [adopted, len(re)],
            "replan_changed_target": [changed, len(re)],
        }
    out["by_evidence"] = by
    return out


def irrelevant_change(recs) -> dict[str, Any]:
    ctrl = {r["probe_id"].split(":", 1)[1]: emitted(r) for r in recs if r["condition"] == "control"}
    pairs = [
        (emitted(r), ctrl[k])
        for r in recs
        if r["condition"] == "supplement_irrelevant"
        and (k := r["probe_id"].split(":", 1)[1]) in ctrl
        and emitted(r) is not None
        and ctrl[k] is not None
    ]
    k = sum(a != b for a, b in pairs)
    return {
        "value": k / len(pairs) if pairs else None,
        "interval": list(wilson(k, len(pairs))),
        "k": k,
        "n": len(pairs),
        "conditions": ["supplement_irrelevant", "control"],
    }


def chance(recs) -> dict[str, Any]:
    rs = [r for r in recs if r["condition"] == "control" and emitted(r) is not None]
    k = sum(emitted(r) == norm(r["note_value"]) for r in rs if r.get("note_value"))
    return {
        "value": k / len(rs) if rs else None,
        "interval": list(wilson(k, len(rs))),
        "k": k,
        "n": len(rs),
        "conditions": ["control"],
    }


def fit(recs: list[dict[str, Any]], n_boot: int = 500) -> dict[str, Any]:
    knobs: dict[str, Any] = {}
    knobs["p_follow_explicit"] = rate(recs, "explicit", "stated")
    knobs["p_use_delivered"] = rate(recs, "supplement_right")
    knobs["decay_per_step"] = fit_decay(recs, n_boot)
    knobs["load_penalty"] = fit_load(recs, n_boot)
    knobs["p_override_stated"] = ratio(recs, "conflict", n_boot=n_boot)
    knobs["p_apply_out_of_context"] = ratio(recs, "out_of_context", n_boot=n_boot)
    h = holds(recs)
    for o, name in (
        ("abandon", "p_hold_abandon"),
        ("ask_user", "p_hold_ask_user"),
        ("repeat", "p_hold_repeat"),
    ):
        k, n = h["counts"][o], h["n"]
        knobs[name] = {
            "value": k / n if n else None,
            "interval": list(wilson(k, n)),
            "k": k,
            "n": n,
            "conditions": ["hold_right", "hold_wrong", "hold_irrelevant"],
        }
    conds = sorted({r["condition"] for r in recs})
    counted = [{**r, "outcome": "missing"} if r["outcome"] == "missing_copied" else r for r in recs]
    alt = fit_decay(counted, n_boot)
    reported = {
        "misled_by_wrong_note": rate(recs, "supplement_wrong"),
        "chance_of_note_value_without_note": chance(recs),
        "irrelevant_note_changes_target": irrelevant_change(recs),
        "explicit_outcomes": {
            o: sum(r["outcome"] == o for r in informative(recs, "explicit"))
            for o in ("stated", "default", "other", "missing")
        },
        "conflict_outcomes": {
            o: sum(r["outcome"] == o for r in informative(recs, "conflict"))
            for o in ("note", "stated", "default", "other", "missing")
        },
        "holds": h,
        "if_missing_copied_counted_as_not_adopted": {
            "p_use_delivered": rate(counted, "supplement_right"),
            "decay_per_step": {k: alt[k] for k in ("value", "interval", "n", "rates")},
            "p_follow_explicit": rate(counted, "explicit", "stated"),
        },
    }
    per = {
        c: {
            "n": sum(r["condition"] == c for r in recs),
            "outcomes": {
                o: sum(r["condition"] == c and r["outcome"] == o for r in recs)
                for o in sorted({r["outcome"] for r in recs if r["condition"] == c})
            },
            "mean_prompt_tokens": round(
                float(np.mean([r.get("prompt_tokens") or 0 for r in recs if r["condition"] == c])), 1
            ),
            "mean_seconds": round(
                float(np.mean([r.get("seconds", 0.0) for r in recs if r["condition"] == c])), 2
            ),
        }
        for c in conds
    }
    return {"n_probes": len(recs), "knobs": knobs, "reported": reported, "per_condition": per}


# --- outputs ------------------------------------------------------------------------------------
def _fmt(k: dict[str, Any]) -> str:
    v, (lo, hi) = k["value"], k["interval"]
    if v is None:
        return "n/a"
    return f"{v:.3f} [{lo:.3f}, {hi:.3f}]"


def write_yaml(result: dict[str, Any], path: Path, fit_path: str, refit: str, default_yaml: Path) -> None:
    import yaml

    default = yaml.safe_load(default_yaml.read_text())
    comments = {}
    for line in default_yaml.read_text().splitlines():
        if ":" in line and not line.startswith("#"):
            key, rest = line.split(":", 1)
            comments[key.strip()] = rest.split("#", 1)[1].strip() if "#" in rest else ""
    n = result["n_probes"]
    lines = [
        f"# The simulated agent calibrated on {result['model']} ({n} probes, "
        f"{len(result['per_condition'])} conditions; eval/calibration/).",
        f"# Fitted knobs with 95% intervals and probe counts: {fit_path} (README.md beside it).",
        f"# Refit: {refit}",
        "# Knobs not probed keep configs/agent/behaviour/default.yaml's values (latency knobs too).",
        "# Use: pulse eval agent/behaviour=" + path.stem,
    ]
    for key, dv in default.items():
        k = result["knobs"].get(key)
        if k is not None and k["value"] is not None:
            v = round(float(k["value"]), 3)
            lo, hi = k["interval"]
            note = f"fitted {lo:.2f}..{hi:.2f} (95%), n={k['n']}"
        else:
            v = dv
            note = "not probed: default.yaml" + (f" ({comments.get(key)})" if comments.get(key) else "")
        lines.append(f"{key}: {v}  # {note}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


def _r(x: Any) -> Any:
    """Floats rounded to 3 places, recursively (for the README)."""
    if isinstance(x, float):
        return round(x, 3)
    if isinstance(x, dict):
        return {k: _r(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_r(v) for v in x]
    return x


def write_readme(result: dict[str, Any], meta: dict[str, Any], out: Path, refit: str, probe_cmd: str) -> None:
    """`<out>/README.md`: the run, the knobs, what no knob expresses, the probes per condition, the
    commands, what the probes do not measure, then the hand-written NOTES.md when there is one."""
    text = (
        _readme_intro(result, meta)
        + _readme_knobs(result["knobs"])
        + _readme_reported(result["reported"])
        + _readme_probes(result["per_condition"])
        + _readme_commands(probe_cmd, refit)
        + README_LIMITS
    )
    notes = (out / "NOTES.md").read_text() if (out / "NOTES.md").exists() else ""
    if notes:  # hand-written findings kept beside the probes (NOTES.md), carried into every refit
        text += "\n" + notes
    (out / "README.md").write_text(text)


def _counts(d: dict[str, int]) -> str:
    return ", ".join(f"{o} {m}" for o, m in d.items())


def _readme_intro(result: dict[str, Any], meta: dict[str, Any]) -> str:
    per = result["per_condition"]
    total_s = sum(c["mean_seconds"] * c["n"] for c in per.values())
    sha = meta.get("sha256_value") or meta.get("sha256")
    server = " ".join(meta.get("server_command") or []) or meta.get("base_url")
    return f"""# The simulated agent calibrated on {meta.get("model")}

Probes of a real model in task states built from the generated suites ({", ".join(meta.get("suites", []))},
seed {meta.get("seed")}), fitted to the knobs of `eval/agents/behaviour.py` (issue 30, item 3). Shipped as
`agent/behaviour=calibrated_qwen_coder_1_5b` (configs/agent/behaviour/calibrated_qwen_coder_1_5b.yaml).

- Model: `{meta.get("model")}`, GGUF `{meta.get("gguf")}`, sha256 `{sha}`
  (the server refuses another file: `--sha256 pinned`), on 2 CPU threads, greedy (temperature 0),
  at most {meta.get("max_tokens")} completion tokens.
- Server (started and stopped by the probe command): `{server}`
- {result["n_probes"]} probes, {total_s / 60:.0f} min of model time.

"""


def _readme_knobs(k: dict[str, Any]) -> str:
    knob_rows = "\n".join(
        f"| `{name}` | {_fmt(v)} | {v['n']} | {', '.join(v['conditions'])} |" for name, v in k.items()
    )
    dec, load = k["decay_per_step"], k["load_penalty"]
    return f"""## Knobs (95 % intervals)

| knob | value [95 % interval] | n | from |
|---|---|---|---|
{knob_rows}

Decay: rates by age (age: [rate, n]) {json.dumps(_r(dec["rates"]))}.
Load (level: [rate, n, mean delivered tokens by pulse.agent.tokens.count_tokens]):
{json.dumps(_r(load["rates"]))}; `context_budget_tokens` fixed at 1000, predicted rates
{json.dumps(_r(load.get("predicted", {})))}. With the budget free as well (grid 100..1000 tokens):
{json.dumps(_r(load.get("free_budget", {})))}.

"""


def _readme_reported(rep: dict[str, Any]) -> str:
    h = rep["holds"]
    hold_rows = "\n".join(
        f"| `{c}` | {v['n']} | {_counts(v['counts'])} | "
        f"{v['replan_took_evidence_value'][0]}/{v['replan_took_evidence_value'][1]} | "
        f"{v['replan_changed_target'][0]}/{v['replan_changed_target'][1]} |"
        for c, v in h["by_evidence"].items()
    )
    alt = rep["if_missing_copied_counted_as_not_adopted"]
    misled, chance, irr = (
        rep[x]
        for x in (
            "misled_by_wrong_note",
            "chance_of_note_value_without_note",
            "irrelevant_note_changes_target",
        )
    )
    return f"""## What the model does that no knob expresses (reported, not fitted)

- Misled by a wrong note (fresh, nothing else states the slot): {_fmt(misled)} (n={misled["n"]});
  the simulated agent uses the same `p_use_delivered` for it.
- The note's value emitted with no note at all (`control`, chance): {_fmt(chance)} (n={chance["n"]}).
- A note about an unrelated slot changes the target argument (vs `control` on the same state):
  {_fmt(irr)} (n={irr["n"]}): the simulated agent never does this
  (a candidate missing knob when it is well above zero).
- Explicit probes: {json.dumps(rep["explicit_outcomes"])};
  conflict probes: {json.dumps(rep["conflict_outcomes"])}.
- Holds ({h["n"]}): {json.dumps(h["counts"])}.
- `missing_copied` replies (the call omits the target argument right after a prior call of the same
  tool, which the probe showed without it: the model copied that call's shape) are left out of the
  denominators above. Counted as not adopted instead: p_use_delivered {_fmt(alt["p_use_delivered"])},
  decay_per_step {_fmt(alt["decay_per_step"])}
  (rates by age {json.dumps(_r(alt["decay_per_step"]["rates"]))}),
  p_follow_explicit {_fmt(alt["p_follow_explicit"])}.

| hold evidence | n | outcomes | re-plan took the evidence value | re-plan changed the target argument |
|---|---|---|---|---|
{hold_rows}

"""


def _readme_probes(per: dict[str, Any]) -> str:
    rows = "\n".join(
        f"| `{c}` | {v['n']} | {_counts(v['outcomes'])} | {v['mean_prompt_tokens']:.0f} "
        f"| {v['mean_seconds']:.1f} |"
        for c, v in per.items()
    )
    return f"""## Probes per condition

| condition | n | outcomes | mean prompt tokens | mean s |
|---|---|---|---|---|
{rows}

Outcomes: `note` the call carries the note's value, `stated` the user's, `default` the slot default,
`other` another value, `missing` no value (`missing_copied`: see above), `off_target` a call to another
tool, `no_call` text;
holds: `repeat`, `replan`, `ask_user`, `abandon` (eval/calibration/classify.py). Off-target and text
replies are left out of a slot knob's denominator.

"""


def _readme_commands(probe_cmd: str, refit: str) -> str:
    return f"""## Commands

```
# probes (resumable: a rerun skips the probe ids already in probes.jsonl)
{probe_cmd}
# fit (this README, fit.json, the behaviour YAML)
{refit}
```
Any OpenAI-compatible endpoint: `--base-url URL --model NAME` instead of `--gguf` (e.g. vLLM on a GPU).

"""


# The README's last section (fixed text).
README_LIMITS = """## What these probes do not measure

- One decision per probe: whole episodes, the agent's own earlier mistakes, and long conversations
  (prompts are the target tool plus one or two others and at most five prior steps) are not probed.
- `p_latest_on_conflict` (two dated values for one slot), `max_interventions_per_step` (a second hold),
  `context_budget_tokens` (fixed at 1000; only `load_penalty` is fitted) and every latency knob keep the
  default's values.
- Age is counted in prior executed steps (one decision each); age 5 comes mostly from pibench_sim
  (the other suites' tasks are shorter; shorter tasks are padded with repeats of their own steps).
- Load probes deliver the memory block at the start (system message) with the note three quarters
  deep; other placements are not probed. The filler lines are unrelated preferences, not the
  near-miss facts of a real memory.
- Notes state canonical tool values ("User prefers cabin class business"); paraphrased values, dates
  and multi-fact notes are not probed. One model, greedy decoding, one seed of the probe set.
- A hold's "ask the user" is a text reply read by a pattern (a question mark or asking phrases);
  no user answers it.
"""


def run_fit(
    folder: str, yaml_path: str = "", default: str = "configs/agent/behaviour/default.yaml", n_boot: int = 500
) -> dict[str, Any]:
    """Fit `folder`'s probes; write fit.json, README.md and (with `yaml_path`) the named behaviour."""
    from eval.calibration.probe import ProbeError

    out = Path(folder)
    path = out / "probes.jsonl"
    if not path.exists():
        raise ProbeError(f"{path} does not exist (run python -m eval.calibration.probe first)")
    recs = [reclassify(r) for r in read(path)]
    if not recs:
        raise ProbeError(f"{path} holds no probes")
    meta = json.loads((out / "meta.json").read_text()) if (out / "meta.json").exists() else {}
    result = fit(recs, n_boot)
    result["model"] = meta.get("model", "")
    (out / "fit.json").write_text(json.dumps(result, indent=1) + "\n")
    refit = f"python -m eval.calibration.fit {folder}" + (f" --yaml {yaml_path}" if yaml_path else "")
    src = (
        f"--gguf {meta['gguf']} --name {meta['model']}"
        if meta.get("gguf")
        else f"--base-url {meta.get('base_url')} --model {meta.get('model')}"
    )
    probe_cmd = (
        f"flock /tmp/pulse-cpu.lock python -m eval.calibration.probe {src} "
        f"--suites {' '.join(meta.get('suites', []))} --n {meta.get('n')} --seed {meta.get('seed')} "
        f"--out {folder}"
    )
    write_readme(result, meta, out, refit, probe_cmd)
    if yaml_path:
        write_yaml(result, Path(yaml_path), str(out / "fit.json"), refit, Path(default))
    for name, v in result["knobs"].items():
        print(f"{name:24s} {_fmt(v)}  n={v['n']}")
    return result


def main(argv=None) -> int:
    from eval.calibration.probe import ProbeError

    ap = argparse.ArgumentParser(description="Fit the behaviour knobs from recorded probes.")
    ap.add_argument("dir", help="the probe run's folder (probes.jsonl, meta.json)")
    ap.add_argument("--yaml", default="", help="write the named behaviour here")
    ap.add_argument("--default", default="configs/agent/behaviour/default.yaml")
    ap.add_argument("--bootstrap", type=int, default=500)
    a = ap.parse_args(argv)
    try:
        run_fit(a.dir, a.yaml, a.default, a.bootstrap)
    except ProbeError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
