"""The token ids that end a completion: the tokenizer's EOS plus the model's generation_config
`eos_token_id`s, the set trl's GRPOTrainer (and vLLM) stop generation on. A Qwen3 checkpoint ends
a turn with `<|im_end|>` (its tokenizer's EOS) or `<|endoftext|>` (also in its generation_config);
a completion that ends with either is finished, one that ends with neither was cut by the cap."""

from __future__ import annotations

from typing import Any


def end_token_ids(tokenizer: Any, generation_config: Any = None) -> list[int]:
    """The token ids that end a completion: the tokenizer's EOS id and the generation config's `eos_token_id`
    (one id or a list), without repeats."""
    ids: list[int] = []
    if tokenizer.eos_token_id is not None:
        ids.append(int(tokenizer.eos_token_id))
    extra = getattr(generation_config, "eos_token_id", None)
    for i in [extra] if isinstance(extra, int) else list(extra or []):
        if int(i) not in ids:
            ids.append(int(i))
    return ids
