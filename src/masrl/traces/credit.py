r"""How the team reward of a run splits over the survey's eight credit units, and what each
unit would have been worth had it not been there (counterfactual credit).

The *team reward* R is the trace's ``rewards.team`` (``None`` when the trace has no team
channel; equal splits and residuals are then ``None`` too, and the recorded splits are ``None``
when no event records a reward: unknown is not zero, :mod:`.recorded`). The eight *units* and their items:

* ``team``: one item, the team;
* ``orchestrator``: each orchestration decision: an ``orchestrator_decision`` event, a ``spawn``
  event or an ``aggregate`` event. Each is tagged with the survey's sub-decision it takes
  (numbered as the trace schema numbers them): a decision event by its ``decision`` (spawn O1, delegate O2,
  communicate O3, aggregate O4, stop O5; none when unspecified), a spawn event O1, an aggregate
  event O4;
* ``role``: each role of an agent, every event of the agent counting for that role (see
  :mod:`.replay`); agents without a role count under ``(none)``;
* ``agent``: each agent, where an agent is a name that acts in at least one event other than a
  ``tool_result``: tools that only answer calls are the environment, not credited agents. Under
  ``role``, ``agent`` and ``turn`` a ``tool_result`` counts for the agent (and its role and turn)
  whose ``tool_call`` it answers, i.e. the source of an edge from a ``tool_call`` event: a reward
  recorded on a test run's result rewards whoever ran the test. A result that answers no
  recorded call credits nobody there;
* ``turn``: each turn of an agent, named ``agent#k``; a turn starts at the agent's first event
  and at every event of it that has an incoming edge from another name's event (it acts on
  something it received: a message, a tool result, a return), and lasts until its next turn;
* ``message``: each ``message`` event; ``tool_call``: each ``tool_call`` event;
* ``token``: each token, reported per event (the event's tokens together).

Counterfactual games may also name single events of any type (unit ``event``, each event an
item).

Rules, and what each assumes:

* ``equal``: R is divided equally among the items of the unit (for ``token``, among the tokens,
  so an event receives R x its tokens / all tokens). Assumes every item contributed alike; it
  needs nothing but the graph.
* ``recorded``: every event's own ``reward`` is credited to the item of the unit it belongs to;
  events outside the unit (e.g. a tool call under ``message``) credit nothing there, and the
  ``residual`` R - total shows what the recorded rewards leave unexplained. Assumes the per-event
  rewards are additive parts of the team reward, as process rewards are designed to be.
* ``leave_one_out`` and ``shapley``: counterfactual credit, defined once for every unit below.

**Counterfactual credit.** Let N be the players of a unit (its items, see *players* below) and
v(S) the outcome of the run in which only the players of S are as recorded and the others are
changed (removed, replaced by a no-op or another choice, a stop taken later): v(N) is the run
itself. A player u's *leave-one-out* credit is

$$\phi^{\mathrm{LOO}}_u = v(N) - v(N \setminus \{u\}),$$

the change in the outcome when u alone is changed; its *Shapley* value, with n = |N|, is

$$\phi^{\mathrm{Sh}}_u = \sum_{S \subseteq N \setminus \{u\}}
\frac{|S|!\,(n - |S| - 1)!}{n!}\,\bigl(v(S \cup \{u\}) - v(S)\bigr),$$

its marginal contribution averaged over every order in which the players could join. Shapley
values add up to $v(N) - v(\emptyset)$ (efficiency), two players that change every coalition alike
get the same value (symmetry), and a player that changes none gets 0; leave-one-out values need
not add up to anything. Both assume the changed runs are comparable to the real one.

$v$ comes from one of two sources:

* *recorded rollouts*, the trace's ``counterfactuals``: each rollout names the players that were
  changed and how (or, in the older form, the coalition of players left as recorded) and the
  outcome that followed in the reward channel ``channel`` (default ``team``). $v(N)$ is that
  channel's recorded reward unless a rollout records it; $v(\emptyset)$ is 0 unless recorded. The
  rollouts name players of one unit (``agent``, ``role``, ``turn``, or event ids for
  ``orchestrator``, ``message``, ``tool_call`` and ``event``); every other unit that groups
  those players gets its own game, in which an item is changed by changing all of its players
  and players outside the unit stay as recorded. An item none of whose events is a player is
  not measured (no credit); the rollouts say nothing about it.
* an *outcome model* the caller supplies, ``outcome(without) -> float``, called with the trace
  minus the events of the changed items (:class:`Without`: its ``document()`` is the trace
  without those events and the edges that touch them), or a reward term of
  :mod:`masrl.traces.rewards` by name (:mod:`masrl.traces.outcome_models`). A model removes;
  it cannot stop a run later.

*Players.* Only consumed items play (:mod:`.consumption`: an item is consumed when a path of
edges leads from one of its events to the run's outcome). An item that nothing downstream
consumed cannot have changed the outcome the trace records, so its credit is **zero by
construction**, whatever a rollout or a model says, and it is left out of the game (a player
that changes no coalition does not change the others' Shapley values). Efficiency then holds for
the game as constructed: the values add up to $v(N) - v(\emptyset)$ over the consumed players.

*Cost.* A game is solved from the values of its coalitions. Leave-one-out needs $n + 1$ of them.
Exact Shapley values sum $n \cdot 2^{n-1}$ marginal contributions: about 25,000 for the
:data:`MAX_EXACT_SHAPLEY_PLAYERS` = 12 players of the cap, a billion for 30. Above the cap they
are *estimated* (``shapley_method`` ``monte_carlo``): orders of the players drawn uniformly with
a seeded generator (:data:`SHAPLEY_SEED`, so the same trace gives the same figures), each player
credited with the mean of its marginal contributions over them, and ``shapley_standard_error``
the standard error of that mean (sample standard deviation over the square root of the number of
orders): the exact value lies within about two standard errors of the estimate in 95% of draws.
With recorded rollouts :data:`SHAPLEY_SAMPLES` orders are drawn (looking a value up is cheap);
with an outcome model, whose every value is a call, as many orders as fit in
:data:`MODEL_EVALUATIONS` values (24,576 = 2,048 orders of 12 players, the cost of exact values
at the cap; at least 2 orders), so the cost grows with n, not 2^n. An order whose coalitions
are not all recorded makes the estimate ``None``, as a missing coalition makes exact values
``None``.

In ``to_dict`` output the items' shares are listed only for units of at most
:data:`MAX_LISTED_ITEMS` items (a million-event trace has too many turns to print); the Python
functions always return every share.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from math import factorial

import numpy as np

from masrl.traces import consumption
from masrl.traces.graph import EVENT_TYPES, run_starts
from masrl.traces.run import Run
from masrl.traces.schema import subdecision_ids

UNITS = ("team", "orchestrator", "role", "agent", "turn", "message", "tool_call", "token")
NO_ROLE = "(none)"
MAX_LISTED_ITEMS = 10_000
MAX_EXACT_SHAPLEY_PLAYERS = 12
SHAPLEY_SAMPLES = 2048
SHAPLEY_SEED = 0
MAX_COUNTED_PLAYERS = 1000  # past this, ``coalitions_needed`` (2^n) is not written out
MODEL_EVALUATIONS = SHAPLEY_SAMPLES * MAX_EXACT_SHAPLEY_PLAYERS  # values a model's estimate may ask
GAME_UNITS = ("team", "orchestrator", "role", "agent", "turn", "message", "tool_call")
EVENT_UNITS = ("event", "orchestrator", "message", "tool_call")  # their players are event ids
ORCHESTRATION_TYPES = ("orchestrator_decision", "spawn", "aggregate")
IMPLIED_DECISION = {"spawn": "spawn", "aggregate": "aggregate"}  # event type -> sub-decision
STOP_INTERVENTIONS = ("stopped_later", "stopped_earlier")  # changes only a stop decision allows


def team_reward(run: Run) -> float | None:
    """R: the trace's ``rewards.team``, or ``None``."""
    return run.trace.head["rewards"].get("team")


