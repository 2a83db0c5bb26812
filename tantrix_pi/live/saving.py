"""The save queue: the loop's writes to the store, kept and tried again while the store refuses them."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from tantrix_pi.i18n import _
from tantrix_pi.live.store import Notice, WriteError

log = logging.getLogger("tantrix_pi.live")


class SaveQueue:
    """Writes to the store, in order. One the store refuses (a full disk, a file made read-only) waits with
    those after it, and they are tried again, oldest first, every `retry_s` seconds until they go through:
    the game goes on from memory meanwhile. The first refusal is said once, and so is the moment the game is
    saved again; while writes wait, no new game may start.

        saves = SaveQueue(retry_s=1.0)
        said = saves.save(lambda: store.commit(game, board))  # [] or the storage event to announce
        if saves.due():
            said = saves.flush()
    """

    def __init__(self, retry_s: float = 1.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.retry_s, self.clock = retry_s, clock
        self.waiting: list[Callable[[], object]] = []
        """Writes the store refused, and those after them, oldest first."""
        self.note: Notice | None = None
        """While writes wait: what the players were told (the screen shows it until the game is saved again)."""
        self.next_try = 0.0

    def save(self, write: Callable[[], object]) -> list[Notice]:
        """Run one write after those still waiting (kept to try again when refused); what to announce."""
        self.waiting.append(write)
        return self.flush()

    def due(self) -> bool:
        """Writes wait and it is time to try them again."""
        return bool(self.waiting) and self.clock() >= self.next_try

    def flush(self) -> list[Notice]:
        """Write what waits, oldest first; what to announce (the first refusal, or that all is saved again)."""
        while self.waiting:
            try:
                self.waiting[0]()
            except WriteError as e:
                self.next_try = self.clock() + self.retry_s
                if self.note is not None:
                    return []
                log.error("%s; the referee goes on from memory", e)
                self.note = Notice("storage", _("Can't save the game ({reason}): refereeing goes on from memory "
                                               "until it can be saved.").format(reason=e.reason),
                                  {"saved": False, "reason": e.reason})
                return [self.note]
            self.waiting.pop(0)
        if self.note is None:
            return []
        self.note = None
        log.info("the game is saved again")
        return [Notice("storage", _("The game is saved again."), {"saved": True})]

    @property
    def reason(self) -> str | None:
        """Why writes wait (the store's refusal), or None when everything is saved."""
        return self.note.data["reason"] if self.note is not None else None
