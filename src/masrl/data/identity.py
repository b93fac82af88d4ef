"""Whether two records of the pool, the exclusion log or the candidates are the same work.

Every identifier and title is normalised in one place before any comparison
(:func:`normalise_identifier`, :func:`normalise_title`): Unicode NFKC (full-width
``arXiv:２４１２．０１９２８`` is ``arXiv:2412.01928``, a mathematical bold digit is a digit), any
script's decimal digits as ASCII digits, invisible format characters (a zero-width space, a soft
hyphen) dropped; then case, arXiv versions and DOI prefixes are set aside by the tests below.
A title is also folded to its *look* (:func:`look_alike`): each letter of another script that
looks like a Latin one (Unicode's confusables, as the ``confusable_homoglyphs`` package ships
them: Cyrillic ``а``, ``о``, ``р``, Greek ``Α``, ``ο``...) replaced by that Latin letter.

Five tests, from the surest to the loosest, each reported with what matched:

* **arXiv id** without its version: ``2412.01928``, ``arXiv:2412.01928v2``,
  ``https://arxiv.org/abs/2412.01928v3``, ``https://arxiv.org/pdf/2412.01928.pdf`` and the arXiv
  DOI ``10.48550/arXiv.2412.01928`` are one id;
* **DOI** (other than arXiv's), read from an identifier (``doi:10...``), a ``doi.org`` address
  or a publisher's ``/doi/`` address, compared without regard to case;
* **normalised title**: the same words once accents, case, punctuation and spacing are set
  aside (``Dr. MAS:`` and ``dr mas``);
* **look-alike title**: the same look once letters of other scripts that look Latin are
  folded, but not the same words: a *possible* duplicate (``MАS`` with a Cyrillic ``А``), shown
  for a person to judge;
* **fuzzy title** (a retitled preprint: a name put before the title, words reordered, a
  subtitle changed): RapidFuzz's ``token_sort_ratio`` of the normalised titles at or above
  :data:`FUZZY_THRESHOLD`, or at least :data:`SHARED_WORDS` per cent of the longer title's
  distinct words shared, for titles of at least :data:`MIN_WORDS` words (short titles share
  words by chance). A fuzzy match is a *possible* duplicate: shown with both titles and the
  scores, for a person to judge. Among the 129 distinct records of the pool and the log, no pair
  reaches either bound (the highest are 81 and 69 %), while ``Dr. MAS: Stable Reinforcement
  Learning for Multi-Agent LLM Systems`` retitled ``Stable Reinforcement Learning for
  Multi-Agent LLM Systems via Per-Agent Normalisation`` shares 73 % of its words.
  (``token_set_ratio``, which scores a title contained in another as 100, matched dozens of
  distinct papers of the pool that share "Multi-Agent Reinforcement Learning".)

The fuzzy test does not compare every pair (100,000 candidates would be 5 billion pairs): it
compares the pairs that share two of the rarest few words of each title (prefix filtering: for a
title of n distinct words, ordered from the rarest, its first n - ceil(0.72 n) + 2 words). Two
titles sharing :data:`SHARED_WORDS` per cent of their words always share two of those, so that
bound loses nothing, with one exception: a word found in more than :data:`COMMON_WORD` titles
("learning", "agent" in a large pool) says nothing about two titles being one work and is not
counted (else the pairs would grow with the square of the records); two titles that share fewer
than two rarer words are compared by the exact tests only. In the shipped pool no word is that
common, so there the bound is exact. A pair that reaches the token-sort bound while sharing
fewer words (a title with a typo in most of its words) is not compared either. The other tests
look each key up in an index (records sharing a key are paired each with each, or, past
:data:`GROUP` of them, each with the first). The whole is about linear in the number of records
(``benchmarks/intake_scale.py``).

Nothing here reads a file: the loaders and ``masrl intake`` build :class:`Record` objects from
their rows and call :func:`duplicates`.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from confusable_homoglyphs import confusables
from rapidfuzz import fuzz

FUZZY_THRESHOLD = 85.0  # token_sort_ratio (0-100) from which two titles are shown as possible duplicates
SHARED_WORDS = 72.0  # per cent of the longer title's distinct words found in the other
MIN_WORDS = 4  # titles with fewer words are compared exactly only
COMMON_WORD = 200  # a word of more titles than this does not pair titles for the fuzzy test
SURE = ("arXiv id", "DOI", "title")  # the tests whose matches are certain; the title tests are not

_ARXIV = re.compile(
    r"(?:arxiv\.org/(?:abs|pdf|html)/|arxiv[:.]\s*|^)"  # a prefix, or a bare id
    r"([0-9]{4}\.[0-9]{4,5})(?:v[0-9]+)?(?![0-9])", re.IGNORECASE | re.ASCII)
_DOI = re.compile(r"(?:doi\.org/|/doi/(?:abs/|full/|pdf/|epdf/)?|doi:\s*|^)"
                  r"(10\.[0-9]{4,9}/[^\s\"<>;]+)", re.IGNORECASE | re.ASCII)
_ARXIV_DOI = re.compile(r"10\.48550/arxiv\.([0-9]{4}\.[0-9]{4,5})", re.IGNORECASE | re.ASCII)


def arxiv_ids(*texts: str) -> set[str]:
    """The arXiv ids (without version) in identifiers, ids or addresses."""
    found = set()
    for text in texts:
        for part in _parts(text):
            found.update(m.group(1) for m in _ARXIV.finditer(part))
            found.update(m.group(1) for m in _ARXIV_DOI.finditer(part))
    return found


def dois(*texts: str) -> set[str]:
    """The DOIs (lower-case, trailing punctuation dropped) in identifiers or addresses; arXiv's
    own DOIs are left to :func:`arxiv_ids`."""
    found = set()
    for text in texts:
        for part in _parts(text):
            for m in _DOI.finditer(part):
                doi = m.group(1).rstrip(".,)").lower()
                if not _ARXIV_DOI.fullmatch(doi):
                    found.add(doi)
    return found


def _parts(text: str) -> list[str]:
    """The pieces of a cell, normalised: several addresses are separated by ``;`` or spaces."""
    return [p for p in re.split(r"[\s;]+", normalise_identifier(text or "")) if p]


def _visible(text: str) -> str:
    """``text`` without invisible format characters (category Cf: zero-width space and
    joiners, soft hyphen, direction marks)."""
    if text.isascii():
        return text
    return "".join(c for c in text if unicodedata.category(c) != "Cf")


def normalise_identifier(text: str) -> str:
    """An identifier or address as compared: NFKC, decimal digits of any script as ASCII,
    invisible format characters dropped (see the module docstring)."""
    if text.isascii():
        return text
    text = _visible(unicodedata.normalize("NFKC", text))
    return "".join(str(unicodedata.decimal(c)) if not c.isascii() and c.isdecimal() else c
                   for c in text)


def normalise_title(title: str) -> str:
    """A title's words: NFKC, accents and case set aside, invisible characters dropped,
    punctuation as spaces, single spaces."""
    if title.isascii():
        plain = title.casefold()
    else:
        decomposed = unicodedata.normalize("NFKD", _visible(unicodedata.normalize("NFKC", title)))
        plain = "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()
    return " ".join(re.sub(r"[^\w]+", " ", plain).replace("_", " ").split())


@functools.lru_cache(maxsize=65536)
def _latin(char: str) -> str:
    """The ASCII letter or digit ``char`` looks like (from Unicode's confusables), else
    ``char``."""
    found = confusables.is_confusable(char, greedy=True, preferred_aliases=["latin"]) or []
    for item in found:
        for glyph in item["homoglyphs"]:
            if len(glyph["c"]) == 1 and glyph["c"].isascii() and glyph["c"].isalnum():
                return glyph["c"]
    return char


def look_alike(title: str) -> str:
    """A title's look: each letter of another script that looks like a Latin letter (in upper
    or lower case, before case is set aside) replaced by it, then :func:`normalise_title`."""
    text = unicodedata.normalize("NFKC", title)
    if not text.isascii():
        text = "".join(c if c.isascii() or not c.isalpha() else _latin(c) for c in text)
    return normalise_title(text)


def shared_words(a: str, b: str) -> float:
    """The per cent of the longer normalised title's distinct words that the other one has."""
    first, second = set(a.split()), set(b.split())
    return 100.0 * len(first & second) / max(len(first), len(second), 1)


