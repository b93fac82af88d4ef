"""A run that stops loses nothing and, run again, duplicates nothing; a folder of other inputs is
refused."""

from __future__ import annotations

from corpus_helpers import tree_bytes

from masrl.commands import main
from masrl.traces.corpus import writer as writer_module
from masrl.traces.corpus.summary import read_table


def run(corpus, out, *options) -> int:
    return main(["corpus", str(corpus), "-o", str(out), "--shard-size", "3", "--workers", "1",
                 *options])


class Crash(RuntimeError):
    pass


def test_an_interrupted_run_resumes_to_the_same_bytes(corpus, tmp_path, monkeypatch, capsys):
    clean = tmp_path / "clean"
    run(corpus, clean)
    expected = tree_bytes(clean)

    out = tmp_path / "out"
    real_write, written = writer_module.CorpusWriter.write, []

    def crash_on_third_shard(self, index, files, inputs):
        if len(written) == 2:  # the third shard's files written, not yet committed
            for table, data in files.items():
                (self.out / table / writer_module.pending_name(index)).write_bytes(data)
            raise Crash("killed")
        real_write(self, index, files, inputs)
        written.append(index)

    monkeypatch.setattr(writer_module.CorpusWriter, "write", crash_on_third_shard)
    assert run(corpus, out) == 3  # the command's last resort: an internal error, said in one line
    assert "masrl: internal error: Crash: killed" in capsys.readouterr().err
    kept = {name: data for name, data in tree_bytes(out).items() if ".pending" not in name}
    assert len(read_table(out, "traces")) == 6  # two shards of three traces: done, kept
    assert sorted(p.name for p in (out / "events").iterdir()) == [
        ".part-00002.parquet.pending", "part-00000.parquet", "part-00001.parquet"]
    (out / "traces" / ".part-00004.parquet.x.partial").write_bytes(b"left by a crash")
    monkeypatch.setattr(writer_module.CorpusWriter, "write", real_write)
    capsys.readouterr()
    assert run(corpus, out) == 1
    assert "5 shards, 2 already done" in capsys.readouterr().out
    assert tree_bytes(out) == expected  # nothing lost, nothing twice, no temporary file left
    assert all(kept[name] == expected[name] for name in kept)  # done shards were not redone
    sources = read_table(out, "traces")["source"].to_pylist()
    assert len(sources) == len(set(sources)) == 13


def test_a_finished_run_run_again_recomputes_nothing(corpus, tmp_path, capsys):
    out = tmp_path / "out"
    run(corpus, out)
    before = tree_bytes(out)
    capsys.readouterr()
    assert run(corpus, out) == 1
    assert "5 shards, 5 already done" in capsys.readouterr().out
    assert tree_bytes(out) == before


def test_a_folder_of_other_inputs_or_shard_size_is_refused(corpus, tmp_path, capsys):
    out = tmp_path / "out"
    run(corpus, out)
    before = tree_bytes(out)
    assert main(["corpus", str(corpus / "small.json"), "-o", str(out)]) == 2
    assert "holds the tables of other inputs" in capsys.readouterr().err
    assert run(corpus, out, "--shard-size", "4") == 2
    assert tree_bytes(out) == before


def test_a_folder_holding_something_else_is_refused(corpus, tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "mine.txt").write_text("keep me", encoding="utf-8")
    assert run(corpus, out) == 2
    assert "not empty (mine.txt)" in capsys.readouterr().err
    assert [p.name for p in out.iterdir()] == ["mine.txt"]


def test_ctrl_c_says_how_to_resume_and_keeps_what_was_written(corpus, tmp_path, monkeypatch,
                                                              capsys):
    out = tmp_path / "out"
    real_write = writer_module.CorpusWriter.write

    def interrupted_after_one(self, index, files, inputs):
        real_write(self, index, files, inputs)
        raise KeyboardInterrupt

    monkeypatch.setattr(writer_module.CorpusWriter, "write", interrupted_after_one)
    assert run(corpus, out) == 130
    assert "run the same command again to resume" in capsys.readouterr().err
    assert len(read_table(out, "traces")) == 3


def test_an_output_that_is_a_file_or_the_input_is_refused_in_words(corpus, tmp_path, capsys):
    """-o naming a file said only "File exists"; -o naming the input said it lies "inside the
    output folder" (it is the same path)."""
    taken = tmp_path / "taken.json"
    taken.write_text("keep me", encoding="utf-8")
    assert run(corpus, taken) == 2
    assert f"{taken}: a file, not a folder; -o names the folder" in capsys.readouterr().err
    assert taken.read_text(encoding="utf-8") == "keep me"
    source = corpus / "small.json"
    before = source.read_bytes()
    assert main(["corpus", str(source), "-o", str(source)]) == 2
    assert f"{source}: also the output folder (-o {source})" in capsys.readouterr().err
    assert source.read_bytes() == before
