"""Tables of the scale envelopes as readers see them."""

from __future__ import annotations

import pandas as pd

DISPLAY_COLUMNS = ["system", "kind", "agents", "agents_bound", "horizon", "horizon_unit",
                   "horizon_bound", "model", "model_size_b", "confidence", "source_url"]


def display_frame(envelopes: pd.DataFrame) -> pd.DataFrame:
    """The envelopes for reading: numbers written plainly, unknown numbers left blank."""
    frame = envelopes[DISPLAY_COLUMNS].copy()
    for column in ("agents", "horizon", "model_size_b"):
        frame[column] = [f"{v:g}" if pd.notna(v) else "" for v in frame[column]]
    return frame
