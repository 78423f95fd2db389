"""Build the CPU default policy model offline: a tiny Qwen3-architecture model (random init) with a
byte-level BPE tokenizer trained by `tokenizers` on generated policy text.

Saved with `save_pretrained` so that the same `from_pretrained` code path loads it, `Qwen/Qwen3-8B`
or any local checkpoint. Run:  python -m pulse.models.tiny_qwen3 OUT_DIR --corpus FILE.txt
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable
from pathlib import Path

from pulse.config.schema import TinyModelSpec
from pulse.utils.atomic import atomic_dir

# ChatML, as Qwen uses. The assistant turn ends with <|im_end|>, which is the EOS token, so a
# completion that stops cleanly is "terminated".
CHATML_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]


def train_tokenizer(texts: Iterable[str], vocab_size: int):
    """Byte-level BPE trained offline; returns a transformers PreTrainedTokenizerFast."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    # Split only at whitespace and the prompt/JSON punctuation, so a value ("amazonfresh.com",
    # "$80", "32x32") or a memory id ("m8") stays one word and, once frequent, one token: comparing
    # two values and copying an id into the completion are then single-token operations, and "m8"
    # is the same token in the prompt and in `["m8"]`. (GPT-2's regex splits "m8" into "m" + "8".)
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(r'[\s"\[\]{},:=|]'), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(texts, trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token=None,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        unk_token=None,
    )
    fast.chat_template = CHATML_TEMPLATE
    fast.padding_side = "left"
    return fast


# TinyModelSpec is frozen: one shared default instance is safe.
_DEFAULT_SPEC = TinyModelSpec()


def build_tiny_qwen3(
    out_dir: str | Path, texts: Iterable[str], spec: TinyModelSpec = _DEFAULT_SPEC, seed: int = 0
) -> Path:
    """Train the tokenizer on `texts`, build a random-init Qwen3, save both atomically to out_dir."""
    import torch
    from transformers import GenerationConfig, Qwen3Config, Qwen3ForCausalLM

    tokenizer = train_tokenizer(texts, spec.vocab_size)
    torch.manual_seed(seed)
    config = Qwen3Config(
        vocab_size=len(tokenizer),
        hidden_size=spec.hidden_size,
        intermediate_size=spec.intermediate_size,
        num_hidden_layers=spec.num_hidden_layers,
        num_attention_heads=spec.num_attention_heads,
        num_key_value_heads=spec.num_key_value_heads,
        head_dim=spec.head_dim,
        max_position_embeddings=spec.max_position_embeddings,
        tie_word_embeddings=True,
        bos_token_id=None,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    model = Qwen3ForCausalLM(config)
    model.generation_config = GenerationConfig(
        eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id
    )
    out_dir = Path(out_dir)
    with atomic_dir(out_dir) as tmp:
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        (tmp / "pulse_model.json").write_text(
            json.dumps(
                {
                    "builder": "tiny_qwen3",
                    "seed": seed,
                    **spec.__dict__,
                    "parameters": model.num_parameters(),
                },
                indent=2,
            )
        )
    return out_dir


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("out_dir")
    p.add_argument("--corpus", required=True, help="text file, one training text per line")
    a = p.parse_args(argv)
    lines = Path(a.corpus).read_text().splitlines()
    print(build_tiny_qwen3(a.out_dir, lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
