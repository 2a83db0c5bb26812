"""The board: tiles placed on cells, the colours they show, and the `tantrix-board/1` format."""

from __future__ import annotations

import json
import sys
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from tantrix_pi.errors import TantrixError
from tantrix_pi.grid import Cell, fmt, neighbour, neighbours, opposite, turn
from tantrix_pi.i18n import _
from tantrix_pi.tiles import TILES, Tile

FORMAT = "tantrix-board/1"
MAX_COORD = 200
"""Largest |q| or |r| a board file may use: 56 tiles span far less, and a far outlier would blow up views."""


class BoardError(TantrixError, ValueError):
    """A board or placement that cannot be: the message is one line a user can act on."""


@dataclass(frozen=True, order=True)
class Placement:
    """Tile `tile` on cell (q, r), turned clockwise by `rot` sixth-turns."""

    tile: int
    q: int
    r: int
    rot: int

    @property
    def cell(self) -> Cell:
        return (self.q, self.r)

    @property
    def info(self) -> Tile:
        return TILES[self.tile]

    def colour(self, direction: int) -> str:
        """The colour this placement shows in `direction`."""
        return TILES[self.tile].edges[(direction - self.rot) % 6]

    def transformed(self, k: int = 0, dq: int = 0, dr: int = 0) -> Placement:
        """This placement after turning the whole grid k sixths clockwise, then moving it by (dq, dr)."""
        q, r = turn(self.cell, k)
        return Placement(self.tile, q + dq, r + dr, (self.rot + k) % 6)

    def to_dict(self) -> dict:
        return {"tile": self.tile, "q": self.q, "r": self.r, "rot": self.rot}

    def __str__(self) -> str:
        return _("tile {tile} at {cell} turn {rot}").format(tile=self.tile, cell=fmt(self.cell), rot=self.rot)


def check_placement(p: Placement) -> None:
    """Raise BoardError unless p names a real tile and a turn in 0..5."""
    if p.tile not in TILES:
        raise BoardError(_("unknown tile {tile!r}: tiles are numbered 1..56").format(tile=p.tile))
    if p.rot not in range(6):
        raise BoardError(_("tile {tile}: rot {rot!r} is outside 0..5").format(tile=p.tile, rot=p.rot))


