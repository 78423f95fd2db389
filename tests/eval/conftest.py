"""Fixtures of every test under tests/eval/ and its subfolders (which mirror eval/'s subpackages). pytest
puts this folder on sys.path when it loads this file, so the helper modules beside it (`real_data`,
`method_configs`) import by name from every subfolder."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory):
    """A tiny random-init Qwen3 (untrained: its policy outputs mostly fail to parse)."""
    from eval.suites import mcp_persona_sim
    from pulse.config.schema import TinyModelSpec
    from pulse.core.policy_io import PolicyInput, render_prompt
    from pulse.core.records import Event
    from pulse.models.tiny_qwen3 import build_tiny_qwen3

    suite = mcp_persona_sim.generate(0, n_personas=1)
    texts = [t.request_text for t in suite.tasks] + [m.text for m in suite.personas[0].memory]
    texts += [
        render_prompt(
            PolicyInput(
                (Event("request", 0, text=t.request_text, args=t.request_args),), suite.personas[0].memory
            )
        )[0]["content"]
        for t in suite.tasks
    ]
    texts += [
        '{"action": "silent"}',
        '{"action": "intervene", "evidence": ["m1"]}',
        '<tool_call>{"name": "x"}',
    ]
    spec = TinyModelSpec(
        vocab_size=512,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=32,
        max_position_embeddings=2048,
    )
    return str(build_tiny_qwen3(tmp_path_factory.mktemp("models") / "tiny", texts, spec))


def make_cfg(
    tmp_path, method: str = "pulse_rule", benchmark: str = "pibench_sim", overrides=(), model_dir: str = ""
):
    """Compose configs/eval.yaml exactly as `pulse eval` does and convert it to EvalConfig."""
    from pathlib import Path

    from hydra import compose, initialize_config_dir

    from eval.config import EvalConfig
    from pulse.config.schema import to_typed

    conf = Path(__file__).resolve().parents[2] / "configs"
    ov = [f"method={method}", f"benchmark={benchmark}", f"out_dir={tmp_path}", "progress=false", *overrides]
    if model_dir:
        # a short completion cap keeps the untrained tiny model fast (its output fails to parse anyway)
        ov += [
            f"policy.name_or_path={model_dir}",
            f"base_policy.name_or_path={model_dir}",
            "policy.max_new_tokens=4",
            "base_policy.max_new_tokens=4",
        ]
    with initialize_config_dir(str(conf), version_base="1.3"):
        cfg = compose("eval", overrides=ov)
    return to_typed(cfg, EvalConfig)


@pytest.fixture
def eval_cfg():
    return make_cfg


@pytest.fixture
def failing_agent(monkeypatch):
    """The simulated agent raises in the first task of the researcher chain (a failed episode)."""
    from eval.agents import simulated

    orig = simulated.SimulatedAgent.run

    def flaky(self, task, env, session, seed, bench):
        if task.task_id == "researcher_task_001":
            raise RuntimeError("boom in episode")
        return orig(self, task, env, session, seed, bench)

    monkeypatch.setattr(simulated.SimulatedAgent, "run", flaky)
