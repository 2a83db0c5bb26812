"""A played game as a script of table states: the demo's bundled recording, the benches' and the tests' replays.

A `Scene` is what lies on the table for a few frames: a board, or a hand over it; around it the light, things
standing on the table, a hand resting at the frame's edge and the tiles in each player's hand zone. `script(...)`
turns a game (placements in order) into scenes: each tile is brought in by a hand (frames with motion), then the
table stays still long enough for the stability gate. `Behaviours` names at which moves the players do what
players do besides playing (an illegal tile moved straight to its place, a tile turned after it was put down, a
lamp switched on, a cup set down beside the board, a hand resting at the edge, a neighbour knocked askew by a tile
laid, the whole board pushed or the camera knocked as a tile is laid, a lamp's glare washing out a tile laid until a
player moves the lamp), and each scene whose board
changed says what the referee must announce once it has settled (`Says`). One illegal placement can be played
and then taken back (`illegal_at`, the bundled demo's mistake).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources

from tantrix_pi import rules
from tantrix_pi.board import Board, Placement
from tantrix_pi.grid import Cell, centre, distance
from tantrix_pi.tiles import COLOUR_NAMES

PLACED, MOVED, TURNED, ILLEGAL, TAKEN_BACK = "placed", "moved", "turned", "illegal", "taken back"
"""What a settled table must be announced as (`Says.verdict`): a new tile accepted; a tile moved or turned into
this legal position, accepted as its player's placement; a tile refused; the last tile played taken back."""


@dataclass(frozen=True)
class Light:
    """The light on the table as the simulator takes it: colour temperature (K), the share of its cast the
    camera's white balance removes, and its level (1: as recorded)."""

    light_k: float
    awb: float
    exposure: float


LAMP = Light(4200.0, 0.5, 1.3)
"""A lamp switched on over the table: brighter and whiter than the dim warm room of the benches (2700 K, 0.75)."""

PUSH = (0.4, 0.25, 5.0)
"""How far a hand laying a tile pushes the whole board across the table: (dx, dy) tile widths along the board's own
axes, turned clockwise about the whole game's middle by that many degrees. Its tiles keep their cells; only where
the board lies on the table changes."""

KNOCK = (0.25, 0.15, 1.0)
"""How far a camera knocked as a tile is laid moves the whole picture: (dx, dy) tile widths along the image's x and
y, turned clockwise by that many degrees (the camera turned about a degree on its arm)."""

NUDGE = (0.08, 6.0)
"""How far a tile laid against the board knocks a neighbour: away from it by that share of a circumradius (2 mm),
turned by that many degrees."""

LEAN = 0.5
"""How dark the shadow of a player leaning over the table to lay a tile is: it takes half the light from the part of
the table it falls on (the simulator's `cast_shadow`: its side, reach and soft edge follow the recording's seed)."""

GLARE = 0.9
"""How strong the glare of a lamp over the table is (the simulator's `glare`): enough to wash out the tile under it."""

REST_AT = (0.07, 0.5)
"""Where a hand resting at the frame's edge reaches to, in (x, y) fractions of the frame: in from the left edge,
level with the board's middle, well clear of it."""
REST_POINTS = (REST_AT, (0.93, 0.5), (0.5, 0.07), (0.5, 0.93))
"""The same in from the left, right, top and bottom edges: with hand zones, the first outside every zone."""


@dataclass(frozen=True)
class Says:
    """What the referee must announce once a scene's table has settled: `verdict` (PLACED, MOVED, TURNED, ILLEGAL
    or TAKEN_BACK) about `placement`; `move` is the index of the game's placement it stands for (None for a
    tile that is not one)."""

    verdict: str
    placement: Placement
    move: int | None = None


