"""Cost of drawing one display frame from a game position, per supported screen.

    ./run.sh python bench/display.py [--frames N] [--seed S]

Boards are positions of a random 4-player game (tantrix_pi.selfplay) at 20 tiles and at its end, with
the forced spaces lettered. Prints the median and 90th percentile CPU ms of `Display.show` on a fake
device (drawing only: on the Pi add the SPI/I2C transfer) and the PNG back-end (drawing + PNG file).
The live loop redraws after each committed change only, so a few tens of ms per frame are fine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tantrix_pi.board import Board  # noqa: E402
from tantrix_pi.devices.display import MODELS, Display, MemoryDevice, PngDevice  # noqa: E402
from tantrix_pi.devices.screen import Forced, Screen  # noqa: E402
from tantrix_pi.rules import forced_space_report  # noqa: E402
from tantrix_pi.selfplay import random_game  # noqa: E402


def screen_for(board: Board, i: int) -> Screen:
    """A game screen for `board`: its forced spaces, four scores, a message that differs each frame."""
    forced = tuple(Forced(f.letter, f.cell, "".join(sorted({c for c in f.needs if c}))) for f in
                   forced_space_report(board))
    last = next(iter(board))
    return Screen(message=f"Frame {i}: red placed tile {last.tile}", forced=forced,
                  scores=(("R", 12), ("Y", 9), ("G", 15), ("B", 7)), turn="G", board=board, last=last)


def positions(seed: int) -> dict[str, Board]:
    """Boards of one random game: after 20 placements and at the end."""
    game = random_game(4, seed=seed)
    early = Board(m.placement for m in game.moves[:20])
    return {"20 tiles": early, f"end, {len(game.board)} tiles": game.board}


def median_p90(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[int(0.9 * (len(ordered) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    boards = positions(args.seed)
    print("| screen | size | board | forced | draw ms (median / p90) | draw + PNG ms (median / p90) |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for model in MODELS.values():
            for name, board in boards.items():
                rows = []
                for device in (MemoryDevice(model.size, model.mode), PngDevice(tmp, model.size, model.mode)):
                    display = Display(device)
                    times = []
                    for i in range(args.frames):
                        screen = screen_for(board, i)
                        t0 = time.process_time()
                        display.show(screen)
                        times.append((time.process_time() - t0) * 1000)
                    rows.append("{:.1f} / {:.1f}".format(*median_p90(times)))
                forced = len(screen_for(board, 0).forced)
                print(f"| {model.name} | {model.size[0]}x{model.size[1]} | {name} | {forced} | {rows[0]} | {rows[1]} |")


if __name__ == "__main__":
    main()
