"""Problems found in data files, and the error that carries them.

Every check in the package reports problems in one shape, printed as ``FILE:ROW:FIELD: message``
where ROW is the 1-based line of the file (the header is line 1), an entry key for BibTeX, a
``section[i]`` for YAML, or ``0`` for the file as a whole. Every part is printed through
:func:`masrl.terminal.printable`, so text quoted from a file (a key holding an escape sequence or
a line break) cannot drive the terminal or forge a line of output.

A problem marked ``unreadable`` says that the file could not be read at all (missing, a
directory, a FIFO, too large, permission denied): the commands exit 2 for those, as for any
missing or unreadable file, and 1 for problems of content.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from masrl.terminal import PART_LIMIT, abbreviated, printable


@dataclass(frozen=True, order=True)
class DataProblem:
    file: str
    row: str
    field: str
    message: str
    unreadable: bool = field(default=False, compare=False)

    def __str__(self) -> str:
        return printable(f"{self.file}:{abbreviated(self.row, PART_LIMIT)}:"
                         f"{abbreviated(self.field, PART_LIMIT)}: "
                         f"{abbreviated(self.message, PART_LIMIT)}")


class DataError(ValueError):
    """Raised by a loader when its file fails validation; ``.problems`` lists every problem."""

    def __init__(self, problems: list[DataProblem]):
        self.problems = sort_problems(problems)
        super().__init__("\n".join(str(p) for p in self.problems))

    @property
    def unreadable(self) -> bool:
        """Whether a file could not be read at all (see :class:`DataProblem`)."""
        return any(p.unreadable for p in self.problems)

    def _render_traceback_(self) -> list[str]:
        """In a notebook, the problems as ``masrl check-data`` prints them, not a traceback:
        the data are at fault, not the code."""
        return ["DataError:", *(str(p) for p in self.problems)]


def sort_problems(problems) -> list[DataProblem]:
    """File by file, then by line number (keys after numbered lines), without duplicates."""
    return sorted(set(problems), key=_sort_key)


def _sort_key(problem: DataProblem) -> tuple:
    row = int(problem.row) if problem.row.isascii() and problem.row.isdigit() else 0
    return (problem.file, row, problem.row, problem.field, problem.message)
