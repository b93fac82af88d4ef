"""Helpers of the fault suite (``tests/faults``): planted intakes, snapshots of a folder, a
small full disk, a read-only folder, and a child process killed at a chosen step."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from intake_helpers import SCREENED, add_candidates  # noqa: F401 (the fault tests plant with it)


def included(cid: str, key: str, arxiv: str, **extra) -> dict:
    """A candidate the screening includes (every tag a pool row needs)."""
    return {"candidate_id": cid, "identifier": f"arXiv:{arxiv}", "record": key,
            "title": f"Learning When to Stop, part {cid}: RL for Termination of LLM Agent Teams",
            "first_author": "Doe, Jane", "affiliation": "unknown", "year": "2026",
            "venue": "arXiv", "url": f"https://arxiv.org/abs/{arxiv}", "first_public": "2026-11-02",
            "decision": "include", "reason": "trains an orchestrator's stopping decision",
            "category": "rl_method", "is_rl": "yes", "reward_type": "orchestration",
            "credit_granularity": "orchestrator", "orchestration_form": "centralized",
            "scenario": "general", "is_core": "core", "verified": "partial",
            "credit_mechanism": "shared_outcome", "subdecisions": "O5", "credit_reading": "broad",
            "summary": "Trains the orchestrator to decide when its team has done enough.",
            "evidence": "The orchestrator's stop action is the policy that RL trains.",
            **SCREENED, **extra}


def excluded(cid: str, title: str, arxiv: str, **extra) -> dict:
    """A candidate the screening excludes."""
    return {"candidate_id": cid, "title": title, "identifier": f"arXiv:{arxiv}",
            "url": f"https://arxiv.org/abs/{arxiv}", "first_public": "2026-03",
            "decision": "exclude", "exclusion_rule": "prompted_only", "reason": "a planted record",
            **SCREENED, **extra}


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (its path inside it) with its bytes."""
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def run_masrl(*args: str, env: dict | None = None, preexec: Callable | None = None
              ) -> subprocess.CompletedProcess:
    """``masrl ARGS`` as a child process (this environment's command)."""
    command = str(Path(sys.executable).with_name("masrl"))
    return subprocess.run([command, *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, preexec_fn=preexec, check=False)


def mount(*args: str) -> bool:
    """``mount ARGS``; whether it worked (root with the right to mount, else not)."""
    if shutil.which("mount") is None:
        return False
    return subprocess.run(["mount", *args], capture_output=True, check=False).returncode == 0


def unmount(path: Path) -> None:
    subprocess.run(["umount", str(path)], capture_output=True, check=False)


@contextlib.contextmanager
def small_disk(size: int):
    """A tmpfs of ``size`` bytes (a disk that fills), or ``None`` where mounting is not
    allowed (the caller then uses a file-size limit)."""
    folder = Path(tempfile.mkdtemp(prefix="masrl-full-disk-"))
    if not mount("-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)):
        folder.rmdir()
        yield None
        return
    try:
        yield folder
    finally:
        unmount(folder)
        folder.rmdir()


def fill(folder: Path, leave: int) -> None:
    """Fill ``folder``'s file system, then free ``leave`` bytes again."""
    filler = folder / "filler"
    with open(filler, "wb", buffering=0) as out:
        try:
            while True:
                out.write(b"\0" * 4096)
        except OSError:
            pass
    size = filler.stat().st_size
    os.truncate(filler, max(0, size - leave))


@contextlib.contextmanager
def read_only(folder: Path):
    """``folder`` made read-only for root too: a read-only bind mount of it on itself, else
    the immutable attribute (``chattr +i``); the test is skipped when neither works."""
    if mount("--bind", str(folder), str(folder)):
        if mount("-o", "remount,bind,ro", str(folder)):
            try:
                yield "mount"
            finally:
                unmount(folder)
            return
        unmount(folder)
    if shutil.which("chattr") and subprocess.run(["chattr", "+i", str(folder)],
                                                 capture_output=True).returncode == 0:
        try:
            yield "chattr"
        finally:
            subprocess.run(["chattr", "-i", str(folder)], capture_output=True, check=False)
        return
    pytest.skip("neither a read-only bind mount nor chattr +i works here, and root writes "
                "through file modes")


WATCHED = ("fsync", "link", "replace", "unlink")


def killed_at(step: int, action: Callable[[], int], watched: tuple[str, ...] = WATCHED,
              caller: str = "transaction.py") -> int | None:
    """Run ``action`` in a forked child that sends itself ``SIGTERM`` just before its
    ``step``-th call, from a module whose file name ends with ``caller``, of one of the
    ``watched`` functions of :mod:`os` (each a point where a write has ended or a rename is
    about to happen). ``None`` when the child was killed, else the exit code ``action``
    returned (it finished before that step)."""
    child = os.fork()
    if child == 0:  # pragma: no cover (the child)
        try:
            calls = [0]

            def wrap(real):
                def watched_call(*args, **kwargs):
                    if sys._getframe(1).f_code.co_filename.endswith(caller):
                        calls[0] += 1
                    if calls[0] == step:
                        os.kill(os.getpid(), signal.SIGTERM)
                    return real(*args, **kwargs)
                return watched_call

            for name in watched:
                setattr(os, name, wrap(getattr(os, name)))
            with open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet), \
                    contextlib.redirect_stderr(quiet):
                code = action()
        except BaseException:
            code = 99
        os._exit(code)
    _, status = os.waitpid(child, 0)
    if os.WIFSIGNALED(status):
        assert os.WTERMSIG(status) == signal.SIGTERM
        return None
    return os.WEXITSTATUS(status)
