"""Chapter 23 tells every format of the registry: one section per format, named with the
format as ``masrl import`` takes it, inside the section of its family (so a format added to the
registry without its prose fails here, not in a reader's hands)."""

from __future__ import annotations

import re

from masrl import paths
from masrl.traces.importers.registry import FAMILIES, REGISTRY

CHAPTER = paths.REPO_ROOT / "notebooks" / "23_importing.md"


def sections() -> dict[str, list[str]]:
    """``## `` heading -> the ``### `` headings under it."""
    found: dict[str, list[str]] = {}
    current = None
    for line in CHAPTER.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            current = line[3:].strip()
            found[current] = []
        elif line.startswith("### ") and current is not None:
            found[current].append(line[4:].strip())
    return found


def test_every_format_has_its_section_in_its_family():
    chapter = sections()
    for family, holds in FAMILIES.items():
        title = holds[0].upper() + holds[1:]
        assert title in chapter, f"chapter 23 has no section '## {title}' for {family}"
        named = [re.search(r"\(`([a-z0-9-]+)`\)$", heading) for heading in chapter[title]]
        declared = [entry.name for entry in REGISTRY if entry.family == family]
        assert sorted(m.group(1) for m in named if m) == sorted(declared), title


def test_every_format_section_says_how_to_get_the_log_and_shows_the_command():
    text = CHAPTER.read_text(encoding="utf-8")
    for entry in REGISTRY:
        start = text.index(f"(`{entry.name}`)")
        ends = [k for k in (text.find("\n### ", start), text.find("\n## ", start)) if k != -1]
        section = text[start:min(ends, default=len(text))]
        assert "**Getting the log.**" in section, entry.name
        assert f"masrl import {entry.name} " in section, entry.name
