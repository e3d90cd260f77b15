"""torch.compile never runs a kernel built against another overlay build's headers: the loader puts Inductor's
caches in a folder named after the digest of the build's inputs."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from scripts.layout import REPO_ROOT

LOADER = REPO_ROOT / "scripts" / "overlay" / "torch_native_overlay.py"


def loader_functions():
    """The loader's pure functions, without importing its extension (exec'd with the import line removed)."""
    source = LOADER.read_text().replace("from . import _torch_native_overlay_C  # noqa: F401\n", "")
    namespace: dict[str, object] = {"__name__": "loader_under_test"}
    saved = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    try:
        exec(compile(source, str(LOADER), "exec"), namespace)
    finally:
        if saved is None:
            os.environ.pop("TORCHINDUCTOR_CACHE_DIR", None)
        else:
            os.environ["TORCHINDUCTOR_CACHE_DIR"] = saved
    return namespace


def test_a_configured_cache_folder_gets_the_builds_subfolder() -> None:
    keyed = loader_functions()["keyed_cache_dir"]
    assert keyed("/tmp/mine", "abc") == "/tmp/mine/native-overlay-abc"


def test_without_a_configured_folder_the_subfolder_is_in_inductors_default() -> None:
    functions = loader_functions()
    assert functions["keyed_cache_dir"](None, "abc") == os.path.join(functions["inductor_default_cache_dir"](),
                                                                      "native-overlay-abc")


def test_a_folder_keyed_by_a_parent_process_is_rekeyed_not_nested() -> None:
    keyed = loader_functions()["keyed_cache_dir"]
    assert keyed("/tmp/mine/native-overlay-abc", "abc") == "/tmp/mine/native-overlay-abc"
    assert keyed("/tmp/mine/native-overlay-old/", "new") == "/tmp/mine/native-overlay-new"


def test_inductors_own_default_folder_is_the_one_the_loader_rebuilds() -> None:
    from torch._inductor.runtime.cache_dir_utils import default_cache_dir

    assert loader_functions()["inductor_default_cache_dir"]() == default_cache_dir()


@pytest.mark.skipif(importlib.util.find_spec("_torch_native_overlay") is None, reason="the overlay is not installed")
def test_compiled_kernels_land_in_the_installed_builds_folder(tmp_path: Path) -> None:
    script = (
        "import json, torch, _torch_native_overlay as o\n"
        "from torch._inductor.runtime.cache_dir_utils import cache_dir\n"
        "x = torch.linspace(-8, 8, 1001)\n"
        "assert torch.equal(torch.compile(torch.cbrt)(x), torch.cbrt(x))\n"
        "print(json.dumps([o.CONTENT_KEY, cache_dir()]))\n"
    )
    env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": str(tmp_path)}
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    key, used = json.loads(result.stdout.strip().splitlines()[-1])
    assert key != "unset" and used == str(tmp_path / f"native-overlay-{key}")
    assert any(path.suffix == ".so" for path in Path(used).rglob("*")), "no compiled kernel in the keyed folder"
    assert {path.name for path in tmp_path.iterdir()} == {f"native-overlay-{key}"}