@dataclass(frozen=True)
class Scene:
    """`frames` frames of the table showing `board`, with a hand over it when `hand`; `press` names a button
    command ("end_turn") a player gives once the scene's frames have been shown; `says` what its settled table
    must be announced as (None: nothing, the board did not change)."""

    board: Board
    frames: int
    hand: bool = False
    note: str = ""
    press: str | None = None
    says: Says | None = None
    reach: Cell | None = None
    """The board cell the hand over the table reaches for (None: wherever the photographer puts it)."""
    light: Light | None = None
    """The light (None: the recording's)."""
    clutter: tuple[tuple[str, Cell], ...] = ()
    """Things standing on the table: (kind, the board cell it stands on), e.g. ("cup", (4, -2))."""
    rest: tuple[float, float] | None = None
    """A hand resting still at this (x, y) fraction of the frame, its arm in from the nearest edge (still
    scenes only: a hand over the table has the frame to itself)."""
    hands: dict[str, tuple[int | None, ...]] = field(default_factory=dict)
    """Each seat's tiles lying face up in its hand zone, slot by slot (None: an empty slot); seats by colour
    name ("red")."""
    nudged: tuple[tuple[Cell, tuple[float, float, float]], ...] = ()
    """Board tiles knocked off where they were laid: (cell, (dx, dy circumradii, degrees))."""
    push: tuple[float, float, float] | None = None
    """How far the board has been pushed across the table (`PUSH`'s form); None: where it was laid."""
    knock: tuple[float, float, float] | None = None
    """How far the camera has been knocked (`KNOCK`'s form); None: where it was set up."""
    shadow: float = 0.0
    """A player's shadow across part of the table (`LEAN`'s form); 0: none."""
    glare: Cell | None = None
    """The board cell a lamp's glare (`GLARE`) lies on; None: none."""
    behaviour: str | None = None
    """The behaviour the scene is part of (a `Behaviours` name, or "taken back" for `illegal_at`), None: play."""


@dataclass(frozen=True)
class Behaviours:
    """At which move (an index into the placements) the players do each of these; None: they do not."""

    moved: int | None = None
    """That move's tile is first laid on another cell, where it is illegal, then moved by a hand straight to
    its place (no still frame shows the board without it)."""
    turned: int | None = None
    """That move's tile is first laid on its cell at another turn (one breaking the golden rule when there is
    one), then turned in place to its own."""
    lamp: int | None = None
    """After that move a lamp is switched on (`LAMP`) for the rest of the game."""
    cup: int | None = None
    """After that move a cup is set down beside the board for `cup_frames` still frames, then taken away."""
    rest: int | None = None
    """After that move a hand comes to rest at the frame's edge (at `rest_at`) for `rest_frames` still frames,
    and stays there while the next `rest_moves` moves are made."""
    nudged: int | None = None
    """That move's tile, laid against the board, knocks a neighbour askew (`NUDGE`) for the rest of the game."""
    pushed: int | None = None
    """The hand laying that move's tile pushes the whole board across the table (`PUSH`), where it lies for the rest
    of the game."""
    knocked: int | None = None
    """The camera is knocked as that move's tile is laid (`KNOCK`), and stays so for the rest of the game."""
    leaning: int | None = None
    """The player laying that move's tile leans over the table to do so: their shadow (`LEAN`) lies across part of it
    from that tile's hand on, and they sit back only as the tile `lean_moves` moves later is brought."""
    glared: int | None = None
    """That move's tile is laid under a lamp's glare (`GLARE`), which washes it out; the players play on for
    `glare_moves` more moves, then one of them moves the lamp. Not one of NAMES: while the glare lies the referee
    judges nothing, so a behaviour made meanwhile would not be seen."""
    dazzled: int | None = None
    """After that move a lamp is switched on whose glare (`GLARE`) washes out the game's first tile, long since laid,
    for the rest of the game. Not one of NAMES, as `glared`."""
    skip: int | None = None
    """That move fills a forced space; its player first lays the tile on a free cell instead, where it is legal but
    for the forced fill the rules make compulsory, then takes it back (with the hands in view: refused, since the
    player holds a tile that fits). Not one of NAMES: without the hands in view it is not a slip the referee sees."""
    press_after: int | None = None
    """Still frames after a tile is laid that its player presses end of turn (1: as soon as it is down, before the
    referee has committed it); None: once the table has settled."""
    cup_frames: int = 12
    rest_frames: int = 40
    rest_moves: int = 2
    lean_moves: int = 2
    glare_moves: int = 4
    rest_at: tuple[float, float] = REST_AT

    NAMES = ("moved", "turned", "lamp", "cup", "rest", "nudged", "pushed", "knocked", "leaning")
    """The behaviours, in the order `spread` puts them in a game."""

    @classmethod
    def spread(cls, moves: int, names=NAMES, avoid: tuple[int, ...] = ()) -> Behaviours:
        """The behaviours `names`, each at its own move, spread evenly over a game of `moves` placements
        (never at a move in `avoid`); ValueError when the game is too short for them."""
        at, taken = {}, set(avoid)
        for k, name in enumerate(n for n in cls.NAMES if n in names):
            i = max(1, round(moves * (k + 1) / (len(names) + 1)) - 1)
            while i in taken:
                i += 1
            if i >= moves:
                raise ValueError(f"a game of {moves} moves is too short for {len(names)} behaviours each at its own "
                                 "move: give more moves")
            at[name] = i
            taken.add(i)
        return cls(**at)


