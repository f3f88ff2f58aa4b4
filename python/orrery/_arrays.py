"""Input arrays: converted to what the C++ core takes, or rejected with a
message that names the argument.

Accepted: anything numpy.asarray understands (lists, other dtypes, strided or
Fortran-ordered arrays) with a real numeric dtype and the right shape. The
result is a C-contiguous array of the run's dtype; it is the caller's array
itself (no copy) when that already fits. float64 input to a single-precision
run is rounded once to float32. bool, complex, object and string dtypes are
rejected rather than guessed at.
"""

import numpy as np


def _numeric(name, value):
    a = np.asarray(value)
    if a.dtype == bool or not (np.issubdtype(a.dtype, np.integer) or np.issubdtype(a.dtype, np.floating)):
        raise TypeError(f"{name}: dtype {a.dtype} is not accepted; pass real numbers (float32, float64 or integers)")
    return a


def rows3(name, value, dtype):
    """An (N, 3) array (positions, velocities) as C-contiguous `dtype`."""
    a = _numeric(name, value)
    if a.ndim != 2 or a.shape[1] != 3:
        raise ValueError(f"{name}: shape {a.shape} is not accepted; expected (N, 3), one row (x, y, z) per particle")
    return np.ascontiguousarray(a, dtype=dtype)


def column(name, value, dtype, n):
    """An (N,) array (masses) as C-contiguous `dtype`; a scalar is repeated N times."""
    a = _numeric(name, value)
    if a.ndim == 0:
        a = np.full(n, a, dtype=dtype)
    if a.ndim != 1 or a.shape[0] != n:
        raise ValueError(f"{name}: shape {a.shape} is not accepted; expected ({n},), one value per particle")
    return np.ascontiguousarray(a, dtype=dtype)


def ids(value, n):
    """Particle IDs as C-contiguous uint64, or None (the core numbers them 1..N)."""
    if value is None:
        return None
    a = np.asarray(value)
    if not np.issubdtype(a.dtype, np.integer):
        raise TypeError(f"ids: dtype {a.dtype} is not accepted; pass non-negative integers")
    if a.ndim != 1 or a.shape[0] != n:
        raise ValueError(f"ids: shape {a.shape} is not accepted; expected ({n},), one ID per particle")
    if np.issubdtype(a.dtype, np.signedinteger) and a.size and a.min() < 0:
        raise ValueError(f"ids: {a.min()} is negative; IDs must be non-negative integers")
    return np.ascontiguousarray(a, dtype=np.uint64)
