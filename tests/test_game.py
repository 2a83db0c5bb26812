import json

import pytest

from tantrix_pi import record, rules
from tantrix_pi.board import Placement
from tantrix_pi.game import (
    MUST_FILL,
    NOT_IN_HAND,
    TURN_ORDER,
    Game,
    GameError,
    IllegalMove,
    Move,
    TurnEnded,
    bag_empty_at,
)
from tantrix_pi.record import ReplayError, replay
from tantrix_pi.rules import GOLDEN_RULE, fits, legal_placements
from tantrix_pi.scoring import Termination
from tantrix_pi.selfplay import random_game
from tantrix_pi.tiles import COLOUR_NAMES


def fitting(game, cell, avoid=()):
    return next(p for p in fits(game.board, cell) if p.tile not in avoid)


def test_one_turn_is_fills_one_free_move_fills_and_a_second_free_move_passes_the_turn():
    game = Game(["red", "blue"])
    first = game.push(Placement(1, 0, 0, 0))
    assert first.move.player == "R" and not first.move.fill and game.turn == "R" and game.free_move_made
    second = game.push(fitting(game, (1, 0)))
    assert second.turn_passed and second.move.player == "B" and game.turn == "B"
    with pytest.raises(IllegalMove) as e:
        game.push(fitting(game, (2, 0)), player="B")
    assert [v.rule for v in e.value.violations] == [TURN_ORDER]
    with pytest.raises(GameError, match="Green is not playing"):
        game.push(fitting(game, (2, 0)), player="G")


def test_play_goes_round_in_seating_order():
    game = Game(["red", "yellow", "green"])
    game.push(Placement(1, 0, 0, 0), player="red")
    with pytest.raises(IllegalMove, match="after Red it is Yellow's turn, not Green's"):
        game.push(fitting(game, (1, 0)), player="green")
    game.push(fitting(game, (1, 0)), player="yellow")
    game.end_turn("yellow")
    assert game.turn == "G"
    assert game.outcome() is None and not game.is_over() and "Green to play" in game.result()


def test_a_player_out_of_turn_before_the_free_move_is_refused():
    game = Game(["red", "blue"])
    with pytest.raises(IllegalMove, match="Red has not made a free move"):
        game.push(Placement(1, 0, 0, 0), player="blue")
    with pytest.raises(IllegalMove, match="has not made a free move"):
        game.end_turn()
    game.push(Placement(1, 0, 0, 0), player="red")
    assert game.end_turn() == "B" and game.turn == "B"


def test_an_illegal_placement_names_its_violations_and_changes_nothing():
    game = Game(["red", "blue"])
    game.push(Placement(1, 0, 0, 0))
    good = fitting(game, (1, 0))
    bad = next(q for q in (Placement(good.tile, 1, 0, k) for k in range(6)) if q.colour(4) != good.colour(4))
    before = (game.board.copy(), game.turn, game.free_move_made, list(game.events))
    with pytest.raises(IllegalMove) as e:
        game.push(bad)
    assert [v.rule for v in e.value.violations] == [GOLDEN_RULE]
    assert (game.board, game.turn, game.free_move_made, game.events) == before


def test_pop_undoes_the_last_placement_and_the_turn_it_passed():
    game = Game(["red", "blue"])
    game.push(Placement(1, 0, 0, 0))
    game.end_turn()
    p = fitting(game, (1, 0))
    game.push(p)
    assert game.pop() == p and len(game.board) == 1 and game.turn == "B" and not game.free_move_made
    assert game.pop() == Placement(1, 0, 0, 0) and len(game.board) == 0 and game.turn == "R"
    with pytest.raises(IndexError):
        game.pop()


def test_the_bag_empties_at_56_minus_6n_tiles_on_the_table():
    assert [bag_empty_at(n) for n in (2, 3, 4)] == [44, 38, 32]
    seen = []
    random_game(2, seed=4, on_move=lambda g, a: seen.append((len(g.board), g.bag, a.bag_emptied)))
    assert [(n, bag) for n, bag, _ in seen[42:45]] == [(43, 1), (44, 0), (45, 0)]
    assert [n for n, _, emptied in seen if emptied] == [44]