JUST_PLAY = Behaviours()
"""No behaviour: the players only play."""


def an_illegal_placement(board: Board, tiles: list[int], avoid: tuple[Cell, ...] = ()) -> Placement:
    """A placement that touches the board but breaks the golden rule (a player's honest mistake), on a cell
    not in `avoid`."""
    for cell in sorted(board.empty_neighbours() - set(avoid)):
        for n in tiles:
            for rot in range(6):
                p = Placement(n, cell[0], cell[1], rot)
                if any(v.rule == rules.GOLDEN_RULE for v in rules.why_illegal(board, p)):
                    return p
    raise ValueError(f"no illegal placement of tile {tiles[0]} found off {list(avoid)}")


def another_turn(board: Board, p: Placement) -> Placement:
    """`p` at another turn on its cell: one breaking the golden rule (a player who laid it carelessly), else one
    that is legal whether the bag is empty or not."""
    others = [Placement(p.tile, p.q, p.r, rot) for rot in range(6) if rot != p.rot]
    for q in others:
        if any(v.rule == rules.GOLDEN_RULE for v in rules.why_illegal(board, q)):
            return q
    for q in others:
        if not rules.why_illegal(board, q):
            return q
    raise ValueError(f"tile {p.tile} at {p.cell} has no other turn that is plainly legal or illegal")


def a_free_move_instead(board: Board, p: Placement) -> Placement:
    """Tile `p.tile`, which fills a forced space at `p`, laid instead on a cell that is no forced space, where the
    rules allow it but for the fill (a player skipping it); ValueError when `p` fills none or there is no such cell."""
    if board.occupied_neighbours(p.cell) < rules.FORCED_NEIGHBOURS:
        raise ValueError(f"tile {p.tile} at {p.cell} fills no forced space: a skipped fill needs a move that fills one")
    for cell in sorted(board.empty_neighbours()):
        if board.occupied_neighbours(cell) < rules.FORCED_NEIGHBOURS:
            for rot in range(6):
                q = Placement(p.tile, cell[0], cell[1], rot)
                if not rules.why_illegal(board, q):
                    return q
    raise ValueError(f"tile {p.tile} has no legal free cell off the forced space {p.cell}")


def beside(board: Board) -> Cell:
    """A free cell two steps from the board, nearest its middle: where a cup stands beside it."""
    pts = [centre(c) for c in board.cells]
    mx, my = sum(x for x, _ in pts) / len(pts), sum(y for _, y in pts) / len(pts)
    ring = {(c[0] + dq, c[1] + dr) for c in board.cells for dq in range(-2, 3) for dr in range(-2, 3)}
    free = [c for c in ring if min(distance(c, b) for b in board.cells) == 2]
    return min(free, key=lambda c: ((centre(c)[0] - mx) ** 2 + (centre(c)[1] - my) ** 2, c))


