"""What "the pool on a date" means: two named views, one rule each, the same before, at and
after the survey's cut-off.

* **As screened** (``as_of``, ``masrl claims --as-of D``): the pool *as this survey had screened
  it on D*. A row counts once its screening round is dated on or before D
  (``search_protocol.yaml``), whatever its first public date: round 0 (the survey's search) is
  dated at the cut-off, so from the cut-off to the day before round 1 the pool is the cut-off's,
  and a paper public in between (LEMON, public on 2026-05-14) joins on the date of the round that
  screened it. Before round 0 nothing had been screened: such a date is refused with one line
  that says so and points to the other view. ``latest`` is the latest round's date, and no
  ``as_of`` at all is the cut-off.
* **Published by** (``published_by``, ``masrl claims --published-by D``): *what had been
  published by D*, as far as every round screened so far knows. A row of any round counts when
  it was public by D (:func:`masrl.data.dates.public_by`): a date known to the month or the year
  counts from its last day. **Unknown dates**: a row whose first public date is unknown counts
  from the date of the round that screened it, the first day we know it existed; no row is ever
  placed before the latest day it may have appeared. A date after the latest round's search
  (``searched_through``) is refused: what appeared since is not known. ``latest`` is that day.

Both views are answers for any calendar date that is not refused (an empty pool is an answer:
nothing had been published by 1970-01-01); every refusal is a :class:`ViewError`, one line.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from masrl.data import dates
from masrl.data.protocol import Protocol, Round

LATEST = "latest"  # the latest screening round (as screened), or its search date (published by)
AS_OF, PUBLISHED_BY = "as-of", "published-by"


class ViewError(ValueError):
    """A date the view cannot answer for, in one line that says why (a usage error)."""


def _checked(value: str | None, flag: str) -> str | None:
    if value not in (None, LATEST):
        try:
            dates.parse_day(value, f"--{flag} date")
        except ValueError as exc:
            raise ViewError(f"{exc} (or '{LATEST}')") from None
    return value


@dataclass(frozen=True)
class View:
    """One of the two views (``kind``) at one requested date (``None``: the cut-off; ``latest``;
    or ``YYYY-MM-DD``), as the module docstring defines them."""

    kind: str = AS_OF
    requested: str | None = None

    @classmethod
    def of(cls, as_of: str | None = None, published_by: str | None = None) -> View:
        """The view a caller asks for; a :class:`ViewError` for both at once or a bad date."""
        if as_of is not None and published_by is not None:
            raise ViewError("give --as-of or --published-by, not both")
        if published_by is not None:
            return cls(PUBLISHED_BY, _checked(published_by, PUBLISHED_BY))
        return cls(AS_OF, _checked(as_of, AS_OF))

    @property
    def is_cutoff(self) -> bool:
        """The survey's own view: as screened at its cut-off (the default)."""
        return self.kind == AS_OF and self.requested is None

    def day(self, protocol: Protocol) -> dt.date:
        """The date this view sees the pool at (a :class:`ViewError` when it cannot answer)."""
        rounds = protocol.rounds
        if self.kind == AS_OF:
            if self.requested is None:
                return rounds[0].day
            if self.requested == LATEST:
                return rounds[-1].day
            day = dt.date.fromisoformat(self.requested)
            if day < rounds[0].day:
                raise ViewError(
                    f"--as-of {self.requested}: this survey had screened nothing by then (its "
                    f"first screening round is dated {rounds[0].date}); --published-by "
                    f"{self.requested} shows what had been published by then")
            return day
        through = max(dt.date.fromisoformat(r.searched_through) for r in rounds)
        if self.requested == LATEST:
            return through
        day = dt.date.fromisoformat(self.requested)
        if day > through:
            raise ViewError(
                f"--published-by {self.requested}: the latest screening round searched through "
                f"{through.isoformat()}; what was published after that is not known yet")
        return day

    def rounds(self, protocol: Protocol) -> list[Round]:
        """The rounds whose rows this view may count: those dated by its day (as screened), or
        every round (published by: a round screens records published before its date)."""
        if self.kind == PUBLISHED_BY:
            return list(protocol.rounds)
        day = self.day(protocol)
        return [r for r in protocol.rounds if r.day <= day]

    def counts(self, first_public: str, round_day: dt.date, day: dt.date) -> bool:
        """Whether a row of a round dated ``round_day`` (seen by :meth:`rounds`) counts at
        ``day``: always (as screened), or when it was public by then (published by)."""
        if self.kind == AS_OF:
            return round_day <= day
        return dates.public_by(first_public, round_day) <= day

    def describe(self, protocol: Protocol) -> str:
        """The view in words: ``as screened on 2026-12-04 (rounds 0-1)``, ``published by
        2026-05-20 (every round)``."""
        day = self.day(protocol).isoformat()
        if self.kind == PUBLISHED_BY:
            return f"published by {day} (what every screening round found)"
        ids = [r.id for r in self.rounds(protocol)]
        span = f"round {ids[0]}" if len(ids) == 1 else f"rounds {ids[0]}-{ids[-1]}"
        return f"as screened on {day} ({span})"
