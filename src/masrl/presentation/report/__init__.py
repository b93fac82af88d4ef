"""The trace report: what ``masrl report`` writes and what the book's chapter 22 shows, from
one set of section builders (:mod:`.sections`), rendered straight from a validation report and
a replay, in-process (no notebook, no kernel, no pandas, no Altair).

* :mod:`.facts`: the replay's figures, and what the log cannot support (*not recorded*, why);
* :mod:`.words`: figures as a reader says them;
* :mod:`.names`: names as the pages show them, a long one shortened and told apart;
* :mod:`.agents`, :mod:`.agent_graph`: the agents, and who worked with whom (SVG built here);
* :mod:`.timeline`: the timeline as a Vega-Lite specification (a plain dictionary), binned
  when crowded, on a step axis when the log has no clock;
* :mod:`.blocks`, :mod:`.sections`: the pieces and the sections of the report;
* :mod:`.page`, :mod:`.bundle`: one self-contained HTML page, with vl-convert's copy of Vega.
"""

from __future__ import annotations

from masrl.presentation.report.sections import SECTIONS, Subject, build, replayed, verdict

__all__ = ["SECTIONS", "Subject", "build", "replayed", "verdict", "page_title"]


def page_title(head: dict | None, label: str) -> str:
    """The page's title: the trace's id, else how the report names the file."""
    from masrl.presentation.report.names import shown

    trace_id = (head or {}).get("trace_id")
    return f"Trace report: {shown(trace_id) if trace_id else label}"
