import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import path_search, tile_up

from tantrix_pi.board import Board, Placement
from tantrix_pi.cli import main
from tantrix_pi.grid import neighbours
from tantrix_pi.puzzles import puzzle
from tantrix_pi.scoring import paths

ROOT = Path(__file__).resolve().parents[1]
GAME = str(ROOT / "examples" / "game.json")
RECORD = str(ROOT / "examples" / "game-record.json")


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_board_check_json_has_the_documented_keys_in_file_coordinates(capsys, tmp_path):
    board = Board.load(GAME).transformed(0, 7, -3)
    path = tmp_path / "moved.json"
    board.save(path)
    code, out, _ = run(capsys, "board", "check", path, "--players", "2", "--json")
    data = json.loads(out)
    assert code == 0
    assert {"mismatches", "holes", "forced_spaces", "hopeless_spaces", "four_sided_spaces",
            "closure_violations"} <= data.keys()
    assert data["forced_spaces"], "the bundled example has an open forced space"
    for f in data["forced_spaces"]:
        cell = tuple(f["cell"])
        assert cell not in board and board.occupied_neighbours(cell) >= 3
        assert f["needs"] == list(board.facing(cell))
        assert not set(f["fits"]) & board.tiles


def test_board_check_exits_1_for_a_mismatch_and_names_cell_and_direction(capsys, tmp_path):
    path = tmp_path / "b.json"
    Board([Placement(1, 0, 0, 0), Placement(2, 1, 0, 3)]).save(path)
    code, out, _ = run(capsys, "board", "check", path, "--json")
    assert code == 1 and json.loads(out)["mismatches"] == [{"cell": [0, 0], "direction": 1}]


def test_board_check_lifts_the_restrictions_once_the_bag_is_empty(capsys, tmp_path):
    # a four-sided space: illegal while the bag has tiles, fine after
    board = tile_up([(1, -1), (1, 0), (0, 1), (-1, 1)])
    path = tmp_path / "b.json"
    board.save(path)
    code, out, _ = run(capsys, "board", "check", path, "--json")
    assert code == 1 and json.loads(out)["four_sided_spaces"] == [[0, 0]]
    assert run(capsys, "board", "check", path, "--bag-empty", "--json")[0] == 0


def test_board_show_prints_the_letters_and_draws_a_png(capsys, tmp_path):
    png = tmp_path / "board.png"
    code, out, _ = run(capsys, "board", "show", GAME, "--png", png)
    assert code == 0 and png.stat().st_size > 1000 and png.read_bytes()[:4] == b"\x89PNG"
    assert "forced space A at" in out


def test_board_score_json_names_the_winner_among_the_players(capsys):
    code, out, _ = run(capsys, "board", "score", GAME, "--players", "red,blue", "--json")
    data = json.loads(out)
    assert code == 0 and set(data["colours"]) == {"R", "Y", "G", "B"}
    r, b = data["colours"]["R"]["score"], data["colours"]["B"]["score"]
    assert data["winner"] == ("R" if r > b else "B" if b > r else None)
    for s in data["colours"].values():
        assert len(s["path"]) == (s["loop"] if s["path_is_loop"] else s["line"])
        assert s["score"] == max(s["line"], 2 * s["loop"])


def test_board_score_four_lines_and_loops_sum_the_colours_and_name_what_keeps_it_from_counting(capsys, tmp_path):
    board = Board.load(GAME)
    totals = {}
    for variant in ("lines", "loops"):
        code, out, _ = run(capsys, "board", "score", GAME, "--four", variant, "--json")
        data = json.loads(out)
        assert code == 0 and data["four"] == variant and data["faults"] == []
        for colour, c in data["colours"].items():
            found = [p for p in paths(board, colour) if p.loop == (variant == "loops")]
            assert c["tiles"] == max((len(p) for p in found), default=0) == len(c["path"])
        totals[variant] = data["total"]
        assert data["total"] == sum(c["tiles"] for c in data["colours"].values())
    assert totals["lines"] > 0 and totals["loops"] > 0
    code, out, _ = run(capsys, "board", "score", GAME, "--four", "lines")
    assert code == 0 and f"Four lines: {totals['lines']} (red " in out and "26 of the 56 tiles" in out
    ring = tile_up(list(neighbours((0, 0))))
    ring.save(tmp_path / "ring.json")
    code, out, _ = run(capsys, "board", "score", tmp_path / "ring.json", "--four", "loops")
    assert code == 1 and "does not count: hole at (0,0)" in out
    code, _, err = run(capsys, "board", "score", GAME, "--four", "lines", "--players", "red")
    assert code == 2 and "not allowed with" in err