@dataclass(frozen=True)
class Record:
    """One record to compare: where it is (``pool``, ``excluded``, ``candidates``), its id there
    (a key, a record id, a candidate id), its title and every identifier it carries."""

    where: str
    id: str
    title: str
    identifiers: tuple[str, ...] = ()
    arxiv: frozenset[str] = field(init=False)
    doi: frozenset[str] = field(init=False)
    words: str = field(init=False)
    look: str = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "arxiv", frozenset(arxiv_ids(*self.identifiers)))
        object.__setattr__(self, "doi", frozenset(dois(*self.identifiers)))
        object.__setattr__(self, "words", normalise_title(self.title))
        object.__setattr__(self, "look", look_alike(self.title))

    @property
    def label(self) -> str:
        return f"{self.where}:{self.id}"


@dataclass(frozen=True)
class Match:
    """Two records found to be the same work (``how``: arXiv id, DOI, title, fuzzy title), with
    what matched (the id, the DOI, the title, or the score and both titles)."""

    first: Record
    second: Record
    how: str
    detail: str

    @property
    def sure(self) -> bool:
        return self.how in SURE

    def describe(self) -> str:
        return f"{self.first.label} and {self.second.label}: same {self.how} ({self.detail})"


def duplicates(records: Iterable[Record], *, threshold: float = FUZZY_THRESHOLD,
               within: bool = True, fuzzy: bool = True) -> list[Match]:
    """Every pair of records that the five tests find to be the same work, once per pair, with
    the surest test that matched, in the order of the records. ``within=False`` leaves out pairs
    from the same place (the pool against itself, say), whose uniqueness their loaders check
    already; ``fuzzy=False`` runs only the sure tests."""
    records = list(records)
    found: dict[tuple[int, int], Match] = {}

    def add(i: int, j: int, how: str, detail: str) -> None:
        if i == j or (not within and records[i].where == records[j].where):
            return
        pair = (min(i, j), max(i, j))
        if pair not in found:
            found[pair] = Match(records[pair[0]], records[pair[1]], how, detail)

    tests = [("arXiv id", lambda r: r.arxiv), ("DOI", lambda r: r.doi),
             ("title", lambda r: {r.words} if r.words else set())]
    if fuzzy:
        tests.append(("look-alike title", lambda r: {r.look} if r.look else set()))
    for how, keys in tests:
        index: dict[str, list[int]] = defaultdict(list)
        for i, record in enumerate(records):
            for key in keys(record):
                index[key].append(i)
        for key, members in index.items():
            for i, j in _pairs(members):
                if how != "look-alike title":
                    add(i, j, how, key)
                elif records[i].words != records[j].words:
                    add(i, j, how, f"{records[i].title!r} ~ {records[j].title!r}")
    if fuzzy:
        sets = [frozenset(r.look.split()) for r in records]
        for i, j in _fuzzy_candidates(records, sets):
            if (i, j) in found:
                continue
            a, b = records[i], records[j]
            shared = 100.0 * len(sets[i] & sets[j]) / max(len(sets[i]), len(sets[j]), 1)
            score = fuzz.token_sort_ratio(a.look, b.look, processor=None)
            if score >= threshold or shared >= SHARED_WORDS:
                add(i, j, "fuzzy title", f"token sort {score:.0f}, {shared:.0f} % of the words "
                                         f"shared: {a.title!r} ~ {b.title!r}")
    return [found[pair] for pair in sorted(found)]


