"""One OpenAI-compatible endpoint client for every caller (pulse/llm/endpoint.py)."""

from pulse.llm.endpoint import (
    ChatConfig,
    EndpointClient,
    EndpointConfig,
    EndpointError,
    json_reply,
    optional_client,
)

__all__ = ["ChatConfig", "EndpointClient", "EndpointConfig", "EndpointError", "json_reply", "optional_client"]
