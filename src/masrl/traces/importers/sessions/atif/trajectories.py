"""The trajectories of one ATIF run, read before any event: the root file, the continuation
segments its ``continued_trajectory_ref`` chain names, the embedded sub-agent trajectories and
the files that references name (pre-v1.7 references by ``session_id`` resolved first)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from atif import Trajectory
from pydantic import ValidationError

from masrl.traces import strict_json
from masrl.traces.importers._kit.common import ImportResult, SourceError, read_json, read_text
from masrl.traces.importers._kit.numbers import amount, count
from masrl.traces.importers._kit.timestamps import moment_ns


def schema_version(document) -> tuple[int, int] | None:
    """``ATIF-v1.6`` as ``(1, 6)`` (``None`` when the tag is not of that form)."""
    match = re.fullmatch(r"ATIF-v(\d+)\.(\d+)(?:\.\d+)?", str(document.get("schema_version", "")))
    return (int(match.group(1)), int(match.group(2))) if match else None


def parse(document, file: Path) -> Trajectory:
    """The document as a validated :class:`atif.Trajectory`; else a :class:`SourceError` at the
    first place the models reject."""
    if not isinstance(document, dict):
        raise SourceError(file, None, "an ATIF trajectory must be a JSON object")
    try:
        return Trajectory.model_validate(document)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first["loc"])
        message = first["msg"].removeprefix("Value error, ")
        raise SourceError(file, where.lstrip(".") or None,
                          f"not an ATIF trajectory: {message}") from None


def micro(stamp: str, file: Path | None = None, where: str | None = None) -> int:
    """An ISO 8601 time in microseconds since 1970 (UTC when it names no zone); the models
    checked it is one, :func:`read_numbers` that it is a whole time."""
    return moment_ns(stamp, file or "trajectory", where, "timestamp", numbers=False) // 1000


MISSING_FEATURE = "sub-agent whose trajectory file is missing (its spawn and return only)"
PREFIXED = ("reference resolved to the file beside it that carries the referring file's prefix "
            "before 'trajectory'")
STEP_COUNTS = ("prompt_tokens", "completion_tokens", "cached_tokens")
FINAL_COUNTS = ("total_prompt_tokens", "total_completion_tokens", "total_cached_tokens",
                "total_steps")


def read_numbers(document: dict, file: Path, repairs: Counter) -> None:
    """The counts, costs and times of a trajectory (steps and final metrics, embedded
    sub-agents too) read by the kit's rule before the models see them: text is read and
    counted in ``repairs``, anything else (a negative count, ``true`` for a count, a date
    without a time) refused naming the place; the models would take ``"12"`` and ``true`` as
    numbers silently."""
    stack = [("", document)]
    while stack:
        where, trajectory = stack.pop()
        if not isinstance(trajectory, dict):
            continue
        steps = trajectory.get("steps")
        for k, step in enumerate(steps if isinstance(steps, list) else []):
            if not isinstance(step, dict):
                continue
            place = f"{where}steps[{k}]"
            if isinstance(step.get("timestamp"), str):
                moment_ns(step["timestamp"], file, place, "timestamp", numbers=False)
            _read(step.get("metrics"), STEP_COUNTS, "cost_usd", file, f"{place}.metrics",
                  repairs)
        _read(trajectory.get("final_metrics"), FINAL_COUNTS, "total_cost_usd", file,
              f"{where}final_metrics", repairs)
        subs = trajectory.get("subagent_trajectories")
        for k, sub in enumerate(subs if isinstance(subs, list) else []):
            stack.append((f"{where}subagent_trajectories[{k}].", sub))


def _read(metrics, counts: tuple[str, ...], cost: str, file: Path, where: str,
          repairs: Counter) -> None:
    if not isinstance(metrics, dict):
        return
    for key in counts:
        if key in metrics:
            metrics[key] = count(metrics[key], file, where, key, repairs)
    if cost in metrics:
        metrics[cost] = amount(metrics[cost], file, where, cost, repairs)


def refs_of(document) -> list[dict]:
    """Every ``subagent_trajectory_ref`` object of a raw document, embedded trajectories
    included."""
    found, stack = [], [document]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            refs = node.get("subagent_trajectory_ref")
            if isinstance(refs, list):
                found.extend(r for r in refs if isinstance(r, dict))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


def step_results(step) -> list:
    """The observation results of a step (none when it has no observation)."""
    return list(step.observation.results) if step.observation is not None else []


class Trajectories:
    """Every trajectory of the run at ``path``, read and indexed; files read and repairs are
    noted in ``result``, the shapes the run uses in :attr:`features`."""

    def __init__(self, path: Path, result: ImportResult):
        self.path = path
        self.result = result
        self.features: Counter = Counter()  # what the document uses (provenance.recognised)
        self.index: dict[str, Trajectory] = {}  # every embedded trajectory by its id
        self.place_of: dict[str, str] = {}  # embedded trajectory id -> its place in the file
        self.files: dict[str, Trajectory] = {}  # trajectory_path files, read once
        self.prefixed: set[Path] = set()  # files found with the referrer's prefix (counted)
        self.missing: set[Path] = set()  # referenced files not beside the trajectory (counted)
        self.root = self.load(path)
        self.segments = self.continuations(self.root)
        for trajectory, place in self.segments:
            self.register(trajectory, place)
        for trajectory, place in self.segments:
            self.load_referenced(trajectory, place)

    def load(self, file: Path) -> Trajectory:
        """A trajectory file: pre-v1.7 references by ``session_id`` alone resolved first (see
        :meth:`resolve_session_refs`), then checked by the ``atif`` models."""
        document = read_json(file)
        if isinstance(document, dict):
            self.resolve_session_refs(document, file)
            read_numbers(document, file, self.result.repairs)
        return parse(document, file)


    def resolve_session_refs(self, document: dict, file: Path) -> None:
        """Before v1.7 a sub-agent reference could name its trajectory by ``session_id`` only
        (the ``atif`` models, which follow v1.8, refuse that); in a document older than v1.7
        such a ref is resolved to the trajectory file beside it whose ``session_id`` it names
        (counted), else it is an error naming the session."""
        version = schema_version(document)
        loose = [r for r in refs_of(document) if r.get("trajectory_id") is None
                 and r.get("trajectory_path") is None and isinstance(r.get("session_id"), str)]
        if not loose or version is None or version >= (1, 7):
            return
        by_session = {}
        for other in sorted(file.parent.glob("*.json")):
            if other == file:
                continue
            candidate, findings = strict_json.parse_fast(read_text(other))
            if not findings and isinstance(candidate, dict) and isinstance(
                    candidate.get("session_id"), str):
                by_session.setdefault(candidate["session_id"], other.name)
        for ref in loose:
            name = by_session.get(ref["session_id"])
            if name is None:
                raise SourceError(file, None, f"a {document['schema_version']} sub-agent "
                                  f"reference names session {ref['session_id']!r} only, and no "
                                  "trajectory file beside it has that session_id")
            ref["trajectory_path"] = name
            self.result.repairs["pre-v1.7 sub-agent reference resolved by its session_id to the "
                                "file beside it"] += 1


    def sibling(self, referrer: Path, name: str) -> Path:
        """The file beside ``referrer`` that a reference ``name`` means: ``name`` itself, else,
        when the referring file carries a prefix before ``trajectory`` (a harness that keeps
        several runs in one folder, ``run-7.trajectory.json``), the file with that prefix
        before ``name`` (``run-7.trajectory.cont-1.json`` for ``trajectory.cont-1.json``;
        counted)."""
        file = referrer.parent / name
        at = referrer.name.find("trajectory")
        if file.is_file() or at <= 0 or not Path(name).name.startswith("trajectory"):
            return file
        prefixed = referrer.parent / Path(name).parent / (referrer.name[:at] + Path(name).name)
        if prefixed.is_file():
            if prefixed not in self.prefixed:
                self.prefixed.add(prefixed)
                self.result.repairs[PREFIXED] += 1
            return prefixed
        return file

    def continuations(self, root: Trajectory) -> list[tuple[Trajectory, str]]:
        """The root and the segments its ``continued_trajectory_ref`` chain names (files beside
        it: a run Terminus split on context summarization), each with its place prefix."""
        segments, seen = [(root, "")], {self.path.resolve()}
        current = root
        referrer = self.path
        while current.continued_trajectory_ref:
            name = current.continued_trajectory_ref
            file = self.sibling(referrer, name)
            if not file.is_file():
                raise SourceError(self.path, "continued_trajectory_ref",
                                  f"{name!r} names no file beside the trajectory (the run goes "
                                  "on in it)")
            if file.resolve() in seen:
                raise SourceError(file, "continued_trajectory_ref",
                                  f"{name!r} continues a segment already read (a loop)")
            seen.add(file.resolve())
            current = self.load(file)
            self.result.files.append(str(file))
            segments.append((current, f"{name}:"))
            referrer = file
            self.features["continuation segment"] += 1
        return segments


    def load_referenced(self, trajectory: Trajectory, where: str) -> None:
        """Read every file a reference of ``trajectory`` (and of what it embeds or references)
        names, before any event, so that the run's first time is known."""
        for k, step in enumerate(trajectory.steps):
            for j, result in enumerate(step_results(step)):
                for m, ref in enumerate(result.subagent_trajectory_ref or []):
                    if ref.trajectory_path is None or (ref.trajectory_id is not None
                                                       and ref.trajectory_id in self.index):
                        continue
                    known = str(self.sibling(self.path, ref.trajectory_path)) in self.files
                    sub, _name, place = self.resolve(
                        ref, f"{where}steps[{k}].observation.results[{j}]"
                             f".subagent_trajectory_ref[{m}]")
                    if not known and sub is not None:
                        self.load_referenced(sub, place)
        for sub in trajectory.subagent_trajectories or []:
            self.load_referenced(sub, self.place_of[sub.trajectory_id] + ".")


    def register(self, trajectory: Trajectory, where: str = "") -> None:
        for i, sub in enumerate(trajectory.subagent_trajectories or []):
            place = f"{where}subagent_trajectories[{i}]"
            self.index.setdefault(sub.trajectory_id, sub)
            self.place_of.setdefault(sub.trajectory_id, place)
            self.features["embedded sub-agent trajectory"] += 1
            self.register(sub, place + ".")


    def all_steps(self, trajectory: Trajectory):
        yield from trajectory.steps
        for sub in trajectory.subagent_trajectories or []:
            yield from self.all_steps(sub)


    def resolve(self, ref, where: str) -> tuple[Trajectory | None, str, str]:
        """The trajectory a ``subagent_trajectory_ref`` names, its agent name and its place.
        A ``trajectory_path`` that names no file beside the trajectory (a run often shared as
        its ``trajectory.json`` alone) gives no trajectory: the sub-agent is known by its spawn
        and its return only, named by the reference's ``trajectory_id`` or the file's stem, and
        the missing file is counted under a reason that names it."""
        if ref.trajectory_id is not None and ref.trajectory_id in self.index:
            return (self.index[ref.trajectory_id], ref.trajectory_id,
                    self.place_of[ref.trajectory_id] + ".")
        if ref.trajectory_path is not None:
            file = self.sibling(self.path, ref.trajectory_path)
            if not file.is_file():
                if file not in self.missing:
                    self.missing.add(file)
                    self.features[MISSING_FEATURE] += 1
                    self.result.account.skip_part(
                        f"sub-agent trajectory file {ref.trajectory_path!r} not beside the "
                        "trajectory (the sub-agent is known by its spawn and return only; its "
                        "steps are not recorded)")
                return (None, ref.trajectory_id or Path(ref.trajectory_path).stem,
                        f"{ref.trajectory_path}:")
            files = self.files
            if str(file) not in files:
                self.result.files.append(str(file))
                files[str(file)] = self.load(file)
                self.features["file-referenced sub-agent trajectory"] += 1
                self.register(files[str(file)], f"{ref.trajectory_path}:")
            sub = files[str(file)]
            name = sub.trajectory_id or ref.trajectory_id or Path(ref.trajectory_path).stem
            return sub, name, f"{ref.trajectory_path}:"
        raise SourceError(self.path, where, f"names trajectory {ref.trajectory_id!r}, which is "
                          "not among the subagent_trajectories")
