"""Scripts of played games with what players do besides playing (recording.py), what the referee must say about
them (`Says`, `follow`), self-play records with hands, and the photos of such recordings (demo.py)."""

import math

import cv2
import numpy as np
import pytest
from live_fakes import detect_frame, scene_source

from tantrix_pi import rules
from tantrix_pi.board import Board, Placement
from tantrix_pi.game import Game
from tantrix_pi.grid import centre, distance
from tantrix_pi.live.demo import Demo
from tantrix_pi.live.loop import LiveLoop
from tantrix_pi.live.recording import (
    ILLEGAL,
    KNOCK,
    LAMP,
    LEAN,
    MOVED,
    NUDGE,
    PLACED,
    PUSH,
    REST_AT,
    TAKEN_BACK,
    TURNED,
    Behaviours,
    Says,
    follow,
    game_moves,
    hands_in_play,
    letters,
    load_record,
    movers,
    placements,
    script,
    selfplay_record,
    turn_ends,
)
from tantrix_pi.live.referee import Setup
from tantrix_pi.live.sinks import MemorySink
from tantrix_pi.live.store import Store

MOVES = game_moves(3, 16)


def settled(scenes, says):
    """The index of the scene that says `says`."""
    return next(k for k, s in enumerate(scenes) if s.says == says)


def test_plain_play_says_every_placement_once_in_order_and_puts_nothing_else_on_the_table():
    scenes = script(MOVES, still=4, hand=2)
    assert [s.says for s in scenes if s.says] == [Says(PLACED, p, i) for i, p in enumerate(MOVES)]
    assert all(s.light is None and not s.clutter and s.rest is None and not s.hands and s.behaviour is None
               for s in scenes)


def test_the_bundled_demo_is_photographed_with_nothing_but_its_hands_passing():
    demo = Demo.bundled(moves=12)
    assert all(set(shot.options) <= {"occluder"} for shot in demo.shots())
    assert sum("occluder" in shot.options for shot in demo.shots()) == sum(s.frames for s in demo.scenes if s.hand)


def test_an_illegal_tile_moved_straight_to_its_cell_is_never_off_the_board_in_a_still_frame():
    scenes = script(MOVES, still=4, hand=2, behaviours=Behaviours(moved=5))
    before, p = Board(MOVES[:5]), MOVES[5]
    k = next(i for i, s in enumerate(scenes) if s.says and s.says.verdict == ILLEGAL)
    wrong = scenes[k].says.placement
    assert wrong.tile == p.tile and wrong.cell != p.cell
    assert any(v.rule == rules.GOLDEN_RULE for v in rules.why_illegal(before, wrong))
    assert scenes[k].board == Board([*MOVES[:5], wrong])
    then = settled(scenes, Says(MOVED, p, 5))
    assert scenes[then].board == Board(MOVES[:6]) and all(s.hand for s in scenes[k + 1:then])
    assert scenes[then].frames > 4  # a tile gone from a cell: the tracker waits two frames longer


def test_a_tile_turned_in_place_is_first_laid_breaking_the_golden_rule_then_turned():
    scenes = script(MOVES, still=4, hand=2, behaviours=Behaviours(turned=7))
    before, p = Board(MOVES[:7]), MOVES[7]
    k = next(i for i, s in enumerate(scenes) if s.says and s.says.placement.tile == p.tile)
    wrong = scenes[k].says.placement
    assert (wrong.tile, wrong.cell) == (p.tile, p.cell) and wrong.rot != p.rot and scenes[k].says.verdict == ILLEGAL
    assert any(v.rule == rules.GOLDEN_RULE for v in rules.why_illegal(before, wrong))
    then = settled(scenes, Says(TURNED, p, 7))
    assert all(s.hand and s.board == Board([*MOVES[:7], wrong]) for s in scenes[k + 1:then])


def test_a_lamp_switched_on_lights_the_rest_of_the_game():
    scenes = script(MOVES, still=4, hand=2, behaviours=Behaviours(lamp=6))
    k = next(i for i, s in enumerate(scenes) if s.behaviour == "lamp")
    assert k > settled(scenes, Says(PLACED, MOVES[6], 6)) and scenes[k].board == Board(MOVES[:7])
    assert all(s.light is None for s in scenes[:k]) and all(s.light == LAMP for s in scenes[k:])


