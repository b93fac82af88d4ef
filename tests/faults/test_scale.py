"""The identity tests stay about linear in the number of records: the fuzzy title test
compares the pairs its blocking proposes, not every pair (the times are printed by
``benchmarks/intake_scale.py``; a test asserts the counts, which do not depend on the machine)."""

from __future__ import annotations

import sys

from masrl import paths
from masrl.data import identity

sys.path.insert(0, str(paths.REPO_ROOT / "benchmarks"))
import intake_scale  # noqa: E402  (the benchmark's generator of candidate rows)


def records(n: int) -> list[identity.Record]:
    return [identity.Record("candidates", r["candidate_id"], r["title"],
                            (r["identifier"], r["url"])) for r in intake_scale.candidate_rows(n)]


def test_the_fuzzy_test_compares_a_near_linear_number_of_pairs():
    small, large = records(2_000), records(20_000)
    pairs_small = identity._fuzzy_candidates(small, [frozenset(r.look.split()) for r in small])
    pairs_large = identity._fuzzy_candidates(large, [frozenset(r.look.split()) for r in large])
    assert len(pairs_large) < 2 * len(large)  # all pairs would be 200 million
    assert len(pairs_large) < 20 * max(len(pairs_small), 1)  # ten times the rows


def test_every_planted_duplicate_is_found_at_scale():
    found = identity.duplicates(records(20_000))
    by_how = {how: sum(1 for m in found if m.how == how) for how in {m.how for m in found}}
    assert by_how["arXiv id"] == 100  # full-width ids, one pair per 200 rows
    assert by_how["look-alike title"] == 100  # a Cyrillic а, one pair per 200 rows


def test_a_shared_word_bound_is_never_missed_among_uncommon_words():
    """Prefix filtering is exact for the shared-words bound: brute force agrees."""
    rows = records(600)
    fast = {(m.first.id, m.second.id) for m in identity.duplicates(rows) if m.how == "fuzzy title"}
    slow = set()
    for i, a in enumerate(rows):
        for b in rows[i + 1:]:
            if len(a.look.split()) < identity.MIN_WORDS or len(b.look.split()) < identity.MIN_WORDS:
                continue
            if a.words != b.words and identity.shared_words(a.look, b.look) >= identity.SHARED_WORDS:
                slow.add((a.id, b.id))
    assert slow <= fast | {(m.first.id, m.second.id) for m in identity.duplicates(rows)}
