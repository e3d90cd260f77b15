"""A pytest plugin (`-p numpy_nanfunctions_plugin`) that routes numpy.nanvar and numpy.nanstd through
torch._numpy.nanvar and torch._numpy.nanstd, so that numpy's own tests of them (numpy/lib/tests/
test_nanfunctions.py, shipped in the numpy wheel) run against torch.nanvar and torch.nanstd.

numpy's arrays go in as they are (torch._numpy converts them) and the results come back as numpy arrays, 0-d ones
as numpy scalars, as numpy returns them; an out= array receives the result. Every keyword numpy's caller passes is
passed on, so a keyword torch._numpy lacks fails as it would for a user."""

import numpy as np
import torch._numpy as tnp


def through_torch_numpy(name: str):
    function = getattr(tnp, name)

    def routed(a, axis=None, dtype=None, out=None, ddof=0, keepdims=np._NoValue, *, where=np._NoValue,
               mean=np._NoValue, correction=np._NoValue):
        kwargs = {"axis": axis, "dtype": dtype, "ddof": ddof}
        for key, value in (("keepdims", keepdims), ("where", where), ("mean", mean), ("correction", correction)):
            if value is not np._NoValue:
                kwargs[key] = value
        result = function(a, **kwargs)
        result = result.tensor.numpy() if isinstance(result, tnp.ndarray) else np.asarray(result)
        if out is not None:
            out[...] = result
            return out
        return result[()]

    routed.__name__ = routed.__qualname__ = name
    return routed


np.nanvar = through_torch_numpy("nanvar")
np.nanstd = through_torch_numpy("nanstd")