def test_a_cup_stands_beside_the_board_for_its_still_frames_then_goes():
    b = Behaviours(cup=6)
    scenes = script(MOVES, still=4, hand=2, behaviours=b)
    cups = [s for s in scenes if s.clutter]
    (kind, cell), = {c for s in cups for c in s.clutter}
    assert kind == "cup" and min(distance(cell, c) for c in Board(MOVES[:7]).cells) == 2
    assert [s.frames for s in cups if not s.hand] == [b.cup_frames]
    assert all(s.board == Board(MOVES[:7]) for s in cups)
    assert not any(s.clutter for s in scenes[scenes.index(cups[-1]) + 1:])


def test_a_hand_rests_at_the_edge_through_its_still_frames_and_the_next_moves():
    b = Behaviours(rest=6)
    scenes = script(MOVES, still=4, hand=2, behaviours=b)
    resting = [k for k, s in enumerate(scenes) if s.rest is not None]
    assert all(scenes[k].rest == REST_AT and not scenes[k].hand for k in resting)
    assert scenes[resting[0]].frames == b.rest_frames and scenes[resting[0]].board == Board(MOVES[:7])
    assert resting[-1] == settled(scenes, Says(PLACED, MOVES[6 + b.rest_moves], 6 + b.rest_moves))
    assert all(s.hand for s in scenes[resting[0]:resting[-1]] if s.rest is None)  # only a placing hand in between


def test_a_tile_laid_knocks_one_neighbour_askew_for_the_rest_of_the_game():
    scenes = script(MOVES, still=4, hand=2, behaviours=Behaviours(nudged=6))
    then = settled(scenes, Says(PLACED, MOVES[6], 6))
    assert not any(s.nudged for s in scenes[:then])
    (cell, (dx, dy, twist)), = scenes[then].nudged
    assert distance(cell, MOVES[6].cell) == 1 and cell in Board(MOVES[:6]).cells
    assert math.isclose(math.hypot(dx, dy), NUDGE[0]) and twist == NUDGE[1]
    (ax, ay), (bx, by) = centre(MOVES[6].cell), centre(cell)
    assert dx * (bx - ax) + dy * (by - ay) > 0  # away from the tile that knocked it
    assert all(s.nudged == scenes[then].nudged for s in scenes[then:])


@pytest.mark.parametrize("name, field, whole", [("pushed", "push", PUSH), ("knocked", "knock", KNOCK)])
def test_the_board_pushed_or_the_camera_knocked_as_a_tile_is_laid_stays_so(name, field, whole):
    scenes = script(MOVES, still=4, hand=2, behaviours=Behaviours(**{name: 6}))
    then = settled(scenes, Says(PLACED, MOVES[6], 6))
    assert scenes[then - 1].hand and scenes[then - 1].behaviour == scenes[then].behaviour == name
    assert all(getattr(s, field) is None for s in scenes[:then - 1])
    assert getattr(scenes[then - 1], field) == (tuple(v / 2 for v in whole) if name == "pushed" else None)
    assert all(getattr(s, field) == whole for s in scenes[then:])


def test_a_player_leaning_over_the_board_casts_a_shadow_from_their_tile_until_they_sit_back_two_moves_later():
    scenes = script(MOVES, still=4, hand=2, behaviours=Behaviours(leaning=6))
    first, sits_back = settled(scenes, Says(PLACED, MOVES[6], 6)), settled(scenes, Says(PLACED, MOVES[8], 8))
    assert scenes[first - 1].hand and scenes[first - 1].shadow == LEAN  # leaning in with the tile
    assert not any(s.shadow for s in scenes[:first - 1]) and not any(s.shadow for s in scenes[sits_back - 1:])
    assert all(s.shadow == LEAN and s.behaviour == "leaning" for s in scenes[first - 1:sits_back - 1])
    assert settled(scenes, Says(PLACED, MOVES[7], 7)) < sits_back - 1  # the next move is laid in the shadow too


