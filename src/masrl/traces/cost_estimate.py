"""What a run's model calls would have cost at a price table's prices: an estimate, kept apart
from the cost the trace records (``cost_usd``), never added to it.

Where a log names the model of a call and counts its tokens but states no price (a Claude Code
session, most OpenTelemetry exports), the cost can still be estimated from a maintained price
table: `genai-prices <https://pypi.org/project/genai-prices/>`_ (Pydantic's), whose data ships
inside the package and is read offline (nothing is fetched). It is part of the core install
(an estimated cost is what a user of a Claude Code or Codex log asks first); an environment that
lacks it gets a ``null`` estimate that says to install it.

A *model call* is an event that records tokens (``tokens``, or a token breakdown ``x_usage``:
:mod:`masrl.traces.importers.accounting` describes the fields importers write). It is *priced*
when it names its model (``x_model``) and states its input and output tokens apart
(``x_usage.input``, ``x_usage.output``; the cached part of the input as ``cache_read`` or
``cached_input``, the part written to a cache as ``cache_creation`` or ``cache_write_input``).
Each priced call is priced on its own (a long prompt may cross a price tier), at the prices in
force when the run started (``provenance.time_origin``) or, for a trace without that date, as
of :data:`UNDATED_AS_OF`.

A model name is looked up as written, then, when it is prefixed by a provider
(``openai/o3``, ``bedrock/us.anthropic.claude-...``), with that provider; then by its last path
segment (``projects/.../models/gemini-2.5-flash``); a Bedrock cross-region id
(``us.anthropic.claude-...``) with the provider ``aws``. A model the table does not know is
listed in ``unknown_models`` and its calls are not priced.

The estimate (``cost_usd_estimated`` in ``masrl replay --json``): ``total`` (US dollars over the
priced calls; ``None`` when none could be priced); ``partial`` (some model calls were not
priced: ``unpriced`` counts them by reason, ``unknown_models`` names the models the table does
not know); ``model_calls`` (events that record tokens) and ``priced_calls``; ``per_model`` (per
model name as the trace writes it: its calls, tokens in, out, cache read and cache write,
dollars, and the price used: provider, the table's model id, dollars per million tokens of each
kind, whether the price is tiered); ``per_agent`` (dollars per agent with a priced call);
``priced_at`` (``None`` when nothing was priced) and ``price_table`` (``source`` and
``version`` of the library, ``version`` ``None`` when it is not installed).
:mod:`masrl.traces.recorded` says why a figure is ``None``.
"""

from __future__ import annotations

import re
import warnings
from collections import Counter
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

import numpy as np

PRICE_TABLE = "genai-prices"
PRICE_MODULE = "genai_prices"  # its import name, and the name of its .dist-info folder
UNDATED_AS_OF = datetime(2026, 12, 1, tzinfo=UTC)  # moves with the pinned genai-prices version
CACHE_READ = ("cache_read", "cached_input")  # x_usage parts that importers write
CACHE_WRITE = ("cache_creation", "cache_write_input")
PROVIDER_ALIASES = {"bedrock": "aws", "vertex_ai": "google", "gemini": "google"}
BEDROCK_REGION = re.compile(r"^(us|eu|apac|au|ca|jp|global)\.[a-z]")
PRICE_KINDS = {"input": "input_mtok", "output": "output_mtok", "cache_read": "cache_read_mtok",
               "cache_write": "cache_write_mtok"}

NO_MODEL = "no model named (x_model)"
NO_SPLIT = "no input and output tokens stated apart (x_usage.input, x_usage.output)"
UNKNOWN_MODEL = "a model the price table does not know"
UNPRICEABLE = "a usage the price table cannot price"


@cache
def table_version() -> str | None:
    """The installed version of the price table's library, or ``None`` (looked up once per
    process). Read from the ``Version`` of the ``.dist-info`` folder installed beside the
    module (where pip puts it, named ``{name}-{version}.dist-info``): importing
    :mod:`importlib.metadata` to ask it costs about 20 ms, a tenth of a replay's start-up. A
    library installed otherwise (no such folder, or several) is asked through
    :mod:`importlib.metadata`, which knows every way."""
    from importlib.util import find_spec

    spec = find_spec(PRICE_MODULE)
    if spec is None or spec.origin is None:
        return None
    found = list(Path(spec.origin).parent.parent.glob(f"{PRICE_MODULE}-*.dist-info/METADATA"))
    if len(found) == 1:
        version = _metadata_version(found[0])
        if version is not None:
            return version
    from importlib import metadata

    try:
        return metadata.version(PRICE_TABLE)
    except metadata.PackageNotFoundError:
        return None


def _metadata_version(path: Path) -> str | None:
    """The ``Version`` header of a distribution's ``METADATA`` file (headers end at the first
    blank line), or ``None``."""
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if not line.strip():
                return None
            name, _, value = line.partition(":")
            if name.strip().lower() == "version":
                return value.strip() or None
    return None


