"""One client for every memory-side LLM call of the evaluation methods (eval/llm/client.py)."""

from eval.llm.client import LLMCall, MemoryLLM, build_llm

__all__ = ["LLMCall", "MemoryLLM", "build_llm"]
