"""Where real benchmark data lives: `benchmark.data_dir` (config) or $PULSE_DATA_DIR (environment).

The data are not in the repository (π-Bench and Persona2Web carry no licence; they are read at run
time from here). Layout under the data dir: `tau2/retail/`, `pibench/<persona>/`, `persona2web/`.
"""

from __future__ import annotations

import os
from pathlib import Path

from pulse.core.errors import PulseUserError

ENV_VAR = "PULSE_DATA_DIR"


class DataNotFound(PulseUserError, FileNotFoundError):
    """The benchmark's data folder is missing; the message names the setting and the variable."""


def data_root(configured: str = "") -> Path | None:
    """The configured data dir (config wins over the environment), or None when neither is set."""
    value = configured or os.environ.get(ENV_VAR, "")
    return Path(value).expanduser() if value else None


def dataset_dir(sub: str, configured: str = "", key: str = "benchmark.data_dir") -> Path:
    """`<data dir>/<sub>`, or DataNotFound naming the config `key` / $PULSE_DATA_DIR."""
    root = data_root(configured)
    if root is None:
        raise DataNotFound(
            f"{key} is empty and ${ENV_VAR} is not set: set one to the folder "
            f"holding {sub}/ (docs/benchmarks.md: Real benchmarks)"
        )
    path = root / sub
    if not path.is_dir():
        src = key if configured else f"${ENV_VAR}"
        raise DataNotFound(f"{path}: no such folder ({src}={root}); docs/benchmarks.md says how to obtain it")
    return path
