"""The numbering extension: a chapter's number is its file number, the bibliography has none,
and captions are numbered per chapter in page order."""

from __future__ import annotations

import importlib.util
import types

from docutils import nodes

from masrl import paths

SPEC = importlib.util.spec_from_file_location(
    "numbering", paths.REPO_ROOT / "book" / "_ext" / "numbering.py")
numbering = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(numbering)


def test_chapters_take_their_file_numbers():
    reference = nodes.reference("", "", secnumber=[3])
    toc = nodes.bullet_list("", nodes.list_item("", reference))
    title = nodes.title("", "", secnumber=[3])
    env = types.SimpleNamespace(
        toc_secnumbers={"notebooks/26_training_runs": {"": (3,), "#tables": (3, 2)},
                        "book/bibliography": {"": (4,)}},
        toc_fignumbers={"notebooks/26_training_runs": {"figure": {"f": (3, 1)}}},
        tocs={"notebooks/26_training_runs": toc},
        titles={"notebooks/26_training_runs": title})
    numbering.renumber(None, env)
    assert env.toc_secnumbers == {"notebooks/26_training_runs": {"": (26,), "#tables": (26, 2)}}
    assert env.toc_fignumbers["notebooks/26_training_runs"]["figure"]["f"] == (26, 1)
    assert reference["secnumber"] == (26,) and title["secnumber"] == (26,)


def test_captions_are_numbered_in_page_order():
    body = ('<table><caption class="masrl-caption">A</caption></table>'
            '<figure><figcaption class="masrl-caption">B</figcaption></figure>'
            '<table><caption class="masrl-caption">C</caption></table>')
    numbered = numbering.caption_numbers(body, 10)
    assert '<span class="masrl-number">Table 10.1.</span> A' in numbered
    assert '<span class="masrl-number">Figure 10.1.</span> B' in numbered
    assert '<span class="masrl-number">Table 10.2.</span> C' in numbered
    assert '<span class="masrl-number">Table 1.</span>' in numbering.caption_numbers(body, None)
