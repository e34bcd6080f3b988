"""kcbp.collision: the names of trimesh.collision, for code that imports the
module rather than the class (``from trimesh import collision`` becomes
``from kcbp import collision``):

- ``CollisionManager``, ``ContactData``, ``DistanceData``: kcbp's (see
  kcbp.CollisionManager);
- ``scene_to_collision(scene)``: a manager holding every geometry node of a
  trimesh.Scene (or anything with its ``graph.nodes_geometry``,
  ``graph[node] -> (transform, geometry name)`` and ``geometry``
  mapping), named by node, at the node's world transform; returns
  ``(manager, {node: CollisionObject})`` as trimesh's does;
- ``mesh_to_BVH(mesh)``: the mesh as a kcbp.Mesh (kcbp's prepared model,
  in place of FCL's BVHModel); ``mesh_to_convex(mesh)``: the convex hull of
  its vertices as a kcbp.Hull (in place of FCL's Convex).

Neither returns an FCL object: they are what kcbp's functions and manager
take."""
from __future__ import annotations

from typing import Any, Dict, Tuple

from ._api import Hull, Mesh
from ._lib import Error
from ._manager import CollisionManager, CollisionObject, ContactData, DistanceData

__all__ = ["CollisionManager", "ContactData", "DistanceData", "scene_to_collision", "mesh_to_BVH",
           "mesh_to_convex"]


def _arrays(mesh, what):
    v, f = getattr(mesh, "vertices", None), getattr(mesh, "faces", None)
    if v is None or f is None:
        raise Error("%s: mesh must have vertices and faces arrays (a trimesh.Trimesh), not %s" %
                    (what, type(mesh).__name__))
    return v, f


def mesh_to_BVH(mesh: Any) -> Mesh:
    """A kcbp.Mesh of mesh's vertices and faces (a copy)."""
    if isinstance(mesh, Mesh):
        return mesh
    return Mesh(*_arrays(mesh, "mesh_to_BVH"))


def mesh_to_convex(mesh: Any) -> Hull:
    """A kcbp.Hull: the convex hull of mesh's vertices."""
    return Hull(_arrays(mesh, "mesh_to_convex")[0])


def scene_to_collision(scene: Any) -> Tuple[CollisionManager, Dict[Any, CollisionObject]]:
    """A CollisionManager of a trimesh.Scene's geometry nodes, each named by
    its node, at its transform in the scene; and {node: CollisionObject}."""
    graph = getattr(scene, "graph", None)
    geometry = getattr(scene, "geometry", None)
    if graph is None or geometry is None or not hasattr(graph, "nodes_geometry"):
        raise Error("scene_to_collision: expected a trimesh.Scene (graph.nodes_geometry, geometry), not %s" %
                    type(scene).__name__)
    manager = CollisionManager()
    objects = {}
    try:
        for node in graph.nodes_geometry:
            transform, name = graph[node]
            objects[node] = manager.add_object(name=node, mesh=geometry[name], transform=transform)
    except BaseException:
        manager.close()
        raise
    return manager, objects
