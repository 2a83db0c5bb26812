"""The referee with the players' hands in view (a zone per seat): the forced fill enforced, a tile not held refused,
and nothing said against a player whose hand it cannot see (docs/rules.md section 4)."""

from __future__ import annotations

import random

from table_play import Segment, hand, plus, referee_sees, reference_game, still, table_script

from tantrix_pi import record, rules
from tantrix_pi.game import MUST_FILL, NOT_IN_HAND, Draw, Game, Hand, Move
from tantrix_pi.live.referee import Setup
from tantrix_pi.selfplay import random_game
from tantrix_pi.tiles import COLOUR_NAMES


def turn_starts_owing(ref: Game) -> list[tuple[int, str, set[str]]]:
    """After which placement (count) a player came to play owing fills, who, and the letters of those spaces."""
    game = Game(ref.players)
    out, said = [], None
    for e in ref.events:
        if isinstance(e, Move):
            game.push(e.placement, e.player)
        elif isinstance(e, Draw):
            game.draw(e.player, e.tile)
        elif isinstance(e, Hand):
            game.set_hand(e.player, e.tiles)
        else:
            game.end_turn(e.player)
            continue
        if game.moves and all(h is not None for h in game.hands.values()):
            owed = {space.letter for space, _ in game.owed(game.to_play)}
            key = (game.to_play, frozenset(owed))
            if owed and key != said:
                out.append((len(game.moves), game.to_play, owed))
            said = key
    return out


def test_every_fill_owed_at_a_turn_is_said_in_a_three_player_game():
    ref = reference_game(3, seed=8)
    owing = turn_starts_owing(ref)
    assert len(owing) >= 5
    segments = table_script(ref, random.Random(8), slips=0, presses=False, hands=True)
    referee, _ = referee_sees(segments, Setup("game", list(ref.players)), hands=True)
    said = [e for seg in segments for e in seg.events]
    must = [(e.data["player"], {s["letter"] for s in e.data["spaces"]}) for e in said if e.kind == "must_fill"]
    for _after, player, letters in owing:
        assert (player, letters) in must, f"{player} owed {letters}: not said"
    assert not [e for e in said if e.kind == "illegal"]
    assert referee.game.hands == ref.hands and referee.board == ref.board
    text = next(e.text for e in said if e.kind == "must_fill")
    assert " must fill " in text and ("fits" in text or "fit" in text)


def _owing_moment(seed: int):
    """A dealt 3-player game stopped where the player to play owes a fill before their free move, and a free move
    they could make instead (legal but for the fill)."""
    def owes(g: Game) -> bool:
        return bool(g.moves) and not g.free_move_made and bool(g.obligations(g.turn))

    for s in range(seed, seed + 60):
        ref = random_game(3, seed=s, stop=owes)
        if not owes(ref):
            continue
        forced = set(rules.forced_spaces(ref.board))
        free = next((p for p in rules.legal_placements(ref.board, ref.hands[ref.turn], ref.bag_empty)
                     if p.cell not in forced), None)
        if free is not None:
            return ref, free
    raise AssertionError("no moment owing a fill")


def test_a_free_move_while_a_held_tile_fits_a_forced_space_is_refused_naming_it():
    ref, free = _owing_moment(3)
    (q, space), *_ = ref.obligations(ref.turn)
    segments = table_script(ref, random.Random(1), slips=0, presses=False, hands=True)
    last = segments[-1].shots[-1]
    skipped = Segment("skip", hand(last.board) + still(plus(last.board, free)), wrong=free)
    for shot in skipped.shots:
        shot.zones = {p: frozenset(t - {free.tile}) for p, t in last.zones.items()}
    referee, _ = referee_sees([*segments, skipped], Setup("game", list(ref.players)), hands=True)
    before = [e for seg in segments for e in seg.events]
    assert any(e.kind == "must_fill" and e.data["player"] == ref.turn for e in before)
    [illegal] = [e for e in skipped.events if e.kind == "illegal"]
    assert MUST_FILL in [v["rule"] for v in illegal.data["violations"]]
    assert f"holds tile {q.tile}, which fits forced space {space.letter}" in illegal.text
    assert referee.strays() == [free]