def items(run: Run, unit: str) -> tuple[Sequence[str], np.ndarray, np.ndarray]:
    """The unit's item names, each event's item (-1 if outside the unit) and each item's weight.

    The weight is what an equal split divides by: 1 per item, except tokens for ``token``.
    """
    events = run.trace.events
    if unit == "team":
        return ["team"], np.zeros(events.count, dtype=np.int64), np.ones(1)
    if unit == "agent":
        return _agent_items(run)
    if unit == "role":
        return _role_items(run)
    if unit == "turn":
        return _turn_items(run)
    if unit == "token":
        positions = np.flatnonzero(run.trace.numeric("tokens") > 0)
    elif unit == "event":
        positions = np.arange(events.count)
    elif unit == "orchestrator":
        positions = events.of_type(*ORCHESTRATION_TYPES)
    else:
        positions = events.of_type(unit)
    return _per_event_items(run, positions, unit)


def _per_event_items(run: Run, positions: np.ndarray, unit: str):
    events = run.trace.events
    of = np.full(events.count, -1, dtype=np.int64)
    of[positions] = np.arange(len(positions))
    weight = np.ones(len(positions))
    if unit == "token":
        weight = run.trace.numeric("tokens")[positions]
    return EventNames(events.ids, positions), of, weight


def acting(run: Run) -> np.ndarray:
    """Per agent code, whether the name acts in an event other than a ``tool_result``
    (computed once per run; read-only)."""
    return run.remembered("acting", lambda: _acting(run))


