"""Lazy name -> object registries, used only at the command-line boundary (DESIGN §2.3).

A registry maps a config name (`method=mem0`, `benchmark=pibench_sim`) to "module:attribute"; the
module is imported only when that name is chosen, so heavy optional dependencies cost nothing until
used. A typo gets close-name suggestions.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Iterator
from typing import Any, Generic, TypeVar

from pulse.core.errors import PulseUserError

T = TypeVar("T")


class RegistryError(PulseUserError, KeyError):
    """An unknown or conflicting registry name; the message names the kind, the name and close known names."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class Registry(Generic[T]):
    """A lazy name -> object registry of one `kind` (the module docstring): `register(name, "module:attr")`
    adds an entry, `get(name)` imports and returns it, `names()` lists the known names, and `in` / iteration
    work on names. Unknown names raise RegistryError with close matches."""

    def __init__(self, kind: str, entries: dict[str, str] | None = None):
        self.kind = kind
        self._targets: dict[str, str] = dict(entries or {})

    def register(self, name: str, target: str) -> None:
        """Add `name` -> `target`.

        Args:
            name: the config name (e.g. `mem0`).
            target: "module:attribute" (dotted attributes allowed), imported only when `get` asks for it.

        Raises:
            RegistryError: `name` is already registered to another target (the same target again is a
                no-op).
        """
        if name in self._targets and self._targets[name] != target:
            raise RegistryError(f"{self.kind} {name!r} is already registered as {self._targets[name]}")
        self._targets[name] = target

    def names(self) -> list[str]:
        return sorted(self._targets)

    def __contains__(self, name: str) -> bool:
        return name in self._targets

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def get(self, name: str) -> T:
        """The object registered as `name`, its module imported now.

        Args:
            name: a registered name.

        Returns:
            The attribute its target names (a class or a factory function).

        Raises:
            RegistryError: an unknown name (with up to three close names and the known ones).
            ImportError: the target's module cannot be imported (e.g. an optional extra is missing).
        """
        if name not in self._targets:
            close = difflib.get_close_matches(name, self._targets, n=3, cutoff=0.5)
            hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
            raise RegistryError(f"unknown {self.kind} {name!r}{hint} (known: {', '.join(self.names())})")
        module, _, attr = self._targets[name].partition(":")
        obj: Any = importlib.import_module(module)
        for part in attr.split(".") if attr else []:
            obj = getattr(obj, part)
        return obj


POLICY_BACKENDS: Registry[Any] = Registry(
    "policy backend",
    {
        "transformers": "pulse.policy.transformers_policy:TransformersPolicy",
        "openai": "pulse.policy.openai_policy:OpenAIPolicy",
        "vllm": "pulse.policy.vllm_policy:VLLMPolicy",
    },
)
