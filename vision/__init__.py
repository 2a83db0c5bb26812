"""Vision: one photo of a table in, the board that lies on it out (see `vision.detection`)."""
