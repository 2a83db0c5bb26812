import json

import cv2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tantrix_pi import simulator
from tantrix_pi.board import Board, Placement
from tantrix_pi.cli import main
from tantrix_pi.errors import EXIT_BAD_INPUT, EXIT_NO, EXIT_OK, EXIT_UNSURE
from tantrix_pi.grid import neighbours
from tantrix_pi.puzzles import puzzle
from tantrix_pi.solver import SolveTimeout, count, hint, luby, solutions, solve

# Published counts of hole-free solutions, up to a move and a turn of the whole board (issue 7).
KNOWN_COUNTS = {"discovery:3": 2, "discovery:4": 2, "discovery:5": 4, "discovery:6": 8, "discovery:7": 36,
                "discovery:8": 84, "discovery:9": 114, "discovery:7:R": 32}


@pytest.mark.parametrize("spec, expected", sorted(KNOWN_COUNTS.items()))
def test_counts_match_the_published_numbers(spec, expected):
    assert count(puzzle(spec)) == expected


def test_every_enumerated_solution_passes_the_puzzle_check_and_none_repeats():
    pz = puzzle("discovery:7")
    found = solutions(pz)
    assert all(pz.check(b).solved for b in found)
    assert len({b.canonical() for b in found}) == len(found)
    assert not any(found[0].same_as(b) for b in found[1:])


@pytest.mark.parametrize("spec", ["discovery:15", "discovery:20", "rainbow:green", "rainbow:yellow",
                                  "rainbow:white", "rainbow:blue"])
def test_solve_returns_a_solution_that_passes_the_puzzle_check(spec):
    pz = puzzle(spec)
    board = solve(pz, timeout=30)
    assert board is not None
    verdict = pz.check(board)
    assert verdict.solved, verdict.reasons
    assert board.tiles == set(pz.tiles) and not board.holes()


def test_different_seeds_still_give_valid_solutions():
    pz = puzzle("discovery:12")
    for seed in range(3):
        assert pz.check(solve(pz, seed=seed)).solved


def test_a_puzzle_without_solution_says_so():
    assert solve(puzzle("discovery:3:G")) is None  # tiles 1..3 carry no green at all
    assert count(puzzle("discovery:3:B")) == 0


def test_hint_on_a_puzzle_without_solution_says_so_instead_of_blaming_a_tile():
    h = hint(puzzle("discovery:3:G"), Board([Placement(1, 0, 0, 0)]))
    assert not h.solvable and h.blockers == () and "no solution at all" in h.reason


def test_timeout_stops_the_search_with_a_clear_error():
    with pytest.raises(SolveTimeout, match="Discovery 30"):
        solve(puzzle("discovery:30"), timeout=0.001)


def test_luby_sequence():
    seq = luby()
    assert [next(seq) for _ in range(15)] == [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]


def _part_of_solution(spec, keep, seed=1):
    pz = puzzle(spec)
    full = solve(pz, seed=seed)
    part = Board(list(full)[:keep]).transformed(3, 4, -2)  # anywhere on the table, any heading
    return pz, part


@pytest.mark.parametrize("spec, keep", [("discovery:10", 4), ("discovery:20", 6), ("rainbow:blue", 3)])
def test_hint_on_a_solvable_board_gives_a_placement_that_keeps_it_solvable(spec, keep):
    pz, part = _part_of_solution(spec, keep)
    h = hint(pz, part)
    assert h.solvable and h.placement is not None
    assert h.placement.tile not in part.tiles and h.placement.cell not in part
    assert any(n in part for n in neighbours(h.placement.cell))
    assert pz.check(h.solution).solved
    assert all(h.solution.get(p.cell) == p for p in part)  # the tiles already down stay where they are
    after = part.copy()
    after.place(h.placement)
    assert hint(pz, after).solvable


@settings(max_examples=15, deadline=None)
@given(st.integers(1, 8), st.integers(0, 5), st.integers(-9, 9), st.integers(-9, 9), st.randoms())
def test_any_part_of_a_solution_anywhere_on_the_table_is_completed_around_it(keep, k, dq, dr, rnd):
    pz = puzzle("discovery:9")
    full = list(solve(pz, seed=rnd.randrange(100)))
    part = Board(rnd.sample(full, keep)).transformed(k, dq, dr)
    h = hint(pz, part)
    assert h.solvable and pz.check(h.solution).solved
    assert all(h.solution.get(p.cell) == p for p in part)


def test_hint_names_the_tile_that_blocks_every_solution():
    pz, part = _part_of_solution("discovery:6", 3)
    far = Placement(6, 20, 20, 0) if 6 not in part.tiles else Placement(5, 20, 20, 0)
    stray = [p for p in part if p.tile != far.tile]
    board = Board(stray + [far])  # a tile too far away for any loop of six tiles to reach
    h = hint(pz, board)
    assert not h.solvable and h.placement is None
    assert h.blockers == (far,)


def test_hint_on_pyramid_tiles_that_no_triangle_can_hold_is_blocked_by_the_far_tile():
    pz, part = _part_of_solution("rainbow:blue", 3)
    spare = next(t for t in pz.tiles if t not in part.tiles)
    far = Placement(spare, 30, 0, 0)
    h = hint(pz, Board(list(part) + [far]))
    assert not h.solvable and h.blockers == (far,)


def test_hint_on_a_solved_board_says_so_and_an_empty_board_gets_a_first_tile():
    pz = puzzle("discovery:6")
    solved = solve(pz)
    h = hint(pz, solved)
    assert h.solvable and h.placement is None and h.reason == "already solved"
    first = hint(pz, Board())
    assert first.solvable and first.placement is not None and first.placement.tile in pz.tiles


