"""``masrl validate --json`` and ``masrl replay --json`` print, byte for byte, what they printed
before the engine was made faster (issue 30): on the examples, every trace fixture, hostile
traces and a synthetic swarm (:mod:`engine_outputs` lists them and writes the expected outputs;
regenerate them only for an intended change of output, and say so in ``CHANGELOG.md``)."""

from __future__ import annotations

import json

import pytest
from engine_outputs import EXPECTED, cases, outputs

CASES = cases()


def test_every_case_has_its_expected_output_and_no_other_is_kept():
    assert sorted(p.stem for p in EXPECTED.glob("*.json")) == sorted(c.name for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_output_is_what_it_was(case, tmp_path):
    expected = json.loads((EXPECTED / f"{case.name}.json").read_text(encoding="utf-8"))
    found = outputs(case, tmp_path)
    for command in expected:
        assert found[command] == expected[command], command
