"""The live referee in Solitaire and in Four lines / Four loops (docs/rules.md section 5)."""

import random

from live_fakes import detect_frame, scene_frames

from tantrix_pi import scoring
from tantrix_pi.board import Board
from tantrix_pi.devices.sources import sequence_source
from tantrix_pi.game import MUST_FILL
from tantrix_pi.live.loop import LiveLoop
from tantrix_pi.live.recording import load_record, placements, script
from tantrix_pi.live.referee import Setup
from tantrix_pi.live.sinks import MemorySink
from tantrix_pi.live.store import Store
from tantrix_pi.rules import fits, forced_spaces, iter_legal_placements
from tantrix_pi.solitaire import TILES, Solitaire


def solitaire_moves(seed: int):
    """A whole Solitaire the rules allow, and one placement of it that has to fill a forced space."""
    rng = random.Random(seed)
    game = Solitaire()
    skipped = None
    while len(game.board) < len(TILES):
        left = sorted(set(TILES) - game.board.tiles)
        options = [p for p in iter_legal_placements(game.board, left, bag_empty=True) if not game.why_illegal(p)]
        fills = [p for p in options if p.cell in forced_spaces(game.board)]
        if fills and skipped is None:  # remember a wrong alternative: the same tile somewhere that is no fill
            p = fills[0]
            wrong = [q for q in iter_legal_placements(game.board, [p.tile], bag_empty=True)
                     if q.cell not in forced_spaces(game.board)]
            if wrong:
                skipped = (len(game.board), wrong[0])
        game.push(rng.choice(fills or options))
    return game, skipped


def run(tmp_path, moves, setup, **kw):
    store, sink = Store(tmp_path / "state.db"), MemorySink()
    loop = LiveLoop(sequence_source(scene_frames(script(moves, still=4, hand=2, **kw))), detect_frame, store,
                    setup, sink)
    loop.run()
    return loop, sink


def test_solitaire_announces_the_draws_it_expects_and_the_final_score(tmp_path):
    game, _ = solitaire_moves(seed=2)
    loop, sink = run(tmp_path, game.moves, Setup("solitaire", [], "solitaire"))
    kinds = [e.kind for e in sink.events]
    assert kinds.count("placed") == 14 and "illegal" not in kinds
    draws = [e for e in sink.events if e.kind == "draw"]
    assert sum(e.data["tiles"] for e in draws) == 13  # the first tile was drawn before the first placement
    filled = [p.cell in forced_spaces(Board(game.moves[:i])) for i, p in enumerate(game.moves)]
    expected, drawn = [], 1
    for fill in filled:  # one tile after each placement, one more after each fill, while the bag lasts
        tiles = min(14 - drawn, 1 + fill)
        drawn += tiles
        if tiles:
            expected.append("Bonus draw for the filled forced space: draw 2 tiles." if tiles == 2 else "Draw a tile.")
    assert [e.text for e in draws] == expected and any(filled)
    assert kinds.count("bag_empty") == 1
    over = sink.events[-1]
    red = scoring.score(game.board, "R")
    assert over.kind == "solitaire_over" and over.data["score"] == red.score
    assert over.text.startswith("Solitaire over:") and str(red.score) in over.text
    assert sink.views[-1].scores == {"R": red.score}


def test_solitaire_refuses_a_tile_put_beside_a_forced_space_it_fits(tmp_path):
    for seed in range(30):
        game, skipped = solitaire_moves(seed)
        if skipped is not None:
            break
    at, wrong = skipped
    moves = [*game.moves[:at], wrong]
    _, sink = run(tmp_path, moves, Setup("solitaire", [], "solitaire"))
    illegal = [e for e in sink.events if e.kind == "illegal"]
    assert len(illegal) == 1 and illegal[0].data["tile"] == wrong.tile
    assert [v["rule"] for v in illegal[0].data["violations"]][0] == MUST_FILL
    assert "it must go there first" in illegal[0].text
    space = tuple(illegal[0].data["violations"][0]["cells"][0])
    assert fits(Board(game.moves[:at]), space, {wrong.tile})


def test_four_lines_and_four_loops_announce_the_score_as_it_grows_and_once_all_56_are_down(tmp_path):
    from tantrix_pi.live import config
    from tantrix_pi.live.service import setup_of

    moves = placements(load_record())
    for mode, variant in (("four-lines", "lines"), ("four-loops", "loops")):
        setup = setup_of(config.from_dict({"mode": {"kind": mode}}))
        _, sink = run(tmp_path / mode, moves, setup)
        said = [e for e in sink.events if e.kind == "scores"]
        assert said and said[-1].data["total"] == scoring.four(Board(moves), variant).total
        assert said[-1].text == scoring.four(Board(moves), variant).summary()
        over = [e for e in sink.events if e.kind == "four_over"]
        assert len(over) == 1 and over[0].text.startswith(f"All 56 tiles are down. Four {variant}: ")
        assert sink.views[-1].scores == scoring.four(Board(moves), variant).tiles
