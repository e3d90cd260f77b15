"""Loads the out-of-tree overlay of the patch set's native operators into this torch.

Installed as the package ``_torch_native_overlay`` next to ``torch`` (by
scripts/overlay/install.py), beside the two shared objects that
scripts/overlay/CMakeLists.txt builds into it.  torch/__init__.py imports it
right after ``torch._C`` is initialised: importing the extension loads
libtorch_native_overlay.so, whose static initializers register the new
aten:: operators, and then adds their bindings to torch._C._VariableFunctions
(copied into ``torch`` by torch/__init__.py a few lines later) and
torch._C.TensorBase, and their autograd Nodes to torch._C._functions — all
before torch._prims and torch._refs are imported.

It also keys torch.compile's caches by the overlay's content.  Inductor's C++
kernel cache is keyed by a kernel's source and compile command, not by the
headers it includes, so after a rebuild that changed a header (a vectorized
primitive, say) a compiled operator could keep running a kernel built
against the old one.  TORCHINDUCTOR_CACHE_DIR (or, when unset, Inductor's
default folder) gets a subfolder named after the digest of the build's
inputs: each build compiles into its own cache, and reuses it.
"""

import getpass
import os
import re
import tempfile

from . import _torch_native_overlay_C  # noqa: F401

# The digest of the inputs of the build that installed this file (scripts/overlay/install.py writes it).
CONTENT_KEY = "unset"
CACHE_SUBDIR_PREFIX = "native-overlay-"


def inductor_default_cache_dir() -> str:
    """torch._inductor.runtime.cache_dir_utils.default_cache_dir(), which cannot be imported this early."""
    try:
        user = getpass.getuser()
    except (KeyError, ModuleNotFoundError, OSError):
        user = f"uid_{os.getuid()}" if hasattr(os, "getuid") else "unknown_user"
    return os.path.join(tempfile.gettempdir(), "torchinductor_" + re.sub(r'[\\/:*?"<>|]', "_", user))


def keyed_cache_dir(configured: str | None, key: str) -> str:
    """The cache folder for the build `key`: a subfolder of the configured (or default) one. A folder that is
    already some build's subfolder (set by a parent process) is replaced by this build's, never nested."""
    base = os.path.normpath(configured) if configured else inductor_default_cache_dir()
    if os.path.basename(base).startswith(CACHE_SUBDIR_PREFIX):
        base = os.path.dirname(base)
    return os.path.join(base, CACHE_SUBDIR_PREFIX + key)


os.environ["TORCHINDUCTOR_CACHE_DIR"] = keyed_cache_dir(os.environ.get("TORCHINDUCTOR_CACHE_DIR"), CONTENT_KEY)