def test_a_lamps_glare_lies_on_a_tile_from_its_move_until_a_player_moves_the_lamp_glare_moves_later():
    scenes = script(MOVES, still=4, hand=2, behaviours=Behaviours(glared=3, glare_moves=2))
    first, later = settled(scenes, Says(PLACED, MOVES[3], 3)), settled(scenes, Says(PLACED, MOVES[6], 6))
    glared = [k for k, s in enumerate(scenes) if s.glare is not None]
    assert glared == list(range(first - 1, later - 2)) and {scenes[k].glare for k in glared} == {MOVES[3].cell}
    moved = scenes[later - 2]  # the lamp moved away: a still table without the glare, before the next tile comes
    assert moved.glare is None and not moved.hand and moved.board == scenes[later - 3].board
    assert all(scenes[k].behaviour == "glared" for k in [*glared, later - 2])
    with pytest.raises(ValueError, match="ends first"):
        script(MOVES[:6], behaviours=Behaviours(glared=3, glare_moves=2))


def test_a_lamps_glare_switched_on_after_a_move_lies_on_the_first_tile_for_the_rest_of_the_game():
    scenes = script(MOVES, still=4, hand=2, behaviours=Behaviours(dazzled=4))
    after = settled(scenes, Says(PLACED, MOVES[4], 4)) + 1
    assert not any(s.glare for s in scenes[:after])
    assert all(s.glare == MOVES[0].cell and s.behaviour == "dazzled" for s in scenes[after:])
    assert scenes[after].board == scenes[after - 1].board and not scenes[after].hand  # switched on, nothing laid


def test_behaviours_spread_over_a_game_each_at_its_own_move_and_two_at_one_move_are_refused():
    b = Behaviours.spread(24, avoid=(9,))
    at = [getattr(b, n) for n in Behaviours.NAMES]
    assert len(set(at)) == len(Behaviours.NAMES) and 9 not in at and all(1 <= i < 24 for i in at) and at == sorted(at)
    with pytest.raises(ValueError, match="one behaviour per move"):
        script(MOVES, illegal_at=4, behaviours=Behaviours(moved=4))
    with pytest.raises(ValueError, match="from the second move on"):
        script(MOVES, behaviours=Behaviours(turned=0))
    with pytest.raises(ValueError, match="one behaviour per move"):
        script(MOVES, behaviours=Behaviours(pushed=4, nudged=4))
    with pytest.raises(ValueError, match="after the game's last move"):
        script(MOVES[:6], behaviours=Behaviours(cup=6))
    with pytest.raises(ValueError, match=f"too short for {len(Behaviours.NAMES)} behaviours"):
        Behaviours.spread(len(Behaviours.NAMES))


# -- what the referee must say: follow -------------------------------------------------------------------
def said(says: Says, kind: str | None = None) -> tuple[str, dict]:
    p = says.placement
    kind = kind or {ILLEGAL: "illegal", TAKEN_BACK: "taken_back"}.get(says.verdict, "placed")
    return kind, {"tile": p.tile, "cell": list(p.cell), "rot": p.rot}


def test_following_a_script_finds_what_was_not_said_and_every_phantom():
    scenes = script(MOVES[:8], still=4, hand=2, illegal_at=3, behaviours=Behaviours(moved=5))
    says = [s.says for s in scenes if s.says]
    right = [said(x) for x in says]
    f = follow(scenes, right + [("scores", {"scores": {"R": 3}})])
    assert not f.missed and not f.phantoms
    k = next(i for i, x in enumerate(says) if x.verdict == MOVED)
    kept_aside = right[:k] + [said(says[k], "moved")] + right[k + 1:]  # "moved": an accepted tile moved off its cell
    f = follow(scenes, kept_aside)
    assert f.missed == [k] and f.phantoms == [k]
    wrong = right[:k] + [said(says[k], "illegal")] + right[k + 1:] + [("unsure", {"cells": [[9, 9]], "px": []})]
    f = follow(scenes, wrong)
    assert f.missed == [k] and f.phantoms == [k, len(wrong) - 1]


def test_the_changes_of_one_commit_may_be_said_in_any_order_but_commits_keep_the_tables_order():
    scenes = script(MOVES[:6], still=4, hand=2)
    events = [said(s.says) for s in scenes if s.says]
    swapped = events[:2] + [events[3], events[2]] + events[4:]
    assert not follow(scenes, swapped, commits=[0, 1, 2, 2, 3, 4]).phantoms
    f = follow(scenes, swapped)
    assert f.missed == [2] and f.phantoms == [3]


def test_events_in_the_cameras_grid_are_laid_on_the_script():
    scenes = script(MOVES[:5], still=4, hand=2)
    events = [said(Says(s.says.verdict, s.says.placement.transformed(2, 3, -1))) for s in scenes if s.says]
    assert follow(scenes, events).phantoms
    back = follow(scenes, events, to_script=lambda p: p.transformed(0, -3, 1).transformed(4, 0, 0))
    assert not back.phantoms and not back.missed


