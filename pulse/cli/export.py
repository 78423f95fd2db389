"""`pulse export CHECKPOINT OUT [--dtype bf16]`: a trained LoRA adapter (GRPO's `final/`) merged into
its base model as a plain model folder that every backend loads as it is: `vllm serve OUT`,
`policy.backend=vllm policy.name_or_path=OUT`, transformers. The training record (provenance.json:
prompt style, chat-template arguments) travels with it, so the merged model is evaluated on the
prompt it was trained on."""

from __future__ import annotations

import argparse
import os
import sys


def main(argv: list[str] | None = None) -> int:
    """`pulse export CHECKPOINT OUT [--dtype D]` (the module docstring): merge a LoRA adapter into its base.

    Args:
        argv: the arguments after `pulse export` (None: `sys.argv[1:]`).

    Returns:
        0 once the merged model folder is written; 2, with one line on stderr, for a folder that is not
        an adapter, a base model that cannot load, an unreadable training record or a missing file.

    Raises:
        SystemExit: from argparse, for bad arguments (2) or `--help` (0).
    """
    p = argparse.ArgumentParser(prog="pulse export", description=__doc__.split("\n\n")[0])
    p.add_argument("checkpoint", help="a LoRA adapter folder (adapter_config.json), e.g. RUN/grpo/final")
    p.add_argument("out", help="the merged model folder to write (replaced if it exists)")
    p.add_argument("--dtype", default="", help="weights dtype (default: the run's model.dtype, else float32)")
    a = p.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the base must be on disk (`pulse fetch-model`)
    from pulse.core.errors import PulseUserError, one_line
    from pulse.policy.export import merge_adapter
    from pulse.policy.record import trained_record

    try:
        dtype = a.dtype or str(trained_record(a.checkpoint).get("dtype") or "float32")
        out = merge_adapter(a.checkpoint, a.out, dtype)
    except (PulseUserError, FileNotFoundError) as e:
        print(f"pulse export: error: {one_line(e)}", file=sys.stderr)
        return 2
    print(f"[pulse export] wrote {out} ({dtype}); serve it with: vllm serve {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
