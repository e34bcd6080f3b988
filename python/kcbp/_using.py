"""Holding a use of geometries (3D meshes and shapes, 2D polygons and
shapes alike) for the length of a `with` block."""


class _Using:
    """Holds a use of each mesh for the length of a `with` block: the meshes'
    C models cannot be freed meanwhile (Mesh.close() from another thread
    waits for the last use to end), and a closed mesh raises kcbp.Error."""

    __slots__ = ("meshes",)

    def __init__(self, *meshes):
        self.meshes = meshes

    def __enter__(self):
        held = []
        try:
            for m in self.meshes:
                m._acquire()
                held.append(m)
        except BaseException:
            for m in reversed(held):
                m._release()
            raise
        return self

    def __exit__(self, *exc):
        for m in reversed(self.meshes):
            m._release()
