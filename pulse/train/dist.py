"""The process group as `pulse train` sees it, set up once the way the trainers set it up.

accelerate's `PartialState` is one shared object: whoever builds it first decides the process count.
The trainers build it with `cpu=use_cpu`; a bare `PartialState()` on a CPU-only machine sees one
process per rank under `torchrun`/`accelerate launch` (it only counts CPU ranks when told `cpu=True`),
and the batch arithmetic would then disagree with trl's (issue 31). `init(cfg)` runs first.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator
from typing import Any

from pulse.config.schema import TrainConfig


def init(cfg: TrainConfig) -> Any:
    from accelerate import PartialState

    if cfg.device == "cpu":
        skip_deepspeed_inference_kernel()
    return PartialState(cpu=cfg.device == "cpu")


def skip_deepspeed_inference_kernel() -> None:
    """Under `accelerate launch` with DeepSpeed on CPU ranks, DeepSpeed's process group compiles its
    shared-memory all-reduce kernel as it starts (C++, about 90 s on 2 cores on every fresh machine).
    That kernel serves only tensor-parallel inference (`inference_all_reduce`), which training never
    calls: ZeRO's all-reduces go through the process group (gloo) either way. So it is marked
    unavailable for this process before the group starts. Call before `PartialState` is built."""
    import os

    if os.environ.get("ACCELERATE_USE_DEEPSPEED", "").lower() not in ("1", "true"):
        return
    try:
        import deepspeed.ops
    except ImportError:
        return
    compatible = getattr(deepspeed.ops, "__compatible_ops__", None)
    if isinstance(compatible, dict):
        compatible["deepspeed_shm_comm"] = False


def state() -> Any:
    from accelerate import PartialState

    return PartialState()


def num_processes() -> int:
    return state().num_processes


def is_main() -> bool:
    return state().is_main_process


def wait_for_everyone() -> None:
    state().wait_for_everyone()


@contextlib.contextmanager
def main_process_first() -> Iterator[None]:
    """The main process runs the block first (generates the dataset, builds the tiny model); the
    others wait, then run it and find the result on disk instead of writing the same folder at once."""
    with state().main_process_first():
        yield


def in_multi_process_launch() -> bool:
    """Started by torchrun / accelerate launch with more than one process (read before any state)."""
    import os

    return int(os.environ.get("WORLD_SIZE", "1") or 1) > 1


def release_trainer() -> None:
    """After a stage: free its memory and switch DeepSpeed's ZeRO-3 hooks off, so a model loaded by
    one rank alone (the held-out evaluation) is a plain model, not a ZeRO-3 partition whose loading
    waits on collectives from ranks that have finished (the ZeRO-3 crash of issue 31)."""
    gc.collect()
    try:
        from transformers.integrations.deepspeed import unset_hf_deepspeed_config

        unset_hf_deepspeed_config()
    except ImportError:
        pass
    import torch

    if torch.cuda.is_available():
        torch.cuda.empty_cache()
