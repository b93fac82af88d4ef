"""Running a chapter with papermill, the one way: ``scripts/execute_notebook.py`` (the book) and
the chapter tests call :func:`execute`. (``masrl report`` runs no notebook: it renders its page
straight from the replay, :mod:`masrl.presentation.report`.)

The chapter's MyST source is read with jupytext, its cells get stable ids (same source, same
bytes out), papermill runs it in the given working directory and what changes from run to run
(timestamps, durations) is stripped from the result. The kernel talks to papermill over
CurveZMQ-encrypted sockets, keys provisioned by jupyter_client (``transport_encryption``): so
it has no reason to warn, on every run, that its traffic is in plain text. Once every cell has
run and its outputs are in, the kernel is stopped at once (``shutdown_kernel="immediate"``):
the polite shutdown first interrupts the kernel, which now and then caught that interrupt
inside a message handler and logged a ``KeyboardInterrupt`` error for nothing.

papermill, jupytext and nbformat are imported inside the functions: the ``masrl`` command
starts without them.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

VOLATILE_METADATA = ("papermill", "execution")


def strip_volatile(notebook) -> None:
    """Remove the metadata that changes from run to run (papermill's, execution times)."""
    for key in VOLATILE_METADATA:
        notebook.metadata.pop(key, None)
    for cell in notebook.cells:
        for key in VOLATILE_METADATA:
            cell.metadata.pop(key, None)


def kernel_config():
    """The kernel manager's settings: transport encryption when the kernel supports it."""
    from traitlets.config import Config

    return Config({"KernelManager": {"transport_encryption": "auto"}})


def execute(source: Path, parameters: dict, cwd: Path | None = None):
    """The executed notebook of the chapter ``source`` (MyST markdown) run with
    ``parameters``, in ``cwd`` (default: the chapter's folder). A cell error raises
    ``papermill.PapermillExecutionError``."""
    import jupytext
    import nbformat
    import papermill

    notebook = jupytext.read(source)
    for index, cell in enumerate(notebook.cells):
        cell.id = f"cell-{index:03d}"
    notebook.metadata.setdefault("kernelspec", {"name": "python3", "display_name": "Python 3",
                                                "language": "python"})
    with tempfile.TemporaryDirectory() as tmp:
        unexecuted = Path(tmp) / "input.ipynb"
        nbformat.write(notebook, unexecuted)
        executed = papermill.execute_notebook(
            str(unexecuted), None, parameters=parameters, cwd=str(cwd or source.parent),
            kernel_name="python3", progress_bar=False, log_output=False,
            config=kernel_config(), shutdown_kernel="immediate",
        )
    strip_volatile(executed)
    return executed
