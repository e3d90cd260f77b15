"""The fragment engine: anchors must match exactly once, inserts land in place, reapplying is a no-op."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import fragment_toml, write
from expecttest import TestCase

from scripts.patchset.fragments import Fragment, FragmentError, apply_fragments_to_text, load_sources

YAML = "- func: sqrt(Tensor self) -> Tensor\n  variants: function\n\n- func: square(Tensor self) -> Tensor\n"


def fragment(where: str, anchor: str, text: str) -> Fragment:
    return Fragment("x.yaml.fragments.toml", 0, "one", where, tuple(anchor.splitlines()), tuple(text.splitlines()))


def test_before_inserts_text_directly_above_the_anchor() -> None:
    result, changed = apply_fragments_to_text(YAML, (fragment("before", "- func: square(Tensor self) -> Tensor", "NEW"),), "x")
    assert changed
    assert result.splitlines()[3:5] == ["NEW", "- func: square(Tensor self) -> Tensor"]


def test_after_a_block_anchor_inserts_below_its_last_line() -> None:
    anchor = "- func: sqrt(Tensor self) -> Tensor\n  variants: function"
    result, _ = apply_fragments_to_text(YAML, (fragment("after", anchor, "  tags: pointwise"),), "x")
    assert result.splitlines()[:3] == ["- func: sqrt(Tensor self) -> Tensor", "  variants: function", "  tags: pointwise"]


def test_replace_swaps_the_anchor_lines() -> None:
    result, _ = apply_fragments_to_text(YAML, (fragment("replace", "  variants: function", "  variants: method"),), "x")
    assert "  variants: method" in result.splitlines() and "  variants: function" not in result


@pytest.mark.parametrize("where", ["before", "after", "replace"])
def test_reapplying_changes_nothing(where: str) -> None:
    frags = (fragment(where, "- func: square(Tensor self) -> Tensor", "- func: cbrt(Tensor self) -> Tensor"),)
    once, _ = apply_fragments_to_text(YAML, frags, "x")
    twice, changed = apply_fragments_to_text(once, frags, "x")
    assert (twice, changed) == (once, False)


def test_a_trailing_newline_is_kept() -> None:
    result, _ = apply_fragments_to_text(YAML, (fragment("before", "- func: square(Tensor self) -> Tensor", "A"),), "x")
    assert result.endswith("Tensor\n")


class TestAnchorErrors(TestCase):
    def test_missing_anchor_names_fragment_and_anchor(self) -> None:
        with self.assertRaises(FragmentError) as caught:
            apply_fragments_to_text(YAML, (fragment("before", "- func: cube(Tensor self) -> Tensor", "A"),), "f.yaml")
        self.assertExpectedInline(
            str(caught.exception),
            """x.yaml.fragments.toml fragment #1: anchor '- func: cube(Tensor self) -> Tensor' not found in f.yaml; upstream changed this file: update the anchor""",  # noqa: B950
        )

    def test_duplicate_anchor_names_every_line_it_matches(self) -> None:
        text = YAML + YAML
        with self.assertRaises(FragmentError) as caught:
            apply_fragments_to_text(text, (fragment("after", "- func: square(Tensor self) -> Tensor", "A"),), "f.yaml")
        self.assertExpectedInline(
            str(caught.exception),
            """x.yaml.fragments.toml fragment #1: anchor '- func: square(Tensor self) -> Tensor' occurs 2 times in f.yaml (lines 4, 8); make the anchor longer so it matches once""",  # noqa: B950
        )


def test_unknown_topic_is_rejected(sources_root: Path) -> None:
    write(sources_root / "frontend/torch/x.py.fragments.toml", fragment_toml("nope", "before", "a\n", "b\n"))
    with pytest.raises(FragmentError, match="unknown topic 'nope'"):
        load_sources(sources_root)


def test_new_file_must_belong_to_a_topic(sources_root: Path) -> None:
    write(sources_root / "aten_native/aten/src/ATen/native/Orphan.cpp", "//\n")
    with pytest.raises(FragmentError, match="Orphan.cpp must be listed in the `files` of exactly one topic"):
        load_sources(sources_root)


def test_bad_where_is_rejected(sources_root: Path) -> None:
    write(sources_root / "frontend/torch/x.py.fragments.toml", fragment_toml("one", "inside", "a\n", "b\n"))
    with pytest.raises(FragmentError, match="where = 'inside'"):
        load_sources(sources_root)


def test_the_repo_sources_load_and_validate() -> None:
    sources = load_sources()
    assert [t.id for t in sources.topics][:3] == ["vec-fmadd", "vec-cbrt", "aten-op"]
    assert "aten/src/ATen/native/native_functions.yaml" in sources.edited_upstream_paths()


def test_an_empty_replace_deletes_the_anchor_and_reapplies_as_a_no_op() -> None:
    deletion = (fragment("replace", "  variants: function", ""),)
    once, changed = apply_fragments_to_text(YAML, deletion, "x")
    assert changed and "variants" not in once
    assert apply_fragments_to_text(once, deletion, "x") == (once, False)


def contexted(where: str, anchor: str, before: str, after: str) -> str:
    return (fragment_toml("one", where, anchor, "NEW\n")
            + f"context_before = '''\n{before}'''\ncontext_after = '''\n{after}'''\n")


@pytest.mark.parametrize(
    ("where", "before", "after", "message"),
    [
        ("after", "a\nb\nc\n", "d\ne\nf\n", "context_before must end with the anchor"),
        ("before", "a\nb\nc\n", "d\ne\nf\n", "context_after must start with the anchor"),
        ("after", "b\nX\n", "d\ne\nf\n", "records 2 line\\(s\\) before"),
        ("replace", "a\nb\nX\n", "d\ne\nf\n", "leave the anchor out"),
    ],
)
def test_recorded_context_that_disagrees_with_the_anchor_is_rejected(
    sources_root: Path, where: str, before: str, after: str, message: str
) -> None:
    write(sources_root / "frontend/torch/x.py.fragments.toml", contexted(where, "X\n", before, after))
    with pytest.raises(FragmentError, match=message):
        load_sources(sources_root)


def test_context_keys_go_together(sources_root: Path) -> None:
    text = fragment_toml("one", "after", "X\n", "NEW\n") + "context_before = '''\na\nb\nX\n'''\n"
    write(sources_root / "frontend/torch/x.py.fragments.toml", text)
    with pytest.raises(FragmentError, match="context_before and context_after go together"):
        load_sources(sources_root)


def test_fixture_holds_the_blocks_in_order_merging_overlaps_and_gapping_the_rest(sources_root: Path) -> None:
    from scripts.patchset.fragments import FIXTURE_GAP

    text = (contexted("after", "c\n", "a\nb\nc\n", "d\ne\nf\n") + contexted("before", "e\n", "b\nc\nd\n", "e\nf\ng\n")
            + contexted("after", "y\n", "w\nx\ny\n", "z\n1\n2\n"))
    write(sources_root / "frontend/torch/x.py.fragments.toml", text)
    fragment_file = next(ff for ff in load_sources(sources_root).fragment_files if ff.upstream_path == "torch/x.py")
    assert fragment_file.fixture_text().splitlines() == [
        FIXTURE_GAP, "a", "b", "c", "d", "e", "f", "g", FIXTURE_GAP, "w", "x", "y", "z", "1", "2", FIXTURE_GAP
    ]
    assert fragment_file.uncontexted() == []
