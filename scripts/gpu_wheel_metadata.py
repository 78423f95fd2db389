"""What the GPU constraint set pins, and the CUDA its wheels need, read from the wheels' own metadata.

    python scripts/gpu_wheel_metadata.py constraints/gpu-py311.txt [--json]

For torch, transformers, vllm, trl and deepspeed: the pinned version, the wheel that pip would pick
for CPython 3.11 on x86_64 manylinux (its file name carries a `+cuXYZ` local tag when it is not
PyPI's default build) and the requirements that fix the CUDA stack (torch's `cuda-toolkit` /
`nvidia-*` pins, vLLM's torch and transformers pins). Only the METADATA file of each wheel is read:
PEP 658 metadata when the index serves it, else HTTP range requests into the wheel's zip (a few
hundred kB, not the multi-GB wheel). Needs the package index (PyPI; UV_DEFAULT_INDEX overrides).
Called by scripts/resolve_gpu.sh after the resolve.
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
import urllib.request
import zipfile
from email.parser import Parser

from packaging.requirements import Requirement
from packaging.tags import compatible_tags, cpython_tags
from packaging.utils import canonicalize_name, parse_wheel_filename

REPORTED = ["torch", "transformers", "vllm", "trl", "deepspeed"]
INDEX = os.environ.get("UV_DEFAULT_INDEX", "https://pypi.org/simple").rstrip("/")
# the interpreter and platform the constraint set is resolved for (scripts/resolve_gpu.sh): the tags
# pip accepts there, e.g. cp311-cp311-manylinux_2_28_x86_64, cp38-abi3-manylinux_2_28_x86_64, py3-none-any
_PLATFORMS = [f"manylinux_2_{m}_x86_64" for m in range(28, 4, -1)] + ["manylinux2014_x86_64", "linux_x86_64"]
TARGET_TAGS = set(cpython_tags((3, 11), abis=["cp311", "abi3", "none"], platforms=_PLATFORMS)) | set(
    compatible_tags((3, 11), "cp311", _PLATFORMS)
)
# CUDA-relevant requirement names
CUDA_REQ = re.compile(r"^(torch|torchvision|torchaudio|transformers|triton|cuda-|nvidia-|flashinfer)")


def pins(path: str) -> dict[str, str]:
    out = {}
    for line in open(path, encoding="utf-8"):
        m = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;#]+)", line)
        if m:
            out[str(canonicalize_name(m.group(1)))] = m.group(2)
    return out


def _get(url: str, headers: dict | None = None) -> bytes:
    req = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(req, timeout=60) as r:
        return r.read()


class _RangeFile(io.RawIOBase):
    """A read-only, seekable view of a remote file through HTTP range requests (256 kB blocks)."""

    BLOCK = 1 << 18

    def __init__(self, url: str, size: int):
        self.url, self.size, self.pos, self.blocks = url, size, 0, {}

    def seekable(self) -> bool:
        return True

    def readable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.pos

    def seek(self, offset: int, whence: int = 0) -> int:
        self.pos = offset if whence == 0 else self.pos + offset if whence == 1 else self.size + offset
        return self.pos

    def _block(self, i: int) -> bytes:
        if i not in self.blocks:
            lo, hi = i * self.BLOCK, min(self.size, (i + 1) * self.BLOCK) - 1
            self.blocks[i] = _get(self.url, {"Range": f"bytes={lo}-{hi}"})
        return self.blocks[i]

    def read(self, n: int = -1) -> bytes:
        end = self.size if n is None or n < 0 else min(self.size, self.pos + n)
        out = bytearray()
        while self.pos < end:
            i, off = divmod(self.pos, self.BLOCK)
            chunk = self._block(i)[off : off + (end - self.pos)]
            out += chunk
            self.pos += len(chunk)
        return bytes(out)

    def readinto(self, b) -> int:
        data = self.read(len(b))
        b[: len(data)] = data
        return len(data)


def _platform_ok(tags) -> bool:
    return any(t in TARGET_TAGS for t in tags)


def wheel_metadata(name: str, version: str) -> dict:
    """{"file": the wheel pip would pick (or the sdist), "requires": [Requires-Dist], "local": tag}."""
    index = json.loads(_get(f"{INDEX}/{name}/", {"Accept": "application/vnd.pypi.simple.v1+json"}))
    wheels, sdists = [], []
    for f in index["files"]:
        fn = f["filename"]
        if fn.endswith(".whl"):
            wname, wver, _, tags = parse_wheel_filename(fn)
            if wver.public == version and _platform_ok(tags):
                wheels.append((wver, f))
        elif fn.endswith((".tar.gz", ".zip")) and f"-{version}." in fn:
            sdists.append(f)
    if not wheels:
        return {"file": sdists[0]["filename"] if sdists else None, "requires": None, "local": None}
    wver, f = sorted(wheels, key=lambda w: (w[0].local is None, w[1]["filename"]))[-1]
    if f.get("core-metadata") or f.get("dist-info-metadata"):
        text = _get(f["url"].split("#")[0] + ".metadata").decode()
    else:
        with zipfile.ZipFile(_RangeFile(f["url"].split("#")[0], int(f["size"]))) as z:
            meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
            text = z.read(meta).decode()
    msg = Parser().parsestr(text, headersonly=True)
    return {"file": f["filename"], "requires": msg.get_all("Requires-Dist") or [], "local": wver.local}


def _applies(req: Requirement) -> bool:
    """The requirement applies to CPython 3.11 on x86_64 Linux without extras."""
    env = {"python_version": "3.11", "python_full_version": "3.11.0", "sys_platform": "linux",
           "platform_system": "Linux", "platform_machine": "x86_64", "extra": ""}  # fmt: skip
    return req.marker is None or req.marker.evaluate(env)


def report(constraints: str) -> dict:
    pinned = pins(constraints)
    out = {"constraints": constraints, "packages": {}}
    for name in REPORTED:
        version = pinned.get(name)
        if version is None:
            out["packages"][name] = None
            continue
        meta = wheel_metadata(name, version)
        reqs = [Requirement(r) for r in meta["requires"] or []]
        cuda_reqs = [str(r) for r in reqs if _applies(r) and CUDA_REQ.match(r.name)]
        out["packages"][name] = {"version": version, "file": meta["file"], "local_tag": meta["local"],
                                 "cuda_requires": cuda_reqs}  # fmt: skip
    torch = out["packages"].get("torch") or {}
    toolkit = [r for r in torch.get("cuda_requires", []) if r.startswith("cuda-toolkit")]
    m = re.search(r"==\s*(\d+)\.(\d+)", toolkit[0]) if toolkit else None
    local = torch.get("local_tag") or ""
    m_local = re.match(r"cu(\d+)(\d)$", local)
    cuda = (
        f"{m.group(1)}.{m.group(2)}" if m else f"{m_local.group(1)}.{m_local.group(2)}" if m_local else None
    )
    out["cuda"] = cuda
    out["cuda_runtime"] = pinned.get("nvidia-cuda-runtime") or pinned.get("nvidia-cuda-runtime-cu12")
    return out


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    r = report(argv[0])
    if "--json" in argv:
        print(json.dumps(r, indent=2))
        return 0
    print(f"[resolve_gpu] pinned in {r['constraints']}:")
    for name, p in r["packages"].items():
        if p is None:
            print(f"  {name:13s} (not pinned)")
            continue
        tag = f" (local tag +{p['local_tag']})" if p["local_tag"] else ""
        print(f"  {name:13s} {p['version']:12s} {p['file']}{tag}")
        for req in p["cuda_requires"]:
            print(f"      requires {req}")
    print(
        f"[resolve_gpu] CUDA {r['cuda']} (torch's cuda-toolkit pin / wheel tag); "
        f"nvidia-cuda-runtime {r['cuda_runtime']}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
