"""Hostile paths and files through the Python loaders (kcbp.load, load2d,
Scene, Scene2D): the library's readers answer for the files; the package
must not change the path on its way to them. A path with a NUL byte was
cut at it by ctypes ("cube.obj\\0x" loaded cube.obj): it is refused, as
Python's open() refuses it."""
import os

import pytest

from conftest import CUBE, ROOT, kcbp

BAD = os.path.join(ROOT, "tests", "bad")


@pytest.mark.parametrize("load", [kcbp.load, kcbp.load2d])
@pytest.mark.parametrize("path", [CUBE + "\0x", os.fsencode(CUBE) + b"\0x", "\0"])
def test_nul_in_path_refused(load, path):
    with pytest.raises(kcbp.Error, match="NUL byte"):
        load(path)
    with pytest.raises(ValueError):
        load(path)


def test_nul_in_scene_path_refused():
    with pytest.raises(kcbp.Error, match="NUL byte"):
        kcbp.Scene(os.path.join(BAD, "extras.json") + "\0x")


@pytest.mark.parametrize("path, message", [
    ("/dev/zero", "NUL byte at offset 0"),
    ("/dev/null", "empty file"),
    (os.path.join(BAD, "ply_huge_list.ply"), "longer than the line left"),
    (BAD, "is a directory"),
])
def test_bad_mesh_files(path, message):
    with pytest.raises(kcbp.Error, match=message):
        kcbp.load(path)


@pytest.mark.parametrize("name, message", [
    ("geojson_nul_byte.geojson", "NUL byte at offset 71"),
    ("svg_hex_number.svg", "not a number in points"),
    ("svg_unclosed_tag.svg", "a tag is not closed"),
])
def test_bad_2d_files(name, message):
    with pytest.raises(kcbp.Error, match=message):
        kcbp.load2d(os.path.join(BAD, name))


@pytest.mark.parametrize("name", ["squares.geojson", "parts.SVG"])
def test_2d_file_through_load_names_load2d(tmp_path, name):
    # kcbp.load read a GeoJSON file as OBJ and said "no faces"; the command
    # line and kcbp.collide already said it is 2D
    p = tmp_path / name
    p.write_text('{"type": "Polygon", "coordinates": [[[0,0],[1,0],[1,1],[0,0]]]}' if name.endswith("json")
                 else '<svg xmlns="http://www.w3.org/2000/svg"><rect width="1" height="1"/></svg>')
    with pytest.raises(kcbp.Error, match="a 2D file .*kcbp.load2d"):
        kcbp.load(str(p))
    with pytest.raises(kcbp.Error, match="a 2D file"):
        kcbp.load(p)
    assert isinstance(kcbp.load2d(str(p)), kcbp.Polygon)
