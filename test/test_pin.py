"""The pin catches a base file that is not the pinned one, and says how to proceed."""

from __future__ import annotations

import pytest

from scripts.patchset.pin import DriftError, Pin, check_base_file, sha256_of

PIN = Pin("2.14.1", "5c4886908584029761b579af026dcfb627c84070", "torch==2.14.1", {"a.yaml": sha256_of(b"pinned\n")})


def test_the_pinned_content_passes() -> None:
    check_base_file(PIN, "a.yaml", b"pinned\n")


def test_other_content_is_drift_with_a_way_out() -> None:
    with pytest.raises(DriftError, match=r"a.yaml: sha256 .* differs from pytorch.lock's .* install torch==2.14.1"):
        check_base_file(PIN, "a.yaml", b"upstream moved\n")


def test_files_the_lock_does_not_list_are_not_checked() -> None:
    check_base_file(PIN, "b.yaml", b"anything\n")
