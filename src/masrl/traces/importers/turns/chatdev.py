"""Import a ChatDev run log (the text file of its chat chain) as an orchestration trace: phases
become the chain's delegations, role-play turns messages, usage entries the turns' model calls.
Chapter 23 of the book tells the mapping.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import datetime
from pathlib import Path

from masrl.traces.importers._kit.common import ImportResult, SourceError, content_ref, latest_end, read_text
from masrl.traces.importers._kit.numbers import amount, count
from masrl.traces.importers._kit.sampling import Sample
from masrl.traces.importers._kit.sequential import Turns, usage_fields

FORMAT = "chatdev"
UNIT = "log entry"
SYSTEM = "System"
ENTRY = re.compile(r"^\[(?P<when>[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}) (?P<level>[A-Z]+)\] "
                   r"(?P<head>.*)$", re.MULTILINE)
TURN = re.compile(r"^(?P<speaker>[^*:\n][^:\n]*?): \*\*(?P<a>[^*<]+?)<->(?P<b>[^*]+?) on : "
                  r"(?P<phase>[^,*]+), turn (?P<turn>[0-9]+)\*\*")
START = re.compile(r"^(?P<speaker>[^*:\n][^:\n]*?): \*\*\[Start Chat\]\*\*")
TABLE_ROW = re.compile(r"^\| \*\*(?P<key>[a-z_]+)\*\* \| (?P<value>.*?) \|\s*$", re.MULTILINE)
TOKENS = re.compile(r"^(?P<key>prompt_tokens|completion_tokens|cost): (?P<value>.*?)\s*$",
                    re.MULTILINE)
SKIPS = {
    "flask app.py did not start": "web log notice: not a step of the run",
    "**[Preprocessing]**": "preprocessing: the run's configuration",
    "System: **[RolePlaying]**": "role-play setup: carried by the phase's decision",
    "**[Seminar Conclusion]**": "seminar conclusion: repeats the phase's last turn",
    "**[Update Codes]**": "code files written: the chain's bookkeeping",
    "**[Rewrite Codes]**": "code files written: the chain's bookkeeping",
    "**[Execute Detail]**": "test run: the chain runs the software",
    "**[Test Reports]**": "test run: the chain runs the software",
    "**[Software Info]**": "statistics: the run's software info",
    "**[Post Info]**": "statistics: the run's totals",
    "HTTP Request:": "HTTP request line: the call's usage entry carries it",
    "**[OpenAI_Usage_Info Send]**": "model request: the Receive entry after it states the usage",
}
NO_PRICE_COST = re.compile(r"-1(?:\.0*)?")
NO_PRICE = "cost -1 (ChatDev has no price for the model): not recorded"
HUMAN = ("**[Human-Agent-Interaction]**", "**[User Provided Comments]**")
PROMPT_ENGINEER = "Prompt Engineer: "  # the task prompt's self-improvement, one model call
UNKNOWN_HEAD = re.compile(r"\*\*\[(?P<what>[^\]]+)\]\*\*|^(?P<words>\S+(?: \S+)?)")


def _entries(path: Path, text: str) -> list[tuple[int, datetime, str, str]]:
    """``(line, time, head, body)`` of every entry."""
    matches = list(ENTRY.finditer(text))
    if not matches or text[:matches[0].start()].strip():
        raise SourceError(path, 1, "not a ChatDev log: expected entries that start with "
                          "'[YYYY-DD-MM HH:MM:SS INFO]'")
    entries = []
    line, counted = 1, 0  # the line of character ``counted``, counted on entry by entry
    for k, match in enumerate(matches):
        end = matches[k + 1].start() if k + 1 < len(matches) else len(text)
        line, counted = line + text.count("\n", counted, match.start()), match.start()
        entries.append((line, _when(path, line, match["when"]), match["head"],
                        text[match.end():end]))
    return entries


def _when(path: Path, line: int, text: str) -> datetime:
    """ChatDev's ``%Y-%d-%m %H:%M:%S``, else ``%Y-%m-%d`` (a logger configured otherwise)."""
    for layout in ("%Y-%d-%m %H:%M:%S", "%Y-%m-%d %H:%M:%S"):
        try:
            return datetime.strptime(text, layout)
        except ValueError:
            continue
    raise SourceError(path, line, f"the entry's time {text!r} is no date")


