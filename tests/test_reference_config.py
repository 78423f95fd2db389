"""The generated reference configs (docs/reference_config/, scripts/reference_config.py) are current:
regenerating them gives the committed files byte for byte, so a changed default, a new key or a new
method config shows up as a diff of these files in review (as verl checks its generated trainer config)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def load_script():
    script = ROOT / "scripts" / "reference_config.py"
    spec = importlib.util.spec_from_file_location("reference_config", script)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def rendered():
    rc = load_script()
    return rc, rc.render()


def test_reference_configs_are_current(rendered):
    rc, files = rendered
    bad = rc.stale(files)
    assert bad == [], (
        f"docs/reference_config is stale ({', '.join(bad)}): run "
        "`.venv/bin/python scripts/reference_config.py` and commit the files"
    )


def test_every_key_of_a_run_is_in_its_reference(rendered, tmp_path):
    """The eval reference holds every typed key (dataclass-only keys included), e.g. the policy's device."""
    import yaml

    rc, files = rendered
    rc.write(files, tmp_path)
    assert rc.stale(files, tmp_path) == []
    ev = yaml.safe_load(files["eval.yaml"])
    assert ev["out_dir"] == "outputs/eval/${benchmark.name}/${method.name}/seed${seed}"  # kept as written
    assert {"batch_size", "device", "prompt_style"} <= set(ev["policy"])
    assert set(files) >= {f"{r}.yaml" for r in rc.roots()} | {"method/pulse.yaml", "method/pulse_no_rl.yaml"}
    (tmp_path / "method" / "gone.yaml").write_text("x: 1\n")
    assert rc.stale(files, tmp_path) == ["method/gone.yaml"]
