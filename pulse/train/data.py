"""Load the generated policy dataset, validate every row, and shape it for trl.

SFT rows: conversational `prompt` + `completion` (the gold decision rendered by policy_io).
GRPO rows: `prompt` + the gold label columns the reward functions read.
Both cite evidence in the prompt's own ids (`policy_io.prompt_ids`), as the policy does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pulse.config.schema import DataConfig
from pulse.core.errors import PulseUserError
from pulse.core.examples import PolicyExample, example_from_row
from pulse.core.policy_io import PromptStyle, gold_completion, render_prompt, to_prompt_ids
from pulse.core.records import RecordError
from pulse.utils.json_input import read_json_file


class DataError(PulseUserError, RuntimeError):
    """A dataset (folder, split or row) is unusable; the message names the file, split, row and column."""


def dataset_request(cfg: DataConfig) -> dict[str, Any]:
    """What `data_gen.ensure.ensure_dataset` asks the generator for (the fingerprint's request part)."""
    req: dict[str, Any] = {"seed": cfg.seed, "n_users": cfg.n_users, "source": cfg.source}
    if cfg.source == "runtime":
        req.update(runtime_fraction=cfg.runtime_fraction, runtime_personas=cfg.runtime_personas)
    return req


def recorded_fingerprint(path: Path) -> str | None:
    """The fingerprint a dataset's card records; None for a dataset without a card or fingerprint
    (written by hand); a card that cannot be read is a DataError naming it."""
    card = path / "dataset_card.json"
    if not card.exists():
        return None
    data = read_json_file(card, error=DataError, what="dataset card")
    return (data.get("fingerprint") if isinstance(data, dict) else None) or None


def load_examples(path: str | Path, split: str, limit: int = 0) -> list[PolicyExample]:
    """Read and validate one split; a bad row raises DataError naming the file, split and row."""
    from datasets import load_from_disk

    path = Path(path)
    try:
        dd = load_from_disk(str(path))
    except Exception as e:  # datasets raises several types for a non-dataset folder
        raise DataError(f"{path}: not a dataset saved with save_to_disk ({type(e).__name__}: {e})") from None
    if split not in dd:
        raise DataError(f"{path}: no split {split!r} (has {sorted(dd)})")
    ds = dd[split]
    n = len(ds) if not limit else min(limit, len(ds))
    out = []
    for i, row in enumerate(ds.select(range(n))):
        try:
            out.append(example_from_row(row, where=f"{path} [{split}] row {i}"))
        except RecordError as e:
            raise DataError(str(e)) from None
    return out


def sft_rows(examples: list[PolicyExample], style: PromptStyle) -> list[dict[str, Any]]:
    return [
        {
            "prompt": render_prompt(ex.inp, style),
            "completion": [{"role": "assistant", "content": gold_completion(ex.inp, ex.gold, style)}],
        }
        for ex in examples
    ]


def grpo_rows(examples: list[PolicyExample], style: PromptStyle) -> list[dict[str, Any]]:
    return [
        {
            "prompt": render_prompt(ex.inp, style),
            "label_action": ex.gold.action,
            "label_evidence": list(to_prompt_ids(ex.gold, ex.inp, style).evidence),
            "case_type": ex.case_type,
        }
        for ex in examples
    ]


def tokenizer_corpus(examples: list[PolicyExample], style: PromptStyle) -> list[str]:
    """Texts the tiny model's BPE tokenizer is trained on: prompts and gold completions."""
    texts = []
    for ex in examples:
        texts.extend(m["content"] for m in render_prompt(ex.inp, style))
        texts.append(gold_completion(ex.inp, ex.gold, style))
    return texts
