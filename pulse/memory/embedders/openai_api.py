"""Any OpenAI-compatible `/v1/embeddings` endpoint (text-embedding-3-small in the paper).

Requests go through the one endpoint client (`pulse.llm.endpoint`: retries with backoff, then
`EndpointError` naming the URL) with base_url / api key / model from arguments (base_url falls back
to OPENAI_BASE_URL, then api.openai.com; the api key to OPENAI_API_KEY, then "EMPTY" for local
servers such as `vllm serve` or text-embeddings-inference). Vectors are L2-normalised here so
cosine = dot product like every other dense embedder.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from pulse.memory.embedders.base import Embedder, l2_normalise


class OpenAIEmbedder(Embedder):
    """Embeddings from an OpenAI-compatible `/v1/embeddings` endpoint; `dim` is learnt from the first response
    unless `dimensions` is given."""

    dense = True

    def __init__(
        self,
        model: str = "text-embedding-3-small",
        base_url: str | None = None,
        api_key: str | None = None,
        dimensions: int | None = None,
        batch_size: int = 256,
        timeout_s: float = 60.0,
    ):
        self.model = model
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        self.api_key = api_key or os.environ.get("OPENAI_API_KEY") or "EMPTY"
        self.dimensions = dimensions
        self.batch_size = batch_size
        self.timeout_s = timeout_s
        self.dim = dimensions or 0  # learnt from the first response when not given
        # The endpoint is part of the identity: two servers may serve different weights under one name.
        self.embedder_id = f"openai:{model}@{self.base_url.rstrip('/')}" + (
            f":{dimensions}" if dimensions else ""
        )
        self._client: Any = None

    def _get_client(self) -> Any:
        if self._client is None:
            from pulse.llm.endpoint import EndpointClient, EndpointConfig

            cfg = EndpointConfig(
                model=self.model, base_url=self.base_url, api_key=self.api_key, timeout_s=self.timeout_s
            )
            self._client = EndpointClient(cfg, role="embeddings")
        return self._client

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dim) float32, rows L2-normalised, requested `batch_size` texts at a time; raises the
        endpoint client's `EndpointError` when the endpoint keeps failing."""
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        rows: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            rows.extend(self._get_client().embed(texts[start : start + self.batch_size], self.dimensions))
        out = l2_normalise(np.asarray(rows, dtype=np.float32))
        self.dim = out.shape[1]
        return out
