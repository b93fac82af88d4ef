"""The chart libraries a report page carries: Vega, Vega-Lite and vega-embed bundled into one
script by vl-convert (``vl_convert.javascript_bundle()``, offline: the libraries ship inside
vl-convert's wheel), cached on disk.

Bundling takes one to several seconds, so the first report on a machine pays it once: the
bundle is kept in the user's cache folder under vl-convert's version (a new vl-convert gives a
new file; the old one is never read again), written atomically, and read back in milliseconds
by every later report. A cache folder that cannot be written costs the bundling on every run,
nothing else. ``MASRL_CACHE_DIR`` names another folder.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

CACHE_VARIABLE = "MASRL_CACHE_DIR"


def cache_dir() -> Path:
    """Where masrl keeps what it can compute again: ``MASRL_CACHE_DIR``, else the platform's
    per-user cache folder (``XDG_CACHE_HOME`` or ``~/.cache`` on Linux, ``~/Library/Caches``
    on macOS, ``LOCALAPPDATA`` on Windows), in a ``masrl`` folder."""
    given = os.environ.get(CACHE_VARIABLE)
    if given:
        return Path(given)
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "masrl"


def bundle_path(version: str) -> Path:
    return cache_dir() / f"vl-convert-{version}-vega-bundle.js"


def javascript_bundle() -> str:
    """Vega, Vega-Lite and vega-embed as one script that defines ``window.vegaEmbed`` (from the
    cache when vl-convert's version has been bundled before; see the module docstring)."""
    import vl_convert

    path = bundle_path(vl_convert.__version__)
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        pass
    text = vl_convert.javascript_bundle()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent,
                                         prefix=path.name, suffix=".tmp", delete=False) as out:
            out.write(text)
        os.replace(out.name, path)
    except OSError:  # an unwritable cache: the next report bundles again, nothing worse
        pass
    return text
