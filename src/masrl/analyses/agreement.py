"""Agreement between the original tags and the second reader's re-coding (``spotcheck.csv``).

Per field: raw agreement with a Wilson score interval, and Cohen's kappa with a percentile
bootstrap interval (NumPy, fixed seed, so every run gives the same numbers). No statistics
library in the environment provides kappa, so it is computed here from its definition:
kappa = (p_o - p_e) / (1 - p_e), with p_e from the two readers' marginal frequencies.

The second reader saw the original tags before re-coding (not blind): agreement here measures
how often a reader who checks the tags accepts them, an audit spot-check, not the reliability of
two independent codings.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pandas as pd

SEED = 20260503  # the spot-check's date; any fixed seed gives reproducible intervals
RESAMPLES = 2000
LEVEL = 0.95


def cohen_kappa(a, b) -> float:
    """Cohen's kappa of two equally long sequences of labels; NaN when chance agreement is 1
    (both readers used one and the same label throughout, so kappa is undefined)."""
    a, b = np.asarray(a, dtype=object), np.asarray(b, dtype=object)
    if len(a) != len(b) or len(a) == 0:
        raise ValueError("kappa needs two non-empty sequences of equal length")
    labels = sorted(set(a) | set(b))
    codes = {label: i for i, label in enumerate(labels)}
    return _kappa(np.array([codes[x] for x in a]), np.array([codes[x] for x in b]), len(labels))


def _kappa(a: np.ndarray, b: np.ndarray, k: int) -> float:
    n = len(a)
    p_o = float(np.mean(a == b))
    p_e = float(np.dot(np.bincount(a, minlength=k), np.bincount(b, minlength=k))) / n**2
    if math.isclose(p_e, 1.0):
        return math.nan
    return (p_o - p_e) / (1 - p_e)


def wilson_interval(successes: int, n: int, level: float = LEVEL) -> tuple[float, float]:
    """Wilson score interval of a proportion (well-behaved at 0 % and 100 %); undefined (NaN,
    NaN) for no trial at all: nothing is known then, which is not 0 %."""
    if n == 0:
        return math.nan, math.nan
    z = NormalDist().inv_cdf(0.5 + level / 2)
    p = successes / n
    centre = (p + z**2 / (2 * n)) / (1 + z**2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z**2 / (4 * n**2)) / (1 + z**2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def bootstrap_kappa(a, b, *, resamples: int = RESAMPLES, seed: int = SEED,
                    level: float = LEVEL) -> tuple[float, float, int]:
    """Percentile bootstrap interval of kappa over rows resampled with replacement. Returns
    (low, high, resamples in which kappa was defined). When every row agrees, every defined
    resample gives kappa = 1 and the interval collapses to a point."""
    a, b = np.asarray(a, dtype=object), np.asarray(b, dtype=object)
    labels = sorted(set(a) | set(b))
    codes = {label: i for i, label in enumerate(labels)}
    ca, cb = np.array([codes[x] for x in a]), np.array([codes[x] for x in b])
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(a), size=(resamples, len(a)))
    values = np.array([_kappa(ca[d], cb[d], len(labels)) for d in draws])
    defined = values[~np.isnan(values)]
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(defined, [tail, 100 - tail])
    return float(low), float(high), int(len(defined))


def recoded_fields(spotcheck: pd.DataFrame) -> list[str]:
    """The fields the second reader re-coded: those with an ``orig_`` and an ``ann_`` column."""
    return [c.removeprefix("orig_") for c in spotcheck.columns
            if c.startswith("orig_") and "ann_" + c.removeprefix("orig_") in spotcheck.columns]


def agreement_table(spotcheck: pd.DataFrame) -> pd.DataFrame:
    """One row per re-coded field: agreeing rows, rows, raw agreement with its Wilson interval,
    kappa with its bootstrap interval, and the number of resamples where kappa was defined."""
    rows = []
    for field in recoded_fields(spotcheck):
        a, b = spotcheck[f"orig_{field}"], spotcheck[f"ann_{field}"]
        agree, n = int((a == b).sum()), len(a)
        low, high = wilson_interval(agree, n)
        k_low, k_high, defined = bootstrap_kappa(a, b)
        rows.append({"field": field, "agree": agree, "rows": n,
                     "raw agreement": round(agree / n, 3),
                     "raw 95% low": round(low, 3), "raw 95% high": round(high, 3),
                     "kappa": round(cohen_kappa(a, b), 3),
                     "kappa 95% low": round(k_low, 3), "kappa 95% high": round(k_high, 3),
                     "resamples with kappa defined": defined})
    return pd.DataFrame(rows).set_index("field")


def disagreements(spotcheck: pd.DataFrame) -> pd.DataFrame:
    """Every (row, field) where the second reader's tag differs from the original."""
    fields = recoded_fields(spotcheck)
    rows = [{"key": r["key"], "field": f, "original": r[f"orig_{f}"], "second reader": r[f"ann_{f}"]}
            for r in spotcheck.to_dict("records") for f in fields if r[f"orig_{f}"] != r[f"ann_{f}"]]
    return pd.DataFrame(rows, columns=["key", "field", "original", "second reader"])


def strict_counts(spotcheck: pd.DataFrame) -> pd.Series:
    """The reader's strict_explicit_credit judgements: rows judged yes and no."""
    return spotcheck["strict_explicit_credit"].value_counts().reindex(["yes", "no"], fill_value=0)
