"""The live referee: stability gate, tracker, referee, store and sinks, joined by `loop` (frames: `devices.sources`)."""
