"""The table's page over a game played by hand-made frames (no detector): the bundled game up to any scene,
with one illegal tile laid and taken back."""

from __future__ import annotations

from pathlib import Path

from live_fakes import detect_frame, scene_source

from tantrix_pi.live.config import GateConfig
from tantrix_pi.live.loop import LiveLoop
from tantrix_pi.live.recording import load_record, placements, script, turn_ends
from tantrix_pi.live.referee import Setup
from tantrix_pi.live.sinks import MemorySink, Sinks
from tantrix_pi.live.store import Store
from tantrix_pi.web.hub import Hub

ILLEGAL_AT = 9
"""After which move of the bundled game a wrong tile is laid (and then taken back)."""


def bundled_scenes():
    rec = load_record()
    return script(placements(rec), still=3, hand=1, illegal_at=ILLEGAL_AT, turn_ends=turn_ends(rec))


def illegal_scene() -> int:
    """How many scenes of the bundled game end with the illegal tile lying on the table."""
    return next(i for i, s in enumerate(bundled_scenes()) if s.note.startswith("illegal:")) + 1


def play(folder: Path, scenes: int | None = None, hub: Hub | None = None) -> tuple[LiveLoop, Hub, MemorySink]:
    """The bundled game (its first `scenes` scenes) through the live loop into `hub` (a new one by default)
    and a memory sink; the store in `folder`."""
    hub = hub if hub is not None else Hub()
    memory = MemorySink()
    loop = None
    loop = LiveLoop(scene_source(bundled_scenes()[:scenes], lambda: loop.commands), detect_frame,
                    Store(folder / "state.db"), Setup("game", ["R", "Y"]), Sinks([memory, hub]),
                    gate=GateConfig(stable_frames=2))
    hub.show(loop.view())
    loop.run()
    return loop, hub, memory
