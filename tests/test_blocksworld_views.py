import numpy as np

from blocksworld.grid import colour_code, to_grid
from blocksworld.render import builder_view, save_png, to_image, to_layers
from blocksworld.spatial import to_builder, to_world
from blocksworld.text import describe, egocentric, facts

RED, BLUE = colour_code("red"), colour_code("blue")
FACING_PLUS_Z = (0.0, 1.0, -8.0, 0.0, 30.0)  # yaw 0: facing +z, +x on the Builder's left


def test_egocentric_frame_follows_minecraft_yaw():
    assert egocentric((0, 1, -4), FACING_PLUS_Z) == (0.0, 0.0, 4.0)
    right, _, _ = egocentric((-3, 1, -8), FACING_PLUS_Z)
    assert right == 3.0  # -x is on the right when facing +z
    right, _, ahead = egocentric((0, 1, -9), (0.0, 1.0, -8.0, 90.0, 0.0))  # yaw 90 faces -x
    assert (round(right, 6), round(ahead, 6)) == (1.0, 0.0)


def test_describe_and_facts():
    grid = to_grid([(0, 1, 0, RED), (0, 2, 0, BLUE), (-1, 1, 0, BLUE)])
    inventory = np.array([18, 20, 20, 20, 19, 20])
    text = describe(grid, inventory, FACING_PLUS_Z[3])
    assert text.startswith("3 blocks (2 blue, 1 red). Blocks left: 18 blue, 20 green")
    assert "Red block at (0, 1, 0): on the ground; left of the blue block at (-1, 1, 0)." in text
    f = facts(grid, inventory, FACING_PLUS_Z[3])
    assert ("block at (0, 2, 0)", "on", "block at (0, 1, 0)") in f and ("blue", "amount", "18") in f
    # (-1, 1, 0) is to the Builder's right of (0, 1, 0): the red block is left of it
    assert ("block at (0, 1, 0)", "left of", "block at (-1, 1, 0)") in f
    assert ("block at (-1, 1, 0)", "right of", "block at (0, 1, 0)") in f
    assert describe(np.zeros((11, 9, 11), np.int8), np.full(6, 20), 0.0).startswith("The build region is empty.")


def test_builder_frame_matches_the_egocentric_view():
    for yaw in (0.0, 37.0, 90.0, -100.0, 181.0, 265.0):
        pose = (0.0, 0.0, 0.0, float(90 * round(yaw / 90)), 0.0)
        for offset in ((1, 0, 0), (0, 0, 1), (-2, 3, 1)):
            right, up, ahead = to_builder(offset, yaw)
            assert (right, up, ahead) == tuple(round(v) for v in egocentric(offset, pose))
            assert to_world(right, up, ahead, yaw) == offset
    assert to_builder((-1, 0, 0), 0.0) == (1, 0, 0)  # facing +z, -x is on the right


def test_layers_and_image(tmp_path):
    grid = to_grid([(-5, 1, 0, RED), (5, 1, 0, BLUE)])
    layers = to_layers(grid, yaw=0.0).splitlines()
    assert layers[0] == "y=1"
    row = next(line for line in layers[1:] if line.strip("."))
    assert row.index("B") < row.index("R")  # facing +z: blue (x = 5) on the left, red on the right
    assert builder_view(grid, 360.0).tolist() == builder_view(grid, 0.0).tolist()
    image = to_image(grid, yaw=0.0, cell=10)
    assert image.size[0] > 110 and len(np.unique(np.asarray(image).reshape(-1, 3), axis=0)) > 3
    save_png(grid, tmp_path / "s.png")
    assert (tmp_path / "s.png").stat().st_size > 0
