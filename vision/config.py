"""Every tuning number of the detector, in one frozen object handed to the stages (as chesscog does).

`CONFIG` is what `detect` uses; a sweep or a test passes another `Config` (e.g. `replace(CONFIG.find,
peak=0.4)`) rather than editing the source. Lengths are in tile widths across flats unless a name says
pixels; angles in degrees.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class FindConfig:
    """Stage 1, find tiles: the network's passes and what counts as a tile centre."""

    coarse_sides: tuple[int, ...] = (448, 180, 90, 1024)
    """Long sides (px) of the coarse pass's copies of the photo, tried in turn until one shows tiles: it finds
    where tiles are and how big (the network reads tiles 7-110 px wide)."""
    coarse_range: tuple[float, float] = (11.0, 90.0)
    """Tile widths (px) the coarse copy reads well; outside them it runs once more with tiles `coarse_px` wide."""
    coarse_px: float = 32.0
    fine_px: float = 28.0
    """Tile width (px) at which the fine pass reads the tiles' regions: small enough to be fast, wide
    enough for the network to see bands and rims."""
    max_upscale: float = 1.5
    """The fine pass never enlarges the photo more than this (tiny tiles in a small photo)."""
    region_pad: float = 1.5
    """The fine pass covers the coarse pass's tiles with this margin around them."""
    peak: float = 0.35
    """A centre heat-map maximum at least this high is a tile."""
    min_width_px: float = 18.0
    """Narrower shapes (photo pixels across flats) are no tile the detector can read, its bands 2 px wide: left
    out, with the work of reading them (pixel noise looks like thousands of 6 px tiles to the network)."""
    most_peaks: int = 200
    """At most this many centres per pass, the strongest: a set has 56 tiles, noise can have thousands."""
    hexagon_iterations: int = 2
    """Rounds of fitting each hexagon to the boundary map (each re-centres the rays)."""
    min_support: float = 0.15
    """Mean boundary probability along a fitted outline below which the hexagon is not believed."""
    band_turn_clarity: float = 0.45
    """How clearly (0..1) the colour around a tile must peak six times for its bands to give its turn."""
    band_turn_disagree: float = 10.0
    """The bands' turn replaces the outline's when they disagree by more than this (degrees)."""


@dataclass(frozen=True)
class GridConfig:
    """Stage 2, the board from the tiles: which tiles touch, and the cells of each group."""

    spacing: tuple[float, float] = (0.88, 1.16)
    """Centre distance of touching tiles in widths, as their own hexagons see it (`layout.links`): hand-placed
    tiles leave gaps (up to about 3 mm, 7 %), widths are measured to a few per cent; tiles further apart lie
    apart."""
    most_tilt: float = 50.0
    """The steepest camera (degrees from looking straight down) whose tiles are linked: it bounds how far apart in
    the photo, in widths, two touching tiles' centres can lie before each one's own hexagon is asked."""
    twist_tolerance: float = 15.0
    """Touching tiles are turned alike within this many degrees (mod 60): hand-placed tiles twist a little."""
    own_turn_weight: float = 1.0
    """A tile's outline counts this much for its turn beside each direction to a tile it touches (1 each)."""
    direction_tolerance: float = 14.0
    """How far (degrees) the line between touching tiles' centres may miss an edge normal of each."""
    join_cells: int = 2
    """A separate group at most this many cells from a bigger group may be that board split by glare or an
    arm across it: it joins when its tiles land on the board's own cells."""
    join_off: float = 0.22
    """... within this share of a cell of the board's cell centres."""
    join_turn: float = 8.0
    """... and turned like the board's tiles within this many degrees."""
    missing_face: float = 0.4
    """An empty cell next to the board whose hexagon the network sees this much covered by tile face holds
    a tile it could not make out: reported, never left as a hole. (Empty cells of dev and wide: 0.27 at most;
    a tile turned over amid the board, which the network's centre map hardly marks: 0.52.)"""
    off_grid: float = 0.25
    """A tile apart from the board whose centre lies this close (in widths) to an empty cell next to the board
    may be a board tile that did not link: the cell is reported. Loose tiles lie further off."""
    covered_cell: float = 0.4
    """An empty cell next to the board this much covered by something (a hand) may hide a tile: reported."""


