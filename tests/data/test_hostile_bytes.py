"""Property: whatever bytes stand in a data file, reading it through :class:`Dataset` gives
problems (``DataError``), never another exception, and every problem prints on one line.

Three kinds of content for each data file: random bytes; the real file with hostile fragments
inserted, deleted or substituted at random places (so the damage reaches the deep checks, not
only the parser); and random Unicode text. ``MASRL_FUZZ_EXAMPLES`` raises the number of examples
(and draws new ones each run) for a longer search than CI's; by default the examples are drawn
from a fixed seed, so CI runs the same ones every time.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from masrl import paths
from masrl.data.dataset import Dataset
from masrl.data.problems import DataError, DataProblem

ATTRIBUTE = {  # data file -> the Dataset attribute that reads it
    paths.VOCABULARY: "vocabulary", paths.PAPERS: "papers", paths.EXCLUDED: "excluded",
    paths.SPOTCHECK: "spotcheck", paths.BIBTEX: "bibliography", paths.TAXONOMY: "taxonomy",
    paths.PUBLISHED: "published", paths.AUDIT: "audit", paths.NEAR_MISSES: "near_misses",
    paths.BENCHMARK_COVERAGE: "benchmark_coverage", paths.ENVELOPES: "envelopes",
    paths.CLAIMS: "claims", paths.LOG_SOURCES: "log_sources",
    paths.WHO_AND_WHEN_PUBLISHED: "who_and_when_published",
}
ORIGINAL = {name: paths.data_file(name).read_bytes() for name in ATTRIBUTE}

FRAGMENTS = [
    b"\xff", b"\xc3", b"\xef\xbb\xbf", b"\xfe\xff", b"\x00", b"\x1b[2K", b"\r", b"\n", b"\r\n",
    b"\t", b'"', b"'", b",", b";", b":", b": ", b"- ", b"? ", b"#", b"%", b"\\", b"|", b">",
    b"{", b"}", b"[", b"]", b"(", b")", b"@misc{", b"@string{", b"@comment{", b"=", b"&a ",
    b"*a", b"<<: ", b"!!python/object/apply:os.system ['true']", b"!!binary ", b"!tag ",
    b"---\n", b"...\n", "٣".encode(), "²".encode(), "２０２６".encode(), "\u2028".encode(),
    "\u202e".encode(), b"2020.5", b"2026-13-45", b"1e999", b".nan", b"-.inf", b"NA", b"null",
    b"~", b"yes", b"no", b"9" * 5000, b"[" * 300, b"{a: " * 100, b"x" * 20_000,
    b"<script>alert(1)</script>", b"javascript:alert(1)",
]


@st.composite
def damaged(draw, name: str) -> bytes:
    """The real file with a few hostile edits at random places."""
    data = bytearray(ORIGINAL[name])
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        edit = draw(st.sampled_from(["insert", "delete", "replace"]))
        fragment = draw(st.sampled_from(FRAGMENTS))
        if edit == "insert":
            data[at:at] = fragment
        elif edit == "delete":
            del data[at:at + draw(st.integers(1, 200))]
        else:
            data[at:at + len(fragment)] = fragment
    return bytes(data)


def contents(name: str) -> st.SearchStrategy[bytes]:
    return st.one_of(
        st.binary(max_size=3000),
        damaged(name),
        st.text(max_size=500).map(str.encode),
    )


EXAMPLES = int(os.environ.get("MASRL_FUZZ_EXAMPLES", "0")) or None
FUZZ = settings(max_examples=EXAMPLES or 12, derandomize=EXAMPLES is None, database=None,
                deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                      HealthCheck.too_slow])


def assert_only_problems(data_dir, attribute: str) -> list[DataProblem]:
    try:
        getattr(Dataset(data_dir), attribute)
    except DataError as exc:
        problems = exc.problems
    else:
        problems = []
    for problem in problems:
        assert isinstance(problem, DataProblem)
        assert len(str(problem).splitlines()) == 1, str(problem)
    return problems


@pytest.mark.parametrize("name", sorted(ATTRIBUTE))
def test_hostile_bytes_give_problems_not_exceptions(data_copy, name):
    @FUZZ
    @given(content=contents(name))
    def check(content: bytes) -> None:
        (data_copy / name).write_bytes(content)
        problems = assert_only_problems(data_copy, ATTRIBUTE[name])
        if content == ORIGINAL[name]:
            assert problems == []

    check()


@pytest.mark.parametrize("name", [paths.VOCABULARY, paths.PAPERS, paths.TAXONOMY])
def test_every_file_checked_against_a_damaged_one_gives_problems_only(data_copy, name):
    """The files that others are checked against: a damaged one must not break those checks."""
    @settings(FUZZ, max_examples=(EXAMPLES or 4))
    @given(content=damaged(name))
    def check(content: bytes) -> None:
        (data_copy / name).write_bytes(content)
        problems = Dataset(data_copy).problems()
        assert all(len(str(p).splitlines()) == 1 for p in problems)

    check()


def test_random_bytes_are_reported_against_their_file(data_copy):
    """A file of random bytes is never taken for valid data."""
    @FUZZ
    @given(content=st.binary(min_size=1, max_size=3000), name=st.sampled_from(sorted(ATTRIBUTE)))
    def check(content: bytes, name: str) -> None:
        (data_copy / name).write_bytes(content)
        problems = assert_only_problems(data_copy, ATTRIBUTE[name])
        assert any(p.file == name for p in problems)
        (data_copy / name).write_bytes(ORIGINAL[name])

    check()


def test_the_data_commands_never_raise(data_copy, capsys):
    """``check-data``, ``stats`` and ``claims`` on a damaged file: an exit code of 1 or 2 and
    problem lines, never an exception (which the command would print as a traceback)."""
    from masrl.commands import main

    @settings(FUZZ, max_examples=(EXAMPLES or 15))
    @given(name=st.sampled_from(sorted(ATTRIBUTE)), command=st.sampled_from(
        ["check-data", "stats", "claims"]), data=st.data())
    def check(name: str, command: str, data) -> None:
        content = data.draw(st.one_of(damaged(name), st.binary(max_size=500)))
        (data_copy / name).write_bytes(content)
        code = main([command, "--data-dir", str(data_copy)])
        err = capsys.readouterr().err
        assert code in (0, 1, 2)
        assert all("\x1b" not in line for line in err.splitlines())
        (data_copy / name).write_bytes(ORIGINAL[name])

    check()