def _acting(run: Run) -> np.ndarray:
    events = run.trace.events
    flags = np.zeros(len(events.agent_names), dtype=bool)
    flags[events.agent_codes[events.types != EVENT_TYPES.index("tool_result")]] = True
    return flags


def answered_call(run: Run) -> np.ndarray:
    """Per event, the event whose agent it counts for: itself, except that a ``tool_result``
    counts for the ``tool_call`` it answers (the source of an incoming edge from a ``tool_call``
    event; the last such edge in file order if several), or for nobody (-1). Computed once per
    run; read-only."""
    return run.remembered("answered_call", lambda: _answered_call(run))


def _answered_call(run: Run) -> np.ndarray:
    events, edges = run.trace.events, run.trace.edges
    result = EVENT_TYPES.index("tool_result")
    proxy = np.arange(events.count, dtype=np.int64)
    results = events.types == result
    proxy[results] = -1
    answers = (events.types[edges.src] == EVENT_TYPES.index("tool_call")) & results[edges.dst]
    proxy[edges.dst[answers]] = edges.src[answers]
    return proxy


def _through_calls(run: Run, of: np.ndarray) -> np.ndarray:
    """Re-point each tool result's item to the item of the call it answers."""
    proxy = answered_call(run)
    return np.where(proxy >= 0, of[np.maximum(proxy, 0)], -1)


def _agent_items(run: Run):
    events = run.trace.events
    agent_code = np.full(len(events.agent_names), -1, dtype=np.int64)
    agents = np.flatnonzero(acting(run))
    agent_code[agents] = np.arange(len(agents))
    names = [events.agent_names[k] for k in agents.tolist()]
    return names, _through_calls(run, agent_code[events.agent_codes]), np.ones(len(names))


def _role_items(run: Run):
    events = run.trace.events
    flags = acting(run)
    role_of_code = [run.agents[name].role or NO_ROLE if flags[k] else None
                    for k, name in enumerate(events.agent_names)]
    names = sorted({role for role in role_of_code if role is not None})
    code = {role: k for k, role in enumerate(names)}
    per_agent = np.array([code.get(role, -1) for role in role_of_code], dtype=np.int64)
    return names, _through_calls(run, per_agent[events.agent_codes]), np.ones(len(names))


def _turn_items(run: Run):
    """Turns as defined in the module docstring, numbered per agent in timeline order."""
    events, edges = run.trace.events, run.trace.edges
    codes = events.agent_codes
    starts = np.zeros(events.count, dtype=bool)
    crossing = codes[edges.src] != codes[edges.dst]
    starts[edges.dst[crossing]] = True
    timeline = run.timeline
    ordered = timeline[np.argsort(codes[timeline], kind="stable")]  # by agent, then time
    starts[ordered[run_starts(codes[ordered])]] = True  # each agent's first event
    acts = acting(run)[codes]
    starts &= acts
    turn_number = np.cumsum(starts[ordered])  # running count over all agents
    of = np.empty(events.count, dtype=np.int64)
    of[ordered] = turn_number - 1
    of[~acts] = -1
    agent_of_turn = codes[ordered][starts[ordered]]
    counts = np.bincount(agent_of_turn, minlength=len(events.agent_names))
    names = TurnNames(events.agent_names, counts)
    return names, _through_calls(run, of), np.ones(len(names))