def run_script(tmp_path, scenes, players=("R", "Y")):
    store, sink = Store(tmp_path / "state.db"), MemorySink()
    loop = LiveLoop(scene_source(scenes, lambda: loop.commands), detect_frame, store, Setup("game", list(players)),
                    sink)
    loop.run()
    events = store.events(loop.game)
    return follow(scenes, [(e.kind, e.data) for e in events]), store.moves(loop.game)


def test_the_referee_follows_plain_play_and_a_tile_taken_back_without_a_phantom(tmp_path):
    rec = load_record()
    moves = placements(rec)[:14]
    scenes = script(moves, still=5, hand=2, illegal_at=9, turn_ends=turn_ends(rec))
    f, stored = run_script(tmp_path, scenes)
    assert not f.missed and not f.phantoms
    assert [(m.player, m.placement, m.legal) for m in stored] == list(zip(movers(rec), moves, [True] * 14,
                                                                           strict=False))


@pytest.mark.parametrize("press_after", [0, 1, 2])
def test_end_of_turn_pressed_as_the_tile_goes_down_credits_every_tile_to_its_player(tmp_path, press_after):
    # every press as the hand leaves the tile (0: the hand still over the table), or after one or two still frames:
    # before the tracker commits the tile (3 still frames). Judged at once, the turn was refused or ended before its
    # last fill, and tiles were credited to the next player (17 of 24 on the bench's photos)
    rec = load_record()
    moves = placements(rec)[:24]
    scenes = script(moves, still=5, hand=2, turn_ends=turn_ends(rec), behaviours=Behaviours(press_after=press_after))
    assert sum(1 for s in scenes if s.press) == sum(1 for i in turn_ends(rec) if i < 24) > 5
    f, stored = run_script(tmp_path, scenes)
    assert not f.missed and not f.phantoms
    assert [(m.player, m.placement, m.legal) for m in stored] == list(zip(movers(rec), moves, [True] * 24,
                                                                           strict=False))


@pytest.mark.parametrize("press_after", [None, 1])
@pytest.mark.parametrize("behaviour", ["moved", "turned"])
def test_a_tile_moved_or_turned_into_place_is_its_players_placement(tmp_path, behaviour, press_after):
    # press_after 1: the turn's end pressed as soon as the tile is in place, before it is committed
    rec = load_record()
    moves = placements(rec)[:14]
    at = next(i for i in sorted(turn_ends(rec)) if i >= 5 and movers(rec)[i - 1] == movers(rec)[i])  # a fill's turn
    scenes = script(moves, still=5, hand=2, turn_ends=turn_ends(rec),
                    behaviours=Behaviours(**{behaviour: at}, press_after=press_after))
    f, stored = run_script(tmp_path, scenes)
    assert [(m.player, m.placement, m.legal) for m in stored] == list(zip(movers(rec), moves, [True] * 14,
                                                                           strict=False))
    assert not f.missed and not f.phantoms


# -- self-play records with hands ------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_selfplay_record_holds_hands_the_rules_engine_accepts_move_by_move(players):
    rec = selfplay_record(players, seed=players)
    seats = letters(rec["players"])
    game = Game(seats, {c: rec["hands"][n] for c, n in zip(seats, rec["players"], strict=True)})
    for m in rec["moves"]:  # with every hand known the engine checks the tile is held and the forced fills
        if "tile" in m:
            game.push(Placement(m["tile"], m["q"], m["r"], m["rot"]))
        elif "draw" in m:
            game.draw(letters([m["player"]])[0], m["draw"])
        else:
            game.end_turn()
    assert len(game.board) == len(placements(rec)) and len(rec["hands"]) == players
    drawn = [m["draw"] for m in rec["moves"] if "draw" in m]
    dealt = [t for h in rec["hands"].values() for t in h]
    assert len(set(drawn + dealt)) == len(drawn) + len(dealt) == min(56, len(placements(rec)) + 6 * players)


