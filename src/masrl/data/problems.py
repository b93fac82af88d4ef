"""Problems found in data files, and the error that carries them.

Every check in the package reports problems in one shape, printed as ``FILE:ROW:FIELD: message``
where ROW is the 1-based line of the file (the header is line 1) or an entry key for BibTeX.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class DataProblem:
    file: str
    row: str
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.row}:{self.field}: {self.message}"


class DataError(ValueError):
    """Raised by a loader when its file fails validation; ``.problems`` lists every problem."""

    def __init__(self, problems: list[DataProblem]):
        self.problems = sort_problems(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


def sort_problems(problems) -> list[DataProblem]:
    """File by file, then by line number (keys after numbered lines), without duplicates."""
    return sorted(set(problems), key=_sort_key)


def _sort_key(problem: DataProblem) -> tuple:
    row = int(problem.row) if problem.row.isdigit() else 0
    return (problem.file, row, problem.row, problem.field, problem.message)
