"""Columns from the extension module as numpy arrays: each arrives as one ``bytes``
object of little-endian values, read in place by ``numpy.frombuffer`` (no Python object
per row)."""

from __future__ import annotations

from typing import Dict, List, Tuple

import numpy as np

#: Column names the extension gives, with their numpy dtype and bytes.
Raw = List[Tuple[str, str, bytes]]


def arrays(cols: Raw) -> Dict[str, np.ndarray]:
    """The columns as read-only numpy arrays sharing the bytes' memory."""
    return {name: np.frombuffer(data, dtype=np.dtype(dtype)) for name, dtype, data in cols}


def op_type(write: np.ndarray):
    """``Read``/``Write`` as a pandas Categorical (one byte per row), as the MSR
    Cambridge traces name a request's ``Type``."""
    import pandas as pd

    return pd.Categorical.from_codes(write.astype(np.int8), categories=["Read", "Write"])