def script(moves: list[Placement], still: int = 4, hand: int = 3, illegal_at: int | None = None,
           turn_ends: frozenset[int] = frozenset(), behaviours: Behaviours = JUST_PLAY,
           hands: list[dict[str, tuple[int | None, ...]]] | None = None) -> list[Scene]:
    """Scenes of a game played tile by tile; before move `illegal_at` a wrong tile is laid and taken back;
    after each move (index) in `turn_ends` the player presses "end of turn"; `behaviours` at their moves.

    `hands` (`hands_in_play(record)`): the zones' tiles before the first move, then after each move and its
    draw. A tile on its way to the board is in its player's fingers, not in the zone; after a placement its
    player draws (a hand over the table, then the zone holds the drawn tile in the freed slot).
    """
    b = behaviours
    before = [i for i in (illegal_at, b.moved, b.turned, b.skip, b.nudged, b.pushed, b.knocked, b.leaning, b.glared)
              if i is not None]
    after = [i for i in (b.lamp, b.cup, b.rest, b.dazzled) if i is not None]
    if len(set(before)) < len(before) or len(set(after)) < len(after):
        raise ValueError("one behaviour per move: two of them were given the same move")
    if any(i < 1 for i in (b.moved, b.turned, b.nudged) if i is not None):
        raise ValueError("a tile is moved or turned into place, or knocks a neighbour, from the second move on (the "
                         "first is legal anywhere at any turn, and has no neighbour)")
    if any(i >= len(moves) for i in (*before, *after)):
        raise ValueError(f"a behaviour after the game's last move ({len(moves)} moves)")
    if b.glared is not None and b.glared + 1 + b.glare_moves >= len(moves):
        raise ValueError(f"the glare lies for {b.glare_moves} moves after its tile's, then the lamp is moved before "
                         f"a move: the game of {len(moves)} moves ends first")
    scenes: list[Scene] = []
    light, push, knock, askew, rest_until, shadow, lean_until = None, None, None, {}, -1, 0.0, -1
    glare, glare_until, glare_by = None, -1, None
    zone = hands[0] if hands else {}

    def add(board: Board, frames: int, hand: bool = False, note: str = "", **more) -> None:
        resting = not hand and rest_until >= 0
        for name, now in (("rest", resting), ("leaning", shadow), (glare_by, glare is not None)):
            if now:
                more = {"behaviour": name, **more}
                break
        scenes.append(Scene(board.copy(), frames, hand, note, light=light, rest=b.rest_at if resting else None,
                            hands=dict(zone), **{"push": push, "knock": knock, "nudged": tuple(sorted(askew.items())),
                                                 "shadow": shadow, "glare": glare, **more}))

    add(Board(), still, note="empty table")
    board = Board()
    for i, p in enumerate(moves):
        if hands:
            zone = {seat: tuple(None if t == p.tile else t for t in slots) for seat, slots in hands[i].items()}
        if illegal_at == i:
            wrong = an_illegal_placement(board, [m.tile for m in moves[i:]])
            bad = _with(board, wrong)
            slip = {"behaviour": TAKEN_BACK}
            add(board, hand, True, f"a hand brings tile {wrong.tile}", **slip)
            add(bad, still, note=f"illegal: tile {wrong.tile} at {wrong.cell}", says=Says(ILLEGAL, wrong), **slip)
            add(bad, hand, True, "a hand takes it back", **slip)
            add(board, still + 3, note=f"tile {wrong.tile} taken back", says=Says(TAKEN_BACK, wrong), **slip)
        if b.leaning == i:
            shadow, lean_until = LEAN, i + b.lean_moves
        elif lean_until == i:
            shadow = 0.0
        if b.glared == i:
            glare, glare_until, glare_by = p.cell, i + 1 + b.glare_moves, "glared"
        elif glare_until == i:
            glare = None
            add(board, still, note="a player moves the lamp away", behaviour="glared")
        if b.skip == i:
            wrong = a_free_move_instead(board, p)
            slip = {"behaviour": "skip"}
            add(board, hand, True, f"a hand brings tile {p.tile}", **slip)
            add(_with(board, wrong), still, note=f"tile {p.tile} at {wrong.cell}, forced space {p.cell} left unfilled",
                says=Says(ILLEGAL, wrong), **slip)
            add(_with(board, wrong), hand, True, "a hand takes it back", reach=wrong.cell, **slip)
            add(board, still + 3, note=f"tile {p.tile} taken back", says=Says(TAKEN_BACK, wrong), **slip)
        name = next((n for n in ("moved", "turned", "nudged", "pushed", "knocked") if getattr(b, n) == i), None)
        slip = {"behaviour": name} if name else {}
        if name == "pushed":  # the board on its way
            push = tuple(v / 2 for v in PUSH)
        add(board, hand, True, f"a hand brings tile {p.tile}", **slip)
        push, knock = PUSH if name == "pushed" else push, KNOCK if name == "knocked" else knock
        verdict = PLACED
        if b.moved == i:
            wrong = an_illegal_placement(board, [p.tile], avoid=(p.cell,))
            add(_with(board, wrong), still, note=f"illegal: tile {p.tile} at {wrong.cell}", says=Says(ILLEGAL, wrong),
                **slip)
            add(board, hand, True, f"a hand moves tile {p.tile} straight to {p.cell}", reach=p.cell, **slip)
            verdict = MOVED
        elif b.turned == i:
            wrong = another_turn(board, p)
            legal = not rules.why_illegal(board, wrong)
            add(_with(board, wrong), still, note=f"tile {p.tile} at {p.cell} laid at turn {wrong.rot}",
                says=Says(PLACED, wrong, i) if legal else Says(ILLEGAL, wrong), **slip)
            add(_with(board, wrong), hand, True, f"a hand turns tile {p.tile} to turn {p.rot}", reach=p.cell, **slip)
            verdict = TURNED
        board.place(p)
        if b.nudged == i:
            knocked_cell = _nudged_neighbour(board, p.cell)
            askew[knocked_cell] = _nudge(p.cell, knocked_cell)
        press = "end_turn" if i in turn_ends else None
        drawn = hands is not None and i + 1 < len(hands) and hands[i + 1] != zone
        settle = still + 3 if verdict == MOVED else still  # a tile gone from a cell takes the tracker longer
        if press and b.press_after is not None and b.press_after < settle:
            add(board, b.press_after, note=f"tile {p.tile} at {p.cell}, end of turn pressed", press=press,
                says=Says(verdict, p, i), **slip)
            add(board, settle - b.press_after, note=f"tile {p.tile} at {p.cell}", **slip)
            press = None
        else:
            add(board, settle, note=f"tile {p.tile} at {p.cell}", press=None if drawn else press,
                says=Says(verdict, p, i), **slip)
        if drawn:
            add(board, hand, True, "a hand draws a tile")
            zone = hands[i + 1]
            add(board, still, note="the drawn tile in its zone", press=press)
        if rest_until == i:
            rest_until = -1
        if b.lamp == i:
            light = LAMP
            add(board, still, note="a lamp switched on", behaviour="lamp")
        elif b.dazzled == i:
            glare, glare_by = moves[0].cell, "dazzled"
            add(board, still, note=f"a lamp's glare on tile {moves[0].tile}")
        elif b.cup == i:
            cup = {"clutter": (("cup", beside(board)),), "behaviour": "cup"}
            where = cup["clutter"][0][1]
            add(board, hand, True, "a hand sets a cup down beside the board", reach=where, **cup)
            add(board, b.cup_frames, note=f"a cup at {where}", **cup)
            add(board, hand, True, "a hand takes the cup away", reach=where, **cup)
            add(board, still, note="the cup taken away", behaviour="cup")
        elif b.rest == i:
            rest_until = i + b.rest_moves
            add(board, b.rest_frames, note="a hand resting at the frame's edge")
    return scenes


