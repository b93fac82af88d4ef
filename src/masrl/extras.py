"""Which optional extra of the package provides a module, read from the package's own metadata.

The core install carries what validate, replay, import and export need; the rest comes in
extras (``pip install 'masrl[report]'``...), declared once, in ``pyproject.toml``. When a command
meets a module that is not installed, :func:`extra_providing` names the extra to install.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import metadata

IMPORT_NAMES = {  # distribution -> the module it installs, where the two names differ
    "pyyaml": "yaml",
    "vl-convert-python": "vl_convert",
    "jsonschema-rs": "jsonschema_rs",
    "python-dateutil": "dateutil",
    "myst-nb": "myst_nb",
    "jupyter-book": "jupyter_book",
}


def import_name(distribution: str) -> str:
    """The top-level module a distribution installs (by :data:`IMPORT_NAMES`, else its name)."""
    name = distribution.lower().replace("_", "-")
    return IMPORT_NAMES.get(name, name.replace("-", "_"))


@cache
def extras() -> dict[str, list[str]]:
    """Extra -> the top-level modules of its requirements, in the metadata's order (empty when
    the package's metadata cannot be found)."""
    try:
        requirements = metadata.requires("masrl") or []
    except metadata.PackageNotFoundError:
        return {}
    found: dict[str, list[str]] = {}
    for line in requirements:
        marker = re.search(r"""extra\s*==\s*['"]([^'"]+)['"]""", line)
        if marker is None:
            continue
        distribution = re.match(r"[A-Za-z0-9._-]+", line).group(0)
        found.setdefault(marker.group(1), []).append(import_name(distribution))
    return found


def extra_providing(module: str) -> str | None:
    """The smallest extra whose requirements include the top-level ``module`` (``None`` when no
    extra does)."""
    holding = [(len(mods), extra) for extra, mods in extras().items() if module in mods]
    return min(holding)[1] if holding else None
