"""The live referee: frame sources, stability gate, tracker, referee, store and sinks, joined by `loop`."""