class Board:
    """Placements on the hex grid; at most one tile per cell and each tile at most once."""

    def __init__(self, placements: Iterable[Placement] = ()) -> None:
        self._cells: dict[Cell, Placement] = {}
        self._tiles: dict[int, Cell] = {}
        for p in placements:
            self.place(p)

    # -- contents ---------------------------------------------------------------------------
    def place(self, p: Placement) -> None:
        """Put a placement on the board (no rule is checked here, only that it can physically be)."""
        check_placement(p)
        if p.tile in self._tiles:
            raise BoardError(_("tile {tile} is on the board twice (at {cell} and {other})").format(
                tile=p.tile, cell=fmt(self._tiles[p.tile]), other=fmt(p.cell)))
        if p.cell in self._cells:
            raise BoardError(_("two tiles in cell {cell}: {tile} and {other}").format(
                cell=fmt(p.cell), tile=self._cells[p.cell].tile, other=p.tile))
        self._cells[p.cell] = p
        self._tiles[p.tile] = p.cell

    def remove(self, cell: Cell) -> Placement:
        """Take the tile off `cell` and return its placement."""
        p = self._cells.pop(cell)
        del self._tiles[p.tile]
        return p

    def copy(self) -> Board:
        b = Board()
        b._cells = dict(self._cells)
        b._tiles = dict(self._tiles)
        return b

    def __len__(self) -> int:
        return len(self._cells)

    def __iter__(self) -> Iterator[Placement]:
        return iter(sorted(self._cells.values(), key=lambda p: (p.r, p.q)))

    def __contains__(self, cell: object) -> bool:
        return cell in self._cells

    def __getitem__(self, cell: Cell) -> Placement:
        return self._cells[cell]

    def get(self, cell: Cell) -> Placement | None:
        return self._cells.get(cell)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Board) and self._cells == other._cells

    def __repr__(self) -> str:
        return f"Board({sorted(self._cells.values())!r})"

    @property
    def cells(self) -> set[Cell]:
        return set(self._cells)

    @property
    def occupied(self) -> Mapping[Cell, Placement]:
        """The placements by cell, read-only and without a copy (for the rules' hot paths)."""
        return MappingProxyType(self._cells)

    @property
    def tiles(self) -> set[int]:
        """Numbers of the tiles on the board."""
        return set(self._tiles)

    def cell_of(self, tile: int) -> Cell | None:
        return self._tiles.get(tile)

    # -- colours ----------------------------------------------------------------------------
    def colour_at(self, cell: Cell, direction: int) -> str | None:
        """The colour the tile on `cell` shows in `direction`, None for an empty cell."""
        p = self._cells.get(cell)
        return None if p is None else p.colour(direction)

    def facing(self, cell: Cell) -> tuple[str | None, ...]:
        """For each direction d of `cell`, the colour the neighbour there shows towards it (None: empty)."""
        out = []
        for d, n in enumerate(neighbours(cell)):
            p = self._cells.get(n)
            out.append(None if p is None else p.colour(opposite(d)))
        return tuple(out)

    def occupied_neighbours(self, cell: Cell) -> int:
        return sum(n in self._cells for n in neighbours(cell))

    def empty_neighbours(self) -> set[Cell]:
        """Empty cells touching at least one tile."""
        return {n for c in self._cells for n in neighbours(c) if n not in self._cells}

    def mismatches(self) -> list[tuple[Cell, int]]:
        """Touching edges whose colours differ, each once as (cell, direction) with direction in 0..2."""
        out = []
        for cell, p in sorted(self._cells.items()):
            for d in range(3):
                other = self._cells.get(neighbour(cell, d))
                if other is not None and p.colour(d) != other.colour(opposite(d)):
                    out.append((cell, d))
        return out

    # -- shape ------------------------------------------------------------------------------
    def is_connected(self) -> bool:
        """True when every tile can be reached from every other through touching tiles."""
        return len(self.groups()) <= 1

    def groups(self) -> list[set[Cell]]:
        """The connected groups of tiles, largest first."""
        seen: set[Cell] = set()
        groups = []
        for start in sorted(self._cells):
            if start in seen:
                continue
            group = {start}
            todo = [start]
            while todo:
                for n in neighbours(todo.pop()):
                    if n in self._cells and n not in group:
                        group.add(n)
                        todo.append(n)
            seen |= group
            groups.append(group)
        return sorted(groups, key=len, reverse=True)

    def holes(self) -> list[Cell]:
        """Empty cells that cannot be reached from outside the board through empty cells."""
        if not self._cells:
            return []
        qs = [q for q, _ in self._cells]
        rs = [r for _, r in self._cells]
        ss = [-q - r for q, r in self._cells]
        lo_q, hi_q, lo_r, hi_r = min(qs) - 1, max(qs) + 1, min(rs) - 1, max(rs) + 1
        lo_s, hi_s = min(ss) - 1, max(ss) + 1

        def inside(c: Cell) -> bool:
            q, r = c
            return lo_q <= q <= hi_q and lo_r <= r <= hi_r and lo_s <= -q - r <= hi_s

        region = {(q, r) for q in range(lo_q, hi_q + 1) for r in range(lo_r, hi_r + 1) if inside((q, r))}
        outside = deque(c for c in region if c not in self._cells and not all(inside(n) for n in neighbours(c)))
        reached = set(outside)
        while outside:
            for n in neighbours(outside.popleft()):
                if n in region and n not in self._cells and n not in reached:
                    reached.add(n)
                    outside.append(n)
        return sorted(c for c in region if c not in self._cells and c not in reached)

    # -- the board as a physical object: no absolute position or heading ---------------------
    def transformed(self, k: int = 0, dq: int = 0, dr: int = 0) -> Board:
        """The board turned k sixths clockwise about (0, 0), then moved by (dq, dr)."""
        return Board(p.transformed(k, dq, dr) for p in self._cells.values())

    def canonical(self) -> tuple[tuple[int, int, int, int], ...]:
        """A key equal for two boards exactly when they are the same up to a move and a turn."""
        best = None
        for k in range(6):
            moved = [p.transformed(k) for p in self._cells.values()]
            q0, r0 = min((p.q, p.r) for p in moved) if moved else (0, 0)
            key = tuple(sorted((p.q - q0, p.r - r0, p.tile, p.rot) for p in moved))
            if best is None or key < best:
                best = key
        return best

    def same_as(self, other: Board) -> bool:
        """True when `other` is this board after a move and a turn of the whole grid."""
        return len(self) == len(other) and self.canonical() == other.canonical()

    # -- files ------------------------------------------------------------------------------
    def to_dict(self) -> dict:
        return {"format": FORMAT, "tiles": [p.to_dict() for p in self]}

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, data: object) -> Board:
        """Read a `tantrix-board/1` object; BoardError names the first problem found."""
        if not isinstance(data, dict):
            raise BoardError(_("a board file must hold a JSON object"))
        if data.get("format") != FORMAT:
            raise BoardError(_("format is {found!r}, expected {wanted!r}").format(found=data.get("format"),
                                                                                wanted=FORMAT))
        tiles = data.get("tiles")
        if not isinstance(tiles, list):
            raise BoardError(_("'tiles' must be a list of placements"))
        board = cls()
        for i, t in enumerate(tiles):
            board.place(placement_from_dict(t, f"tiles[{i}]"))
        return board

    @classmethod
    def from_json(cls, text: str) -> Board:
        return cls.from_dict(parse_json(text))

    @classmethod
    def load(cls, path: str | Path) -> Board:
        """The board in a tantrix-board/1 file; BoardError names the file and what is wrong."""
        try:
            return cls.from_json(read_text(path))
        except BoardError as e:
            raise BoardError(str(e) if str(e).startswith(f"{path}: ") else f"{path}: {e}") from None

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=1) + "\n")


