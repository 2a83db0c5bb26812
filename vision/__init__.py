"""Vision: one photo of a table in, the board that lies on it out (see `vision.detection`)."""

from tantrix_pi.vision.detection import Detection, SeenTile, Unread
from tantrix_pi.vision.pipeline import detect

__all__ = ["Detection", "SeenTile", "Unread", "detect"]
