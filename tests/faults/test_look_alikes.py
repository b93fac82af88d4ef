"""Identifiers and titles that look alike: an arXiv id or DOI written in full-width or other
digits, with invisible characters or a version, matches the same id in the pool or among the
candidates; a title with Cyrillic or Greek look-alike letters is a possible duplicate."""

from __future__ import annotations

import unicodedata

from fault_helpers import add_candidates, excluded
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from masrl.data import identity, intake
from masrl.data.dataset import Dataset

FULL_WIDTH = str.maketrans("0123456789.:", "０１２３４５６７８９．：")
DIGIT_SCRIPTS = [0x0660, 0x06F0, 0x0966, 0x09E6, 0xFF10, 0x1D7CE, 0x1D7EC]  # each script's zero
INVISIBLE = ["\u200b", "\u00ad", "\u2060", "\ufeff", "\u200d"]


@st.composite
def disguised(draw, ident: str) -> str:
    """``ident`` with its digits from other scripts, invisible characters, a version."""
    out = []
    for char in ident:
        if char.isdigit() and draw(st.booleans()):
            char = chr(draw(st.sampled_from(DIGIT_SCRIPTS)) + int(char))
        elif char == "." and draw(st.booleans()):
            char = "．"
        out.append(char)
        if draw(st.integers(0, 5)) == 0:
            out.append(draw(st.sampled_from(INVISIBLE)))
    prefix = draw(st.sampled_from(["arXiv:", "ARXIV:", "arxiv：", "https://arxiv.org/abs/"]))
    version = draw(st.sampled_from(["", "v2", "v13"]))
    return prefix + "".join(out) + version


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_a_disguised_arxiv_id_is_the_same_id(data):
    text = data.draw(disguised("2412.01928"))
    assert identity.arxiv_ids(text) == {"2412.01928"}, ascii(text)


def test_a_full_width_id_matches_the_pool_and_the_candidates(data_copy):
    add_candidates(data_copy,
                   excluded("C101", "A copy of MAGRPO", "２５０８．０４６５２"),
                   excluded("C102", "Twin one", "2611.12345"),
                   excluded("C103", "Twin two", "２６１１.１２３４５v2"),
                   excluded("C104", "Some other title entirely", "2611.99999",
                            identifier="doi:１０．１２８７／ＭＯＯＲ．27.4.819.297"))
    plan = intake.plan(Dataset(data_copy))
    found = {frozenset((m.first.label, m.second.label)): m.how for m in plan.matches}
    assert found[frozenset(("pool:magrpo", "candidates:C101"))] == "arXiv id"
    assert found[frozenset(("candidates:C102", "candidates:C103"))] == "arXiv id"
    assert found[frozenset(("pool:dec-pomdp2002", "candidates:C104"))] == "DOI"
    assert any("C101" in c and "magrpo" in c for c in plan.conflicts)


LOOK_ALIKES = {"a": "аα", "e": "е", "o": "оο", "p": "рρ", "c": "с", "x": "х", "y": "у",
               "i": "іι", "A": "АΑ", "B": "ВΒ", "E": "ΕЕ", "M": "МΜ", "T": "ТΤ", "K": "КΚ"}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_title_with_look_alike_letters_is_a_possible_duplicate(data):
    title = "Dr. MAS: Stable Reinforcement Learning for Multi-Agent LLM Systems"
    positions = [k for k, c in enumerate(title) if c in LOOK_ALIKES]
    chosen = data.draw(st.lists(st.sampled_from(positions), min_size=1, max_size=6, unique=True))
    letters = list(title)
    for k in chosen:
        letters[k] = data.draw(st.sampled_from(LOOK_ALIKES[title[k]]))
    disguised_title = "".join(letters)
    assert any(unicodedata.name(c).startswith(("CYRILLIC", "GREEK")) for c in disguised_title)
    pool = identity.Record("pool", "dr-mas", title)
    candidate = identity.Record("candidates", "C101", disguised_title)
    matches = identity.duplicates([pool, candidate])
    assert [(m.how, m.sure) for m in matches] == [("look-alike title", False)], disguised_title


def test_a_look_alike_title_is_shown_by_the_intake_as_a_possible_duplicate(data_copy):
    add_candidates(data_copy, excluded("C101", "Dr. МАS: Stable Rеinforcement Learning for "
                                               "Multi-Agent LLM Systems", "2611.00009"))
    plan = intake.plan(Dataset(data_copy))
    match = next(m for m in plan.matches if "C101" in (m.first.id, m.second.id))
    assert match.how == "look-alike title" and not match.sure
    assert "possible duplicate" in next(line for line in plan.lines() if "C101" in line)