class EventNames(Sequence):
    """The ids of the events at ``positions``, looked up on demand (a big trace has very many)."""

    def __init__(self, ids: list[str], positions: np.ndarray):
        self.ids = ids
        self.positions = positions

    def __len__(self) -> int:
        return len(self.positions)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self.ids[i] for i in self.positions[k].tolist()]
        return self.ids[self.positions[k]]

    def __iter__(self):
        return map(self.ids.__getitem__, self.positions.tolist())


class TurnNames(Sequence):
    """The names ``agent#k`` of all turns, made on demand (a big trace has very many)."""

    def __init__(self, agents: list[str], counts: np.ndarray):
        self.agents = agents
        self.ends = np.cumsum(counts)
        self.counts = counts

    def __len__(self) -> int:
        return int(self.ends[-1]) if len(self.ends) else 0

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        if k < 0:
            k += len(self)
        if not 0 <= k < len(self):
            raise IndexError(k)
        agent = int(np.searchsorted(self.ends, k, side="right"))
        first = int(self.ends[agent - 1]) if agent else 0
        return f"{self.agents[agent]}#{k - first + 1}"

    def __iter__(self):
        """All names in order, without a search per name (a big trace has very many)."""
        for agent, count in zip(self.agents, self.counts.tolist()):
            yield from (f"{agent}#{j}" for j in range(1, count + 1))


def equal_shares(reward: float, weight: np.ndarray) -> np.ndarray:
    """R divided in proportion to the items' weights (zeros when nothing to divide by)."""
    total = weight.sum()
    return reward * weight / total if total else np.zeros_like(weight)


def event_rewards(run: Run) -> np.ndarray:
    """Each event's recorded ``reward``, 0 where none is recorded."""
    return run.trace.numeric("reward")


def recorded_shares(rewards: np.ndarray, of: np.ndarray, count: int) -> np.ndarray:
    """Per item, the sum of the recorded rewards of its events."""
    inside = of >= 0
    return np.bincount(of[inside], weights=rewards[inside], minlength=count)


def equal(run: Run, unit: str) -> dict[str, float] | None:
    """Item -> equal share of R in the unit (``None`` without a team reward)."""
    reward = team_reward(run)
    if reward is None:
        return None
    names, _, weight = items(run, unit)
    return dict(zip(names, equal_shares(reward, weight).tolist()))


def recorded(run: Run, unit: str) -> dict[str, float]:
    """Item -> sum of the recorded per-event rewards of its events."""
    names, of, _ = items(run, unit)
    return dict(zip(names, recorded_shares(event_rewards(run), of, len(names)).tolist()))


# ---------------------------------------------------------------------------------- decisions



def decision_of(run: Run, i: int) -> str | None:
    """The sub-decision event ``i`` takes (module docstring), or ``None``."""
    kind = EVENT_TYPES[run.trace.events.types[i]]
    if kind == "orchestrator_decision":
        return run.trace.event_records.value(i, "decision")
    return IMPLIED_DECISION.get(kind)


def decisions(run: Run) -> list[dict] | None:
    """The orchestrator unit's items in file order, each with its type, agent, sub-decision name
    and id (O1-O5, ``None`` when unspecified); ``None`` past :data:`MAX_LISTED_ITEMS`."""
    events = run.trace.events
    positions = events.of_type(*ORCHESTRATION_TYPES)
    if len(positions) > MAX_LISTED_ITEMS:
        return None
    ids = subdecision_ids()
    listed = []
    for i in positions.tolist():
        decision = decision_of(run, i)
        listed.append({"event": events.ids[i], "type": EVENT_TYPES[events.types[i]],
                       "agent": events.agent(i), "decision": decision,
                       "subdecision": ids.get(decision)})
    return listed


# ---------------------------------------------------------------------------------- rollouts

Values = Mapping[frozenset, float] | Callable[[frozenset], "float | None"]


def rollout_coalition(players: Sequence[str], outcome: dict) -> frozenset:
    """The players a rollout left as recorded: its ``coalition``, or every player but those it
    ``changed``."""
    if "coalition" in outcome:
        return frozenset(outcome["coalition"])
    return frozenset(players) - {change["player"] for change in outcome["changed"]}


def interventions(spec: dict) -> dict[str, str]:
    """Player -> how the rollouts change it (``removed`` unless a rollout says otherwise)."""
    found = {}
    for outcome in spec["outcomes"]:
        for change in outcome.get("changed", ()):
            found.setdefault(change["player"], change.get("how", "removed"))
    return {p: found.get(p, "removed") for p in spec["players"]}


