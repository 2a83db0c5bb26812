"""Vision: one photo of a table in, the board that lies on it out (see `vision.detection`).

The names below are loaded on first use (PEP 562), so that importing one light module of the package
(`vision.detection`'s thresholds, say) does not load OpenCV and the tile network's runtime with it.
"""

from importlib import import_module

_HOMES = {"Detection": "detection", "SeenTile": "detection", "Unread": "detection", "detect": "pipeline"}

__all__ = ["Detection", "SeenTile", "Unread", "detect"]


def __getattr__(name: str):
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{_HOMES[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
