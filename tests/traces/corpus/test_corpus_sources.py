"""Finding the traces of a corpus: ids, order, JSON Lines spans, shards and the fingerprint."""

from __future__ import annotations

import pytest

from masrl.traces.corpus import sources


def ids(found):
    return [s.source for s in found]


def test_ids_are_relative_to_the_folder_holding_every_src_and_in_order(corpus):
    found = sources.trace_sources(sources.find_files([corpus]))
    examples = sorted(f"corpus/examples/{p.name}" for p in (corpus / "examples").iterdir())
    assert ids(found) == ["corpus/bad_line.jsonl:1", "corpus/bad_line.jsonl:3",
                          "corpus/bad_line.jsonl:4", "corpus/bad_line.jsonl:5", *examples,
                          "corpus/gone.json", "corpus/not_json.json", "corpus/small.json"]


def test_ids_do_not_depend_on_how_the_sources_are_named(corpus, monkeypatch):
    absolute = ids(sources.trace_sources(sources.find_files([corpus / "small.json"])))
    monkeypatch.chdir(corpus / "examples")
    relative = ids(sources.trace_sources(sources.find_files(["../small.json"])))
    assert absolute == relative == ["small.json"]


def test_a_file_named_twice_is_read_once(corpus):
    found = sources.find_files([corpus, corpus / "small.json", corpus / "examples"])
    names = [name for name, _ in found]
    assert len(names) == len(set(names)) == 10
    assert "corpus/small.json" in names  # named through its folder first: that name holds


def test_lines_are_ordered_by_number_not_as_text(tmp_path):
    path = tmp_path / "many.jsonl"
    path.write_text("".join(f'{{"n": {k}}}\n' for k in range(12)), encoding="utf-8")
    found = sources.trace_sources(sources.find_files([path]))
    assert [s.line for s in found] == list(range(1, 13))
    assert ids(found)[9:11] == ["many.jsonl:10", "many.jsonl:11"]


@pytest.mark.parametrize("chunk", [1, 3, 7, 1 << 20])
def test_line_spans_across_chunk_boundaries(tmp_path, monkeypatch, chunk):
    monkeypatch.setattr(sources, "CHUNK", chunk)
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"a":1}\n\n  \t\n{"b":22}\r\n{"c":3}')
    spans = sources.line_spans(path)
    data = path.read_bytes()
    assert [(n, data[a:b]) for n, a, b in spans] == [
        (1, b'{"a":1}'), (4, b'{"b":22}\r'), (5, b'{"c":3}')]


def test_a_missing_src_is_named(tmp_path):
    with pytest.raises(sources.SourceMissing, match="nowhere.json: no such file"):
        sources.find_files([tmp_path / "nowhere.json"])


def test_shards_cut_in_order_and_reading_reports_unreadable(corpus):
    found = sources.trace_sources(sources.find_files([corpus]))
    plan = sources.shards(found, 4)
    assert [len(s.sources) for s in plan] == [4, 4, 4, 1]
    assert [s for shard in plan for s in shard.sources] == found
    read = dict((s.source, data) for shard in plan for s, data in sources.read_shard(shard))
    assert read["corpus/gone.json"] == "cannot read: no such file"
    assert read["corpus/bad_line.jsonl:5"].endswith(b"}")  # the line without a newline
    assert read["corpus/small.json"] == (corpus / "small.json").read_bytes()


def test_a_shortened_lines_file_is_unreadable_not_misread(corpus):
    found = sources.trace_sources(sources.find_files([corpus / "bad_line.jsonl"]))
    (corpus / "bad_line.jsonl").write_text("{}", encoding="utf-8")
    read = list(sources.read_shard(sources.Shard(0, tuple(found))))
    assert all(isinstance(data, str) and "changed" in data for _, data in read)


def test_the_fingerprint_follows_ids_sizes_and_shard_size(corpus):
    found = sources.trace_sources(sources.find_files([corpus]))
    first = sources.fingerprint(found, 4)
    assert sources.fingerprint(found, 4) == first
    assert sources.fingerprint(found, 5) != first
    (corpus / "small.json").write_text((corpus / "small.json").read_text() + " ")
    assert sources.fingerprint(found, 4) != first