def test_the_hands_in_play_keep_each_tile_in_its_slot_and_a_drawn_tile_fills_the_freed_one():
    rec = selfplay_record(3, seed=1)
    steps = hands_in_play(rec)
    assert len(steps) == len(placements(rec)) + 1
    for before, after, p in zip(steps, steps[1:], placements(rec), strict=False):
        for seat in before:
            changed = [k for k, (a, b) in enumerate(zip(before[seat], after[seat], strict=True)) if a != b]
            if p.tile in before[seat]:
                assert changed == [before[seat].index(p.tile)]  # the drawn tile (if any) lies where it left
                assert p.tile not in after[seat]
            else:
                assert not changed
    bag_empty_at = 56 - 6 * 3
    assert all(sum(t is not None for t in h) == 6 for step in steps[:bag_empty_at + 1] for h in step.values())


# -- photos of a recording -----------------------------------------------------------------------------------
def photo_of(demo, shot):
    from tantrix_pi.simulator import render_scene

    return render_scene(shot.board, frame=shot.frame, **{**demo.render, **shot.options})


@pytest.mark.parametrize("players", [3, 4])
def test_the_tiles_in_the_zones_lie_apart_inside_them_and_are_read_as_loose_not_as_board(players):
    from tantrix_pi.live.tracker import apply, register
    from tantrix_pi.vision import detect

    demo = Demo.selfplay(players, seed=5, moves=12, size=(1280, 960))
    shot = [s for s in demo.shots() if "occluder" not in s.options][-1]
    photo = photo_of(demo, shot)
    zones = demo.zones_px()
    apart = [t for t in photo.truth["tiles"] if not t["on_board"]]
    board = [t for t in photo.truth["tiles"] if t["on_board"]]
    assert len(apart) == 6 * players

    def inside(t, zone):
        return cv2.pointPolygonTest(zone.astype(np.float32), tuple(t["center_px"]), False) > 0

    assert all(sum(inside(t, z) for z in zones) == 1 for t in apart) and not any(inside(t, z) for t in board
                                                                                  for z in zones)
    across_corners = 2 * max(t["across_flats_px"] for t in apart) / math.sqrt(3)
    assert min(math.dist(a["center_px"], b["center_px"]) for a in apart for b in apart if a is not b) > across_corners
    assert all(t["fraction_in_image"] == 1 for t in photo.truth["tiles"])
    det = detect(photo.image, zones=zones)
    assert sorted(u.tile for u in det.loose) == sorted(t["tile"] for t in apart)
    seen = [t.placement for t in det.tiles]
    assert Board(apply(register(shot.board, seen), p) for p in seen) == shot.board


def test_the_cup_and_the_resting_hand_cover_no_tile():
    demo = Demo.selfplay(2, seed=5, moves=12, size=(1280, 960), behaviours=Behaviours(cup=4, rest=7))
    shots = [s for s in demo.shots() if s.times > 1]
    cup = photo_of(demo, next(s for s in shots if "clutter" in s.options))
    rest = photo_of(demo, next(s for s in shots if "occluder" in s.options))
    for photo in (cup, rest):
        assert all(t["occluded_fraction"] == 0 for t in photo.truth["tiles"])
    ys, xs = np.nonzero(rest.cover > 127)
    w = rest.image.shape[1]
    assert xs.min() == 0 and xs.max() < 0.25 * w  # in from the left edge, beside the board


def test_a_pushed_board_moves_on_the_table_and_a_knocked_camera_moves_the_whole_picture():
    from tantrix_pi.live.demo import rendered

    def settled_photo(behaviours):
        demo = Demo.bundled(moves=4, behaviours=behaviours, size=(820, 616), tile_px=50.0)
        shot = [s for s in demo.shots() if s.times > 1][-1]  # the last tile laid (the push or knock with it)
        return rendered(shot, demo.render)

    (plain, before), (pushed, after), (knocked, _) = (settled_photo(Behaviours(**b)) for b in ({}, {"pushed": 3},
                                                                                              {"knocked": 3}))
    grey = [cv2.cvtColor(im, cv2.COLOR_BGR2GRAY).astype(np.float32) for im in (plain, knocked)]
    (dx, dy), _ = cv2.phaseCorrelate(*grey, cv2.createHanningWindow(grey[0].shape[::-1], cv2.CV_32F))
    assert math.isclose(dx, KNOCK[0] * 50, abs_tol=1.5) and math.isclose(dy, KNOCK[1] * 50, abs_tol=1.5)
    moved = [np.subtract(b["center_px"], a["center_px"]) for a, b in zip(before["tiles"], after["tiles"], strict=True)]
    assert math.isclose(np.linalg.norm(np.mean(moved, axis=0)), math.hypot(*PUSH[:2]) * 50, abs_tol=3)
    assert all(math.isclose(b["twist_deg"] - a["twist_deg"], PUSH[2], abs_tol=0.01)
               for a, b in zip(before["tiles"], after["tiles"], strict=True))
    table = np.ones(plain.shape[:2], bool)  # the table far from the board did not move with it
    for t in (*before["tiles"], *after["tiles"]):
        cv2.circle(table.view(np.uint8), tuple(int(v) for v in t["center_px"]), 60, 0, -1)
    assert np.median(cv2.absdiff(plain, pushed).max(axis=2)[table]) <= 3