def coalition_values(run: Run) -> dict[frozenset, float] | None:
    """v(S) for every coalition the trace records, plus v(N) and v(empty) by default."""
    counterfactuals = run.trace.head.get("counterfactuals")
    if not counterfactuals:
        return None
    players = counterfactuals["players"]
    channel = counterfactuals.get("channel", "team")
    values = {frozenset(): 0.0}
    full = run.trace.head["rewards"].get(channel)
    if full is not None:
        values[frozenset(players)] = float(full)
    for outcome in counterfactuals["outcomes"]:
        values[rollout_coalition(players, outcome)] = float(outcome["reward"])
    return values


# ---------------------------------------------------------------------------------- solving

def _function(values: Values) -> Callable[[frozenset], float | None]:
    return values.get if isinstance(values, Mapping) else values


def leave_one_out(players: list[str], values: Values) -> dict | None:
    """v(N) - v(N minus i) per player, or ``None`` if a needed coalition is missing (found at
    the first one missing: with n players the n needed coalitions are n x (n - 1) names, so a
    trace that records them all is that large). ``values`` maps coalitions to v, or is v."""
    value = _function(values)
    everyone = frozenset(players)
    full = value(everyone)
    if full is None:
        return None
    result = {}
    for p in players:
        without = value(everyone - {p})
        if without is None:
            return None
        result[p] = full - without
    return result


def shapley(players: list[str], values: Values) -> dict | None:
    """Exact Shapley values, or ``None`` if a coalition is missing or there are more than
    :data:`MAX_EXACT_SHAPLEY_PLAYERS` players (see :func:`shapley_estimate`)."""
    n = len(players)
    if n > MAX_EXACT_SHAPLEY_PLAYERS:
        return None
    value = _function(values)
    weights = [factorial(k) * factorial(n - k - 1) / factorial(n) for k in range(n)]
    result = {}
    for p in players:
        others = [q for q in players if q != p]
        total = 0.0
        for k in range(n):
            for subset in combinations(others, k):
                without = frozenset(subset)
                low, high = value(without), value(without | {p})
                if low is None or high is None:
                    return None
                total += weights[k] * (high - low)
        result[p] = total
    return result


def shapley_estimate(players: list[str], values: Values,
                     samples: int = SHAPLEY_SAMPLES, seed: int = SHAPLEY_SEED
                     ) -> tuple[dict, dict] | None:
    """Monte Carlo Shapley values and their standard errors (see the module docstring), or
    ``None`` as soon as a sampled order meets a coalition that has no value."""
    n = len(players)
    value = _function(values)
    generator = np.random.default_rng(seed)
    contributions = np.empty((samples, n))
    for s in range(samples):
        coalition: frozenset = frozenset()
        before = value(coalition)
        for k in generator.permutation(n).tolist():
            coalition = coalition | {players[k]}
            after = value(coalition)
            if before is None or after is None:
                return None
            contributions[s, k] = after - before
            before = after
    mean = contributions.mean(axis=0)
    error = contributions.std(axis=0, ddof=1) / np.sqrt(samples) if samples > 1 else mean * 0
    return dict(zip(players, mean.tolist())), dict(zip(players, error.tolist()))


# ---------------------------------------------------------------------------------- games

@dataclass
class Game:
    """A counterfactual game at one unit: the items that play, the items that get zero by
    construction (not consumed), and v over coalitions of the players (module docstring)."""

    unit: str
    source: str  # "rollouts" or "model"
    channel: str
    items: int  # items of the unit
    players: list[str]
    zero: list[str]  # items credited 0 by construction
    value: Callable[[frozenset], float | None]
    samples: int = SHAPLEY_SAMPLES  # orders drawn above the exact cap
    extra: dict = field(default_factory=dict)  # more keys for the output
    evaluations: int = 0

    def solve(self) -> dict:
        """Leave-one-out and Shapley credit of every player, zeros for the unconsumed items,
        and how the Shapley values were found."""
        players, n = self.players, len(self.players)
        exact = n <= MAX_EXACT_SHAPLEY_PLAYERS
        value = _remembering(self.value) if exact else self.value
        loo = leave_one_out(players, value) if n else {}
        estimate = None
        if exact:
            found = shapley(players, value) if n else {}
        else:
            estimate = shapley_estimate(players, self.value, self.samples)
            found = None if estimate is None else estimate[0]
        listed = n + len(self.zero) <= MAX_LISTED_ITEMS
        zeros = dict.fromkeys(self.zero, 0.0) if listed else {}
        return {
            "unit": self.unit, "source": self.source, "channel": self.channel,
            "items": self.items, **self.extra,
            "players": players if listed else None,
            "zero_by_construction": list(self.zero) if listed else None,
            "unconsumed": len(self.zero),
            "leave_one_out": _listed(loo, zeros, listed),
            "shapley": _listed(found, zeros, listed),
            "shapley_method": "exact" if exact else "monte_carlo",
            "shapley_samples": None if exact else self.samples,
            "shapley_seed": None if exact else SHAPLEY_SEED,
            "shapley_standard_error": None if estimate is None
            else _listed(estimate[1], zeros, listed),
        }


