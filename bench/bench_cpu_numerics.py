"""What pinning the CPU arithmetic costs and buys (pulse/utils/cpu_numerics.py).

Run: .venv/bin/python bench/bench_cpu_numerics.py
Writes bench/results/cpu_numerics.json and prints it. Each mode runs in its own process: 15 AdamW
steps of the tiny Qwen3 (configs/model/tiny_qwen3.yaml's shape, random init, 16 × 200 random tokens per
step, 2 threads), then a hash of the weights. Modes: `native` (the CPU's own kernels), `pinned` (what
every pulse verb sets), `pinned_as_avx2_machine` (pinned, with MKL also restricted to AVX2, as a
machine without AVX-512 computes), `compatible` (MKL_CBWR=COMPATIBLE + ATen's scalar kernels: equal on
any CPU by construction, the slow fallback). Seconds are the training steps only (model built first).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "results" / "cpu_numerics.json"

_STEPS = """
import hashlib, json, time
from pulse.utils.cpu_numerics import pin_cpu_numerics
pin_cpu_numerics()
import torch
from transformers import Qwen3Config, Qwen3ForCausalLM
from pulse.config.schema import TinyModelSpec
s = TinyModelSpec()
torch.manual_seed(0)
model = Qwen3ForCausalLM(Qwen3Config(
    vocab_size=s.vocab_size, hidden_size=s.hidden_size, intermediate_size=s.intermediate_size,
    num_hidden_layers=s.num_hidden_layers, num_attention_heads=s.num_attention_heads,
    num_key_value_heads=s.num_key_value_heads, head_dim=s.head_dim,
    max_position_embeddings=s.max_position_embeddings, tie_word_embeddings=True))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
gen = torch.Generator().manual_seed(1)
t = time.perf_counter()
for _ in range(15):
    x = torch.randint(0, s.vocab_size, (16, 200), generator=gen)
    model(input_ids=x, labels=x).loss.backward()
    opt.step()
    opt.zero_grad()
seconds = time.perf_counter() - t
h = hashlib.sha256()
for p in model.parameters():
    h.update(p.detach().numpy().tobytes())
print(json.dumps({"seconds": round(seconds, 2), "weights_sha256": h.hexdigest()[:16],
                  "torch_cpu_capability": torch.backends.cpu.get_cpu_capability(),
                  "threads": torch.get_num_threads()}))
"""

MODES = {
    "native": {"PULSE_CPU_NUMERICS": "native", "OMP_NUM_THREADS": "2"},
    "pinned": {},
    "pinned_as_avx2_machine": {"MKL_ENABLE_INSTRUCTIONS": "AVX2"},
    "compatible": {"MKL_CBWR": "COMPATIBLE", "ATEN_CPU_CAPABILITY": "default"},
}
_PINNED_VARS = ("ATEN_CPU_CAPABILITY", "MKL_CBWR", "ONEDNN_MAX_CPU_ISA", "MKL_ENABLE_INSTRUCTIONS")


def run_mode(extra: dict[str, str]) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k not in (*_PINNED_VARS, "OMP_NUM_THREADS")}
    env.update({"PYTHONPATH": str(ROOT), "PULSE_CPU_THREADS": "2", **extra})
    out = subprocess.run([sys.executable, "-c", _STEPS], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from pulse.utils.manifest import cpu_model

    cpu = cpu_model()
    modes = {name: run_mode(extra) for name, extra in MODES.items()}
    result = {
        "cpu": cpu,
        "avx512": "avx512f" in Path("/proc/cpuinfo").read_text(),
        "cpu_count": os.cpu_count(),
        "modes": modes,
        "pinned_equals_avx2_machine": modes["pinned"]["weights_sha256"]
        == modes["pinned_as_avx2_machine"]["weights_sha256"],
        "pinned_slowdown_vs_native": round(modes["pinned"]["seconds"] / modes["native"]["seconds"], 2),
        "compatible_slowdown_vs_native": round(
            modes["compatible"]["seconds"] / modes["native"]["seconds"], 2
        ),
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    tmp = OUT.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(result, indent=1) + "\n")
    os.replace(tmp, OUT)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
