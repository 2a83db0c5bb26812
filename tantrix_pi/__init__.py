"""tantrix-pi: a camera referee for the board game Tantrix.

The rules engine: `tiles` (the 56 tiles), `grid` (hex geometry), `board` (placements and the board
format), then the rules, scoring, puzzles and game built on them.
"""

__version__ = "0.1.0"
