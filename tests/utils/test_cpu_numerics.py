"""One arithmetic on every x86 machine (pulse/utils/cpu_numerics.py): what is pinned, what the user
keeps, and that pinned training steps give bit-identical weights whatever kernels the CPU offers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pulse.core.errors import PulseUserError
from pulse.utils import cpu_numerics

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def clean_env(monkeypatch):
    for var in (*cpu_numerics.PINNED, "PULSE_CPU_NUMERICS", "PULSE_CPU_THREADS", "OMP_NUM_THREADS"):
        monkeypatch.delenv(var, raising=False)
    return monkeypatch


def test_pin_sets_what_the_user_left_unset(clean_env):
    clean_env.setenv("MKL_CBWR", "COMPATIBLE")  # the user's choice stays
    cpu_numerics.pin_cpu_numerics()
    assert os.environ["ATEN_CPU_CAPABILITY"] == "avx2"
    assert os.environ["ONEDNN_MAX_CPU_ISA"] == "AVX2"
    assert os.environ["MKL_CBWR"] == "COMPATIBLE"
    assert os.environ["OMP_NUM_THREADS"] == str(cpu_numerics.DEFAULT_THREADS)


def test_native_pins_nothing(clean_env):
    clean_env.setenv("PULSE_CPU_NUMERICS", "native")
    cpu_numerics.pin_cpu_numerics()
    assert not any(var in os.environ for var in (*cpu_numerics.PINNED, "OMP_NUM_THREADS"))


def test_thread_count_from_the_environment(clean_env):
    assert cpu_numerics.cpu_threads() == cpu_numerics.DEFAULT_THREADS
    clean_env.setenv("OMP_NUM_THREADS", "1")  # torchrun's share per rank: no oversubscription
    assert cpu_numerics.cpu_threads() == 1
    clean_env.setenv("PULSE_CPU_THREADS", "3")
    assert cpu_numerics.cpu_threads() == 3
    for bad in ("0", "two", "-1"):
        clean_env.setenv("PULSE_CPU_THREADS", bad)
        with pytest.raises(PulseUserError, match="PULSE_CPU_THREADS"):
            cpu_numerics.cpu_threads()


# A few training steps of a small Qwen3 (the tiny policy's architecture), then a hash of the weights.
_STEPS = """
import hashlib, sys
from pulse.utils.cpu_numerics import pin_cpu_numerics
pin_cpu_numerics()
import torch
from transformers import Qwen3Config, Qwen3ForCausalLM
torch.manual_seed(0)
cfg = Qwen3Config(vocab_size=512, hidden_size=128, intermediate_size=384, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, head_dim=32, tie_word_embeddings=True)
model = Qwen3ForCausalLM(cfg)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
gen = torch.Generator().manual_seed(1)
for _ in range(4):
    x = torch.randint(0, 512, (8, 96), generator=gen)
    model(input_ids=x, labels=x).loss.backward()
    opt.step()
    opt.zero_grad()
h = hashlib.sha256()
for p in model.parameters():
    h.update(p.detach().numpy().tobytes())
print(torch.backends.cpu.get_cpu_capability(), h.hexdigest())
"""


def _weights_hash(env_extra: dict[str, str]) -> tuple[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in (*cpu_numerics.PINNED, "OMP_NUM_THREADS")}
    env.update({"PYTHONPATH": str(ROOT), "PULSE_CPU_NUMERICS": "pinned", **env_extra})
    out = subprocess.run(
        [sys.executable, "-c", _STEPS], env=env, capture_output=True, text=True, timeout=300, check=True
    )
    capability, digest = out.stdout.split()[-2:]
    return capability, digest


def test_pinned_training_is_identical_on_avx2_and_avx512_kernels():
    if "avx512f" not in Path("/proc/cpuinfo").read_text():
        pytest.skip("this CPU has no AVX-512: both runs would use the same kernels and prove nothing")
    # as an AVX2-only machine (an EPYC before Zen 4) computes, and as this AVX-512 machine would
    avx2_cap, avx2_machine = _weights_hash({"MKL_ENABLE_INSTRUCTIONS": "AVX2"})
    cap, here = _weights_hash({})
    assert avx2_cap == cap == "AVX2"
    assert here == avx2_machine


def test_half_precision_releases_only_this_process_pin(clean_env):
    """bf16 / fp16 on CPU has no arithmetic common to every x86 machine, and the AVX2 cap sends its
    matrix products to a reference kernel: the pin this process set is undone, the user's stays, and
    the record says native and why."""
    clean_env.setenv("MKL_CBWR", "COMPATIBLE")
    cpu_numerics.pin_cpu_numerics()
    cpu_numerics.release_for_half_precision("model.dtype=bfloat16")
    try:
        assert "ATEN_CPU_CAPABILITY" not in os.environ and "ONEDNN_MAX_CPU_ISA" not in os.environ
        assert os.environ["MKL_CBWR"] == "COMPATIBLE"
        rec = cpu_numerics.describe()
        assert rec["mode"] == "native" and "model.dtype=bfloat16" in rec["native_because"]
    finally:
        cpu_numerics._RELEASED = ""


def test_half_precision_on_cpu_reads_the_config(tmp_path):
    """Which key makes a run compute in half precision on CPU: the trained model's dtype, a policy's
    dtype, or (`auto`) its checkpoint's record; a CUDA run or an fp32 one releases nothing."""
    import json

    from omegaconf import OmegaConf

    from pulse.cli.support import half_precision_on_cpu

    assert half_precision_on_cpu(OmegaConf.create({"device": "cpu", "model": {"dtype": "bfloat16"}})) == (
        "model.dtype=bfloat16"
    )
    assert half_precision_on_cpu(OmegaConf.create({"device": "cuda", "model": {"dtype": "bfloat16"}})) == ""
    assert half_precision_on_cpu(OmegaConf.create({"device": "cpu", "model": {"dtype": "float32"}})) == ""
    ckpt = tmp_path / "final"
    ckpt.mkdir()
    (ckpt / "provenance.json").write_text(json.dumps({"dtype": "bfloat16", "prompt_style": "compact"}))
    auto = {"policy": {"dtype": "auto", "name_or_path": str(ckpt), "device": "auto"}}
    assert half_precision_on_cpu(OmegaConf.create(auto)) == "policy.dtype=bfloat16"
    auto["policy"]["device"] = "cuda"
    assert half_precision_on_cpu(OmegaConf.create(auto)) == ""
    fp32 = {"policy": {"dtype": "float32", "name_or_path": str(ckpt), "device": "cpu"}}
    assert half_precision_on_cpu(OmegaConf.create(fp32)) == ""
