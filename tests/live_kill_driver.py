"""A referee process for the kill -9 test: it watches a table whose state follows the wall clock.

usage: python3 live_kill_driver.py STATE_DIR T0 FPS MOVES [--say-ready]
The table shows frame int((now - T0) * FPS) of a scripted game of MOVES placements, so a restarted
process sees the table as it is now, as a camera would. SIGTERM and SIGINT reach it through the service's
handler (StopRequest). With --say-ready it prints "ready" once that handler is installed and the camera is
up (what READY=1 tells systemd). Its last line says whether a signal stopped it or the recording ended.
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from live_fakes import detect_frame, scene_frames  # noqa: E402

from tantrix_pi.commands.live import StopRequest  # noqa: E402
from tantrix_pi.devices.sources import EndOfRecording, FrameSource  # noqa: E402
from tantrix_pi.live.loop import LiveLoop  # noqa: E402
from tantrix_pi.live.recording import game_moves, script  # noqa: E402
from tantrix_pi.live.referee import Setup  # noqa: E402
from tantrix_pi.live.sdnotify import Notifier  # noqa: E402
from tantrix_pi.live.sinks import JsonLinesSink  # noqa: E402
from tantrix_pi.live.store import Store  # noqa: E402

HOLD_S = 4.0
"""Seconds the final table stays on view after the recording, so a late restart still sees it."""

DRIVER_PATH = str(Path(__file__).resolve())


def game(n):
    return game_moves(3, n)


class TableClock(FrameSource):
    def __init__(self, frames, t0, fps):
        self.frames, self.t0, self.fps = frames, t0, fps

    def read(self):
        time.sleep(1.0 / self.fps / 2)
        i = max(0, int((time.time() - self.t0) * self.fps))  # before T0 the table is still empty
        if i >= len(self.frames) + HOLD_S * self.fps:
            raise EndOfRecording()
        return self.frames[min(i, len(self.frames) - 1)]  # the finished table stays on view


class ReadyLine(Notifier):
    """READY=1 as a line on stdout, for a test that waits for it."""

    def __init__(self):
        super().__init__(address="")

    def ready(self, status=""):
        print("ready", flush=True)
        return True


def main():
    state, t0, fps, n = Path(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
    frames = scene_frames(script(game(n), still=10, hand=4))
    notifier = ReadyLine() if "--say-ready" in sys.argv else None
    stop_request = StopRequest()  # the service's SIGTERM / SIGINT handler, installed as `run` installs it
    loop = LiveLoop(TableClock(frames, t0, fps), detect_frame, Store(state / "state.db"), Setup(),
                    JsonLinesSink(state / "events.jsonl"), notifier=notifier)
    stop_request.attach(loop)
    loop.run()
    ended = "stopped" if loop.stop_requested else "the recording ended"
    print(f"{ended} after {loop.stats.frames} frames", flush=True)


if __name__ == "__main__":
    main()
