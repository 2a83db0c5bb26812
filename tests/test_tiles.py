from collections import Counter
from itertools import combinations

from tantrix_pi.tiles import COLOURS, TILES


def test_fifty_six_patterns_distinct_up_to_turning():
    seen = set()
    for t in TILES.values():
        turns = {t.turned(k) for k in range(6)}
        assert len(turns) == 6, f"tile {t.number} looks the same after a turn"
        assert not turns & seen
        seen |= turns
    assert sorted(TILES) == list(range(1, 57))


def test_each_tile_three_colours_two_edges_each_and_arcs_agree():
    for t in TILES.values():
        assert Counter(t.edges) == {c: 2 for c in t.colours}
        assert len(t.colours) == 3
        for arc in t.arcs:
            a, b = arc.edges
            assert t.edges[a] == t.edges[b] == arc.colour
            gap = min((a - b) % 6, (b - a) % 6)
            assert arc.shape == {1: "sharp", 2: "bend", 3: "straight"}[gap]


def test_each_colour_triple_carries_fourteen_tiles_in_the_four_families():
    families = Counter()
    for triple in combinations(COLOURS, 3):
        tiles = [t for t in TILES.values() if t.colours == frozenset(triple)]
        assert len(tiles) == 14
        for t in tiles:
            families[(frozenset(triple), tuple(sorted(a.shape for a in t.arcs)))] += 1
    for triple in combinations(COLOURS, 3):
        key = frozenset(triple)
        assert families[(key, ("sharp", "sharp", "sharp"))] == 2
        assert families[(key, ("sharp", "sharp", "straight"))] == 3
        assert families[(key, ("bend", "bend", "straight"))] == 3
        assert families[(key, ("bend", "bend", "sharp"))] == 6


def test_back_colours_and_mirror_pairs():
    assert Counter(t.back for t in TILES.values()) == {"R": 15, "Y": 12, "B": 10, "G": 10, "W": 9}
    pairs = {t.number: t.mirror for t in TILES.values() if t.mirror is not None}
    assert len(pairs) == 32
    for a, b in pairs.items():
        assert pairs[b] == a
        mirrored = TILES[a].edges[::-1]
        assert any(TILES[b].turned(k) == mirrored for k in range(6))


def test_other_end_follows_the_arc_through_a_turned_tile():
    t = TILES[1]  # BRYYBR: blue joins edges 0 and 4
    assert t.other_end(0) == 4
    assert t.other_end(1, rot=1) == 5  # turned once: the blue arc now joins directions 1 and 5
    assert t.colour(1, rot=1) == "B"