def test_a_free_move_while_holding_a_tile_for_a_forced_space_is_refused_when_hands_are_known():
    game = random_game(2, seed=1, stop=lambda g: bool(g.obligations(g.turn)) and not g.free_move_made)
    assert game.obligations(game.turn), "seed gives a forced space the player to move can fill"
    free = next((p for p in legal_placements(game.board, game.hands[game.turn], game.bag_empty)
                 if game.board.occupied_neighbours(p.cell) < 3), None)
    assert free is not None
    with pytest.raises(IllegalMove) as e:
        game.push(free)
    assert MUST_FILL in [v.rule for v in e.value.violations]
    # the same position with hands unknown: the referee cannot know what is held, so it accuses nobody
    blind = Game(game.players)
    for event in game.events:
        if isinstance(event, TurnEnded):
            blind.end_turn(event.player)
        elif isinstance(event, Move):
            blind.push(event.placement, event.player)
    assert blind.push(free).move.placement == free


def test_a_tile_not_in_the_hand_is_refused():
    game = Game(["red", "blue"], hands={"red": [1, 2, 3, 4, 5, 6], "blue": [7, 8, 9, 10, 11, 12]})
    with pytest.raises(IllegalMove) as e:
        game.push(Placement(20, 0, 0, 0))
    assert [v.rule for v in e.value.violations] == [NOT_IN_HAND] and "not in Red's hand" in str(e.value)
    with pytest.raises(IllegalMove) as e:  # blue's tile: blue played out of turn
        game.push(Placement(7, 0, 0, 0))
    assert [v.rule for v in e.value.violations] == [TURN_ORDER] and "Red has not made a free move" in str(e.value)
    assert game.push(Placement(1, 0, 0, 0)).move.player == "R"


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_played_game_saves_as_a_record_that_replays_to_the_same_board(tmp_path, seed):
    game = random_game(2 + seed, seed=seed)
    path = tmp_path / "game.json"
    record.save(game, path)
    replayed, announcements = replay(record.load(path))
    assert replayed.events == game.events and len(announcements) == len(record.to_dict(game)["moves"])
    assert replayed.result() == game.result()


def test_replay_stops_at_the_first_illegal_move_and_says_which():
    rec = {"format": "tantrix-game/1", "players": ["red", "blue"], "moves": [
        {"player": "red", "tile": 1, "q": 0, "r": 0, "rot": 0},
        {"player": "blue", "tile": 2, "q": 5, "r": 5, "rot": 0}]}
    with pytest.raises(ReplayError) as e:
        replay(record.from_dict(rec))
    assert e.value.index == 1 and "does not touch" in str(e.value)


@pytest.mark.parametrize("text, message", [
    ("[", "not JSON"),
    ('{"format": "tantrix-board/1", "players": [], "moves": []}', "format"),
    ('{"format": "tantrix-game/1", "players": ["red"], "moves": []}', "2-4 players"),
    ('{"format": "tantrix-game/1", "players": ["red", "red"], "moves": []}', "2-4 players"),
    ('{"format": "tantrix-game/1", "players": ["red", "pink"], "moves": []}', "unknown player colour"),
    ('{"format": "tantrix-game/1", "players": ["red", "blue"], "moves": [{"player": "green", "tile": 1, "q": 0, '
     '"r": 0, "rot": 0}]}', "not one of the players"),
    ('{"format": "tantrix-game/1", "players": ["red", "blue"], "moves": [{"player": "red", "tile": 99, "q": 0, '
     '"r": 0, "rot": 0}]}', "unknown tile"),
    ('{"format": "tantrix-game/1", "players": ["red", "blue"], "moves": [{"player": "red", "tile": 1, "q": 0, '
     '"r": 0, "rot": 6}]}', "outside 0..5"),
    ('{"format": "tantrix-game/1", "players": ["red", "blue"], "moves": [{"player": "red", "tile": 1, "q": 0, '
     '"r": 0, "rot": 0}, {"player": "blue", "tile": 1, "q": 1, "r": 0, "rot": 0}]}', "placed twice"),
    ('{"format": "tantrix-game/1", "players": ["red", "blue"], "moves": [{"player": "red", "tile": 1, "q": 0, '
     '"r": 0, "rot": 0}, {"player": "blue", "tile": 2, "q": 0, "r": 0, "rot": 0}]}', "two tiles in cell"),
    ('{"format": "tantrix-game/1", "mode": "chess", "players": ["red", "blue"], "moves": []}',
     "mode 'chess' is not something played with Tantrix tiles"),
    ('{"format": "tantrix-game/1", "mode": ["game"], "players": ["red", "blue"], "moves": []}', "mode"),
    ('{"format": "tantrix-game/1", "mode": "discovery", "puzzle": "discovery:5", "players": [], "moves": []}',
     "of discovery, not of a game"),
])
def test_malformed_records_are_bad_input_with_one_line(tmp_path, text, message):
    path = tmp_path / "r.json"
    path.write_text(text)
    with pytest.raises(GameError, match=message) as e:
        record.load(path)
    assert e.value.exit_code == 2 and "\n" not in str(e.value)


