"""Spread over seeds: one definition used by the demo table and the evaluation tables."""

from __future__ import annotations

import math
from collections.abc import Sequence


def mean_stderr(xs: Sequence[float | None]) -> tuple[float | None, float | None]:
    """Mean and standard error over seeds, skipping undefined values (None, or a legacy NaN);
    (None, None) when nothing is defined, (mean, None) for a single value."""
    xs = [float(x) for x in xs if x is not None and not (isinstance(x, float) and math.isnan(x))]
    if not xs:
        return None, None
    m = sum(xs) / len(xs)
    if len(xs) < 2:
        return m, None
    var = sum((x - m) ** 2 for x in xs) / (len(xs) - 1)
    return m, math.sqrt(var / len(xs))


def format_mean_stderr(values: Sequence[float | None], pct: bool = True) -> str:
    """ "mean ± stderr" of `values` over seeds (in % unless `pct=False`, one decimal); "n/a" for none."""
    m, se = mean_stderr(values)
    if m is None:
        return "n/a"
    scale = 100 if pct else 1
    return f"{scale * m:.1f}" + ("" if se is None else f" ± {scale * se:.1f}")
