"""The table's page over a game played by hand-made frames (no detector): the bundled game up to any scene,
into a hub that hands the page what the referee's `View` promises (`illegal`, and `forced` without the spaces
only an illegal tile makes)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from live_fakes import detect_frame, scene_source

from tantrix_pi import rules
from tantrix_pi.board import Board, Placement
from tantrix_pi.live.loop import LiveLoop
from tantrix_pi.live.recording import load_record, placements, script, turn_ends
from tantrix_pi.live.referee import Setup
from tantrix_pi.live.sinks import MemorySink, Sinks, View
from tantrix_pi.live.store import Event, Store
from tantrix_pi.web.hub import Hub

ILLEGAL_AT = 9
"""After which move of the bundled game a wrong tile is laid (and then taken back)."""


class RulingHub(Hub):
    """A hub whose views carry the illegal tiles as `View.illegal` documents them (the referee's contract)."""

    def __init__(self) -> None:
        super().__init__()
        self.refused: list[dict] = []

    def announce(self, event: Event) -> None:
        if event.kind == "illegal":
            self.refused.append({k: event.data[k] for k in ("tile", "cell", "rot", "violations")})
        super().announce(event)

    def show(self, view: View) -> None:
        lying = [t for t in self.refused if view.board.get(tuple(t["cell"])) == Placement(t["tile"], *t["cell"],
                                                                                          t["rot"])]
        self.refused = lying
        accepted = Board(p for p in view.board if all(p.tile != t["tile"] for t in lying))
        forced = [{"letter": f.letter, "cell": list(f.cell), "needs": list(f.needs), "fits": list(f.fits)}
                  for f in rules.forced_space_report(accepted)] if len(accepted) else []
        super().show(replace(view, illegal=lying, forced=forced) if lying else view)


def bundled_scenes():
    rec = load_record()
    return script(placements(rec), still=3, hand=1, illegal_at=ILLEGAL_AT, turn_ends=turn_ends(rec))


def illegal_scene() -> int:
    """How many scenes of the bundled game end with the illegal tile lying on the table."""
    return next(i for i, s in enumerate(bundled_scenes()) if s.note.startswith("illegal:")) + 1


def play(folder: Path, scenes: int | None = None, hub: Hub | None = None) -> tuple[LiveLoop, Hub, MemorySink]:
    """The bundled game (its first `scenes` scenes) through the live loop into `hub` (a RulingHub by default)
    and a memory sink; the store in `folder`."""
    hub = hub if hub is not None else RulingHub()
    memory = MemorySink()
    loop = None
    loop = LiveLoop(scene_source(bundled_scenes()[:scenes], lambda: loop.commands), detect_frame,
                    Store(folder / "state.db"), Setup("game", ["R", "Y"]), Sinks([memory, hub]), stable_frames=2)
    hub.show(loop.view())
    loop.run()
    return loop, hub, memory