def import_file(path: str | Path) -> ImportResult:
    """The trace of one ChatDev log (chapter 23 of the book)."""
    path = Path(path)
    entries = _entries(path, read_text(path))
    result = ImportResult(FORMAT, str(path), {}, files=[str(path)], skipped=Counter(),
                          repairs=Counter())
    account = result.account
    account.unit = UNIT
    turns = Turns()
    first = entries[0][1]
    phase: dict[str, str] = {}
    pending: list[tuple[int, float, float, float]] = []  # (line, tokens in, out, dollars)
    phases = Counter()

    def drop_pending():
        for _line, tokens_in, tokens_out, cost in pending:
            account.skip("model usage without a turn that follows", usage={
                "tokens_in": tokens_in, "tokens_out": tokens_out, "cost_usd": cost})
        pending.clear()

    def priced() -> dict:
        """The model-call fields of the first usage entry that waits (none: no fields)."""
        if not pending:
            return {}
        usage_line, tokens_in, tokens_out, cost = pending.pop(0)
        model = usage_fields(tokens_in, tokens_out, f"{path.name}:{usage_line}")
        if cost:
            model["cost_usd"] = cost
        account.map()  # the usage entry: carried by the turn it priced
        return model

    for line, when, head, body in entries:
        account.read()
        t = (when - first).total_seconds()
        base = {"id": f"l{line}", "t": max(t, 0.0), "x_source": f"{path.name}:{line}"}
        if head.startswith("**[OpenAI_Usage_Info Receive]**"):
            stated = {m["key"]: m["value"] for m in TOKENS.finditer(body)}  # text: no repair
            tokens_in = count(stated.get("prompt_tokens"), path, line, "prompt_tokens") or 0
            tokens_out = count(stated.get("completion_tokens"), path, line,
                               "completion_tokens") or 0
            cost, text = 0.0, stated.get("cost", "").removeprefix("$")
            if "cost" in stated and NO_PRICE_COST.fullmatch(text):
                result.repairs[NO_PRICE] += 1  # ChatDev's -1: a model without a price
            elif "cost" in stated:
                cost = amount(text, path, line, "cost")
            account.state_usage(tokens_in=tokens_in, tokens_out=tokens_out, cost_usd=cost)
            pending.append((line, tokens_in, tokens_out, cost))
            continue
        if head.startswith("System: **[chatting]**"):
            drop_pending()  # a new phase: what waits priced no turn of the last one
            rows = {m["key"]: m["value"].strip() for m in TABLE_ROW.finditer(body)}
            phase = {"name": rows.get("phase_name", ""),
                     "assistant": rows.get("assistant_role_name", ""),
                     "user": rows.get("user_role_name", "")}
            phases[phase["name"]] += 1
            turns.turn(**base, type="orchestrator_decision", agent=SYSTEM, decision="delegate",
                       to=phase["assistant"] or None, x_phase=phase["name"] or None,
                       content_ref=content_ref(rows))
            account.map()
            continue
        if head.startswith("System: **[RolePlaying]**"):  # skipped below; its roles are read
            rows = {m["key"]: m["value"].strip() for m in TABLE_ROW.finditer(body)}
            phase = {**phase, "assistant": rows.get("assistant_role_name", phase.get("assistant")),
                     "user": rows.get("user_role_name", phase.get("user"))}
        turn = TURN.match(head)
        start = START.match(head)
        if turn or start:
            speaker = (turn or start)["speaker"].strip()
            if turn:
                pair = (turn["a"].strip(), turn["b"].strip())
                other = pair[1] if speaker == pair[0] else pair[0]
            else:
                other = phase.get("assistant") if phase.get("assistant") != speaker \
                    else phase.get("user")
            model = priced() if turn else {}
            turns.turn(**base, type="message", agent=speaker, to=other or None,
                       content_ref=content_ref(body.strip()),
                       x_phase=(turn["phase"].strip() if turn else phase.get("name")) or None,
                       **model)
            account.map()
            continue
        if head.startswith(PROMPT_ENGINEER):  # its reply, written as "role: text"
            turns.turn(**base, type="message", agent=PROMPT_ENGINEER.removesuffix(": "),
                       to="User", content_ref=content_ref((head + body).strip()), **priced())
            account.map()
            continue
        if head.startswith(HUMAN):
            turns.turn(**base, type="message", agent="human", role="human",
                       content_ref=content_ref(body.strip()))
            account.map()
            continue
        reason = next((why for prefix, why in SKIPS.items() if head.startswith(prefix)), None)
        if reason is None:
            what = UNKNOWN_HEAD.search(head)
            label = (what["what"] or what["words"]) if what else head[:30]
            reason = f"unknown record type: {label}"
        account.skip(reason)
    drop_pending()
    if not turns.events:
        raise _nothing_read(path, entries, account.reasons)
    raised = turns.build.raise_times()
    if raised:
        result.repairs["event time raised to the time of an event it depends on"] += raised
    result.recognised = {"system": "chatdev", "shape": "log",
                         "evidence": f"ChatDev log entries '[time INFO] ...' with "
                                     f"{len(phases)} chat-chain phases"}
    events = turns.events
    result.trace = turns.build.document(
        trace_id=f"{FORMAT}:{path.stem}", task_id=path.stem, system="ChatDev",
        topology="planner_executor_critic", rewards={},
        costs={"tokens": sum(e.get("tokens", 0) for e in events),
               "wall_clock_s": latest_end(events),
               "messages": turns.build.count("message")})
    return result.with_provenance()