def estimate(run) -> dict:
    """The estimate for a reconstructed run (:class:`masrl.traces.run.Run`; see the module)."""
    trace = run.trace
    calls, unpriced = model_calls(trace)
    version = table_version()
    result = {
        "total": None, "partial": bool(unpriced), "model_calls": len(calls) + unpriced.total(),
        "priced_calls": 0, "per_model": {}, "per_agent": {}, "unknown_models": [],
        "unpriced": dict(sorted(unpriced.items())), "priced_at": None,
        "price_table": {"source": PRICE_TABLE, "version": version},
    }
    if not calls or version is None:
        return result
    when = _priced_at(trace.head)
    per_model, per_agent, unknown = {}, Counter(), set()
    for position, model, tokens in calls:
        price = _price(model, tokens, when)
        if price is None:
            unknown.add(model)
            unpriced[UNKNOWN_MODEL] += 1
            continue
        if isinstance(price, str):
            unpriced[UNPRICEABLE] += 1
            continue
        usd, used = price
        entry = per_model.setdefault(model, {"calls": 0, "tokens_in": 0, "tokens_out": 0,
                                             "cache_read": 0, "cache_write": 0, "usd": 0.0,
                                             "price": used})
        entry["calls"] += 1
        for key, value in zip(("tokens_in", "tokens_out", "cache_read", "cache_write"), tokens):
            entry[key] += value
        entry["usd"] += usd
        per_agent[trace.events.agent(position)] += usd
    result.update({
        "total": _rounded(sum(e["usd"] for e in per_model.values())) if per_model else None,
        "partial": bool(unpriced), "priced_calls": sum(e["calls"] for e in per_model.values()),
        "per_model": {m: {**e, "usd": _rounded(e["usd"])} for m, e in sorted(per_model.items())},
        "per_agent": {a: _rounded(v) for a, v in per_agent.items()},
        "unknown_models": sorted(unknown), "unpriced": dict(sorted(unpriced.items())),
        "priced_at": when.isoformat().replace("+00:00", "Z"),
    })
    return result


def model_calls(trace) -> tuple[list[tuple[int, str, tuple]], Counter]:
    """``(event position, model, (in, out, cache read, cache write))`` of every model call
    that names its model and states its tokens apart, and the other model calls counted by the
    reason they cannot be priced. A model call is an event that records ``tokens``, or one that
    names its model with an ``x_usage``."""
    records = trace.event_records
    counted = ~np.isnan(trace.recorded("tokens"))
    models, usages = records.present("x_model"), records.present("x_usage")
    named = sorted(i for i, model in models.items() if isinstance(model, str) and model != "")
    unpriced = Counter()
    if unnamed := int(np.count_nonzero(counted)) - int(np.count_nonzero(counted[named])):
        unpriced[NO_MODEL] = unnamed
    calls = []
    for position in named:
        usage = usages.get(position)
        if not counted[position] and not isinstance(usage, dict):
            continue
        split = _split(usage)
        if split is None:
            unpriced[NO_SPLIT] += 1
        else:
            calls.append((position, models[position], split))
    return calls, unpriced


def _split(usage) -> tuple[int, int, int, int] | None:
    """(input, output, cache read, cache write) of an ``x_usage``, or ``None`` without both
    input and output counts."""
    if not isinstance(usage, dict):
        return None
    counts = [usage.get("input"), usage.get("output")]
    counts += [next((usage[k] for k in keys if _count(usage.get(k))), 0)
               for keys in (CACHE_READ, CACHE_WRITE)]
    if not all(_count(c) for c in counts):
        return None
    return tuple(int(c) for c in counts)


def _count(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0 \
        and float(value).is_integer()


def _priced_at(head: dict) -> datetime:
    origin = (head.get("provenance") or {}).get("time_origin")
    if isinstance(origin, str):
        try:
            when = datetime.fromisoformat(origin.replace("Z", "+00:00"))
        except ValueError:
            return UNDATED_AS_OF
        return when if when.tzinfo else when.replace(tzinfo=UTC)
    return UNDATED_AS_OF


def _price(model: str, tokens: tuple, when: datetime):
    """``(dollars, price used)`` of one call; ``None`` for a model the table does not know; a
    string when the table knows the model but refuses the usage."""
    import genai_prices  # the optional dependency, imported only when there is a call to price

    found = _resolve(model, when)
    if found is None:
        return None
    ref, provider = found
    usage = genai_prices.Usage(input_tokens=tokens[0], output_tokens=tokens[1],
                               cache_read_tokens=tokens[2], cache_write_tokens=tokens[3])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            priced = genai_prices.calc_price(usage, ref, provider_id=provider,
                                             genai_request_timestamp=when)
    except (LookupError, ValueError) as exc:
        return f"{type(exc).__name__}"
    return float(priced.total_price), _used(priced)


@cache
def _resolve(model: str, when: datetime) -> tuple[str, str | None] | None:
    """The first (model reference, provider) the table knows, in the order of the module."""
    import genai_prices

    probe = genai_prices.Usage(input_tokens=1, output_tokens=1)
    for ref, provider in _candidates(model):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                genai_prices.calc_price(probe, ref, provider_id=provider,
                                        genai_request_timestamp=when)
        except LookupError:
            continue
        return ref, provider
    return None


def _candidates(model: str):
    yield model, None
    head, slash, tail = model.partition("/")
    if slash:
        yield tail, PROVIDER_ALIASES.get(head, head)
        yield model.rsplit("/", 1)[1], None
    if BEDROCK_REGION.match(model):
        yield model, "aws"


def _used(priced) -> dict:
    """The price a calculation used: provider, the table's model id, dollars per million."""
    rates, tiered = {}, False
    for kind, name in PRICE_KINDS.items():
        value = getattr(priced.model_price, name, None)
        if value is None:
            continue
        if hasattr(value, "base"):
            value, tiered = value.base, True
        rates[kind] = float(value)
    return {"provider": priced.provider.id, "model": priced.model.id,
            "usd_per_million_tokens": rates, "tiered": tiered}


def _rounded(value: float) -> float:
    """Dollars to a millionth of a cent: sums of Decimal prices as floats, without noise."""
    return round(float(value), 8)
