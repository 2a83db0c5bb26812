"""The photo simulator: pictures of Tantrix tables with exact truth, for the tests, the benches, the demo and
the detector's training. It is not vision: it draws what the detector must read, with the engine's own
geometry (`tantrix_pi.grid`, `tantrix_pi.render.arc_points`) and boards grown by `tantrix_pi.rules.fits`.

    from tantrix_pi.simulator import render, render_scene
    image, truth = render(board, seed=3)
    photo = render_scene(board, seed=3, table="checks", clutter=["cup"], occluder="hand")  # .image .truth .cover

The scene and its truth are in `photo.py`; boards in `boards.py`, tables in `tables.py`, the drawn tiles in
`sprites.py`, hands and clutter in `objects.py`, the light in `light.py`, lens, pinhole and sensor in
`camera.py`. See docs/simulator.md.
"""

from tantrix_pi.simulator.boards import legal_board, random_board, spiral_board
from tantrix_pi.simulator.camera import focal_px
from tantrix_pi.simulator.light import kelvin_rgb
from tantrix_pi.simulator.objects import CLUTTER, Clutter
from tantrix_pi.simulator.photo import PLAIN, Apart, Photo, Sprites, cell_px, render, render_scene
from tantrix_pi.simulator.sprites import PALETTES, tile_sprite
from tantrix_pi.simulator.tables import TABLES, table_texture

__all__ = ["CLUTTER", "PALETTES", "PLAIN", "TABLES", "Apart", "Clutter", "Photo", "Sprites", "cell_px", "focal_px",
           "kelvin_rgb", "legal_board", "random_board", "render", "render_scene", "spiral_board", "table_texture",
           "tile_sprite"]
