"""The assignment of largest total gain: each row its own column (the tiles of a photo, each its own number).

It is the shortest augmenting path method of scipy's `linear_sum_assignment` (Crouse, "On implementing 2D
rectangular assignment algorithms", 2016), written over NumPy here because importing `scipy.optimize` takes some
46 MB of a referee's memory: a game whose tiles read one number twice went over the live loop's 200 MB
(docs/live.md). tests/test_vision_assignment.py checks it against scipy's.
"""

from __future__ import annotations

import numpy as np


def best_assignment(gain: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns (rows ascending) of the assignment with the largest total of the finite `gain` (R x C):
    every row gets its own column, or every column its own row when there are fewer columns."""
    gain = np.asarray(gain, dtype=np.float64)
    if gain.shape[0] > gain.shape[1]:
        cols, rows = best_assignment(gain.T)
        order = np.argsort(rows)
        return rows[order], cols[order]
    if gain.shape[0] == 0:
        return np.zeros(0, int), np.zeros(0, int)
    best = gain.argmax(axis=1)
    if len(np.unique(best)) == len(best):
        return np.arange(len(best)), best  # every row's best column is its own: nothing to trade
    return np.arange(len(gain)), _augmented(-gain)


def _augmented(cost: np.ndarray) -> np.ndarray:
    """The column of each row in the assignment of least total `cost` (rows <= columns): rows are added one by
    one, each along the shortest path of reduced costs to a free column (the duals u, v keep them non-negative)."""
    n_rows, n_cols = cost.shape
    u, v = np.zeros(n_rows), np.zeros(n_cols)
    col4row, row4col = np.full(n_rows, -1), np.full(n_cols, -1)
    for start in range(n_rows):
        dist = np.full(n_cols, np.inf)  # shortest path cost to each column so far
        path = np.full(n_cols, -1)  # the row each column is reached from
        done = np.zeros(n_cols, bool)
        rows_seen = [start]
        i, low, sink = start, 0.0, -1
        while sink < 0:
            reach = low + cost[i] - u[i] - v
            better = ~done & (reach < dist)
            dist[better], path[better] = reach[better], i
            left = np.flatnonzero(~done)
            nearest = left[dist[left] == dist[left].min()]
            free = nearest[row4col[nearest] < 0]
            j = int(free[0] if len(free) else nearest[0])  # a free column ends the path: prefer one on a tie
            low = dist[j]
            done[j] = True
            if row4col[j] < 0:
                sink = j
            else:
                i = int(row4col[j])
                rows_seen.append(i)
        u[start] += low
        for r in rows_seen[1:]:
            u[r] += low - dist[col4row[r]]
        v[done] -= low - dist[done]
        j = sink
        while True:
            i = int(path[j])
            row4col[j] = i
            col4row[i], j = j, col4row[i]
            if i == start:
                break
    return col4row
