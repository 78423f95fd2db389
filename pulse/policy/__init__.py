"""Policy backends: one interface, three engines (local transformers, vLLM, OpenAI-compatible).

All render prompts and parse completions through `pulse.core.policy_io`, so switching backend is a
config choice that never changes what the policy sees or how its output is read.
"""

from pulse.policy.base import Policy, PolicyOutput

__all__ = ["Policy", "PolicyOutput"]
