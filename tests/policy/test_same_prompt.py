"""Issue 31, item 1: a checkpoint is evaluated on the prompt it was trained on, by every path.

The paper config trains Qwen3 with `enable_thinking: false`: its generation prompt ends with an empty
`<think></think>` block. This renders, for the same input and with Qwen3's own chat template (trl
ships it), the prompt GRPO trains on (trl's call, with the GRPOConfig `build_grpo_config` writes),
the prompt SFT trains on, and the prompt of every evaluation path: training's held-out evaluation,
`pulse eval-policy`, `pulse eval`'s policy and `pulse serve`'s, each through the transformers, vLLM
(mocked: no CPU build) and OpenAI-endpoint (the request body rendered as vLLM's server does)
backends, and asserts they are identical.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import types
from pathlib import Path
from types import SimpleNamespace

import pytest

QWEN3_TEMPLATE = Path(__import__("trl").__file__).parent / "chat_templates" / "qwen3.jinja"


def qwen3_tokenizer():
    """A tokenizer with Qwen3's chat template and special tokens (tiny word-level vocabulary: only
    the rendered text matters here)."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<think>", "</think>"]
    vocab = {t: i for i, t in enumerate([*specials, "[UNK]"])}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>", unk_token="[UNK]"
    )
    fast.chat_template = QWEN3_TEMPLATE.read_text()
    return fast


def paper_config():
    from hydra import compose, initialize_config_dir

    from pulse.cli.support import CONFIG_DIR
    from pulse.config.schema import TrainConfig, to_typed

    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        return to_typed(compose("train", overrides=["+experiment=paper/qwen3_8b_grpo"]), TrainConfig)


@pytest.fixture
def example(small_dataset):
    from pulse.train.data import load_examples

    return load_examples(small_dataset, "test", 1)[0]


@pytest.fixture
def checkpoint(tmp_path):
    """A GRPO final/ as training writes it: a rank-64 LoRA adapter with its provenance."""
    from pulse.train.trainer_common import write_provenance

    cfg = paper_config()
    ck = tmp_path / "run" / "grpo" / "final"
    ck.mkdir(parents=True)
    (ck / "adapter_config.json").write_text(json.dumps({"r": 64, "base_model_name_or_path": "Qwen/Qwen3-8B"}))
    write_provenance(ck, cfg, "grpo", "Qwen/Qwen3-8B")
    return cfg, ck


@pytest.fixture
def fake_models(monkeypatch):
    """load_model/load_tokenizer stand-ins: the Qwen3 tokenizer and a model that is never run."""
    tok = qwen3_tokenizer()
    model = SimpleNamespace(generation_config=SimpleNamespace(eos_token_id=[2, 0]))
    model.to = lambda device: model
    model.eval = lambda: model
    monkeypatch.setattr("pulse.models.loading.load_tokenizer", lambda *a, **k: tok)
    monkeypatch.setattr("pulse.models.loading.load_model", lambda *a, **k: model)
    return tok


def fake_vllm(monkeypatch, tok, seen: dict):
    """A `vllm` module whose LLM.chat renders the prompt as vLLM does (the tokenizer's chat template
    with the call's chat_template_kwargs) and records the engine arguments."""

    class LLM:
        def __init__(self, **kwargs):
            seen["engine"] = kwargs

        def chat(self, convs, params, use_tqdm=False, lora_request=None, chat_template_kwargs=None):
            seen["lora_request"] = lora_request
            seen["prompts"] = [
                tok.apply_chat_template(
                    c, add_generation_prompt=True, tokenize=False, **(chat_template_kwargs or {})
                )
                for c in convs
            ]
            out = SimpleNamespace(text='{"action": "silent"}', finish_reason="stop", token_ids=[1])
            return [SimpleNamespace(outputs=[out]) for _ in convs]

    vllm = types.ModuleType("vllm")
    vllm.LLM = LLM
    vllm.SamplingParams = lambda **k: k
    lora = types.ModuleType("vllm.lora")
    request = types.ModuleType("vllm.lora.request")
    request.LoRARequest = lambda name, i, path: SimpleNamespace(name=name, id=i, path=path)
    for name, mod in (("vllm", vllm), ("vllm.lora", lora), ("vllm.lora.request", request)):
        monkeypatch.setitem(sys.modules, name, mod)
    monkeypatch.setattr("pulse.policy.factory.resolve_device", lambda d: "cuda")