@pytest.mark.parametrize("players, edge", [(2, "left"), (3, "right")])
def test_a_hand_rests_at_an_edge_free_of_hand_zones(players, edge):
    demo = Demo.selfplay(players, seed=5, moves=10, size=(1280, 960), behaviours=Behaviours(rest=4))
    shot = next(s for s in demo.shots() if s.times > 1 and "occluder" in s.options)
    assert shot.options["occluder_from"] == edge
    assert not any(cv2.pointPolygonTest(z.astype(np.float32), shot.options["occluder"], False) >= 0
                   for z in demo.zones_px())


def test_a_skipped_fill_lays_the_tile_on_a_free_cell_where_only_the_fill_forbids_it_then_takes_it_back():
    fills = [Board(MOVES[:i]).occupied_neighbours(p.cell) >= rules.FORCED_NEIGHBOURS for i, p in enumerate(MOVES)]
    fill = fills.index(True)
    scenes = script(MOVES, behaviours=Behaviours(skip=fill))
    slip = [s for s in scenes if s.behaviour == "skip"]
    says = [s.says for s in slip if s.says is not None]
    assert [s.verdict for s in says] == [ILLEGAL, TAKEN_BACK]
    board, wrong = Board(MOVES[:fill]), says[0].placement
    assert wrong.tile == MOVES[fill].tile and wrong.cell != MOVES[fill].cell
    assert board.occupied_neighbours(wrong.cell) < rules.FORCED_NEIGHBOURS and not rules.why_illegal(board, wrong)
    assert slip[-1].board == board and settled(scenes, Says(PLACED, MOVES[fill], fill)) == scenes.index(slip[-1]) + 2
    free = fills.index(False, 1)
    with pytest.raises(ValueError, match="fills no forced space"):
        script(MOVES, behaviours=Behaviours(skip=free))


def test_a_lamps_glare_washes_out_the_tile_it_lies_on():
    from tantrix_pi.live.demo import rendered

    demo = Demo.bundled(moves=6, behaviours=Behaviours(glared=3, glare_moves=1), size=(820, 616), tile_px=50.0)
    shot = next(s for s in demo.shots() if s.times > 1 and s.options.get("glare_xy") is not None)
    image, truth = rendered(shot, demo.render)
    x, y = demo.cell_px(demo.moves[3].cell)
    assert truth["glare"][0]["center_px"] == pytest.approx([x, y], abs=0.01)
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    assert grey[int(y) - 3:int(y) + 4, int(x) - 3:int(x) + 4].min() > 230  # the tile's black blown out


def test_a_leaning_player_s_shadow_takes_half_the_light_from_part_of_the_photo():
    from tantrix_pi.live.demo import rendered

    def settled_photo(behaviours):
        demo = Demo.bundled(moves=4, behaviours=behaviours, size=(820, 616), tile_px=50.0)
        shot = [s for s in demo.shots() if s.times > 1][-1]
        return cv2.cvtColor(rendered(shot, demo.render)[0], cv2.COLOR_BGR2GRAY).astype(np.float32)

    plain, shaded = settled_photo(Behaviours()), settled_photo(Behaviours(leaning=3))
    ratio = cv2.resize(shaded, (41, 31), interpolation=cv2.INTER_AREA) / cv2.resize(plain, (41, 31),
                                                                                     interpolation=cv2.INTER_AREA)
    # half the light is 0.73 of the grey level the camera writes (its gamma of about 2.2)
    assert ratio.min() == pytest.approx((1 - LEAN) ** (1 / 2.2), abs=0.05) and ratio.max() == pytest.approx(1, abs=0.05)
