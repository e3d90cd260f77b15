"""Loads the out-of-tree cbrt operator overlay into this torch.

Installed as the package ``_torch_cbrt_overlay`` next to ``torch`` (by
scripts/overlay_install.py), beside the two shared objects that
scripts/overlay/CMakeLists.txt builds into it.  torch/__init__.py imports it
right after ``torch._C`` is initialised: importing the extension loads
libtorch_cbrt_overlay.so, whose static initializers register aten::cbrt*,
and then adds torch._C._VariableFunctions.cbrt/cbrt_ (copied into ``torch``
by torch/__init__.py a few lines later), torch._C.TensorBase.cbrt/cbrt_ and
torch._C._functions.CbrtBackward0 — all before torch._prims and torch._refs
are imported.
"""

from . import _torch_cbrt_overlay_C  # noqa: F401
