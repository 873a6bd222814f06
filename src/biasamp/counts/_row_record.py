"""Which stream positions a count table has counted: sorted disjoint intervals.

A stream of rows is counted in batches, by one process or several; each row must be
counted once. :class:`RowRecord` keeps the positions counted as sorted disjoint
half-open intervals ``[start, stop)``: a stream counted in order is one interval
whatever its length or its offset (``row_offset=2**63 - 10`` costs two integers,
not a bitmap up to that position), and positions from a shuffling sampler are as
many intervals as runs. Adding a batch and checking it against what was counted
takes O(batch log n) amortised (a few sorted levels merged as they grow, as in a
log-structured merge); no step loops over rows in Python.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["ERR_POSITION_RANGE", "ERR_ROWS_TWICE", "RowRecord"]

ERR_ROWS_TWICE = (
    "{arg}: stream positions {rows} would be counted twice ({how}); every row of a stream is "
    "counted once. Give each batch its own positions (row_offset= the position of its first "
    "row, row_index= distinct positions), and merge only tables of different rows."
)
ERR_POSITION_RANGE = (
    "{arg}: the batch's positions {start} .. {stop} - 1 go beyond 2**63 - 1, the largest "
    "stream position."
)

#: The largest stream position + 1.
POSITION_LIMIT = 2**63 - 1

Intervals = tuple[np.ndarray, np.ndarray]
_EMPTY: Intervals = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))


def _first_rows(rows: np.ndarray, total: int) -> str:
    shown = ", ".join(str(int(r)) for r in rows[:5])
    return f"{shown} (and {total - 5} more)" if total > 5 else shown


def runs(ordered: np.ndarray) -> Intervals:
    """The intervals of sorted distinct positions (one per run of consecutive ones)."""
    if ordered.size == 0:
        return _EMPTY
    breaks = np.flatnonzero(np.diff(ordered) != 1) + 1
    first = np.concatenate(([0], breaks))
    last = np.concatenate((breaks - 1, [ordered.size - 1]))
    return ordered[first], ordered[last] + 1


def union(a: Intervals, b: Intervals) -> Intervals:
    """The coalesced union of two interval sets (they may overlap)."""
    starts = np.concatenate((a[0], b[0]))
    if starts.size == 0:
        return _EMPTY
    stops = np.concatenate((a[1], b[1]))
    order = np.argsort(starts, kind="stable")
    starts, stops = starts[order], stops[order]
    reach = np.maximum.accumulate(stops)
    new = np.ones(starts.size, dtype=bool)
    new[1:] = starts[1:] > reach[:-1]  # a gap before this interval: a new run
    heads = np.flatnonzero(new)
    return starts[heads], np.maximum.reduceat(stops, heads)


def intersection(a: Intervals, b: Intervals) -> Intervals:
    """The intervals of the positions in both sets (each set sorted and disjoint)."""
    if a[0].size == 0 or b[0].size == 0:
        return _EMPTY
    lo = np.searchsorted(a[1], b[0], side="right")  # first a-interval ending after b starts
    hi = np.searchsorted(a[0], b[1], side="left")  # a-intervals starting before b stops
    count = np.maximum(hi - lo, 0)
    if not count.any():
        return _EMPTY
    which_b = np.repeat(np.arange(b[0].size), count)
    step = np.arange(which_b.size) - np.repeat(np.cumsum(count) - count, count)
    which_a = lo[which_b] + step
    starts = np.maximum(a[0][which_a], b[0][which_b])
    stops = np.minimum(a[1][which_a], b[1][which_b])
    keep = starts < stops
    return starts[keep], stops[keep]


def overlaps(a: Intervals, b: Intervals) -> bool:
    """Whether two sorted disjoint interval sets share a position (one search of ``b`` in ``a``)."""
    if a[0].size == 0 or b[0].size == 0:
        return False
    after = np.searchsorted(a[1], b[0], side="right")  # the first a-interval ending after
    inside = after < a[0].size
    return bool((a[0][after[inside]] < b[1][inside]).any())


def first_positions(intervals: Intervals, limit: int = 5) -> tuple[np.ndarray, int]:
    """The first ``limit`` positions of an interval set and how many it holds."""
    starts, stops = intervals
    lengths = stops - starts
    total = int(lengths.sum())
    shown: list[int] = []
    for start, stop in zip(starts[:limit].tolist(), stops[:limit].tolist(), strict=True):
        shown.extend(range(start, min(stop, start + limit - len(shown))))  # <= limit values
        if len(shown) >= limit:
            break
    return np.asarray(shown, dtype=np.int64), total


class RowRecord:
    """The stream positions counted so far, as sorted disjoint intervals.

    A table keeps a record of the positions it counted: those stated with
    ``row_offset`` / ``row_index`` (or, with an online bootstrap, where each
    position has its own replicate weights, every position), and those implied
    by counting batches in order. ``stated`` says whether any position was
    stated (or a bootstrap makes them matter): a record that is not stated holds
    rows of a worker's own stream (separate workers may merge such tables
    freely), a stated one refuses any position counted before, in a batch, in a
    merge (``+``), or across the processes of ``torch.distributed``.

    The record belongs to the stream: the table that ``update`` returns shares
    it with the table it was made from, so updating one table twice with the
    same positions is refused too. Memory: two integers per run of consecutive
    positions.
    """

    __slots__ = ("_levels", "stated")

    def __init__(self, intervals: Intervals | None = None, *, stated: bool = True) -> None:
        self._levels: list[Intervals] = [] if intervals is None else [intervals]
        self.stated = stated

    @classmethod
    def prefix(cls, n: int, *, stated: bool = True) -> RowRecord:
        """The record of positions ``0 .. n - 1`` (a stream counted from its start)."""
        if n <= 0:
            return cls(stated=stated)
        return cls((np.array([0], dtype=np.int64), np.array([n], dtype=np.int64)), stated=stated)

    @property
    def intervals(self) -> Intervals:
        """All positions as one sorted disjoint interval set ``(starts, stops)``."""
        if len(self._levels) > 1:
            merged = _EMPTY
            for level in self._levels:
                merged = union(merged, level)
            self._levels = [merged]
        return self._levels[0] if self._levels else _EMPTY

    @property
    def n_positions(self) -> int:
        """How many positions the record holds."""
        starts, stops = self.intervals
        return int((stops - starts).sum())

    def _seen(self, batch: Intervals) -> Intervals:
        found = _EMPTY
        for level in self._levels:
            if overlaps(level, batch):  # the common case (no overlap) costs one search
                found = union(found, intersection(level, batch))
        return found

    def _push(self, batch: Intervals) -> None:
        self._levels.append(batch)
        while len(self._levels) > 1 and self._levels[-2][0].size <= 2 * self._levels[-1][0].size:
            top = self._levels.pop()
            self._levels[-1] = union(self._levels[-1], top)

    def _add_intervals(self, batch: Intervals, *, arg: str, stated: bool) -> None:
        if self.stated or stated:
            seen = self._seen(batch)
            if seen[0].size:
                shown, total = first_positions(seen)
                raise ValueError(
                    ERR_ROWS_TWICE.format(
                        arg=arg, rows=_first_rows(shown, total), how="already counted"
                    )
                )
        self.stated = self.stated or stated
        self._push(batch)

    def add(self, positions: np.ndarray, *, arg: str, stated: bool = True) -> None:
        """Record ``positions`` (int64, shape (n,)); ``ValueError`` naming ``arg`` and the
        first repeated positions when one is in the batch twice or was counted before
        (when positions are stated)."""
        if positions.size == 0:
            return
        ordered = np.sort(positions)
        twice = ordered[1:][ordered[1:] == ordered[:-1]]
        if twice.size:
            repeated = np.unique(twice)
            raise ValueError(
                ERR_ROWS_TWICE.format(
                    arg=arg, rows=_first_rows(repeated, repeated.size), how="twice in this batch"
                )
            )
        self._add_intervals(runs(ordered), arg=arg, stated=stated)

    def add_range(self, start: int, stop: int, *, arg: str, stated: bool = True) -> None:
        """Record the positions ``start .. stop - 1`` (O(log n), whatever their number)."""
        if stop > POSITION_LIMIT:
            raise ValueError(ERR_POSITION_RANGE.format(arg=arg, start=start, stop=stop))
        if stop <= start:
            return
        batch = (np.array([start], dtype=np.int64), np.array([stop], dtype=np.int64))
        self._add_intervals(batch, arg=arg, stated=stated)

    def union(self, other: RowRecord) -> RowRecord:
        """The record of both streams' positions; ``ValueError`` when they share one and
        either states its positions."""
        if other is self:
            return self  # tables of one stream: their positions were checked as they came
        mine, theirs = self.intervals, other.intervals
        if self.stated or other.stated:
            both = intersection(mine, theirs)
            if both[0].size:
                shown, total = first_positions(both)
                raise ValueError(
                    ERR_ROWS_TWICE.format(
                        arg="merge", rows=_first_rows(shown, total), how="both tables counted them"
                    )
                )
        return RowRecord(union(mine, theirs), stated=self.stated or other.stated)

    @staticmethod
    def shared(records: Sequence[RowRecord | None]) -> tuple[int, int, str] | None:
        """The first two records (by position in ``records``) that share a stated
        position, and those positions as text; ``None`` when every two are disjoint.
        Records that are ``None`` or not stated are left out."""
        for j, b in enumerate(records):
            if b is None or not b.stated:
                continue
            for i, a in enumerate(records[:j]):  # a loop over processes, not rows
                if a is None or not a.stated:
                    continue
                both = intersection(a.intervals, b.intervals)
                if both[0].size:
                    shown, total = first_positions(both)
                    return i, j, _first_rows(shown, total)
        return None

    def __getstate__(self) -> tuple[Intervals, bool]:
        return self.intervals, self.stated

    def __setstate__(self, state: tuple[Intervals, bool]) -> None:
        intervals, stated = state
        self._levels = [intervals] if intervals[0].size else []
        self.stated = stated

    def __repr__(self) -> str:
        return f"RowRecord({self.n_positions} positions in {self.intervals[0].size} runs)"