def _listed(values: dict | None, zeros: dict, listed: bool) -> dict | None:
    if values is None or not listed:
        return None
    return _rounded_values({**values, **zeros})


def _remembering(value: Callable[[frozenset], float | None]) -> Callable:
    """``value`` with its answers kept (exact Shapley values ask each coalition many times)."""
    memo: dict = {}

    def remembered(coalition: frozenset):
        if coalition not in memo:
            memo[coalition] = value(coalition)
        return memo[coalition]

    return remembered


def _player_consumed(run: Run, unit: str, players: list[str]) -> list[bool]:
    """Per recorded player, whether it is consumed; a name the trace does not show (an agent
    that never acts in it, say) counts as consumed: nothing says it is not."""
    if unit in EVENT_UNITS:
        positions = run.trace.events.index.positions(list(players))
        flags = consumption.consumed(run)
        return [bool(flags[p]) if p >= 0 else True for p in positions.tolist()]
    names, of, _ = items(run, unit)
    consumed = dict(zip(names, consumption.consumed_items(run, of, len(names)).tolist()))
    return [consumed.get(p, True) for p in players]


@dataclass
class Recorded:
    """The recorded rollouts, normalised: v over coalitions of the consumed players (an
    unconsumed player present or not, the value is the same by construction; when the trace
    records both, the rollout with more of them left as recorded is kept)."""

    spec: dict
    players: list[str]
    consumed: list[bool]
    values: dict[frozenset, float]
    recorded: int  # distinct coalitions with a value (v(N) and v(empty) included)

    @classmethod
    def of(cls, run: Run) -> Recorded | None:
        spec = run.trace.head.get("counterfactuals")
        if not spec:
            return None
        players = list(spec["players"])
        flags = _player_consumed(run, spec["unit"], players)
        live = frozenset(p for p, c in zip(players, flags) if c)
        raw = coalition_values(run)
        chosen: dict[frozenset, tuple[tuple, float]] = {}
        stated = {rollout_coalition(players, o) for o in spec["outcomes"]}
        for coalition, value in raw.items():
            key = coalition & live
            rank = (coalition in stated, len(coalition - live))
            if key not in chosen or rank > chosen[key][0]:
                chosen[key] = (rank, value)
        values = {key: value for key, (_, value) in chosen.items()}
        return cls(spec, players, flags, values, len(raw))

    @property
    def unit(self) -> str:
        return self.spec["unit"]

    @property
    def channel(self) -> str:
        return self.spec.get("channel", "team")

    def value(self, present: frozenset) -> float | None:
        return self.values.get(present)


def _item_of_players(run: Run, recorded: Recorded, unit: str) -> list[str | None] | None:
    """Per recorded player, the item of ``unit`` it belongs to (``None``: outside the unit), or
    ``None`` when players of the recorded unit do not group into items of ``unit``."""
    base, players = recorded.unit, recorded.players
    if unit == "team":
        return ["team"] * len(players)
    if base == unit:
        return list(players)
    if base in EVENT_UNITS:
        names, of, _ = items(run, unit)
        positions = run.trace.events.index.positions(list(players))
        return [None if p < 0 or of[p] < 0 else names[int(of[p])] for p in positions.tolist()]
    agent_of = {"agent": lambda p: p, "turn": lambda p: p.rpartition("#")[0]}.get(base)
    if agent_of is None or unit not in ("agent", "role"):
        return None
    if unit == "agent":
        return [agent_of(p) for p in players]
    return [(run.agents[a].role or NO_ROLE) if a in run.agents else None
            for a in map(agent_of, players)]