def placement_from_dict(t: object, where: str = "placement") -> Placement:
    """A Placement from {"tile", "q", "r", "rot"}; BoardError names what is wrong."""
    if not isinstance(t, dict):
        raise BoardError(_("{where} must be an object with tile, q, r, rot").format(where=where))
    for key in ("tile", "q", "r", "rot"):
        if key not in t:
            raise BoardError(_("{where} has no {key!r}").format(where=where, key=key))
        if not isinstance(t[key], int) or isinstance(t[key], bool):
            raise BoardError(_("{where}: {key} must be a whole number, not {value!r}").format(
                where=where, key=key, value=t[key]))
    for key in ("q", "r"):
        if abs(t[key]) > MAX_COORD:
            raise BoardError(_("{where}: {key} = {value} is off the table (-{max}..{max})").format(
                where=where, key=key, value=t[key], max=MAX_COORD))
    p = Placement(t["tile"], t["q"], t["r"], t["rot"])
    check_placement(p)
    return p


def parse_json(text: str, error: type[TantrixError] = BoardError) -> object:
    """The values in JSON `text`; `error` (one line) when it is not JSON or is JSON no one writes by hand: a
    number too long for Python to read, or lists nested thousands deep."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise error(_("not JSON: {error} at line {line} column {column}").format(
            error=e.msg, line=e.lineno, column=e.colno)) from None
    except ValueError:  # Python refuses to read an integer with more digits than its limit
        raise error(_("not JSON that can be read: a number has more than {digits} digits").format(
            digits=sys.get_int_max_str_digits())) from None
    except RecursionError:
        raise error(_("not JSON that can be read: it is nested too deeply")) from None


def read_text(path: str | Path) -> str:
    """A text file's contents, with BoardError (one line) for a missing or unreadable file."""
    try:
        return Path(path).read_text()
    except FileNotFoundError:
        raise BoardError(_("{path}: no such file").format(path=path)) from None
    except UnicodeDecodeError:
        raise BoardError(_("{path}: not a text file (expected JSON)").format(path=path)) from None
    except OSError as e:
        raise BoardError(_("{path}: cannot read it ({error})").format(path=path, error=e.__class__.__name__)) from None