def test_hint_blames_a_mismatching_pair_and_a_stranger_tile():
    pz = puzzle("discovery:10")
    pair = (Placement(1, 0, 0, 0), Placement(2, 1, 0, 3))  # 1 shows red eastwards, 2 shows blue westwards
    h = hint(pz, Board(pair))
    assert not h.solvable and set(h.blockers) == set(pair) and "do not match" in h.reason
    h = hint(pz, Board([Placement(40, 0, 0, 0)]))
    assert not h.solvable and h.blockers == (Placement(40, 0, 0, 0),) and "not part of" in h.reason


def test_cli_solve_prints_a_board_file_that_passes_the_check(tmp_path, capsys):
    assert main(["puzzle", "solve", "--puzzle", "discovery:9", "--json"]) == EXIT_OK
    board = Board.from_json(capsys.readouterr().out)
    assert puzzle("discovery:9").check(board).solved
    assert main(["puzzle", "solve", "--puzzle", "discovery:6", "--count", "--json"]) == EXIT_OK
    assert json.loads(capsys.readouterr().out) == {"puzzle": "discovery:6", "solutions": 8}


def test_cli_solve_timeout_and_bad_names_exit_non_zero_with_one_line(capsys):
    assert main(["puzzle", "solve", "--puzzle", "discovery:30", "--timeout", "0.001"]) == EXIT_UNSURE
    err = capsys.readouterr().err
    assert "0.001 s" in err and err.count("\n") == 1
    assert main(["puzzle", "solve", "--puzzle", "discovery:99"]) == EXIT_BAD_INPUT


def test_cli_hint_exit_codes_follow_the_verdict(tmp_path, capsys):
    pz, part = _part_of_solution("discovery:8", 3)
    good = tmp_path / "good.json"
    part.save(good)
    assert main(["puzzle", "hint", str(good), "--puzzle", "discovery:8", "--json"]) == EXIT_OK
    out = json.loads(capsys.readouterr().out)
    assert out["solvable"] and out["next"]["tile"] in pz.tiles
    bad = tmp_path / "bad.json"
    Board(list(part) + [Placement(40, 9, 9, 0)]).save(bad)
    assert main(["puzzle", "hint", str(bad), "--puzzle", "discovery:8"]) == EXIT_NO
    assert "tile 40" in capsys.readouterr().out
    assert main(["puzzle", "hint", str(tmp_path / "none.json"), "--puzzle", "discovery:8"]) == EXIT_BAD_INPUT


def test_cli_hint_reads_a_photo_of_the_table(tmp_path, capsys):
    pz, part = _part_of_solution("discovery:10", 5)
    photo = tmp_path / "table.jpg"
    cv2.imwrite(str(photo), simulator.render(part, seed=3, size=(800, 600), tile_px=80)[0])
    assert main(["puzzle", "hint", str(photo), "--puzzle", "discovery:10", "--json"]) == EXIT_OK
    out = json.loads(capsys.readouterr().out)
    assert out["solvable"] and out["next"]["tile"] in set(pz.tiles) - part.tiles
    empty = tmp_path / "empty.jpg"
    cv2.imwrite(str(empty), simulator.render(Board(), seed=3, size=(800, 600), tile_px=80)[0])
    assert main(["puzzle", "hint", str(empty), "--puzzle", "discovery:10"]) == EXIT_UNSURE
    assert "no tile found" in capsys.readouterr().err


def test_cli_hint_refuses_a_face_down_tile_on_the_board_as_check_does(tmp_path, capsys):
    pz, part = _part_of_solution("discovery:10", 5)
    spare = next(t for t in range(11, 57) if t not in part.tiles)
    look = {"seed": 3, "size": (800, 600), "tile_px": 70.0, **simulator.PLAIN, "noise": 1.0}
    beside = min({n for p in part for n in neighbours(p.cell)} - set(part.cells))
    at = simulator.cell_px(simulator.render(part, **look)[1], beside)
    photo = tmp_path / "face-down.png"
    cv2.imwrite(str(photo), simulator.render(part, apart=[simulator.Apart(spare, at, face_up=False)], **look)[0])
    for command in (["puzzle", "hint", str(photo)], ["check", str(photo)]):
        assert main([*command, "--puzzle", "discovery:10"]) == EXIT_UNSURE
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "face-down tile at" in err and "pixel" in err


def test_cli_hint_reads_a_photo_through_the_calibration_profile(tmp_path, capsys, monkeypatch):
    from tantrix_pi import vision
    from tantrix_pi.calibration import Profile

    pz, part = _part_of_solution("discovery:10", 5)
    photo = tmp_path / "table.jpg"
    cv2.imwrite(str(photo), simulator.render(part, seed=3, size=(800, 600), tile_px=80)[0])
    profile = tmp_path / "profile.toml"
    Profile(path=profile).save(profile)
    seen, real = [], vision.detect
    monkeypatch.setattr(vision, "detect", lambda image, profile=None: seen.append(profile) or real(image, profile))
    args = ["puzzle", "hint", str(photo), "--puzzle", "discovery:10"]
    assert main([*args, "--calibration", str(profile)]) == EXIT_OK
    assert isinstance(seen[-1], Profile) and seen[-1].path == profile
    assert main([*args, "--calibration", str(tmp_path / "missing.toml")]) == EXIT_BAD_INPUT
    assert "missing.toml" in capsys.readouterr().err
