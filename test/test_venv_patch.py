"""Patching an install: from pristine files every time, idempotent, and undone when a fragment goes away."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import NATIVE_FUNCTIONS, fragment_toml, write

import scripts.overlay.venv_patch as venv_patch
from scripts.patchset.fragments import load_sources

YAML_MEMBER = "torchgen/packaged/ATen/native/native_functions.yaml"


@pytest.fixture
def site(tmp_path: Path) -> Path:
    site = tmp_path / "site-packages"
    write(site / YAML_MEMBER, NATIVE_FUNCTIONS)
    return site


def use_sources(monkeypatch: pytest.MonkeyPatch, root: Path) -> None:
    monkeypatch.setattr(venv_patch, "load_sources", lambda: load_sources(root))


def test_patches_the_shipped_yaml_once(site: Path, sources_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use_sources(monkeypatch, sources_root)
    assert list(venv_patch.patch_install(site, on_pin=False).contents) == [YAML_MEMBER]
    assert "- func: cbrt(Tensor self) -> Tensor" in (site / YAML_MEMBER).read_text()
    assert venv_patch.patch_install(site, on_pin=False).contents == {}


def test_removed_fragment_restores_the_pristine_file(
    site: Path, sources_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_sources(monkeypatch, sources_root)
    venv_patch.patch_install(site, on_pin=False)
    (sources_root / "aten_native/aten/src/ATen/native/native_functions.yaml.fragments.toml").unlink()
    venv_patch.patch_install(site, on_pin=False)
    assert (site / YAML_MEMBER).read_text() == NATIVE_FUNCTIONS


def test_off_the_pin_a_yaml_fragment_must_still_apply(
    site: Path, sources_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_sources(monkeypatch, sources_root)
    write(
        sources_root / "aten_native/aten/src/ATen/native/native_functions.yaml.fragments.toml",
        "[[fragment]]\ntopic = 'one'\nwhere = 'before'\nanchor = 'missing line'\ntext = 'x'\n",
    )
    with pytest.raises(Exception, match="anchor 'missing line' not found"):
        venv_patch.patch_install(site, on_pin=False)
    assert (site / YAML_MEMBER).read_text() == NATIVE_FUNCTIONS


REFS_MEMBER = "torch/_refs/__init__.py"
LOWERING_MEMBER = "torch/_inductor/lowering.py"
REFS = "def sqrt(a):\n    return a\n"


def python_topic_in_two_files(site: Path, sources_root: Path, later_topic_anchor: str) -> None:
    """Topic one registers a decomposition in _refs and its lowering in lowering.py, whose anchor this torch lacks;
    topic two adds a line to _refs after `later_topic_anchor`."""
    write(site / REFS_MEMBER, REFS)
    write(site / LOWERING_MEMBER, "lowerings = {}\n")
    write(
        sources_root / "frontend/torch/_refs/__init__.py.fragments.toml",
        fragment_toml("one", "after", "    return a\n", "\n\ndef cbrt(a):\n    return a\n")
        + fragment_toml("two", "after", f"{later_topic_anchor}\n", "# documented\n"),
    )
    write(
        sources_root / "frontend/torch/_inductor/lowering.py.fragments.toml",
        fragment_toml("one", "after", "lowerings: dict = {}\n", "register(cbrt)\n"),
    )


def test_off_the_pin_a_topic_whose_python_fragment_fails_is_left_out_of_every_file(
    site: Path, sources_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Applying topic one's _refs fragment alone would give aten.cbrt a decomposition and no lowering, which
    # Inductor refuses under CI=1: the install holds whole topics or none of them.
    use_sources(monkeypatch, sources_root)
    python_topic_in_two_files(site, sources_root, later_topic_anchor="def sqrt(a):")
    result = venv_patch.patch_install(site, on_pin=False)
    assert (site / REFS_MEMBER).read_text() == "def sqrt(a):\n# documented\n    return a\n"
    assert (site / LOWERING_MEMBER).read_text() == "lowerings = {}\n"
    assert "- func: cbrt(Tensor self) -> Tensor" in (site / YAML_MEMBER).read_text()  # the build part stays whole
    assert result.skipped == [
        "topic one's Python fragments left out: frontend/torch/_inductor/lowering.py.fragments.toml fragment #1: "
        "anchor 'lowerings: dict = {}' not found in torch/_inductor/lowering.py; upstream changed this file: "
        "update the anchor"
    ]


def test_off_the_pin_a_topic_anchored_on_a_left_out_topic_is_left_out_too(
    site: Path, sources_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_sources(monkeypatch, sources_root)
    python_topic_in_two_files(site, sources_root, later_topic_anchor="def cbrt(a):")
    result = venv_patch.patch_install(site, on_pin=False)
    assert (site / REFS_MEMBER).read_text() == REFS
    assert [line.split(":")[0] for line in result.skipped] == [
        "topic one's Python fragments left out", "topic two's Python fragments left out"]


def test_on_the_pin_a_python_fragment_that_fails_is_an_error(
    site: Path, sources_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_sources(monkeypatch, sources_root)
    python_topic_in_two_files(site, sources_root, later_topic_anchor="def sqrt(a):")
    monkeypatch.setattr(venv_patch, "check_base_file", lambda *args: None)
    with pytest.raises(Exception, match="anchor 'lowerings: dict = {}' not found"):
        venv_patch.patch_install(site, on_pin=True)
    assert (site / REFS_MEMBER).read_text() == REFS


CODEGEN_MEMBER = "torchgen/packaged/autograd/gen_variable_type.py"
COMPLEX_SET = "GRADIENT_IMPLEMENTED_FOR_COMPLEX = {\n    \"t\",\n}\n"


@pytest.mark.parametrize(("part", "patched"), [("build", [YAML_MEMBER, CODEGEN_MEMBER]), ("python", [])])
def test_the_autograd_codegen_is_patched_with_the_build_inputs_not_the_front_end(
    site: Path, sources_root: Path, monkeypatch: pytest.MonkeyPatch, part: str, patched: list[str]
) -> None:
    # codegen imports the patched gen_variable_type.py (which operators have complex gradients) before the
    # operator library exists, when only the build part has been applied
    use_sources(monkeypatch, sources_root)
    write(site / CODEGEN_MEMBER, COMPLEX_SET)
    write(
        sources_root / "derivatives/tools/autograd/gen_variable_type.py.fragments.toml",
        fragment_toml("one", "after", '    "t",\n', '    "cbrt",\n'),
    )
    assert sorted(venv_patch.patch_install(site, on_pin=False, part=part).contents) == patched
    expected = COMPLEX_SET.replace('"t",\n', '"t",\n    "cbrt",\n') if patched else COMPLEX_SET
    assert (site / CODEGEN_MEMBER).read_text() == expected