@dataclass(frozen=True)
class ReadConfig:
    """Stage 3, read the edge colours of each tile from the full-resolution photo."""

    radial: tuple[float, ...] = (0.66, 0.77, 0.88)
    """Depths of each edge's window, as shares of the distance from the centre to the edge."""
    tangent: tuple[float, ...] = (-0.15, -0.1, -0.05, 0.0, 0.05, 0.1, 0.15)
    """Offsets of the window along the edge, in circumradii."""
    top: int = 8
    """How many of the most colourful samples of a window make its reading."""
    cut_margin: float = 0.92
    """A tile whose hexagon, shrunk to this, is not wholly inside the photo is cut by the frame: it is not read.
    (A tile apart from the board that cannot be read and whose hexagon reaches the frame at all is reported as
    cut too: the hexagon of a tile the frame cuts is fitted to the part in view.)"""
    hidden: float = 0.2
    """A tile more than this share covered (a hand, a cup) is partly hidden: its colours are not trusted."""
    edge_covered: float = 0.15
    """An edge whose colour window the network sees this much covered is not read, as if the frame cut it: the
    fingers of a hand resting over a tile's edges, covering only 12 % of the tile, read as a red band there (tile
    49 read as 22 with confidence 0.88 in a live game). Edges of uncovered tiles in dev and wide: 0.07 at most;
    those fingers: 0.28 and 0.35. The network's cover is noisier over the bandless edges of backs (up to 0.35 on a
    table of them): a tile in view that shows a back is filed face down whatever its edges' cover."""
    glare_black: float = 110.0
    """A tile whose black is brighter than this (8-bit) lies in glare."""
    band_chroma: float = 0.35
    """An edge is coloured when its chroma reaches this share of the photo's typical band chroma ..."""
    least_band_chroma: float = 20.0
    """... taken as at least this (8-bit chroma after white balance): bands in the dimmest wide render reach 35,
    tiles 128 typically; the edges of a photo of backs alone, with no band, 6-16."""
    back_number: float = 1.0
    """A tile whose middle is this colourful (in band units) shows its back's coloured number, when its edges are
    `back_edges` times as colourful at most (median: a digit may reach one) ..."""
    back_edges: float = 0.15
    white_number: float = 60.0
    """... or whose middle is this much brighter (8-bit) than its black, a white number, when its edges show no
    band (median chroma below `white_edges` band units)."""
    white_edges: float = 1.0
    face_up_bands: int = 4
    """A face-up tile shows at least this many coloured edges (glare, shadow or a hand hide others)."""
    sixfold: float = 0.3
    """... and its colour around a ring just inside its edges peaks six times this clearly (`Seen.sixfold`; real
    tiles 0.38 and more, 0.8 typical; coloured blocks and noise that pass for tiles 0.04-0.6): shapes below are
    not decoded, so that they cannot take a tile's number from the tiles."""


@dataclass(frozen=True)
class DecodeConfig:
    """Stage 4, decode: margins and fits that make a reading confident, and how the colours adapt."""

    margin_scale: float = 3.5
    """Log-likelihood margin (nats) that gives confidence 1 - 1/e; 1.6 times it gives CONFIDENT (0.8)."""
    fit_scale: float = 3.0
    """Log-likelihood (nats) of the chosen codeword that costs a factor e of confidence."""
    adapt_min_tiles: int = 6
    """The colours' hues are learnt from the photo only when this many tiles vouch for them ..."""
    vouch: float = 0.25
    """... each read at least this confidently at first."""
    hue_sigma: float = 12.0
    """Spread (degrees) of each paint's hue around its centre, the centres learnt from the photo."""
    hue_sigma_few: float = 15.0
    """... with too few tiles to learn from: the light's cast is not known, so hues count more loosely."""


@dataclass(frozen=True)
class AssembleConfig:
    """Stage 5, assemble the board: which group is the board, and when its readings are doubted."""

    match_rate: float = 0.6
    """Share of touching edges whose colours must agree before a board's reading is trusted at all."""
    doubt: float = 0.5
    """Confidence left to tiles whose reading the board's colours contradict."""
    clear: float = 0.95
    """A reading at least this confident stands even against its neighbours' colours."""
    misfit: float = 8.0
    """A confident reading against its neighbours' colours stands too when every reading that would fit them
    is this many nats less likely (a real mistake on the table, not a misreading)."""
    not_tiles: float = 0.3
    """A doubted board whose median confidence is below this is not reported as tiles at all ..."""
    clear_tiles: int = 3
    """... unless this many of its tiles read confidently: glare over most of a real board."""
    reads_as_tile: float = 0.5
    """A reading at least this confident says the shape is a Tantrix tile (though maybe not which): a loose
    one is reported, and ..."""
    unsure_board: int = 3
    """... a group with no confident tile is still the board when this many of its tiles read as tiles: a
    board under a colour cast is doubted, not ignored."""
    cut_face: float = 0.85
    """A shape cut by the frame apart from the board is reported only when the network sees this share of
    its visible part as tile face (real tiles: 0.97 and more; a pen circle on paper at the frame: 0.7)."""
    no_reading: float = 0.15
    """A reading less confident than this says nothing about which tile it is: the tile is unreadable."""
    glare_width: tuple[float, float] = (0.88, 1.12)
    """A bright shape without bands on the board's grid is a tile washed out by glare only when it is this wide
    against the width its neighbours give its cell (wide's washed-out tiles: 0.93-1.02): a tile is as wide as
    the tiles beside it. Narrower or wider it is the white table (a pen circle on paper beside 60 px tiles: 0.81)."""
    first_reach: float = 0.4
    """A live referee's first tile, laid among the players' hands lying apart (no zones), lies at most this share of
    the way from the photo's middle to a corner: the board starts where the camera looks, the hands lie along the
    edges (the simulator's live games: first tiles 0.10-0.25, the hand zones' tiles from 0.45 out)."""


@dataclass(frozen=True)
class Config:
    """The detector's tuning, stage by stage."""

    find: FindConfig = field(default_factory=FindConfig)
    grid: GridConfig = field(default_factory=GridConfig)
    read: ReadConfig = field(default_factory=ReadConfig)
    decode: DecodeConfig = field(default_factory=DecodeConfig)
    assemble: AssembleConfig = field(default_factory=AssembleConfig)


CONFIG = Config()
