"""The voice never blocks its caller; it speaks in order, drops stale messages, and can be silent."""

import logging
import shutil
import threading
import time

import pytest

from tantrix_pi.devices.errors import DeviceError
from tantrix_pi.devices.voice import FakeVoice, Voice, open_voice, run_quietly


class SlowSpeaker:
    """A runner that takes as long as the test wants for each message."""

    def __init__(self):
        self.go = threading.Event()
        self.started = threading.Event()
        self.spoken = []

    def __call__(self, argv):
        self.started.set()
        self.go.wait(5)
        self.spoken.append(argv[-1])


def test_a_with_block_ends_after_the_waiting_messages_are_spoken():
    speaker = SlowSpeaker()
    speaker.go.set()
    with Voice(runner=speaker) as voice:
        voice.say("Red placed tile 12")
        voice.say("Blue to play")
    assert speaker.spoken == ["Red placed tile 12", "Blue to play"]
    voice.say("too late")
    assert not voice.enabled and speaker.spoken[-1] == "Blue to play"


def test_say_returns_at_once_while_the_speaker_is_busy():
    speaker = SlowSpeaker()
    voice = Voice(runner=speaker)
    t0 = time.monotonic()
    voice.say("Red placed tile 12")
    assert speaker.started.wait(2)
    voice.say("Blue to play")
    assert time.monotonic() - t0 < 0.5
    speaker.go.set()
    voice.close()
    assert speaker.spoken == ["Red placed tile 12", "Blue to play"]


def test_a_full_backlog_drops_the_oldest_waiting_message():
    speaker = SlowSpeaker()
    voice = Voice(runner=speaker, backlog=2)
    voice.say("one")
    assert speaker.started.wait(2)
    for text in ("two", "three", "four"):
        voice.say(text)
    speaker.go.set()
    deadline = time.monotonic() + 5
    while len(speaker.spoken) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    voice.close()
    assert speaker.spoken == ["one", "three", "four"]


def test_the_command_line_names_voice_speed_and_text():
    seen = []
    voice = Voice(command="/usr/bin/espeak-ng", language="en-gb", words_per_minute=140, runner=seen.append)
    voice.say("-5 points")  # text that looks like an option is still spoken as text
    voice.close()
    assert seen == [["/usr/bin/espeak-ng", "-v", "en-gb", "-s", "140", "--", "-5 points"]]


def test_disabled_voice_and_fake_voice():
    seen = []
    voice = Voice(runner=seen.append, enabled=False)
    voice.say("quiet")
    voice.enabled = True
    voice.say("loud")
    voice.close()
    assert seen and seen[0][-1] == "loud" and len(seen) == 1
    fake = FakeVoice()
    fake.say("A is forced")
    fake.say("  ")
    assert fake.said == ["A is forced"]


def test_open_voice_is_silent_without_espeak(caplog):
    with caplog.at_level(logging.WARNING):
        voice = open_voice(command="no-such-espeak-here")
    assert isinstance(voice, FakeVoice) and not voice.enabled
    assert "not installed" in caplog.text
    with pytest.raises(DeviceError, match="words_per_minute"):
        open_voice(words_per_minute=10)


def test_a_failing_speaker_is_logged_not_raised(caplog):
    with caplog.at_level(logging.WARNING):
        run_quietly(["/nonexistent/espeak-ng", "hello"])
        run_quietly(["sh", "-c", "echo broken >&2; exit 3"])
    assert "failed" in caplog.text and "exited 3: broken" in caplog.text


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_real_espeak_ng_speaks_to_a_wav_file(tmp_path):
    out = tmp_path / "said.wav"
    voice = Voice(runner=lambda argv: run_quietly([argv[0], "-w", str(out), *argv[1:]]))
    voice.say("Red placed tile twelve")
    voice.close()
    assert out.stat().st_size > 10_000
