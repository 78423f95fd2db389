"""The one base class of every error that bad user input causes.

A config value, a file (snapshot, store, dataset, run log), a dataset row, a model path or a
registry name that is wrong raises a subclass of `PulseUserError` whose message names the key,
file, row or record. The command-line entry points (pulse/cli/support.py, pulse/cli/memory.py)
catch this one class and print the message on one line with exit status 2, never a traceback.

Subclasses keep their historical builtin base as a second base (`ConfigError(PulseUserError,
ValueError)`, `RegistryError(PulseUserError, KeyError)`, ...), so older `except ValueError:` code
still catches them.
"""

from __future__ import annotations


class PulseUserError(Exception):
    """Bad input (config, file, record, dataset row, model path, name); the message names which."""


def one_line(err: BaseException) -> str:
    """The error's message on one line (a multi-line message is joined with ' | ')."""
    text = str(err).strip() or type(err).__name__
    return " | ".join(part.strip() for part in text.splitlines() if part.strip())
