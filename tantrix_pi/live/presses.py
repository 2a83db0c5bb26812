"""When an end-of-turn press counts: before or after the tile being laid as it was made.

A player often presses as their tile goes down, or just after: before the tracker has committed the tile (it needs
still frames). Judged at once, such a press ended the turn before its last tile (or was refused for a free move not
yet seen), and the tile went to the next player. A press is therefore held while the table is not settled:

- when the camera has already seen a tile laid that is not committed, the press waits for it: that tile is the
  presser's;
- when a hand moves over the table, the press waits for the next still view. The tiles it brings are the presser's
  when the presser may not end the turn without them (free move not made, a fill owed); else, with the hands in
  view, the player's whose hand held them; else when they all fill forced spaces (a player's last fill) and the
  press came in the second half of the hand's motion (the tile is down when the hand leaves it). Otherwise (and at
  the very middle) they are the next player's, whose hand came in as the button was pressed: the press is judged
  first, as if it had come with no hand in view.

After `PATIENCE` frames a held press is judged on what is known; but while a tile laid cannot be read (glare) the
presses wait for it, however long: the tiles laid meanwhile come together once it reads, and each press is judged
between them where it was made (`made_before`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

PATIENCE = 12
"""Frames a held end-of-turn press waits for the table to settle."""


@dataclass
class HeldPresses:
    """End-of-turn presses waiting for the table to settle, and what they came after."""

    count: int = 0
    frames: int = 0
    """Frames they have waited."""
    after_seen: bool = False
    """They came after the camera saw a tile laid that is not committed yet."""
    motion_before: int = 0
    """Frames of the hand's motion before the first of them."""
    motion_after: int = 0
    """Frames of motion since."""
    at: list[int] = field(default_factory=list)
    """When each press was made: the still detections the tracker had taken then (`Tracker.stills`)."""

    def hold(self, pending: bool, motion: int, at: int = 0) -> bool:
        """Hold one more press when presses wait already, a tile seen laid is not committed (`pending`) or a hand
        moves over the table (`motion`: its frames so far); False: judge it now. `at`: `Tracker.stills` now."""
        if not (self.count or pending or motion):
            return False
        if not self.count:
            self.after_seen, self.motion_before, self.motion_after = pending, motion, 0
        self.count += 1
        self.at.append(at)
        return True

    def moved(self) -> None:
        """A frame of motion while presses wait."""
        if self.count:
            self.motion_after += 1

    def due(self, settled: bool, waiting: bool = False) -> bool:
        """One more frame waited: whether the presses are to be judged now (the table `settled`: still, and every
        tile it shows committed, or waited `PATIENCE` frames while the tracker is not `waiting` for a tile laid that
        it cannot read)."""
        if not self.count:
            return False
        self.frames += 1
        return settled or (self.frames > PATIENCE and not waiting)

    def made_before(self, still: int) -> int:
        """How many of the held presses were made before the tracker's still detection `still`."""
        return sum(a < still for a in self.at)

    def before(self, mover_may_end: bool, all_fill_forced: bool, mover_holds: bool | None = None) -> bool:
        """Whether the presses come before the tiles a commit brings now (they are the next player's); `mover_holds`:
        whether the presser's hand held them, as the hands in view tell (None: they do not)."""
        if not self.count or self.after_seen or not mover_may_end:
            return False
        if mover_holds is not None:
            return not mover_holds
        return not (all_fill_forced and self.motion_before > self.motion_after)

    def take(self, n: int | None = None) -> int:
        """The presses to judge now: the oldest `n`, or all; the others wait on."""
        n = self.count if n is None else min(n, self.count)
        self.count -= n
        del self.at[:n]
        if not self.count:
            self.frames = self.motion_before = self.motion_after = 0
            self.after_seen = False
        return n