def test_a_record_is_plain_json_with_players_then_moves():
    game = random_game(2, seed=5, stop=lambda g: len(g.board) >= 4)
    rec = json.loads(json.dumps(record.to_dict(game)))
    assert list(rec) == ["format", "players", "hands", "moves"] and rec["players"] == ["red", "yellow"]
    assert all({"player", "tile", "q", "r", "rot"} <= m.keys() or m.get("end_turn") or "draw" in m
               for m in rec["moves"])


def test_a_player_whose_tiles_have_no_legal_place_is_deadlocked_and_the_game_drawn():
    from tantrix_pi.rules import can_place
    from tantrix_pi.tiles import ALL_NUMBERS

    stuck = []

    def unplaceable(g):
        stuck[:] = [t for t in sorted(set(ALL_NUMBERS) - g.board.tiles) if not can_place(g.board, [t], g.bag_empty)]
        return bool(stuck)

    game = next(g for seed in range(10) if unplaceable(g := random_game(2, seed, stop=unplaceable)))
    blind = Game(game.players)
    for event in game.events:
        if isinstance(event, TurnEnded):
            blind.end_turn(event.player)
        elif isinstance(event, Move):
            blind.push(event.placement, event.player)
    if blind.free_move_made:
        blind.end_turn()
    assert not blind.deadlocked(), "with hands unknown some unplayed tile still fits"
    blind.set_hand(blind.turn, stuck[:1])
    over = blind.outcome()
    assert blind.deadlocked() and blind.is_over() and over.termination is Termination.DEADLOCK
    assert over.winners == () and over.winner is None and over.stuck == blind.turn
    assert blind.result() == over.summary() and blind.result().startswith("Deadlock: ")


def test_hand_sizes_counted_from_the_moves_match_the_real_hands_to_the_end():
    def same(game, announcement):
        assert {p: game.hand_size(p) for p in game.players} == {p: len(h) for p, h in game.hands.items()}

    for players in (2, 3, 4):
        game = random_game(players, seed=players, on_move=same)
        if len(game.board) == 56:
            assert all(game.hand_size(p) == 0 for p in game.players)
            assert game.outcome().termination is Termination.ALL_PLACED and game.outcome().winners


# -- records with hands ------------------------------------------------------------------------------
def _skipped_fill(seed: int):
    """A dealt game stopped where the player to move, before their free move, holds a tile for a forced space;
    and a free move they could make instead (legal but for the fill they owe)."""
    def owes(g):
        return not g.free_move_made and bool(g.obligations(g.turn))

    for s in range(seed, seed + 40):
        game = random_game(2, seed=s, stop=owes)
        if owes(game):
            forced = set(rules.forced_spaces(game.board))
            free = next((p for p in legal_placements(game.board, game.hands[game.turn], game.bag_empty)
                         if p.cell not in forced), None)
            if free is not None:
                return game, free
    raise AssertionError("no game owing a fill found")


