"""The events and edges of an ATIF run: each step of each trajectory in turn (agent steps,
user steps, system steps that hand off), the results of its tool calls, and the sub-agent
trajectories a result references, walked where they are spawned."""

from __future__ import annotations

import re

from atif import Trajectory

from masrl.traces import strict_json
from masrl.traces.importers._kit.common import ImportResult, SourceError, TraceBuilder, content_ref
from masrl.traces.importers._kit.numbers import count
from masrl.traces.importers.sessions.atif.trajectories import Trajectories, micro, step_results

MAIN = "main"
HUMAN = "user"
TERMINAL_TOOL = "bash_command"  # the tool name Terminus gives a keystroke command


def masrl_block(extra) -> dict | None:
    """The ``extra.masrl`` block of a step or result (``None`` when absent)."""
    block = extra.get("masrl") if isinstance(extra, dict) else None
    return block if isinstance(block, dict) else None


def restorable(block: dict | None) -> bool:
    """Whether an ``extra.masrl`` block holds an event (an id, a type, an agent and a time)."""
    return (block is not None
            and all(isinstance(block.get(k), str) for k in ("id", "type", "agent"))
            and isinstance(block.get("t"), (int, float)))


def terminal_commands(message) -> list:
    """The commands of a terminal agent's raw response (Harbor's Terminus, when it keeps the
    model's raw text in the trajectory instead of ``tool_calls``): the ``commands`` list of a
    JSON response (each with ``keystrokes``), or the ``<keystrokes>`` elements of an XML one;
    empty when the message is neither."""
    if not isinstance(message, str) or "keystrokes" not in message:
        return []
    text = message.strip()
    first, last = text.find("{"), text.rfind("}")
    if first != -1 and last > first:
        document, findings = strict_json.parse_fast(text[first:last + 1])
        commands = document.get("commands") if not findings and isinstance(document, dict) \
            else None
        if isinstance(commands, list):
            return [c for c in commands if isinstance(c, dict) and "keystrokes" in c]
    return re.findall(r"<keystrokes\b[^>]*>(.*?)</keystrokes>", text, flags=re.S)


def message_content(message):
    """A step's message as hashable content: the string, or its parts as JSON."""
    if isinstance(message, list):
        return [part.model_dump(mode="json", exclude_none=True) for part in message]
    return message


