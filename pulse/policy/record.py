"""What a trained checkpoint records about how it was trained, so every backend evaluates it on the
prompt it was trained on (issue 31): the prompt style, the chat-template arguments (Qwen3's
`enable_thinking: false` adds an empty `<think></think>` block to the generation prompt; without it
the model starts reasoning and a 64-token cap cuts every answer), the dtype, the base model and, for
a LoRA adapter, its rank.

Read from the checkpoint's `provenance.json` (every `final/` and `pulse export` folder), else from
the run's `config.yaml` two levels up (trainer `checkpoint-N` folders, and `final/` folders written
before provenance recorded the chat-template arguments). A folder with neither has no record ({}).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pulse.config.schema import ConfigError


def adapter_rank(path: str | Path) -> int | None:
    """The LoRA rank of an adapter folder (`r` in adapter_config.json); None for a plain model."""
    cfg = Path(path) / "adapter_config.json"
    if not cfg.is_file():
        return None
    try:
        r = json.loads(cfg.read_text()).get("r")
    except (OSError, ValueError) as e:
        raise ConfigError(f"policy.name_or_path: {cfg} is unreadable ({type(e).__name__}: {e})") from None
    return int(r) if isinstance(r, int) else None


def _run_config(run_dir: Path) -> dict[str, Any]:
    path = run_dir / "config.yaml"
    if not path.is_file():
        return {}
    from omegaconf import OmegaConf

    model = OmegaConf.select(OmegaConf.load(path), "model", default=None)
    if model is None:
        return {}
    model = OmegaConf.to_container(model, resolve=True)
    return {
        k: model[k]
        for k in ("prompt_style", "chat_template_kwargs", "dtype")
        if isinstance(model, dict) and k in model
    }


def trained_record(name_or_path: str) -> dict[str, Any]:
    """What a local checkpoint records about how it was trained: {prompt_style, chat_template_kwargs,
    dtype, ...} from its provenance.json, else from its run's config.yaml two levels up (the module
    docstring).

    Args:
        name_or_path: a checkpoint folder, or anything else (a hub id, an endpoint's model name).

    Returns:
        The record; {} when `name_or_path` is not a folder or the folder records nothing.

    Raises:
        ConfigError: the record exists but cannot be read (names the file).
    """
    path = Path(name_or_path)
    if not path.is_dir():
        return {}
    try:
        prov = path / "provenance.json"
        record = json.loads(prov.read_text()) if prov.is_file() else {}
        if not isinstance(record, dict):
            raise ValueError("not a JSON object")
        if "chat_template_kwargs" not in record:
            # a trainer checkpoint-N (no provenance) or a final/ from before the field: the run's record
            run = path.parent.parent if (prov.is_file() or path.name.startswith("checkpoint-")) else None
            if run is not None:
                record = {**_run_config(run), **record}
    except Exception as e:  # unreadable record: say which file, never guess
        raise ConfigError(
            f"policy.name_or_path: the training record of {path} is unreadable ({type(e).__name__}: {e})"
        ) from None
    return record
