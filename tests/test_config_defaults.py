"""One home per default: every value a root YAML sets equals its typed dataclass's default.

A run composes `configs/<root>.yaml` and converts it once with `to_typed`; code (tests, scripts,
benches, the demo driver) builds the same dataclasses directly. Where the two defaults differ, the
same knob means one thing on the command line and another in code (issue 34 found `model.prompt_style`
"compact" in the dataclass vs "compact_marked" in the YAML, and `policy.batch_size` 64 vs 8). This
test composes every root config with its default groups and walks it beside the dataclass's default
instance, nested configs included; a key the YAML leaves out takes the dataclass default, so only
keys present on both sides are compared.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from eval.config import EvalConfig

CONFIG_DIR = Path(__file__).resolve().parents[1] / "configs"


def _roots() -> dict:
    """Root config -> (its typed dataclass, the sub-key it is converted from): the one list, in
    scripts/reference_config.py (which writes the same pairs as docs/reference_config/)."""
    import importlib.util

    script = CONFIG_DIR.parent / "scripts" / "reference_config.py"
    spec = importlib.util.spec_from_file_location("reference_config", script)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.roots()


ROOTS = _roots()

# Keys whose YAML value is a hydra interpolation of other keys (a run directory named from the
# benchmark, method and seed, or a time stamp): a dataclass default cannot interpolate, so the two
# cannot be equal. Nothing else may be listed here.
INTERPOLATED = {
    ("eval", "out_dir"),  # outputs/eval/${benchmark.name}/${method.name}/seed${seed}
    ("eval_policy", "out_dir"),  # outputs/eval_policy/${now:...}
}


def _same(a, b) -> bool:
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    return a == b


def drifts(obj, yaml_node: dict, prefix: str = "") -> list[tuple[str, object, object]]:
    """(dotted key, YAML value, dataclass default) for every key set on both sides that differs."""
    out = []
    for f in dataclasses.fields(obj):
        if f.name not in yaml_node:
            continue
        default, value = getattr(obj, f.name), yaml_node[f.name]
        if dataclasses.is_dataclass(default) and isinstance(value, dict):
            out += drifts(default, value, f"{prefix}{f.name}.")
        elif not _same(default, value):
            out.append((prefix + f.name, value, default))
    return out


def _root_yaml(root: str) -> dict:
    with initialize_config_dir(str(CONFIG_DIR), version_base="1.3"):
        return OmegaConf.to_container(compose(root), resolve=True)


def test_every_root_config_is_covered():
    roots = {p.stem for p in CONFIG_DIR.glob("*.yaml")}
    assert roots == set(ROOTS), f"a root config without its dataclass here: {sorted(roots ^ set(ROOTS))}"


@pytest.mark.parametrize("root", sorted(ROOTS))
def test_yaml_defaults_equal_dataclass_defaults(root):
    cls, sub = ROOTS[root]
    node = _root_yaml(root)
    node = node[sub] if sub else node
    found = [d for d in drifts(cls(), node) if (root, d[0]) not in INTERPOLATED]
    assert found == [], f"configs/{root}.yaml vs {cls.__name__}: " + "; ".join(
        f"{k}: YAML {y!r}, dataclass {d!r}" for k, y, d in found
    )


def test_the_walk_finds_a_drift():
    """The comparison itself: a nested key set differently is reported with its dotted path."""
    node = {"policy": {"batch_size": 3}, "seed": 0}
    assert drifts(EvalConfig(), node) == [("policy.batch_size", 3, EvalConfig().policy.batch_size)]


def _method_files() -> dict[str, dict]:
    import yaml

    return {p.stem: yaml.safe_load(p.read_text()) for p in sorted((CONFIG_DIR / "method").glob("*.yaml"))}


def _composed_method(name: str) -> dict:
    with initialize_config_dir(str(CONFIG_DIR), version_base="1.3"):
        return OmegaConf.to_container(compose(f"method/{name}"), resolve=True)["method"]


def test_method_variants_extend_one_base_and_state_only_what_differs():
    """A method's variants (same `impl`) extend its base config through hydra `defaults` and set only
    the keys whose value differs from the base's: one home for every shared key."""
    files = _method_files()
    standalone: dict[str, list[str]] = {}
    for name, raw in files.items():
        if "defaults" not in raw:
            standalone.setdefault(raw["impl"], []).append(name)
            continue
        bases = [d for d in raw["defaults"] if d != "_self_"]
        assert len(bases) == 1 and bases[0] in files, f"method/{name}: extends one method config"
        base = _composed_method(bases[0])
        for key, value in raw.items():
            if key == "defaults":
                continue
            if isinstance(value, dict):
                same = [k for k, v in value.items() if base.get(key, {}).get(k) == v]
                assert not same, f"method/{name}: {key}.{same} repeat the base's values"
            else:
                assert base.get(key) != value, f"method/{name}: {key}={value!r} repeats the base's value"
    copies = {impl: names for impl, names in standalone.items() if len(names) > 1}
    assert copies == {}, f"several full method configs of one implementation (extend one): {copies}"