def _nudged_neighbour(board: Board, cell: Cell) -> Cell:
    """The neighbour a tile laid on `cell` knocks askew: the first of the board's tiles beside it."""
    return min(c for c in board.cells if distance(c, cell) == 1)


def _nudge(by: Cell, cell: Cell) -> tuple[float, float, float]:
    """`NUDGE` of the tile on `cell`, away from the tile laid on `by`: (dx, dy circumradii, degrees)."""
    (ax, ay), (bx, by_) = centre(by), centre(cell)
    length = ((bx - ax) ** 2 + (by_ - ay) ** 2) ** 0.5
    return NUDGE[0] * (bx - ax) / length, NUDGE[0] * (by_ - ay) / length, NUDGE[1]


def _with(board: Board, p: Placement) -> Board:
    """A copy of `board` with `p` laid on it."""
    out = board.copy()
    out.place(p)
    return out


ANNOUNCED = {PLACED: "placed", MOVED: "placed", TURNED: "placed", ILLEGAL: "illegal", TAKEN_BACK: "taken_back"}
"""The event kind that announces each verdict: a tile moved or turned out of its illegal place into a legal one is
its player's placement (its data may say where it "was"); "moved" and "turned" are for an accepted tile moved."""
ABOUT_TILES = ("placed", "illegal", "taken_back", "removed", "restored", "moved", "turned", "corrected", "unsure",
               "refused")
"""Event kinds that say something happened to a tile (or that a press was refused): each must be one a scene
says, else it is a phantom. Forced spaces, must-fills, who is to play, scores, the bag and ends of turn follow
from the board."""


@dataclass
class Followed:
    """How a referee's events follow a script: which announcement each scene's `Says` got, and the phantoms."""

    expected: list[tuple[int, Says]]
    """(scene index, what it must be announced as), in the script's order."""
    matched: dict[int, int]
    """Expected announcement (index into `expected`) -> the event (index) that made it."""
    phantoms: list[int]
    """Events about a tile that no scene says (a placement, removal, move, turn, correction or "can't read" where
    nothing happened, an illegal for a legal placement, a refused press)."""

    @property
    def missed(self) -> list[int]:
        """The expected announcements never made."""
        return [i for i in range(len(self.expected)) if i not in self.matched]