def openai_prompt(policy, tok, inp) -> str:
    """The prompt an OpenAI-compatible vLLM server renders from the request the policy sends."""
    sent = {}

    def create(**kwargs):
        sent.update(kwargs)
        msg = SimpleNamespace(content='{"action": "silent"}')
        return SimpleNamespace(choices=[SimpleNamespace(message=msg, finish_reason="stop")], usage=None)

    policy.client.client = SimpleNamespace(chat=SimpleNamespace(completions=SimpleNamespace(create=create)))
    policy.decide_batch([inp])
    kwargs = (sent.get("extra_body") or {}).get("chat_template_kwargs") or {}
    return tok.apply_chat_template(sent["messages"], add_generation_prompt=True, tokenize=False, **kwargs)


def test_every_path_renders_the_training_prompt(checkpoint, fake_models, example, monkeypatch):
    from pulse.cli.support import CONFIG_DIR
    from pulse.config.schema import EvalPolicyConfig, PolicyBackendConfig, to_typed
    from pulse.policy.factory import build_policy
    from pulse.serve.config import ServePolicyConfig
    from pulse.train.data import grpo_rows, sft_rows
    from pulse.train.grpo import build_grpo_config
    from pulse.train.pipeline import eval_backend_config

    cfg, ck = checkpoint
    tok = fake_models
    # what GRPO trains on: trl renders each prompt with GRPOConfig.chat_template_kwargs
    on_cpu = dataclasses.replace(cfg, device="cpu")  # bf16 GRPOConfig needs a GPU; the template args do not
    args = build_grpo_config(on_cpu, ck.parent / "trl", num_processes=8)
    row = grpo_rows([example], cfg.model.prompt_style)[0]
    trained = tok.apply_chat_template(
        row["prompt"], add_generation_prompt=True, tokenize=False, **(args.chat_template_kwargs or {})
    )
    assert trained.endswith("<|im_start|>assistant\n<think>\n\n</think>\n\n")  # thinking off

    prompts = {}
    # training's held-out evaluation
    pol = build_policy(eval_backend_config(cfg, str(ck)))
    prompts["train eval"] = pol._prompt_texts([example.inp])[0]
    # pulse eval-policy (its YAML's defaults), pulse eval's policy (the schema's), pulse serve's
    from hydra import compose, initialize_config_dir

    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        ep = to_typed(compose("eval_policy", overrides=[f"policy.name_or_path={ck}"]), EvalPolicyConfig)
    for name, pcfg in {
        "eval-policy": ep.policy,
        "eval": PolicyBackendConfig(name_or_path=str(ck)),
        "serve": ServePolicyConfig(backend="transformers", name_or_path=str(ck)).backend_config(),
    }.items():
        prompts[name] = build_policy(pcfg)._prompt_texts([example.inp])[0]
    # the vLLM backend on the adapter folder
    seen: dict = {}
    fake_vllm(monkeypatch, tok, seen)
    build_policy(PolicyBackendConfig(backend="vllm", name_or_path=str(ck))).decide_batch([example.inp])
    prompts["vllm"] = seen["prompts"][0]
    # an OpenAI-compatible server started on the checkpoint folder (its model name is the folder)
    pol = build_policy(PolicyBackendConfig(backend="openai", name_or_path=str(ck), base_url="http://x/v1"))
    prompts["openai"] = openai_prompt(pol, tok, example.inp)
    assert {k: v == trained for k, v in prompts.items()} == {k: True for k in prompts}

    # SFT trains on the same prompt: trl's SFTTrainer reads the row's chat_template_kwargs
    sft = sft_rows([example], cfg.model.prompt_style)[0]
    assert sft["prompt"] == row["prompt"]


