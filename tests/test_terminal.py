"""Text from input files cannot forge a line or drive the terminal when it is printed."""

from __future__ import annotations

import pytest

from masrl.terminal import printable


@pytest.mark.parametrize("raw, shown", [
    ("e1\x1b[2K\rx.json: valid", "e1\\x1b[2K\\rx.json: valid"),
    ("two\nlines", "two\\nlines"),
    ("nul\x00", "nul\\x00"),
    ("c1\x9b", "c1\\x9b"),
    ("sep\u2028", "sep\\u2028"),
])
def test_control_characters_are_escaped(raw, shown):
    assert printable(raw) == shown
    assert "\n" not in printable(raw) and "\x1b" not in printable(raw)


def test_ordinary_text_is_unchanged():
    assert printable("Agent «Ω» 日本 tab-free, 42") == "Agent «Ω» 日本 tab-free, 42"
    assert printable(3.5) == "3.5"


def test_a_long_text_keeps_its_start_and_end_around_a_count():
    text = "start " + "x" * 10_000 + " end"
    shown = printable(text)
    assert len(shown) < 1_100
    assert shown.startswith("start x") and shown.endswith("x end")
    assert "[... 9,010 characters ...]" in shown


def test_a_text_at_the_limit_is_whole():
    assert printable("y" * 1_000) == "y" * 1_000


def test_abbreviating_never_reveals_a_control_character():
    text = "\x1b" * 600 + "\n" * 600
    assert "\x1b" not in printable(text) and "\n" not in printable(text)


def test_a_byte_of_a_file_name_that_is_not_utf8_is_shown_as_the_byte():
    """Python holds such a byte as a lone surrogate U+DC80-U+DCFF; the trace, the corpus id
    and the --json outputs write it ``\\xNN``, so the terminal line does too (it said
    ``\\udcff``, which names no byte the user can find)."""
    import os

    from masrl.terminal import names_as_text

    name = os.fsdecode(b"run\xff\xe9.json")
    assert printable(name) == "run\\xff\\xe9.json"
    assert names_as_text(name) == "run\\xff\\xe9.json"
    assert names_as_text({name: [name, {"k": name}], "ok": "caf\u00e9 \U0001f480"}) == {
        "run\\xff\\xe9.json": ["run\\xff\\xe9.json", {"k": "run\\xff\\xe9.json"}],
        "ok": "caf\u00e9 \U0001f480"}
    assert printable("\ud800") == "\\ud800"  # not a byte of a name: as Python writes it
