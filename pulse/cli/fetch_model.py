"""`pulse fetch-model REPO_ID [--local-dir DIR]`: download a model from the Hugging Face hub into the
local cache (or DIR), once, on a machine with internet. Every other verb runs with HF_HUB_OFFLINE=1
(pulse/cli/support.py) so that a run never reaches the network halfway through; this verb is the
one that does, with offline mode off for its own process only. Then e.g.
    pulse fetch-model Qwen/Qwen3-8B
    accelerate launch ... -m pulse.cli.train +experiment=paper/qwen3_8b_grpo
"""

from __future__ import annotations

import argparse
import os
import sys

# what a causal LM needs: weights, configs, tokenizer, chat template (not other formats' copies)
ALLOW = ["*.json", "*.safetensors", "*.txt", "*.model", "*.jinja", "*.tiktoken", "*.py"]


def main(argv: list[str] | None = None) -> int:
    """`pulse fetch-model REPO_ID [--local-dir DIR] [--revision R]` (the module docstring): download a hub
    model's weights, configs and tokenizer files once, with offline mode off for this process only.

    Args:
        argv: the arguments after `pulse fetch-model` (None: `sys.argv[1:]`).

    Returns:
        0 once downloaded (the local path is printed); 2, with one line on stderr, when the download
        fails (network, authentication, unknown repository or revision).

    Raises:
        SystemExit: from argparse, for bad arguments (2) or `--help` (0).
    """
    p = argparse.ArgumentParser(prog="pulse fetch-model", description=__doc__.split("\n")[0])
    p.add_argument("repo_id", help="hub id, e.g. Qwen/Qwen3-8B")
    p.add_argument("--local-dir", default="", help="a folder to write the files to (default: the hub cache)")
    p.add_argument("--revision", default=None, help="branch, tag or commit (default: main)")
    a = p.parse_args(argv)
    os.environ["HF_HUB_OFFLINE"] = "0"  # before huggingface_hub is imported: it reads this once
    from huggingface_hub import snapshot_download

    try:
        path = snapshot_download(
            a.repo_id, revision=a.revision, local_dir=a.local_dir or None, allow_patterns=ALLOW
        )
    except Exception as e:  # network, auth, unknown repo: one line, exit 2
        print(
            f"pulse fetch-model: error: could not download {a.repo_id!r}: {type(e).__name__}: {e}",
            file=sys.stderr,
        )
        return 2
    print(f"[pulse fetch-model] {a.repo_id} -> {path}")
    if a.local_dir:
        print(f"use it as model.name_or_path={path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
