"""Real-number arrays and the rigidity tolerance, shared by the 3D poses
(_api.py) and the 2D ones (_api2d.py)."""
import ctypes

import numpy as np

from ._lib import Error

# A 4x4 pose is accepted as rigid when its rotation block R has
# max |R^T R - I| <= RIGID_TOL and det R > 0, and its last row is 0 0 0 1.
RIGID_TOL = 1e-9


def _rigid_tol(dtype):
    """The rigidity tolerance for matrices given in dtype: RIGID_TOL for
    float64 (and exact integers), 64 units in the last place of a
    lower-precision float (float32: 7.6e-6), whose rounding alone moves
    R^T R away from I by a few units."""
    if dtype.kind == "f" and dtype.itemsize < 8:
        return max(RIGID_TOL, 64 * float(np.finfo(dtype).eps))
    return RIGID_TOL


def _real_array(p, what, expect="real numbers"):
    """p as a float64 array and the tolerance of its precision; complex,
    object and text arrays are refused (numpy would drop an imaginary part
    silently). Subclasses become plain arrays: an np.matrix stays 2D
    through reshape (a (4, 4) matrix "reshaped" to (1, 4, 4) is still
    (4, 4)), which would give the callers a wrong count of poses."""
    a = np.asarray(p)
    if a.dtype.kind not in "iuf":
        raise Error("%s: expected %s, not an array of %s" % (what, expect, a.dtype))
    return a.astype(np.float64, copy=False), _rigid_tol(a.dtype)


def c_array(ptr, shape, dtype=np.float64):
    """A new numpy array of the C array at ptr (a ctypes pointer or address)
    of the given shape, copied as bytes. np.ctypeslib.as_array made a
    ctypes pointer type for each shape, which ctypes keeps for good (about
    1 KB each): a loop over meshes or contacts of many sizes grew."""
    dt = np.dtype(dtype)
    count = 1
    for d in shape:
        count *= int(d)
    if count == 0:
        return np.zeros(shape, dtype=dt)
    return np.frombuffer(ctypes.string_at(ptr, count * dt.itemsize), dtype=dt).reshape(shape).copy()
