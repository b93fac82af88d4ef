"""Whether two records of the pool, the exclusion log or the candidates are the same work.

Four tests, from the surest to the loosest, each reported with what matched:

* **arXiv id** without its version: ``2412.01928``, ``arXiv:2412.01928v2``,
  ``https://arxiv.org/abs/2412.01928v3``, ``https://arxiv.org/pdf/2412.01928.pdf`` and the arXiv
  DOI ``10.48550/arXiv.2412.01928`` are one id;
* **DOI** (other than arXiv's), read from an identifier (``doi:10...``), a ``doi.org`` address
  or a publisher's ``/doi/`` address, compared without regard to case;
* **normalised title**: the same words once accents, case, punctuation and spacing are set
  aside (``Dr. MAS:`` and ``dr mas``);
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

Nothing here reads a file: the loaders and ``masrl intake`` build :class:`Record` objects from
their rows and call :func:`duplicates`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field

from rapidfuzz import fuzz

FUZZY_THRESHOLD = 85.0  # token_sort_ratio (0-100) from which two titles are shown as possible duplicates
SHARED_WORDS = 72.0  # per cent of the longer title's distinct words found in the other
MIN_WORDS = 4  # titles with fewer words are compared exactly only
SURE = ("arXiv id", "DOI", "title")  # the tests whose matches are certain; "fuzzy title" is not

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
    """The pieces of a cell: several addresses are separated by ``;`` or spaces."""
    return [p for p in re.split(r"[\s;]+", text or "") if p]


def normalise_title(title: str) -> str:
    """A title's words: accents and case set aside, punctuation as spaces, single spaces."""
    decomposed = unicodedata.normalize("NFKD", title)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()
    return " ".join(re.sub(r"[^\w]+", " ", plain).replace("_", " ").split())


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

    def __post_init__(self):
        object.__setattr__(self, "arxiv", frozenset(arxiv_ids(*self.identifiers)))
        object.__setattr__(self, "doi", frozenset(dois(*self.identifiers)))
        object.__setattr__(self, "words", normalise_title(self.title))

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
               within: bool = True) -> list[Match]:
    """Every pair of records that the four tests find to be the same work, once per pair, with
    the surest test that matched. ``within=False`` leaves out pairs from the same place (the
    pool against itself, say), whose uniqueness their loaders check already."""
    records = list(records)
    found: dict[tuple[int, int], Match] = {}

    def add(i: int, j: int, how: str, detail: str) -> None:
        if i == j or (not within and records[i].where == records[j].where):
            return
        pair = (min(i, j), max(i, j))
        if pair not in found:
            found[pair] = Match(records[pair[0]], records[pair[1]], how, detail)

    for how, keys in (("arXiv id", lambda r: r.arxiv), ("DOI", lambda r: r.doi),
                      ("title", lambda r: {r.words} if r.words else set())):
        seen: dict[str, list[int]] = {}
        for i, record in enumerate(records):
            for key in keys(record):
                for j in seen.get(key, []):
                    add(j, i, how, key)
                seen.setdefault(key, []).append(i)
    for i, a in enumerate(records):
        if len(a.words.split()) < MIN_WORDS:
            continue
        for j in range(i + 1, len(records)):
            b = records[j]
            if (i, j) in found or len(b.words.split()) < MIN_WORDS:
                continue
            score = fuzz.token_sort_ratio(a.words, b.words)
            shared = shared_words(a.words, b.words)
            if score >= threshold or shared >= SHARED_WORDS:
                add(i, j, "fuzzy title", f"token sort {score:.0f}, {shared:.0f} % of the words "
                                         f"shared: {a.title!r} ~ {b.title!r}")
    return [found[pair] for pair in sorted(found)]
