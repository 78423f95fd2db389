"""One arithmetic for CPU training and evaluation on every x86 machine, so a committed figure reproduces.

Why: a CPU run's floating-point results depend on the machine. PyTorch picks its vector kernels by the
CPU (AVX2 on one, AVX-512 on another), MKL picks its matrix-multiply code path the same way, and the
number of threads changes how sums are split. The tiny policy's training amplifies a last-bit
difference into another model: the same commit trained the `make demo` SFT policy to 95.8 % action
accuracy on an AVX-512 Xeon and to 91.2 % on an AVX2 EPYC. Measured with 15 training steps of
the tiny Qwen3 (`bench/bench_cpu_numerics.py`): AVX-512 vs AVX2 kernels, and 1 vs 2 threads, each give
other weights; with the settings below an AVX-512 machine gives the same weights as with MKL
restricted to AVX2 code paths (as a machine without AVX-512 computes).

What: `pin_cpu_numerics()` sets, unless already set by the user, ATen's kernel level and MKL's
conditional-numerical-reproducibility branch to AVX2 (the level every x86-64 machine here has) and
oneDNN's ISA cap to match; `cpu_threads()` fixes the torch thread count (PULSE_CPU_THREADS, default 2,
the cores of the machines these figures are made on). Cost: 1.38x the native time of those steps on
an AVX-512 Xeon (bench/results/cpu_numerics.json). `PULSE_CPU_NUMERICS=native` turns the pinning
off (fastest, not reproducible across machines). Both are read before torch runs its first operation
(the settings are read lazily, at first dispatch), which `hydra_entry` guarantees for every verb.

Half precision on CPU is the exception (`release_for_half_precision`): an AVX2 machine has no bf16
hardware, so no arithmetic is common to every x86 machine, and capping oneDNN at AVX2 sends bf16 matrix
products to a reference kernel (measured: ten 2048x2048 bf16 products 540 s pinned, 0.13 s native on
this Xeon). A run whose model computes in bf16 / fp16 on CPU (e.g. the pretrained recipe
cpu/qwen_coder_lora) therefore runs native, and its record says so and why.
"""

from __future__ import annotations

import os
import sys

# The variables and the values that make x86 CPUs compute alike (AVX2: the common level).
PINNED = {
    "ATEN_CPU_CAPABILITY": "avx2",  # PyTorch's own vectorised kernels
    "MKL_CBWR": "AVX2",  # MKL's conditional numerical reproducibility branch
    "ONEDNN_MAX_CPU_ISA": "AVX2",  # oneDNN (mkldnn) kernels, for the ops torch routes there
}
DEFAULT_THREADS = 2
_SET_HERE: set[str] = set()  # the PINNED variables this process set (not the user's own)
_RELEASED = ""  # why the pin was released for this process ("" = it holds)


def pinned() -> bool:
    """Whether this process pins CPU numerics (`PULSE_CPU_NUMERICS` is not `native`)."""
    return os.environ.get("PULSE_CPU_NUMERICS", "pinned").strip().lower() != "native"


def pin_cpu_numerics() -> None:
    """Set the variables of PINNED that the user has not set, and the thread count (OpenMP's, read when
    torch starts; torch's own where it is already imported). No-op under PULSE_CPU_NUMERICS=native."""
    if not pinned():
        return
    for var, value in PINNED.items():
        if var not in os.environ:
            os.environ[var] = value
            _SET_HERE.add(var)
    threads = cpu_threads()
    os.environ.setdefault("OMP_NUM_THREADS", str(threads))
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(threads)


def cpu_threads() -> int:
    """The torch thread count for CPU work: PULSE_CPU_THREADS, else an OMP_NUM_THREADS already set (a
    launcher's per-rank share), else 2 (under `native`, torch's own)."""
    raw = os.environ.get("PULSE_CPU_THREADS", "")
    omp = os.environ.get("OMP_NUM_THREADS", "")
    if not raw and omp.isdigit() and int(omp) > 0:
        # set by a launcher (torchrun gives each rank 1 so that ranks do not oversubscribe the cores)
        return int(omp)
    if not raw:
        if not pinned():
            import torch

            return torch.get_num_threads()
        return DEFAULT_THREADS
    if not raw.strip().isdigit() or int(raw) < 1:
        from pulse.core.errors import PulseUserError

        raise PulseUserError(f"environment variable PULSE_CPU_THREADS={raw!r}: expected a positive integer")
    return int(raw)


def release_for_half_precision(what: str) -> None:
    """Undo this process's pin (the variables the user set stay) before torch's first operation, for a
    run that computes in bf16 / fp16 on CPU (the module docstring says why); `what` names the setting
    (e.g. "model.dtype=bfloat16") and is recorded by `describe()`. No-op when nothing was pinned here."""
    global _RELEASED
    if not pinned() or not _SET_HERE:
        return
    for var in sorted(_SET_HERE):
        os.environ.pop(var, None)
    _SET_HERE.clear()
    _RELEASED = f"{what} on CPU: no bf16/fp16 arithmetic is common to every x86 machine"


def describe() -> dict[str, object]:
    """What a result records about the arithmetic it was computed with."""
    import torch

    return {
        "mode": "pinned" if pinned() and not _RELEASED else "native",
        **({"native_because": _RELEASED} if _RELEASED else {}),
        "torch_cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "threads": torch.get_num_threads(),
        **{var: os.environ.get(var, "") for var in PINNED},
    }