def test_puzzle_check_solved_is_0_and_a_near_miss_is_1_with_reasons(capsys, tmp_path):
    p = puzzle("discovery:6")
    board = path_search(p.tiles, p.colour)
    path = tmp_path / "d6.json"
    board.save(path)
    code, out, _ = run(capsys, "puzzle", "check", path, "--puzzle", "discovery:6", "--json")
    assert code == 0 and json.loads(out) == {"puzzle": "discovery:6", "solved": True, "reasons": []}
    board.remove(sorted(board.cells)[0])
    board.save(path)
    code, out, _ = run(capsys, "puzzle", "check", path, "--puzzle", "discovery:6", "--json")
    data = json.loads(out)
    assert code == 1 and not data["solved"] and any(r.endswith("is missing") for r in data["reasons"])


def test_game_replay_of_the_example_is_legal(capsys):
    code, out, _ = run(capsys, "game", "replay", RECORD, "--json")
    data = json.loads(out)
    assert code == 0 and data["legal"] and len([m for m in data["moves"] if "placement" in m]) >= 10


def test_game_replay_exits_1_at_an_illegal_move(capsys, tmp_path):
    record = json.loads(Path(RECORD).read_text())
    moves = [m for m in record["moves"] if "tile" in m]
    last = moves[-1]
    record["moves"].append({"player": last["player"], "tile": 56 if last["tile"] != 56 else 55, "q": 40, "r": 40,
                            "rot": 0})
    path = tmp_path / "r.json"
    path.write_text(json.dumps(record))
    code, out, _ = run(capsys, "game", "replay", path)
    assert code == 1 and "ILLEGAL" in out and "does not touch the Tantrix" in out


@pytest.mark.parametrize("argv, text", [
    (["board", "check", "{f}", "--json"], "{"),
    (["board", "show", "{f}"], '{"format": "tantrix-board/2", "tiles": []}'),
    (["board", "score", "{f}"], '{"format": "tantrix-board/1", "tiles": [{"tile": 1, "q": 0, "r": 0, "rot": 0}, '
                                '{"tile": 1, "q": 1, "r": 0, "rot": 0}]}'),
    (["board", "check", "{f}"], '{"format": "tantrix-board/1", "tiles": [{"tile": 1, "q": 0, "r": 0, "rot": 0}, '
                                '{"tile": 2, "q": 0, "r": 0, "rot": 0}]}'),
    (["board", "check", "{f}"], '{"format": "tantrix-board/1", "tiles": [{"tile": 77, "q": 0, "r": 0, "rot": 0}]}'),
    (["board", "check", "{f}"], '{"format": "tantrix-board/1", "tiles": [{"tile": 7, "q": 0, "r": 0, "rot": 9}]}'),
    (["puzzle", "check", "{f}", "--puzzle", "discovery:99"], '{"format": "tantrix-board/1", "tiles": []}'),
    (["game", "replay", "{f}"], "not json at all"),
    (["game", "replay", "{f}"], '{"format": "tantrix-game/1", "players": ["red", "blue"], "moves": '
                                '[{"player": "red", "tile": 3, "q": 0, "r": 0, "rot": -1}]}'),
    (["board", "check", "/nonexistent/board.json"], ""),
])
def test_bad_input_is_one_line_and_exit_2(capsys, tmp_path, argv, text):
    f = tmp_path / "in.json"
    f.write_text(text)
    code, out, err = run(capsys, *[a.replace("{f}", str(f)) for a in argv])
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("tantrix-pi: ")


def test_each_top_level_command_is_built_from_the_modules_that_add_it_and_listed_without_them():
    import pkgutil

    from tantrix_pi import commands
    from tantrix_pi.cli import Cli, build

    adds: dict[str, list[str]] = {}
    every = Cli()
    for module in pkgutil.iter_modules(commands.__path__):
        cli = Cli()
        importlib.import_module(f"tantrix_pi.commands.{module.name}").register(cli)
        importlib.import_module(f"tantrix_pi.commands.{module.name}").register(every)
        for name in cli.commands.choices:
            adds.setdefault(name, []).append(module.name)
    assert {name: tuple(m) for name, m in adds.items()} == {name: c.modules for name, c in commands.COMMANDS.items()}
    listed = build().commands.choices
    assert list(listed) == list(commands.COMMANDS)
    for name in commands.COMMANDS:  # each command's own parser is the whole parser's, sub-commands and all
        built = build(name).commands.choices[name]
        assert built.format_help() == every.commands.choices[name].format_help()
        assert built.description == listed[name].description


def test_the_list_of_commands_and_a_usage_error_import_no_command_module():
    code = ("import sys\nfrom tantrix_pi.cli import main\nfor argv in (['--help'], [], ['nonsense']):\n"
            "    assert main(argv) in (0, 2)\n"
            "print(sorted(m for m in sys.modules if m.startswith('tantrix_pi.commands.') or m in ('cv2', 'numpy')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "[]"
    assert "Look at a board file (tantrix-board/1), check it, score it." in done.stdout  # the list, with its help
