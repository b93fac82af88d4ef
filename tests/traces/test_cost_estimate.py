"""Cost estimated from tokens: priced with the installed price table, kept apart from the
recorded cost, unknown models named, and nothing fetched at run time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import metadata

import pytest
from trace_helpers import FIXTURES, event, replayed

from masrl.traces import cost_estimate, load_trace, recorded, replay, resources
from masrl.traces.validate import validate_bytes

pytest.importorskip("genai_prices", reason="the prices extra is not installed")

MILLION = 1_000_000


def call(event_id: str, t: float, model: str | None, usage: dict | None, agent="main",
         **fields) -> dict:
    """A model call as importers write it: tokens, x_model and the split in x_usage."""
    found = event(event_id, t, "message", agent, **fields)
    if usage is not None:
        found["x_usage"] = usage
        if "input" in usage and "output" in usage:
            found["tokens"] = usage["input"] + usage["output"]
        elif "total" in usage:
            found["tokens"] = usage["total"]
    if model is not None:
        found["x_model"] = model
    return found


def session(*events: dict, origin: str | None = "2026-02-11T20:36:45.618000Z") -> dict:
    document = {
        "trace_id": "session", "task_id": "t", "events": list(events),
        "edges": [{"src": a["id"], "dst": b["id"], "type": "causal"}
                  for a, b in zip(events, events[1:])],
        "rewards": {}, "costs": {"tokens": sum(e.get("tokens", 0) for e in events),
                                 "wall_clock_s": events[-1]["t"]},
    }
    if origin is not None:
        document["provenance"] = {"format": "claude-code", "time_origin": origin}
    return document


CLAUDE = {"input": 12_000, "output": 800, "uncached_input": 2_000, "cache_creation": 4_000,
          "cache_read": 6_000}


def test_a_call_is_priced_by_its_token_kinds_at_the_table_rates():
    result = replayed(session(call("c1", 0, "claude-sonnet-4-20250514", CLAUDE))).to_dict()
    found = result["cost_usd_estimated"]
    model = found["per_model"]["claude-sonnet-4-20250514"]
    rates = model["price"]["usd_per_million_tokens"]
    assert model["price"]["provider"] == "anthropic" and not model["price"]["tiered"]
    expected = (2_000 * rates["input"] + 4_000 * rates["cache_write"]
                + 6_000 * rates["cache_read"] + 800 * rates["output"]) / MILLION
    assert found["total"] == pytest.approx(expected, rel=1e-9)
    assert rates["cache_read"] < rates["input"] < rates["cache_write"]  # the kinds differ
    assert (model["tokens_in"], model["tokens_out"], model["cache_read"],
            model["cache_write"]) == (12_000, 800, 6_000, 4_000)
    assert (found["partial"], found["model_calls"], found["priced_calls"]) == (False, 1, 1)
    assert found["per_agent"] == {"main": found["total"]}
    assert found["price_table"] == {"source": "genai-prices",
                                    "version": metadata.version("genai-prices")}
    assert found["priced_at"] == "2026-02-11T20:36:45.618000Z"
    assert result["cost_usd"]["total"] is None  # the estimate is never the recorded cost
    assert not any(key.startswith("cost_usd_estimated") for key in result["not_recorded"])


def test_codex_and_atif_names_of_the_cached_part_are_read():
    usage = {"input": 10_000, "output": 100, "cached_input": 9_000}
    found = replayed(session(call("c1", 0, "gpt-4.1", usage))).to_dict()["cost_usd_estimated"]
    rates = found["per_model"]["gpt-4.1"]["price"]["usd_per_million_tokens"]
    assert found["total"] == pytest.approx(
        (1_000 * rates["input"] + 9_000 * rates["cache_read"] + 100 * rates["output"])
        / MILLION)


@pytest.mark.parametrize(("name", "provider", "model"), [
    ("openai/o3", "openai", "o3"),
    ("mistral/mistral-small-latest", "mistral", "mistral-small-latest"),
    ("projects/p/locations/europe-central2/publishers/google/models/gemini-2.5-flash", "google",
     "gemini-2.5-flash"),
    ("bedrock/us.anthropic.claude-haiku-4-5-20251001-v1:0", "aws", None),
    ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", "aws", None),
])
def test_a_model_named_with_its_provider_or_path_is_found(name, provider, model):
    usage = {"input": 1000, "output": 100}
    found = replayed(session(call("c1", 0, name, usage))).to_dict()["cost_usd_estimated"]
    price = found["per_model"][name]["price"]
    assert price["provider"] == provider and found["total"] > 0
    if model is not None:
        assert price["model"] == model


def test_unknown_models_and_calls_that_cannot_be_priced_are_counted_apart():
    document = session(
        call("c1", 0, "claude-sonnet-4-20250514", {"input": 1000, "output": 10}),
        call("c2", 1, "our-own-model-7b", {"input": 1000, "output": 10}),
        call("c3", 2, None, {"input": 500, "output": 5}),
        call("c4", 3, "gpt-4o", {"total": 70}),
        call("c5", 4, "gpt-4o", None, tokens=30),
        event("e6", 5, "message", "user"),
    )
    result = replayed(document).to_dict()
    found = result["cost_usd_estimated"]
    assert found["partial"] is True and found["total"] > 0
    assert (found["model_calls"], found["priced_calls"]) == (5, 1)
    assert found["unknown_models"] == ["our-own-model-7b"]
    assert found["unpriced"] == {cost_estimate.UNKNOWN_MODEL: 1, cost_estimate.NO_MODEL: 1,
                                 cost_estimate.NO_SPLIT: 2}
    assert list(found["per_model"]) == ["claude-sonnet-4-20250514"]


def test_a_log_of_unknown_models_only_has_no_estimate_and_says_why():
    result = replayed(session(call("c1", 0, "our-own-model-7b", {"input": 9, "output": 1})))
    result = result.to_dict()
    assert result["cost_usd_estimated"]["total"] is None
    assert result["not_recorded"]["cost_usd_estimated.total"] == recorded.ALL_UNKNOWN


def test_calls_without_model_or_split_say_why():
    result = replayed(session(call("c1", 0, None, {"input": 9, "output": 1}))).to_dict()
    assert result["not_recorded"]["cost_usd_estimated.total"] == recorded.NO_PRICEABLE
    bare = replay(load_trace(FIXTURES / "small.json")).to_dict()  # tokens, no model: unpriced
    assert bare["not_recorded"]["cost_usd_estimated.total"] == recorded.NO_PRICEABLE


def test_without_the_price_table_the_estimate_says_to_install_it(monkeypatch):
    monkeypatch.setattr(cost_estimate, "table_version", lambda: None)
    result = replayed(session(call("c1", 0, "gpt-4o", {"input": 9, "output": 1}))).to_dict()
    found = result["cost_usd_estimated"]
    assert (found["total"], found["price_table"]["version"]) == (None, None)
    assert result["not_recorded"]["cost_usd_estimated.total"] == recorded.INSTALL
    assert "pip install genai-prices" in recorded.INSTALL


def test_an_undated_trace_is_priced_as_of_the_declared_date():
    found = replayed(session(call("c1", 0, "gpt-4o", {"input": 9, "output": 1}), origin=None))
    assert found.to_dict()["cost_usd_estimated"]["priced_at"] == (
        cost_estimate.UNDATED_AS_OF.isoformat().replace("+00:00", "Z"))


def test_the_fast_path_reads_the_model_fields_as_the_full_path_does():
    document = session(call("c1", 0, "claude-sonnet-4-20250514", CLAUDE),
                       call("c2", 1, "o3", {"input": 10, "output": 3}, agent="sub"))
    full = replayed(document).to_dict()["cost_usd_estimated"]
    report = validate_bytes(json.dumps(document).encode())
    assert report.trace.event_records.structs  # the fast path was taken
    assert replay(report.trace).to_dict()["cost_usd_estimated"] == full
    assert full["priced_calls"] == 2


def test_a_trace_that_names_no_model_never_imports_the_price_table():
    code = ("import sys; from masrl.traces import load_trace, replay\n"
            f"replay(load_trace({str(resources.EXAMPLES / 'swarm.json')!r})).to_dict()\n"
            "assert 'genai_prices' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_estimate_fetches_nothing():
    """With every connection refused and proxies pointing nowhere, a session is priced."""
    document = session(call("c1", 0, "claude-opus-4-6", CLAUDE))
    code = (
        "import json, socket, sys\n"
        "def refuse(*args, **kwargs):\n"
        "    raise OSError('network used')\n"
        "socket.socket.connect = refuse\n"
        "socket.create_connection = refuse\n"
        "from masrl.traces import replay, validate_document\n"
        "doc = json.loads(sys.stdin.read())\n"
        "found = replay(validate_document(doc).trace).to_dict()['cost_usd_estimated']\n"
        "assert found['total'] > 0 and not found['partial'], found\n")
    bogus = "http://127.0.0.1:9"
    env = {**os.environ, "HTTP_PROXY": bogus, "HTTPS_PROXY": bogus, "ALL_PROXY": bogus,
           "http_proxy": bogus, "https_proxy": bogus}
    subprocess.run([sys.executable, "-c", code], input=json.dumps(document), text=True,
                   env=env, check=True)


def test_the_table_version_is_the_one_importlib_metadata_gives(monkeypatch):
    """Read from the .dist-info folder beside the module, or (without a Version there) asked
    through importlib.metadata: the same answer either way."""
    expected = metadata.version(cost_estimate.PRICE_TABLE)

    def unasked(name):
        raise AssertionError("importlib.metadata was asked")

    with monkeypatch.context() as patched:
        patched.setattr(metadata, "version", unasked)
        cost_estimate.table_version.cache_clear()
        assert cost_estimate.table_version() == expected
    monkeypatch.setattr(cost_estimate, "_metadata_version", lambda path: None)
    cost_estimate.table_version.cache_clear()
    assert cost_estimate.table_version() == expected
    cost_estimate.table_version.cache_clear()


def test_the_version_header_is_read_from_the_headers_only(tmp_path):
    path = tmp_path / "METADATA"
    path.write_text("Metadata-Version: 2.4\nName: genai-prices\nVersion: 0.2.5\n\nVersion: 9\n",
                    encoding="utf-8")
    assert cost_estimate._metadata_version(path) == "0.2.5"
    path.write_text("Metadata-Version: 2.4\nName: x\n\nVersion: 9\n", encoding="utf-8")
    assert cost_estimate._metadata_version(path) is None
