"""How the team reward of a run splits over the survey's eight credit units.

The *team reward* R is the trace's ``rewards.team`` (``None`` when the trace has no team
channel; equal splits and residuals are then ``None`` too). The eight *units* and their items:

* ``team``: one item, the team;
* ``orchestrator``: each ``orchestrator_decision`` event (a learnable orchestration action);
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

Rules, and what each assumes:

* ``equal``: R is divided equally among the items of the unit (for ``token``, among the tokens,
  so an event receives R x its tokens / all tokens). Assumes every item contributed alike; it
  needs nothing but the graph.
* ``recorded``: every event's own ``reward`` is credited to the item of the unit it belongs to;
  events outside the unit (e.g. a tool call under ``message``) credit nothing there, and the
  ``residual`` R - total shows what the recorded rewards leave unexplained. Assumes the per-event
  rewards are additive parts of the team reward, as process rewards are designed to be.
* ``leave_one_out`` (needs ``counterfactuals``): a player's credit is v(N) - v(N minus it),
  where v is the reward of a coalition of players. Assumes the counterfactual runs are
  comparable to the real one; the values need not add up to R.
* ``shapley`` (needs every coalition): a player's credit is its average marginal contribution
  v(S + i) - v(S) over all orders in which the players could join; the values add up to
  v(N) - v(empty). Assumes the same, and that removing a player is a meaningful intervention.
  v(N) is the recorded reward of the channel unless a coalition outcome records it; v(empty) is
  0 unless recorded. Counterfactual credit is computed only for the unit of the players
  (``agent`` or ``role``).

  Exact Shapley values sum n x 2^(n-1) marginal contributions: about 25,000 for the
  :data:`MAX_EXACT_SHAPLEY_PLAYERS` = 12 players of the cap, a billion for 30. Above the cap
  they are *estimated* (``shapley_method`` ``monte_carlo``): :data:`SHAPLEY_SAMPLES` orders of
  the players drawn uniformly with a seeded generator (:data:`SHAPLEY_SEED`, so the same trace
  gives the same figures), each player credited with the mean of its marginal contributions
  over them, and ``shapley_standard_error`` the standard error of that mean (sample standard
  deviation over the square root of the number of orders): the exact value lies within about
  two standard errors of the estimate in 95% of draws. The cap is where the two cost the same:
  2,048 orders of 12 players are 24,576 marginal contributions, as many as exact values need
  at 12 players, so above it the estimate is the cheaper one, and its cost grows with n, not
  2^n. An order whose coalitions are not all recorded makes the estimate ``None``, as a
  missing coalition makes exact values ``None``.

In ``to_dict`` output the items' shares are listed only for units of at most
:data:`MAX_LISTED_ITEMS` items (a million-event trace has too many turns to print); the Python
functions always return every share.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from math import factorial

import numpy as np

from masrl.traces.graph import EVENT_TYPES
from masrl.traces.run import Run

UNITS = ("team", "orchestrator", "role", "agent", "turn", "message", "tool_call", "token")
NO_ROLE = "(none)"
MAX_LISTED_ITEMS = 10_000
MAX_EXACT_SHAPLEY_PLAYERS = 12
SHAPLEY_SAMPLES = 2048
SHAPLEY_SEED = 0
MAX_COUNTED_PLAYERS = 1000  # past this, ``coalitions_needed`` (2^n) is not written out


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
    event_type = {"orchestrator": "orchestrator_decision"}.get(unit, unit)
    if unit == "token":
        positions = np.flatnonzero(run.trace.numeric("tokens") > 0)
    else:
        positions = events.of_type(event_type)
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
    starts[ordered[np.flatnonzero(np.diff(codes[ordered], prepend=-1))]] = True  # first events
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
        counts = np.diff(self.ends, prepend=0).tolist()
        for agent, count in zip(self.agents, counts):
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


def coalition_values(run: Run) -> dict[frozenset, float] | None:
    """v(S) for every coalition the trace records, plus v(N) and v(empty) by default."""
    counterfactuals = run.trace.head.get("counterfactuals")
    if not counterfactuals:
        return None
    players = frozenset(counterfactuals["players"])
    channel = counterfactuals.get("channel", "team")
    values = {frozenset(): 0.0}
    full = run.trace.head["rewards"].get(channel)
    if full is not None:
        values[players] = float(full)
    for outcome in counterfactuals["outcomes"]:
        values[frozenset(outcome["coalition"])] = float(outcome["reward"])
    return values


def leave_one_out(players: list[str], values: dict[frozenset, float]) -> dict | None:
    """v(N) - v(N minus i) per player, or ``None`` if a needed coalition is missing (found at
    the first one missing: with n players the n needed coalitions are n x (n - 1) names, so a
    trace that records them all is that large)."""
    everyone = frozenset(players)
    if everyone not in values:
        return None
    result = {}
    for p in players:
        without = values.get(everyone - {p})
        if without is None:
            return None
        result[p] = values[everyone] - without
    return result


def shapley(players: list[str], values: Mapping[frozenset, float]) -> dict | None:
    """Exact Shapley values, or ``None`` if a coalition is missing or there are more than
    :data:`MAX_EXACT_SHAPLEY_PLAYERS` players (see :func:`shapley_estimate`)."""
    n = len(players)
    if n > MAX_EXACT_SHAPLEY_PLAYERS:
        return None
    weights = [factorial(k) * factorial(n - k - 1) / factorial(n) for k in range(n)]
    result = {}
    for p in players:
        others = [q for q in players if q != p]
        total = 0.0
        for k in range(n):
            for subset in combinations(others, k):
                without = frozenset(subset)
                with_p = without | {p}
                if without not in values or with_p not in values:
                    return None
                total += weights[k] * (values[with_p] - values[without])
        result[p] = total
    return result


def shapley_estimate(players: list[str], values: Mapping[frozenset, float],
                     samples: int = SHAPLEY_SAMPLES, seed: int = SHAPLEY_SEED
                     ) -> tuple[dict, dict] | None:
    """Monte Carlo Shapley values and their standard errors (see the module docstring), or
    ``None`` as soon as a sampled order meets a coalition that has no value."""
    n = len(players)
    generator = np.random.default_rng(seed)
    contributions = np.empty((samples, n))
    for s in range(samples):
        coalition: frozenset = frozenset()
        before = values.get(coalition)
        for k in generator.permutation(n).tolist():
            coalition = coalition | {players[k]}
            after = values.get(coalition)
            if before is None or after is None:
                return None
            contributions[s, k] = after - before
            before = after
    mean = contributions.mean(axis=0)
    error = contributions.std(axis=0, ddof=1) / np.sqrt(samples) if samples > 1 else mean * 0
    return dict(zip(players, mean.tolist())), dict(zip(players, error.tolist()))


def counterfactual(run: Run) -> dict | None:
    """Leave-one-out and Shapley credit from the recorded coalitions (``None`` without them).

    ``shapley_method`` says how the Shapley values were found (``exact`` up to
    :data:`MAX_EXACT_SHAPLEY_PLAYERS` players, else ``monte_carlo``); an estimate also gives
    ``shapley_samples`` (orders drawn), ``shapley_seed`` and ``shapley_standard_error`` per
    player, which are ``None`` for exact values.
    """
    values = coalition_values(run)
    if values is None:
        return None
    spec = run.trace.head["counterfactuals"]
    players = list(spec["players"])
    n = len(players)
    exact = n <= MAX_EXACT_SHAPLEY_PLAYERS
    estimate = None if exact else shapley_estimate(players, values)
    return {
        "unit": spec["unit"],
        "channel": spec.get("channel", "team"),
        "players": players,
        "coalitions_recorded": len(values),  # every recorded coalition is one of the players'
        "coalitions_needed": 2 ** n if n <= MAX_COUNTED_PLAYERS else None,
        "leave_one_out": _rounded_values(leave_one_out(players, values)),
        "shapley": _rounded_values(shapley(players, values) if exact
                                   else None if estimate is None else estimate[0]),
        "shapley_method": "exact" if exact else "monte_carlo",
        "shapley_samples": None if exact else SHAPLEY_SAMPLES,
        "shapley_seed": None if exact else SHAPLEY_SEED,
        "shapley_standard_error": None if estimate is None else _rounded_values(estimate[1]),
    }


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


def compute(run: Run) -> dict:
    """The ``credit`` object of ``masrl replay --json``."""
    reward, rewards = team_reward(run), event_rewards(run)
    by_rule: dict[str, dict] = {"equal": {}, "recorded": {}}
    for unit in UNITS:
        names, of, weight = items(run, unit)
        even = None if reward is None else equal_shares(reward, weight)
        by_rule["equal"][unit] = _summary(names, even, reward)
        by_event = recorded_shares(rewards, of, len(names))
        by_rule["recorded"][unit] = _summary(names, by_event, reward)
    return {"team_reward": reward, "units": list(UNITS), **by_rule,
            "counterfactual": counterfactual(run)}