def _replay_cli(tmp_path, rec: dict, capsys) -> tuple[int, str]:
    from tantrix_pi.cli import main

    path = tmp_path / "game.json"
    path.write_text(json.dumps(rec))
    code = main(["game", "replay", str(path)])
    out = capsys.readouterr()
    return code, out.out + out.err


def test_a_record_with_hands_replays_its_draws(tmp_path, capsys):
    game = random_game(3, seed=4)
    rec = record.to_dict(game)
    assert sorted(len(h) for h in rec["hands"].values()) == [6, 6, 6]
    assert sum("draw" in m for m in rec["moves"]) == 56 - 18
    code, out = _replay_cli(tmp_path, rec, capsys)
    assert code == 0 and "draws tile" in out
    replayed, _ = replay(record.from_dict(rec))
    assert replayed.hands == game.hands and replayed.board == game.board


def test_a_free_move_while_a_held_tile_fits_a_forced_space_is_illegal_in_a_record(tmp_path, capsys):
    game, free = _skipped_fill(11)
    (q, space), *_ = game.obligations(game.turn)
    rec = record.to_dict(game)
    rec["moves"].append({"player": COLOUR_NAMES[game.turn], **free.to_dict()})
    code, out = _replay_cli(tmp_path, rec, capsys)
    assert code == 1 and f"fits forced space {space.letter} at {rules.fmt(space.cell)}: fill it first" in out
    assert f"holds tile {q.tile}" in out
    blind = {k: v for k, v in rec.items() if k != "hands"}  # the same moves, hands unseen: nobody is accused
    blind["moves"] = [m for m in rec["moves"] if "draw" not in m]
    assert _replay_cli(tmp_path, blind, capsys)[0] == 0


def test_a_tile_not_in_the_players_hand_is_illegal_in_a_record(tmp_path, capsys):
    game = random_game(2, seed=3, stop=lambda g: len(g.board) >= 5)
    held = set().union(*game.hands.values())
    stranger = next(p for p in legal_placements(game.board, set(range(1, 57)) - held, game.bag_empty))
    rec = record.to_dict(game)
    player = game.turn if not game.free_move_made else game.next_player
    rec["moves"].append({"player": COLOUR_NAMES[player], **stranger.to_dict()})
    code, out = _replay_cli(tmp_path, rec, capsys)
    assert code == 1 and f"tile {stranger.tile} is not in {COLOUR_NAMES[player].title()}'s hand" in out


def _unused(rec: dict) -> int:
    """A tile that a record never deals, draws or places."""
    used = set(sum(rec["hands"].values(), [])) | {m.get("tile", m.get("draw")) for m in rec["moves"]}
    return min(set(range(1, 57)) - used)


def _dealt_record() -> dict:
    return record.to_dict(random_game(2, seed=2, stop=lambda g: len(g.board) >= 3))


@pytest.mark.parametrize("change, message", [
    (lambda r: r["moves"].insert(1, {"player": "red", "draw": r["hands"]["yellow"][0]}), "in play already"),
    (lambda r: r["moves"].insert(1, {"player": "red", "draw": r["moves"][0]["tile"]}), "in play already"),
    (lambda r: r["moves"].insert(0, {"player": "red", "draw": _unused(r)}), "seven tiles"),
    (lambda r: r["hands"]["red"].append(40), "six different tiles"),
    (lambda r: r["hands"].update(yellow=r["hands"]["red"]), "is dealt to Red and to Yellow"),
    (lambda r: r["hands"].pop("yellow"), "Yellow's hand is missing"),
    (lambda r: (r.pop("hands"), r["moves"].insert(1, {"player": "red", "draw": 9})), "needs the hands"),
])
def test_hands_that_cannot_be_are_bad_input(tmp_path, capsys, change, message):
    rec = _dealt_record()
    change(rec)
    code, out = _replay_cli(tmp_path, rec, capsys)
    assert code == 2 and message in out and out.count("\n") == 1
