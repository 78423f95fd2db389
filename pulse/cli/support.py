"""Hydra entry points with clear errors.

Every verb's `main()` is built here: hydra composes `configs/<verb>.yaml` (the repo's top-level
configs/ folder), and our known input errors (bad config value, bad dataset row, missing model,
unknown registry name) stop the run with one message naming the key, file or row, not a traceback
from deep inside a library.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pulse.utils.cpu_numerics import pin_cpu_numerics, release_for_half_precision
from pulse.utils.malloc_arenas import cap_malloc_arenas

CONFIG_DIR = Path(__file__).resolve().parents[2] / "configs"


def known_errors() -> tuple[type[BaseException], ...]:
    """What the entry points report as one line + exit 2: every `PulseUserError` (ConfigError,
    RecordError, DataError, ModelLoadError, RegistryError, SuiteError, the memory errors, ...) and a
    missing file."""
    from pulse.core.errors import PulseUserError

    return (PulseUserError, FileNotFoundError)


# True when HF_HUB_OFFLINE=1 was set by hydra_entry, not by the user (the error then says so)
_OFFLINE_BY_DEFAULT = False


def offline_hint(err: BaseException) -> str:
    """Why a hub model could not load when this process turned the hub off itself, and the fix."""
    from pulse.models.loading import ModelLoadError

    if not (_OFFLINE_BY_DEFAULT and isinstance(err, ModelLoadError) and "could not load" in str(err)):
        return ""
    return (
        " (pulse runs with HF_HUB_OFFLINE=1 unless you set it, so a hub id must already be downloaded: "
        "run `pulse fetch-model <hub id>` once, or set HF_HUB_OFFLINE=0 for this run)"
    )


def report_and_exit(verb: str, err: BaseException) -> None:
    """Print `err` as one line on stderr ("pulse <verb>: error: ...") and exit with status 2."""
    from pulse.core.errors import one_line

    print(f"pulse {verb}: error: {one_line(err)}{offline_hint(err)}", file=sys.stderr, flush=True)
    sys.exit(2)


def quiet_libraries() -> None:
    """Keep the trainers' progress bars; drop per-file loading bars and advisory warnings."""
    import warnings

    try:
        import datasets
        import transformers

        datasets.disable_progress_bars()
        transformers.utils.logging.disable_progress_bar()
        transformers.utils.logging.set_verbosity_error()
    except ImportError:
        pass
    warnings.filterwarnings("ignore", category=FutureWarning)
    warnings.filterwarnings("ignore", message=".*does not have many workers.*")


_HALF = ("bfloat16", "bf16", "float16", "fp16")


def half_precision_on_cpu(cfg: Any) -> str:
    """The config key (as `key=value`) that makes this run compute in bf16 / fp16 on CPU, or "": the
    trained model's `model.dtype` (training on `device: cpu`), or a policy checkpoint evaluated on CPU
    whose `dtype` (or, for `auto`, its training record's) is half precision."""
    from omegaconf import OmegaConf

    from pulse.policy.record import trained_record

    def sel(key: str) -> Any:
        return OmegaConf.select(cfg, key, default=None)

    if sel("model.dtype") in _HALF and sel("device") in (None, "cpu"):
        return f"model.dtype={sel('model.dtype')}"
    for key in ("policy", "base_policy"):
        dtype, path, device = sel(f"{key}.dtype"), sel(f"{key}.name_or_path"), sel(f"{key}.device")
        if device == "cuda" or not path:
            continue
        if dtype == "auto":
            dtype = trained_record(str(path)).get("dtype")
        if dtype in _HALF:
            return f"{key}.dtype={dtype}"
    return ""


def hydra_entry(verb: str, run: Callable[[Any], Any], config_name: str | None = None) -> Callable[[], Any]:
    """Build a verb's `main()`: hydra composes the verb's YAML under configs/ with the command line's
    overrides and calls `run(cfg)`.

    Building it also sets the process up, once: CPU arithmetic pinned (pulse/utils/cpu_numerics.py),
    glibc's malloc arenas capped (pulse/utils/malloc_arenas.py),
    HF_HUB_OFFLINE=1 unless already set (a hub model is fetched first, `pulse fetch-model`), library
    progress bars and advisory warnings off.

    Args:
        verb: the verb's name, used in error lines ("pulse <verb>: error: ...").
        run: called with the composed DictConfig; `main()` returns what it returns.
        config_name: the config file's stem (None: `verb` with "-" as "_").

    Returns:
        The verb's `main()`, called with no arguments (hydra reads `sys.argv`).

    Raises:
        SystemExit: status 2 with one line on stderr when `run` raises a known input error
            (`known_errors()`: every PulseUserError, a missing file), or when the CPU arithmetic cannot
            be pinned (then already while building).
    """
    import hydra

    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    # before torch's first operation: one arithmetic on every x86 machine (pulse/utils/cpu_numerics.py)
    try:
        pin_cpu_numerics()
    except known_errors() as e:
        report_and_exit(verb, e)
    # bounded memory in long runs: glibc's per-thread arenas grew one run to 23 GB (malloc_arenas.py)
    cap_malloc_arenas()
    global _OFFLINE_BY_DEFAULT
    # no hub halfway through a run: a hub id must be downloaded first (`pulse fetch-model`)
    _OFFLINE_BY_DEFAULT = "HF_HUB_OFFLINE" not in os.environ
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")

    quiet_libraries()

    @hydra.main(
        config_path=str(CONFIG_DIR), config_name=config_name or verb.replace("-", "_"), version_base="1.3"
    )
    def _main(cfg: Any) -> Any:
        try:
            half = half_precision_on_cpu(cfg)
            if half:  # before torch's first operation (pulse/utils/cpu_numerics.py says why)
                release_for_half_precision(half)
            return run(cfg)
        except known_errors() as e:
            report_and_exit(verb, e)

    return _main
