"""Speed of the rules engine: random legal 2-4 player games played to the end with every check after every move.

    ./run.sh python bench/rules.py [--games N] [--seed S]

Prints medians (and 90th percentiles) in ms: per placement check (why_illegal of the move played, on the
board before it), per check on boards of 45+ tiles with the restrictions checked even after bag-empty (the
worst case), per forced-space scan, per full scoring of the four colours, and per whole game (move generation
with known hands, every push, a scan and a scoring after each move).
Goals on the project's 2-core machine: <= 1 ms per placement check on a full board, <= 100 ms per game.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tantrix_pi.rules import forced_space_report, why_illegal  # noqa: E402
from tantrix_pi.scoring import scores  # noqa: E402
from tantrix_pi.selfplay import random_game  # noqa: E402


def bench(players: int, games: int, seed: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"check": [], "check 45+": [], "scan": [], "score": [], "game": []}
    clock = time.process_time  # CPU time of this process: other work on the shared machine does not count

    def after(game, announcement):
        board = game.board.copy()
        p = board.remove(announcement.move.placement.cell)
        t0 = clock()
        why_illegal(board, p, len(board) >= 56 - 6 * players)
        t1 = clock()
        times["check"].append(t1 - t0)
        if len(board) >= 45:  # the worst case: a full board with the restrictions still checked
            t0 = clock()
            why_illegal(board, p, bag_empty=False)
            times["check 45+"].append(clock() - t0)
        t0 = clock()
        forced_space_report(game.board)
        t1 = clock()
        scores(game.board)
        t2 = clock()
        times["scan"].append(t1 - t0)
        times["score"].append(t2 - t1)

    for g in range(games):
        t0 = clock()
        random_game(players, seed + g, on_move=lambda game, a: (forced_space_report(game.board), scores(game.board)))
        times["game"].append(clock() - t0)
        random_game(players, seed + g, on_move=after)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="games per player count (default 10)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    cols = ["check", "check 45+", "scan", "score", "game"]
    print(f"{args.games} random legal games per row; median / 90th percentile in ms")
    print(f"{'players':<8}" + "".join(f"{c:>20}" for c in cols))
    for players in (2, 3, 4):
        times = bench(players, args.games, args.seed)
        cells = []
        for c in cols:
            ms = sorted(1000 * t for t in times[c])
            p90 = ms[min(len(ms) - 1, int(0.9 * len(ms)))]
            cells.append(f"{statistics.median(ms):>11.3f} / {p90:<7.3f}")
        print(f"{players:<8}" + "".join(f"{c:>20}" for c in cells))


if __name__ == "__main__":
    main()