class Walker:
    """Writes the events and edges of the run's trajectories into :attr:`build`."""

    def __init__(self, trajectories: Trajectories, result: ImportResult, start: int,
                 exported: bool):
        self.trajectories = trajectories
        self.result = result
        self.account = result.account
        self.start = start  # the run's first time, in microseconds
        self.exported = exported  # the file is masrl's own export (extra.masrl has trace_id)
        self.build = TraceBuilder(duplicate=self.duplicate)
        self.answers: set[tuple[str, str]] = set()
        self.walked: set[int] = set()

    def duplicate(self, ident: str, first: dict, fields: dict) -> SourceError:
        """Two steps give one event id: ids restored from ``extra.masrl`` (or step ids that
        repeat) collide; the log, not the importer, is at fault."""
        return SourceError(self.trajectories.path, fields.get("x_source"),
                           f"event id {ident!r} is given twice (first at "
                           f"{first.get('x_source', 'an earlier step')}): restored ids "
                           "(extra.masrl.id) and step ids must be unique")

    def time(self, step, previous: float) -> float:
        if step.timestamp:
            return (micro(step.timestamp) - self.start) / 1_000_000
        self.result.repairs["step without timestamp (the time of the step before)"] += 1
        return previous


    def walk(self, trajectory: Trajectory, agent: str, spawner: str | None,
             spawn: str | None, where: str, file: str, frontier: list[str],
             prefix: str | None = None) -> list[str]:
        """Emit the events of one trajectory (one segment of it); return the events that end
        it."""
        self.walked.add(id(trajectory))
        if prefix is None:
            prefix = "" if spawner is None else f"{agent}:"
        model = trajectory.agent.model_name
        t = self.build.by_id[spawn]["t"] if spawn else (
            self.build.by_id[frontier[-1]]["t"] if frontier else 0.0)
        actions: list[str] = []
        first_user = True
        for k, step in enumerate(trajectory.steps):
            place = f"{where}steps[{k}]"
            self.account.read()
            if step.is_copied_context:
                self.account.skip("step copied from an earlier trajectory (is_copied_context)")
                self.trajectories.features["copied-context step"] += 1
                continue
            t = self.time(step, t)
            if step.reasoning_content is not None:
                self.account.skip_part("reasoning_content of an agent step")
            base = f"{prefix}s{step.step_id}"
            restored = masrl_block(step.extra)
            new, results = [], []
            if restorable(restored):
                event = self.event(restored, place)
                new.append(event)
                self.account.state_usage(cost_usd=self.build.by_id[event].get("cost_usd", 0))
            elif step.source == "system":
                new.extend(self.loose_spawns(step, agent, base, t, place))
            elif step.source == "user":
                if spawner is not None and first_user and spawn is not None:
                    self.result.repairs["sub-agent task (its first user step) carried by its "
                                        "spawn event"] += 1
                else:
                    sender = HUMAN if spawner is None else spawner
                    new.append(self.build.event(
                        id=base, t=t, type="message", agent=sender,
                        role="human" if sender == HUMAN else None, to=agent,
                        content_ref=content_ref(message_content(step.message)), x_source=place)["id"])
                first_user = False
            else:
                new.extend(self.agent_step(step, agent, spawner, base, t, place, model))
            self.link_all(frontier, new, actions)
            calls = {c.tool_call_id: c for c in step.tool_calls or []}
            for j, result in enumerate(self.results(step)):
                rplace = f"{place}.observation.results[{j}]"
                results.extend(self.result_events(result, step, calls, new, agent, base, j, t,
                                                  rplace, file))
            if new or results or (step.source == "user" and spawner is not None):
                self.account.map()
            else:
                self.account.skip("system step (system prompt or infrastructure event)")
            actions = new or actions
            frontier = results or new or frontier
        return frontier


    def results(self, step) -> list:
        return step_results(step)

    def event(self, block: dict, place: str) -> str:
        fields = {k: v for k, v in block.items() if k not in ("id", "t", "type", "agent")}
        return self.build.event(id=block["id"], t=block["t"], type=block["type"],
                                agent=block["agent"], **fields, x_source=place)["id"]


    def ids(self, base: str, count: int):
        return iter([base] if count == 1 else [f"{base}.{k}" for k in range(count)])


    def loose_spawns(self, step, agent, base, t, place, ids=None) -> list[str]:
        """A ``spawn`` by ``agent`` for every sub-agent a result of ``step`` references without
        naming a call (Terminus's context summarization hands off to three sub-agents from a
        system step this way)."""
        refs = [(j, m, ref) for j, r in enumerate(self.results(step))
                if r.subagent_trajectory_ref and r.source_call_id is None
                and not restorable(masrl_block(r.extra))
                for m, ref in enumerate(r.subagent_trajectory_ref)]
        ids = ids or self.ids(base, len(refs))
        events = []
        for j, m, ref in refs:
            where = f"{place}.observation.results[{j}].subagent_trajectory_ref[{m}]"
            events.append(self.build.event(
                id=next(ids), t=t, type="spawn", agent=agent, to=self.trajectories.resolve(ref, where)[1],
                x_source=place)["id"])
        return events


    def agent_step(self, step, agent, spawner, base, t, place, model) -> list[str]:
        calls = list(step.tool_calls or [])
        results = self.results(step)
        referring = {r.source_call_id: r for r in results
                     if r.subagent_trajectory_ref and r.source_call_id is not None}
        loose = sum(len(r.subagent_trajectory_ref) for r in results
                    if r.subagent_trajectory_ref and r.source_call_id is None
                    and not restorable(masrl_block(r.extra)))
        commands = terminal_commands(step.message) if not calls else []
        if commands:
            self.trajectories.features["terminal commands read from a raw response"] += 1
        acts = sum(len(referring[c.tool_call_id].subagent_trajectory_ref)
                   if c.tool_call_id in referring else 1 for c in calls) + loose + len(commands)
        says = bool(step.message) if isinstance(step.message, (str, list)) else False
        says = says and not commands
        ids = self.ids(base, acts + (1 if says or not acts else 0))
        events = []
        if says or not acts:
            events.append(self.build.event(id=next(ids), t=t, type="message", agent=agent,
                                           to=HUMAN if spawner is None else None,
                                           content_ref=content_ref(message_content(step.message)),
                                           x_source=place))
        for call in calls:
            result = referring.get(call.tool_call_id)
            if result is not None:
                j = results.index(result)
                for m, ref in enumerate(result.subagent_trajectory_ref):
                    where = f"{place}.observation.results[{j}].subagent_trajectory_ref[{m}]"
                    events.append(self.build.event(
                        id=next(ids), t=t, type="spawn", agent=agent,
                        to=self.trajectories.resolve(ref, where)[1], content_ref=content_ref(call.arguments),
                        x_source=place, x_call=call.tool_call_id))
            else:
                events.append(self.build.event(
                    id=next(ids), t=t, type="tool_call", agent=agent, tool=call.function_name,
                    content_ref=content_ref(call.arguments), x_source=place,
                    x_call=call.tool_call_id))
        events.extend(self.build.by_id[e] for e in self.loose_spawns(step, agent, base, t, place,
                                                                     ids))
        for command in commands:
            events.append(self.build.event(
                id=next(ids), t=t, type="tool_call", agent=agent, tool=TERMINAL_TOOL,
                content_ref=content_ref(command), x_source=place, x_call=""))
        self.metrics(step, events, place, model)
        return [e["id"] for e in events]


    def metrics(self, step, events: list[dict], place: str, model) -> None:
        """The step's usage (stated to the account) and model call, on its last event."""
        metrics = step.metrics
        last = events[-1] if events else None
        if metrics is not None:
            prompt, completion = metrics.prompt_tokens, metrics.completion_tokens
            total = count((metrics.extra or {}).get("total_tokens"), self.trajectories.path,
                          f"{place}.metrics.extra", "total_tokens", self.result.repairs)
            cost = metrics.cost_usd or 0
            self.account.state_usage(tokens_in=prompt or 0, tokens_out=completion or 0,
                                     cost_usd=cost)
            if prompt is not None or completion is not None:  # a side not stated is left out
                last["tokens"] = (prompt or 0) + (completion or 0)
                last["x_usage"] = {side: n for side, n in (("input", prompt),
                                                           ("output", completion))
                                   if n is not None}
                if metrics.cached_tokens is not None:
                    last["x_usage"]["cached_input"] = metrics.cached_tokens
            elif total is not None:
                last["tokens"] = total
                last["x_usage"] = {"total": total}
            if metrics.cost_usd is not None:
                last["cost_usd"] = metrics.cost_usd
        if step.llm_call_count != 0:
            last["x_model_call"] = place
            if step.llm_call_count is not None and step.llm_call_count > 1:
                last["x_llm_calls"] = step.llm_call_count
        if step.model_name or model:
            last["x_model"] = step.model_name or model


    def result_events(self, result, step, calls, new, agent, base, j, t, place,
                      file) -> list[str]:
        restored = masrl_block(result.extra)
        if result.subagent_trajectory_ref:
            refs = result.subagent_trajectory_ref
            ends_all = []
            for m, ref in enumerate(refs):
                sub, name, sub_place = self.trajectories.resolve(ref, f"{place}.subagent_trajectory_ref[{m}]")
                spawn = next((e for e in new if self.build.by_id[e]["type"] == "spawn"
                              and self.build.by_id[e].get("to") == name), None)
                ends = [spawn] if spawn else []
                if sub is not None and id(sub) not in self.walked:
                    spawner_name = self.build.by_id[spawn]["agent"] if spawn else agent
                    ends = self.walk(sub, name, spawner_name, spawn, sub_place, file, ends)
                ident = f"{base}.r{j}" if len(refs) == 1 else f"{base}.r{j}.{m}"
                if restorable(restored) and len(refs) == 1:
                    ret = self.event(restored, place)
                elif restored is None and spawn is not None and not self.exported:
                    ret = self.build.event(id=ident, t=t, type="return", agent=name,
                                           to=self.build.by_id[spawn]["agent"],
                                           content_ref=content_ref(result.content)
                                           if result.content is not None else None,
                                           x_source=place)["id"]
                else:
                    continue
                for src in ends:
                    self.link(src, ret)
                ends_all.append(ret)
            return ends_all
        if restorable(restored):
            event = self.event(restored, place)
            self.account.state_usage(cost_usd=self.build.by_id[event].get("cost_usd", 0))
            call_event = None
        else:
            call = calls.get(result.source_call_id)
            answered = self.answered(step, result, new)
            tools = {self.build.by_id[e].get("tool") for e in answered}
            tool = call.function_name if call is not None else (
                tools.pop() if len(tools) == 1 else None)
            event = self.build.event(
                id=f"{base}.r{j}", t=t, type="tool_result", agent=agent, tool=tool,
                trusted=False,
                content_ref=content_ref(result.content) if result.content is not None else None,
                x_source=place)["id"]
            for call_event in answered:
                self.answers.add((call_event, event))
                self.link(call_event, event)
            if answered:
                return [event]
        call_event = next((e for e in new if self.build.by_id[e].get("x_call")
                           == result.source_call_id), None) if result.source_call_id else None
        if call_event is not None:
            self.answers.add((call_event, event))
            self.link(call_event, event)
        else:
            source = next((e for e in new if self.build.by_id[e]["id"] == result.source_call_id),
                          None)
            if source is not None:
                self.answers.add((source, event))
                self.link(source, event)
            else:
                for src in new:
                    self.link(src, event)
        return [event]


    def answered(self, step, result, new: list[str]) -> list[str]:
        """The tool calls of ``new`` a result answers: the call it names; for a result that names
        none (Terminus's one screen after all its commands), every call of the step that no
        other result answers."""
        calls = [e for e in new if self.build.by_id[e]["type"] == "tool_call"]
        if result.source_call_id is not None:
            return [e for e in calls if self.build.by_id[e].get("x_call") == result.source_call_id]
        named = {r.source_call_id for r in self.results(step) if r.source_call_id is not None}
        return [e for e in calls if self.build.by_id[e].get("x_call") not in named]


    def link_all(self, frontier: list[str], new: list[str], actions: list[str]) -> None:
        for dst in new:
            t = self.build.by_id[dst]["t"]
            sources = [s for s in frontier if self.build.by_id[s]["t"] <= t] or [
                s for s in actions if self.build.by_id[s]["t"] <= t] or frontier
            for src in sources:
                self.link(src, dst)


    def link(self, src: str, dst: str) -> None:
        self.build.link(src, dst, self.answers, spawn_mode="blocking")