GROUP = 8  # records sharing one key: every pair up to this many, else each with the first


def _pairs(members: list[int]) -> list[tuple[int, int]]:
    """The pairs to report among records that share a key: all of them for a few records; for
    more than :data:`GROUP`, each with the first (the pairs would grow with the square)."""
    if len(members) <= GROUP:
        return [(i, j) for n, i in enumerate(members) for j in members[n + 1:]]
    return [(members[0], j) for j in members[1:]]


def _fuzzy_candidates(records: list[Record], word_sets: list[frozenset[str]]
                      ) -> list[tuple[int, int]]:
    """The pairs ``(i, j)``, ``i < j``, the fuzzy test compares (see the module docstring):
    titles of at least :data:`MIN_WORDS` words that share two of the rarest words a pair
    sharing :data:`SHARED_WORDS` per cent of its words must share (prefix filtering, among the
    words of at most :data:`COMMON_WORD` titles)."""
    sets = {i: words for i, (r, words) in enumerate(zip(records, word_sets))
            if len(r.look.split()) >= MIN_WORDS}
    frequency = Counter(word for words in sets.values() for word in words)
    share = SHARED_WORDS / 100
    index: dict[str, list[int]] = defaultdict(list)
    pairs = []
    for i in sorted(sets, key=lambda i: (len(sets[i]), i)):  # shorter titles first
        words = sets[i]
        ordered = sorted(words, key=lambda w: (frequency[w], w))
        prefix = [w for w in ordered[: len(ordered) - math.ceil(share * len(ordered)) + 2]
                  if frequency[w] <= COMMON_WORD]
        counts = Counter(itertools.chain.from_iterable(index[w] for w in prefix))
        shortest = share * len(words)
        pairs.extend((min(i, j), max(i, j)) for j, n in counts.items()
                     if n >= 2 and len(sets[j]) >= shortest)
        for word in prefix:
            index[word].append(i)
    return sorted(pairs)
