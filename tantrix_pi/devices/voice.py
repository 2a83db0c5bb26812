"""Spoken announcements through espeak-ng, on a worker thread so that the caller never waits."""

from __future__ import annotations

import logging
import queue
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Sequence

from tantrix_pi.devices import Closeable
from tantrix_pi.devices.errors import DeviceError

log = logging.getLogger(__name__)

Runner = Callable[[Sequence[str]], None]
"""Runs one espeak-ng command line to its end."""


def run_quietly(argv: Sequence[str]) -> None:
    """Run a command, its output dropped; a failure is logged, never raised."""
    try:
        result = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        log.warning("voice: %s failed: %s", argv[0], e)
        return
    if result.returncode:
        log.warning("voice: %s exited %d: %s", argv[0], result.returncode, result.stderr.decode(errors="replace"))


class Voice(Closeable):
    """Says the referee's messages through espeak-ng and the Pi's audio out (3.5 mm jack, HDMI or USB).

        with open_voice(enabled=True) as voice:   # a silent Voice when espeak-ng is not installed
            voice.say("Red placed tile 12")       # returns at once; speaking happens on a worker thread
        # here the waiting messages have been spoken and the worker has stopped (or call voice.close())

    At most `backlog` messages wait; when more come, the oldest waiting one is dropped (it is stale).
    """

    def __init__(self, command: str = "espeak-ng", language: str = "en", words_per_minute: int = 160,
                 enabled: bool = True, backlog: int = 3, runner: Runner = run_quietly) -> None:
        self.argv = [command, "-v", language, "-s", str(words_per_minute)]
        self.enabled = enabled
        self._runner = runner
        self._queue: queue.Queue[str | None] = queue.Queue(maxsize=backlog)
        self._thread = threading.Thread(target=self._work, name="voice", daemon=True)
        self._thread.start()

    def say(self, text: str) -> None:
        """Queue `text` to be spoken; never blocks."""
        if not self.enabled or not text.strip():
            return
        while True:
            try:
                self._queue.put_nowait(text)
                return
            except queue.Full:
                try:
                    log.info("voice: dropped %r", self._queue.get_nowait())
                except queue.Empty:
                    pass

    def _work(self) -> None:
        while (text := self._queue.get()) is not None:
            self._runner([*self.argv, "--", text])

    def close(self, timeout: float = 10.0) -> None:
        """Stop once the waiting messages are spoken, waiting at most `timeout` seconds."""
        self.enabled = False
        deadline = time.monotonic() + timeout
        try:
            self._queue.put(None, timeout=timeout)
        except queue.Full:
            return
        self._thread.join(max(0.0, deadline - time.monotonic()))


class FakeVoice(Closeable):
    """A voice for tests and the demo: `said` lists every message, in order."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self.said: list[str] = []

    def say(self, text: str) -> None:
        """Record `text` when enabled."""
        if self.enabled and text.strip():
            self.said.append(text)

    def close(self) -> None:
        """Nothing to stop."""


def open_voice(enabled: bool = True, command: str = "espeak-ng", language: str = "en",
               words_per_minute: int = 160) -> Voice | FakeVoice:
    """The espeak-ng voice (switched on or off), or a silent one, logged, when espeak-ng is not installed."""
    if not isinstance(words_per_minute, int) or not 80 <= words_per_minute <= 450:
        raise DeviceError(f"voice: words_per_minute {words_per_minute!r} is outside 80..450")
    path = shutil.which(command)
    if path is None:
        if enabled:
            log.warning("voice: %s is not installed (sudo apt install espeak-ng); staying silent", command)
        return FakeVoice(enabled=False)
    return Voice(path, language, words_per_minute, enabled=enabled)