def _nothing_read(path: Path, entries: list, reasons: Counter) -> SourceError:
    """The refusal of a log none of whose entries is a phase or a turn (a run that stopped
    after its setup, a pre-release layout): what its entries are, from the first one's head."""
    line, _, head, _ = entries[0]
    shown = head if len(head) <= 60 else head[:60] + "..."
    kinds = "; ".join(f"{n} {why}" for why, n in reasons.most_common(2))
    other = len(reasons) - 2
    more = f"; {other} other kind{'s' * (other > 1)}" if other > 0 else ""
    return SourceError(path, line, f"no entry of the log is a phase ('System: **[chatting]**') "
                       f"or a turn: its {len(entries)} entries start with {shown!r}, skipped as "
                       f"{kinds}{more} (a run that stopped after its setup, or a layout "
                       "ChatDev wrote before its release)")


def import_traces(path: str | Path) -> list[ImportResult]:
    """The one run the log holds, as a list (the format holds one run per file)."""
    return [import_file(path)]


def sniff(sample: Sample) -> str | None:
    """A ChatDev log: text entries ``[YYYY-DD-MM HH:MM:SS INFO] ...`` with ChatDev's markers
    (``**[Preprocessing]**``, ``**ChatDev Starts**``, ``System: **[chatting]**``, role
    turns ``A<->B on : Phase, turn n``)."""
    text = sample.text
    if text is None:
        return None
    first = ENTRY.search(text)
    if first is None or text[:first.start()].strip():
        return None
    markers = ("**[Preprocessing]**", "**ChatDev Starts**", "System: **[chatting]**",
               "**[Start Chat]**")
    if any(marker in text for marker in markers) or TURN.search(text):
        return "a ChatDev log: '[time INFO]' entries of a chat chain"
    return None


def refusal(sample: Sample) -> str:
    """What the sniffer looked for."""
    return "looks for a ChatDev text log ('[YYYY-DD-MM HH:MM:SS INFO]' entries of a chat chain)"