def rollout_game(run: Run, unit: str, recorded: Recorded | None = None) -> Game | None:
    """The game at ``unit`` that the recorded rollouts define (module docstring), or ``None``
    when the trace records none or its players do not group into items of ``unit``."""
    recorded = Recorded.of(run) if recorded is None else recorded
    if recorded is None:
        return None
    item_of = _item_of_players(run, recorded, unit)
    if item_of is None:
        return None
    if unit == recorded.unit:
        names: Sequence[str] = list(recorded.players)
        unconsumed = [p for p, c in zip(recorded.players, recorded.consumed) if not c]
    else:
        names, of, _ = items(run, unit)
        flags = consumption.consumed_items(run, of, len(names))
        unconsumed = [name for name, c in zip(names, flags.tolist()) if not c]
    blocks: dict[str, list[str]] = {}
    held: list[str] = []  # consumed players outside the unit: they stay as recorded
    for player, item, live in zip(recorded.players, item_of, recorded.consumed):
        if not live:
            continue
        if item is None:
            held.append(player)
        else:
            blocks.setdefault(item, []).append(player)
    zero_set = set(unconsumed)
    players = [item for item in blocks if item not in zero_set]
    held += [p for item in blocks if item in zero_set for p in blocks[item]]
    base = frozenset(held)

    def value(coalition: frozenset) -> float | None:
        present = set(base)
        for item in coalition:
            present.update(blocks[item])
        return recorded.value(frozenset(present))

    extra = {}
    if unit == recorded.unit:
        n = len(recorded.players)
        extra = {"coalitions_recorded": recorded.recorded,
                 "coalitions_needed": 2 ** n if n <= MAX_COUNTED_PLAYERS else None,
                 "interventions": interventions(recorded.spec)}
    return Game(unit, "rollouts", recorded.channel, len(names), players, unconsumed, value,
                extra=extra)


class Without:
    """The trace with some events taken out: what an outcome model scores.

    ``run`` is the recorded run, ``removed`` a read-only mask of its events (file order) that
    the counterfactual takes out, ``removed_ids`` their ids. :meth:`document` gives the trace
    itself: the recorded document without those events, without every edge that touches one of
    them, and without ``counterfactuals`` (they describe the recorded run). When every event is
    removed its ``events`` list is empty, which no valid trace has: a model must decide what an
    empty run is worth.
    """

    def __init__(self, run: Run, removed: np.ndarray):
        self.run = run
        self.removed = removed
        self.removed.flags.writeable = False

    @property
    def removed_ids(self) -> list[str]:
        ids = self.run.trace.events.ids
        return [ids[i] for i in np.flatnonzero(self.removed).tolist()]

    def document(self) -> dict:
        """The trace without the removed events (class docstring); needs the recorded document
        (``validate_file(..., keep_document=True)``, the default)."""
        recorded = self.run.trace.document
        gone = set(self.removed_ids)
        head = {k: v for k, v in recorded.items()
                if k not in ("events", "edges", "counterfactuals")}
        events = [e for e, out in zip(recorded["events"], self.removed.tolist()) if not out]
        edges = [e for e in recorded["edges"] if e["src"] not in gone and e["dst"] not in gone]
        return {**head, "events": events, "edges": edges}


Outcome = Callable[[Without], float]