def test_sft_rows_carry_the_chat_template_kwargs(monkeypatch, small_dataset):
    """run_sft adds the model's chat_template_kwargs to every row (trl reads them per example)."""
    import pulse.train.sft as sft

    captured = {}

    class Stop(Exception):
        pass

    def fake_trainer(**kw):
        captured["rows"] = kw["train_dataset"].to_list()
        raise Stop

    monkeypatch.setattr("trl.SFTTrainer", fake_trainer)
    monkeypatch.setattr("pulse.models.loading.load_tokenizer", lambda *a, **k: qwen3_tokenizer())
    monkeypatch.setattr("pulse.models.loading.load_model", lambda *a, **k: None)
    from pulse.train.data import load_examples

    cfg = dataclasses.replace(paper_config(), device="cpu")
    with pytest.raises(Stop):
        sft.run_sft(cfg, "base", load_examples(small_dataset, "train", 2), Path("/nonexistent/sft"))
    assert captured["rows"][0]["chat_template_kwargs"] == {"enable_thinking": False}


def test_explicit_chat_template_kwargs_that_differ_are_refused(checkpoint):
    from pulse.config.schema import ConfigError, PolicyBackendConfig
    from pulse.policy.factory import resolve_chat_template_kwargs

    _, ck = checkpoint
    assert resolve_chat_template_kwargs(PolicyBackendConfig(name_or_path=str(ck))) == {
        "enable_thinking": False
    }
    with pytest.raises(ConfigError, match="policy.chat_template_kwargs"):
        resolve_chat_template_kwargs(PolicyBackendConfig(name_or_path=str(ck), chat_template_kwargs={}))


def test_old_final_without_the_field_reads_the_run_config(tmp_path):
    """A final/ written before provenance recorded chat_template_kwargs: the run's config.yaml says."""
    from pulse.policy.record import trained_record

    run = tmp_path / "run"
    ck = run / "grpo" / "final"
    ck.mkdir(parents=True)
    (ck / "provenance.json").write_text(json.dumps({"stage": "grpo", "prompt_style": "rich"}))
    (run / "config.yaml").write_text(
        "model:\n  prompt_style: rich\n  chat_template_kwargs:\n    enable_thinking: false\n"
    )
    assert trained_record(str(ck))["chat_template_kwargs"] == {"enable_thinking": False}


def test_vllm_loads_the_adapter_training_writes(checkpoint, fake_models, monkeypatch):
    """GRPO's final/ is a LoRA adapter without config.json: vLLM gets its base, enable_lora and the
    adapter's rank (vLLM refuses a rank above max_lora_rank), and a torch dtype name."""
    from pulse.config.schema import PolicyBackendConfig
    from pulse.policy.factory import build_policy

    _, ck = checkpoint
    seen: dict = {}
    fake_vllm(monkeypatch, fake_models, seen)
    pol = build_policy(PolicyBackendConfig(backend="vllm", name_or_path=str(ck), dtype="bf16"))
    assert seen["engine"]["model"] == "Qwen/Qwen3-8B"
    assert seen["engine"]["enable_lora"] is True and seen["engine"]["max_lora_rank"] == 64
    assert seen["engine"]["dtype"] == "bfloat16"
    assert pol.lora_request.path == str(ck.resolve())


@pytest.mark.parametrize("dtype,expected", [("bf16", "bfloat16"), ("fp32", "float32"), ("fp16", "float16")])
def test_vllm_dtype_spellings(tmp_path, dtype, expected):
    from pulse.policy.vllm_policy import engine_args

    (tmp_path / "config.json").write_text("{}")
    kwargs, adapter = engine_args(str(tmp_path), dtype, 0.5)
    assert kwargs == {"model": str(tmp_path), "dtype": expected, "gpu_memory_utilization": 0.5}
    assert adapter is None


def test_tiny_default_eval_prompt_is_unchanged():
    """The CPU default (tiny model, no chat-template arguments) is evaluated exactly as before."""
    from pulse.config.schema import TrainConfig
    from pulse.train.pipeline import eval_backend_config

    b = eval_backend_config(TrainConfig(), "ck")
    assert b.device == "cpu" and b.chat_template_kwargs == {}