def follow(scenes: list[Scene], events: list[tuple[str, dict]], commits: list[object] | None = None,
           to_script=lambda p: p) -> Followed:
    """Match the events (kind, data: the store's machine truth, in order) to what the scenes say, in order.

    `commits`: what each event came with (a commit number, a frame): the changes of one commit may be announced
    in any order. `to_script` lays an event's placement (tile, cell, turn) onto the script's grid.
    """
    expected = [(k, s.says) for k, s in enumerate(scenes) if s.says is not None]
    commits = commits if commits is not None else list(range(len(events)))

    def fits(says: Says, kind: str, data: dict) -> bool:
        if kind != ANNOUNCED[says.verdict] or "tile" not in data or "cell" not in data:
            return False
        p = to_script(Placement(data["tile"], data["cell"][0], data["cell"][1], data.get("rot", 0)))
        if says.verdict == TAKEN_BACK:  # a removal names the tile and its cell
            return (p.tile, p.cell) == (says.placement.tile, says.placement.cell)
        return p == says.placement

    matched: dict[int, int] = {}
    phantoms: list[int] = []
    start, later, commit = 0, 0, object()
    for n, ((kind, data), c) in enumerate(zip(events, commits, strict=True)):
        if kind not in ABOUT_TILES:
            continue
        if c != commit:
            start, commit = later, c
        hit = next((i for i in range(start, len(expected)) if i not in matched and fits(expected[i][1], kind, data)),
                   None)
        if hit is None:
            phantoms.append(n)
        else:
            matched[hit], later = n, max(later, hit + 1)
    return Followed(expected, matched, phantoms)


def load_record(name: str = "demo-game.json") -> dict:
    """A game record bundled with the package (`tantrix_pi/data/`)."""
    return json.loads(resources.files("tantrix_pi").joinpath(f"data/{name}").read_text())


def turn_ends(record: dict) -> frozenset[int]:
    """Indices of the placements after which a record's player ended the turn with the button."""
    out, n = set(), 0
    for m in record["moves"]:
        if m.get("end_turn"):
            out.add(n - 1)
        elif "tile" in m:
            n += 1
    return frozenset(out)


def placements(record: dict) -> list[Placement]:
    """The placements of a `tantrix-game/1` record in order (ends of turn and draws left out)."""
    return [Placement(m["tile"], m["q"], m["r"], m["rot"]) for m in record["moves"] if "tile" in m]


def letters(names: list[str]) -> list[str]:
    """Player colour names ("red", as records hold them) as colour letters ("R")."""
    letter = {name: code for code, name in COLOUR_NAMES.items()}
    return [letter.get(n, n) for n in names]


def movers(record: dict) -> list[str]:
    """Who made each placement of a record, as colour letters ("R")."""
    return letters([m["player"] for m in record["moves"] if "tile" in m])


def game_moves(seed: int, n: int | None = None) -> list[Placement]:
    """The first n placements of a random legal 2-player game (tantrix_pi.selfplay), for tests and benches."""
    from tantrix_pi.selfplay import random_game

    return [m.placement for m in random_game(2, seed=seed).moves][:n]


def selfplay_record(players: int, seed: int) -> dict:
    """A whole random legal game of `players` (tantrix_pi.selfplay) as a `tantrix-game/1` record with its hands:
    `"hands"` (each player's six tiles when play starts) and, after each placement while the bag has tiles, the
    tile its player draws (`{"player": "red", "draw": 17}`)."""
    from tantrix_pi import record
    from tantrix_pi.selfplay import random_game

    return record.to_dict(random_game(players, seed))


def hands_in_play(record: dict) -> list[dict[str, tuple[int | None, ...]]]:
    """The tiles in each player's zone, slot by slot, for a record with hands: as dealt, then after each
    placement and its draw (a drawn tile lies in the slot the placed one left; None: an empty slot)."""
    slots = {seat: tuple(tiles) for seat, tiles in record["hands"].items()}
    out = [dict(slots)]
    for m in record["moves"]:
        if "tile" in m:
            slots[m["player"]] = tuple(None if t == m["tile"] else t for t in slots[m["player"]])
            out.append(dict(slots))
        elif "draw" in m:
            row = list(slots[m["player"]])
            row[row.index(None)] = m["draw"]
            slots[m["player"]] = tuple(row)
            out[-1] = dict(slots)
    return out
