#!/usr/bin/env python3
"""Writes an OBJ mesh turned and scaled in its own frame (issue 13's hard pair).

    transform_obj.py IN.obj OUT.obj AXIS_X AXIS_Y AXIS_Z ANGLE_DEG SCALE

Vertices become SCALE * R(axis, angle) * v, printed with 17 significant
digits; every other line (faces, comments) is copied as it is. Turning the
mesh itself, not its pose, slants its faces against its own tree's axes:
leaf boxes around large slanted triangles are then mostly empty, the case
that oriented leaves (FCL's OBBRSS) handle and axis-aligned ones do not.
"""
import math
import sys


def rotation(axis, deg):
    x, y, z = axis
    n = math.sqrt(x * x + y * y + z * z)
    x, y, z = x / n, y / n, z / n
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    k = 1 - c
    return [[c + x * x * k, x * y * k - z * s, x * z * k + y * s],
            [y * x * k + z * s, c + y * y * k, y * z * k - x * s],
            [z * x * k - y * s, z * y * k + x * s, c + z * z * k]]


def main():
    if len(sys.argv) != 8:
        sys.exit(__doc__)
    src, dst = sys.argv[1], sys.argv[2]
    r = rotation([float(a) for a in sys.argv[3:6]], float(sys.argv[6]))
    scale = float(sys.argv[7])
    with open(src) as f, open(dst + ".tmp", "w") as o:
        for line in f:
            w = line.split()
            if w and w[0] == "v":
                v = [float(a) for a in w[1:4]]
                p = [scale * sum(r[i][k] * v[k] for k in range(3)) for i in range(3)]
                o.write("v %.17g %.17g %.17g\n" % tuple(p))
            else:
                o.write(line)
    import os
    os.replace(dst + ".tmp", dst)


if __name__ == "__main__":
    main()