def model_game(run: Run, unit: str, outcome: Outcome, *, name: str = "model",
               players: Sequence[str] | None = None,
               evaluations: int = MODEL_EVALUATIONS) -> Game:
    """The game at ``unit`` (``event`` included) whose v is ``outcome`` of the trace without
    the changed items' events (module docstring). ``players`` restricts who plays (the other
    items stay as recorded; unconsumed ones still get zero); ``evaluations`` bounds the values
    a Monte Carlo estimate asks for."""
    names, of, _ = items(run, unit)
    names = list(names)
    flags = consumption.consumed_items(run, of, len(names)).tolist()
    unconsumed = [name for name, c in zip(names, flags) if not c]
    allowed = None if players is None else set(players)
    playing = [name for name, c in zip(names, flags) if c and (allowed is None or name in allowed)]
    index = {name: k for k, name in enumerate(names)}
    code = of.copy()
    code[code < 0] = len(names)  # events outside the unit: never removed
    game = Game(unit, "model", name, len(names), playing, unconsumed, lambda c: None,
                samples=max(2, evaluations // max(len(playing), 1)))
    playing_codes = np.array([index[p] for p in playing], dtype=np.int64)

    def value(coalition: frozenset) -> float:
        changed = np.zeros(len(names) + 1, dtype=bool)
        changed[playing_codes] = True
        changed[[index[p] for p in coalition]] = False
        game.evaluations += 1
        return float(outcome(Without(run, changed[code])))

    game.value = value
    return game


def game_units(run: Run, outcome: Outcome | None = None, name: str = "model",
               units: Sequence[str] = GAME_UNITS) -> dict | None:
    """Counterfactual credit at every unit of ``units`` that a game reaches: from ``outcome``
    when given, else from the recorded rollouts (``None`` without either)."""
    if outcome is not None:
        solved = {}
        for unit in units:
            game = model_game(run, unit, outcome, name=name)
            solved[unit] = {**game.solve(), "evaluations": game.evaluations}
        return {"source": "model", "model": name, "units": solved}
    recorded = Recorded.of(run)
    if recorded is None:
        return None
    games = {unit: rollout_game(run, unit, recorded) for unit in units}
    return {"source": "rollouts", "model": None, "channel": recorded.channel,
            "units": {unit: game.solve() for unit, game in games.items() if game is not None}}


def counterfactual(run: Run) -> dict | None:
    """Leave-one-out and Shapley credit of the recorded players (``None`` without rollouts).

    ``shapley_method`` says how the Shapley values were found (``exact`` up to
    :data:`MAX_EXACT_SHAPLEY_PLAYERS` players, else ``monte_carlo``); an estimate also gives
    ``shapley_samples`` (orders drawn), ``shapley_seed`` and ``shapley_standard_error`` per
    player, which are ``None`` for exact values. Unconsumed players get 0 (module docstring).
    """
    recorded = Recorded.of(run)
    if recorded is None:
        return None
    solved = rollout_game(run, recorded.unit, recorded).solve()
    return {"unit": recorded.unit, "channel": recorded.channel, "players": recorded.players,
            **{key: solved[key] for key in (
                "coalitions_recorded", "coalitions_needed", "interventions",
                "zero_by_construction", "leave_one_out", "shapley", "shapley_method",
                "shapley_samples", "shapley_seed", "shapley_standard_error")}}


def _rounded(value: float) -> float:
    """Drop floating-point noise from sums (12 decimals) so that residuals read 0, not 1e-16."""
    return round(float(value), 12)


def _rounded_values(values: dict[str, float] | None) -> dict[str, float] | None:
    return None if values is None else {key: _rounded(v) for key, v in values.items()}


def _summary(names: list[str], shares: np.ndarray | None, reward: float | None) -> dict:
    if shares is None:
        return {"items": len(names), "total": None, "residual": None}
    total = _rounded(shares.sum())
    summary = {"items": len(names), "total": total,
               "residual": None if reward is None else _rounded(reward - total)}
    if len(names) <= MAX_LISTED_ITEMS:
        summary["shares"] = dict(zip(names, shares.tolist()))
    return summary


def compute(run: Run, outcome: Outcome | None = None, model: str = "model") -> dict:
    """The ``credit`` object of ``masrl replay --json``: equal and recorded splits per unit,
    the recorded players' ``counterfactual`` credit, ``counterfactual_units`` (credit at every
    unit a game reaches: from ``outcome``, named ``model``, when given, else from the rollouts)
    and the orchestrator's ``decisions`` with their sub-decisions.

    Unknown is not zero (:mod:`masrl.traces.recorded`): without a team reward the equal splits
    and every residual are ``None``; without any event's reward the recorded splits are
    ``None``; the ``token`` unit's splits are ``None`` when no event records tokens."""
    reward, rewards = team_reward(run), event_rewards(run)
    found = run.recorded
    by_rule: dict[str, dict] = {"equal": {}, "recorded": {}}
    for unit in UNITS:
        names, of, weight = items(run, unit)
        counted = unit != "token" or found.tokens
        even = None if reward is None or not counted else equal_shares(reward, weight)
        by_rule["equal"][unit] = _summary(names, even, reward)
        kept = recorded_shares(rewards, of, len(names)) if found.event_rewards and counted \
            else None
        by_rule["recorded"][unit] = _summary(names, kept, reward)
    return {"team_reward": reward, "units": list(UNITS), **by_rule,
            "counterfactual": counterfactual(run),
            "counterfactual_units": game_units(run, outcome, model),
            "decisions": decisions(run)}