def test_a_tile_that_is_not_in_the_movers_full_hand_is_refused():
    ref = reference_game(2, seed=5, moves=6)
    segments = table_script(ref, random.Random(2), slips=0, presses=False, hands=True)
    last = segments[-1].shots[-1]
    held = set().union(*ref.hands.values())
    stranger = next(p for p in rules.legal_placements(ref.board, set(range(1, 57)) - held, ref.bag_empty))
    laid = Segment("stranger", hand(last.board) + still(plus(last.board, stranger)))
    for shot in laid.shots:
        shot.zones = last.zones
    referee_sees([*segments, laid], Setup("game", list(ref.players)), hands=True)
    [illegal] = [e for e in laid.events if e.kind == "illegal"]
    assert NOT_IN_HAND in [v["rule"] for v in illegal.data["violations"]] and "is not in" in illegal.text


def test_a_zone_it_cannot_read_makes_it_say_what_it_cannot_check_never_accuse():
    """Every hand covered from the deal on: the referee follows the board alone, and says so when a free move is
    made while a forced space is open, but accuses nobody of a skipped fill."""
    for seed in range(20):
        ref = reference_game(2, seed=seed, moves=30)
        segments = table_script(ref, random.Random(seed), slips=0, presses=True, hands=True)
        for seg in segments:
            for shot in seg.shots:
                if shot.zones is not None:
                    shot.zone_face_down = frozenset().union(*shot.zones.values())
        referee, _ = referee_sees(segments, Setup("game", list(ref.players)), hands=True)
        said = [e for seg in segments for e in seg.events]
        assert not [e for e in said if e.kind in ("illegal", "must_fill")], seed
        if any(e.data.get("unchecked") for e in said if e.kind == "placed"):
            note = next(e.text for e in said if e.data.get("unchecked"))
            assert "hand is in view" in note and "not checked" in note
            return
    raise AssertionError("no free move made beside an open forced space in 20 games")


def test_hands_survive_in_the_engine_state_a_restart_rebuilds():
    from tantrix_pi.live.referee import Referee

    ref = reference_game(2, seed=9, moves=10)
    segments = table_script(ref, random.Random(9), slips=0, presses=False, hands=True)
    referee, _ = referee_sees(segments, Setup("game", list(ref.players)), hands=True)
    again = Referee(referee.setup, referee.board, referee.moves, referee.state(), hands_in_view=True)
    assert again.game.hands == referee.game.hands == ref.hands
    assert again.game.to_play == referee.game.to_play and again.game.events == referee.game.events



def test_the_live_loop_reads_the_zones_and_a_restart_keeps_the_hands(tmp_path):
    from live_fakes import ZONES, detect_frame, frame_of

    from tantrix_pi.devices.sources import sequence_source
    from tantrix_pi.live.hands import HandWatch
    from tantrix_pi.live.loop import LiveLoop
    from tantrix_pi.live.sinks import MemorySink
    from tantrix_pi.live.store import Store

    ref = reference_game(2, seed=4, moves=12)
    segments = table_script(ref, random.Random(4), slips=0, presses=False, hands=True)
    frames = [frame_of(s.board, hand=True, seed=n) if s.motion else frame_of(s.board, hands=s.zones)
              for n, s in enumerate(shot for seg in segments for shot in seg.shots)]
    setup = Setup("game", list(ref.players))

    def loop(frames):
        return LiveLoop(sequence_source(frames), detect_frame, Store(tmp_path / "state.db"), setup, sink,
                        hands=HandWatch({p: ZONES[p] for p in ref.players}))

    sink = MemorySink()
    first = loop(frames[:len(frames) // 2])
    first.run()
    first.store.close()
    second = loop(frames[len(frames) // 2:])
    assert second.resumed and second.referee.game.hands == first.referee.game.hands
    second.run()
    kinds = [e.kind for e in sink.events]
    assert "illegal" not in kinds and "to_play" in kinds
    assert [e.data["tile"] for e in sink.events if e.kind == "placed"] == [m.placement.tile for m in ref.moves]
    assert second.referee.game.hands == ref.hands and second.referee.board == ref.board
    exported = second.store.record(second.game)  # what `game export` writes: the hands as dealt and every draw
    assert exported["hands"] == {COLOUR_NAMES[p]: sorted(t) for p, t in ref.dealt.items()}
    assert sum("draw" in m for m in exported["moves"]) == sum(isinstance(e, Draw) for e in ref.events)
    replayed, _ = record.replay(record.from_dict(exported))
    assert replayed.board == ref.board and replayed.hands == ref.hands
