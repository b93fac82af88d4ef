"""Time to check 10,000 and 100,000 candidate rows: ``masrl intake --dry-run`` and ``masrl check-data``.

Writes a copy of ``data/`` whose ``candidates.csv`` holds the shipped candidates and N generated
pending ones: titles of 6 to 14 words drawn from a vocabulary of made-up words with a Zipf-like
frequency (a few words in most titles, as "learning" and "agent" are), mixed with the words
every title of the field shares, and a distinct arXiv id each. The vocabulary grows with the
number of titles (N / 2 words, at least 3,000), as a real field's does (Heaps' law): a fixed
vocabulary would make 100,000 titles near-copies of each other. One title in a hundred is
planted as a duplicate of another (the same id in full-width digits, or the same title with a
Cyrillic look-alike letter), so the deduplication has something to find. 100,000 rows make a
``candidates.csv`` of about 20 MB, past a data file's default limit of 16 MiB, so the script
sets ``MASRL_MAX_INPUT_BYTES`` to 256 MiB for the commands it times. Each command is timed
as a child process, in turn, best of ``--repeat`` rounds (:mod:`measuring`).

Target (issue 29): 100,000 candidate rows checked in well under a minute; the time per 10,000
rows should stay about the same from 10,000 to 100,000 rows (the identity tests are linear:
an index per key, and the fuzzy test compares only the pairs that share a rare word).
The figures are written to ``benchmarks/results/intake_scale.json`` (keys sorted, atomically).
Run with ``python benchmarks/intake_scale.py [--sizes 10000,100000 --repeat N]``.
"""

from __future__ import annotations

import csv
import io
import os
import random
import shutil
import tempfile
from pathlib import Path

from measuring import MASRL, Command, arguments, in_turn, write_results

from masrl import files, paths

RESULTS = Path(__file__).resolve().parent / "results" / "intake_scale.json"
COMMON = ("multi", "agent", "reinforcement", "learning", "for", "of", "the", "llm", "with",
          "language", "models", "credit", "assignment", "via", "in", "and", "a", "policy")
FULL_WIDTH = str.maketrans("0123456789.", "０１２３４５６７８９．")


def made_up_words(count: int, rng: random.Random) -> list[str]:
    syllables = ["ka", "lo", "mi", "ren", "tor", "vax", "quel", "dri", "son", "pha", "zu", "gim",
                 "bel", "nor", "ast", "ux", "pre", "lin", "cor", "dem"]
    words: set[str] = set()
    while len(words) < count:
        words.add("".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def candidate_rows(n: int, seed: int = 29) -> list[dict]:
    """``n`` pending candidates (see the module docstring)."""
    rng = random.Random(seed)
    vocabulary = made_up_words(max(3000, n // 2), rng)
    weights = [1 / (rank + 1) for rank in range(len(vocabulary))]
    rows = []
    for k in range(n):
        words = rng.choices(vocabulary, weights, k=rng.randint(3, 9))
        words += rng.sample(COMMON, rng.randint(3, 5))
        rng.shuffle(words)
        title = " ".join(words).capitalize()
        ident = f"{2700 + k // 99999:04d}.{k % 99999 + 1:05d}"
        rows.append({"candidate_id": f"C{k + 100:03d}", "identifier": f"arXiv:{ident}",
                     "title": title, "url": f"https://arxiv.org/abs/{ident}",
                     "first_public": "2026-11", "source": "arXiv",
                     "query_family": "credit assignment", "decision": "pending"})
        if k % 100 == 99:  # a planted duplicate of the row before
            before = rows[-2]
            if k % 200 == 99:
                rows[-1]["identifier"] = before["identifier"].translate(FULL_WIDTH)
            else:
                rows[-1]["title"] = before["title"].replace("a", "а", 1)  # Cyrillic а
    return rows


def data_with_candidates(target: Path, n: int) -> Path:
    """A copy of ``data/`` with ``n`` generated candidates appended."""
    folder = target / f"data-{n}"
    shutil.copytree(paths.DEFAULT_DATA_DIR, folder)
    path = folder / paths.CANDIDATES
    text = path.read_text(encoding="utf-8")
    columns = next(csv.reader(io.StringIO(text)))
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n", restval="")
    writer.writerows(candidate_rows(n))
    path.write_text(text + buffer.getvalue(), encoding="utf-8")
    return folder


def main() -> None:
    parser = arguments(__doc__, RESULTS)
    parser.add_argument("--sizes", default="10000,100000",
                        help="numbers of candidate rows, comma-separated (default: %(default)s)")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    # 100,000 candidates make a candidates.csv of about 20 MB, past a data file's 16 MiB
    os.environ[files.LIMIT_VARIABLE] = str(256 * 1024**2)
    load_1m = os.getloadavg()[0]
    figures: dict = {"load_1m_at_start": round(load_1m, 2), "repeat": args.repeat}
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            folder = data_with_candidates(Path(tmp), n)
            timed = in_turn({
                "intake": Command([MASRL, "intake", "--dry-run", "--data-dir", str(folder)],
                                  ok=(0, 1)),
                "check": Command([MASRL, "check-data", "--data-dir", str(folder)], ok=(0, 1)),
            }, args.repeat)
            for name, timing in timed.items():
                figures[f"{name}_{n}_s"] = round(timing.seconds, 3)
                figures[f"{name}_{n}_peak_mib"] = round(timing.peak_mib, 1)
                figures[f"{name}_{n}_per_10k_s"] = round(timing.seconds / n * 10_000, 3)
                print(f"{n:>7,} rows: masrl {'intake --dry-run' if name == 'intake' else 'check-data'}"
                      f" {timing.seconds:7.2f} s, {timing.seconds / n * 10_000:6.2f} s per 10k "
                      f"rows, peak {timing.peak_mib:6.1f} MiB")
    figures["sizes"] = sizes
    write_results(figures, args.output)
    print(f"figures written to {args.output}")


if __name__ == "__main__":
    main()
