"""The conformance layer: checks that every operator of the patch set gets, driven by its OpInfo, where users meet it.

The operators come from the sources (scripts/patchset/native_ops.py: every `- func:` a fragment adds that has a
Python binding), so a new operator is checked here without a test of its own.

- DTensor: every combination of Replicate and Shard(d) over the tensor arguments of each OpInfo sample, on two
  gloo ranks, gives eager's bits or an error (no sharding rule at all); an operator with a rule never errors.
  The collectives each combination takes are counted and written to build/test-results/dtensor_placements.txt.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from scripts.layout import REPO_ROOT
from scripts.patchset.native_ops import native_ops

WORKER = Path(__file__).with_name("conformance_dtensor_worker.py")
REPORT = REPO_ROOT / "build" / "test-results" / "dtensor_placements.txt"


def patch_set_operators() -> list[str]:
    """The patch set's public operators (torch.<name>), from the native_functions.yaml fragments."""
    return list(dict.fromkeys(op.root for op in native_ops() if op.python_binding and not op.inplace))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def dtensor_records(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    report = tmp_path_factory.mktemp("dtensor") / "records.json"
    env = {**os.environ, "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(free_port()), "WORLD_SIZE": "2",
           "OMP_NUM_THREADS": "1"}
    ranks = [subprocess.Popen([sys.executable, str(WORKER), str(report), *patch_set_operators()],
                              env={**env, "RANK": str(rank)}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True)
             for rank in range(2)]
    logs = [rank.communicate(timeout=600)[0] for rank in ranks]
    assert all(rank.returncode == 0 for rank in ranks), "\n".join(log[-3000:] for log in logs)
    records = json.loads(report.read_text())
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text(placement_table(records))
    return records


def placement_table(records: list[dict]) -> str:
    """One line per (operator, sample, placements): the collectives it took, or its error."""
    lines = ["# op | sample | shapes | placements | collectives | result"]
    for r in records:
        collectives = ", ".join(f"{k}: {v}" for k, v in sorted(r["collectives"].items())) if "collectives" in r else ""
        outcome = r.get("error") or ("eager's bits" if r["matches"] else f"MISMATCH {r.get('error_after', '')}")
        lines.append(f"{r['op']} | {r['sample']} | {r['shapes']} | {', '.join(r['placements'])} | "
                     f"{collectives or 'none'} | {outcome}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("op", patch_set_operators())
def test_every_dtensor_placement_of_every_tensor_argument_gives_eager_bits_or_no_rule_at_all(
        dtensor_records: list[dict], op: str) -> None:
    records = [r for r in dtensor_records if r["op"] == op]
    assert records, f"no OpInfo sample of {op} was checked"
    mismatches = [r for r in records if "error" not in r and not r["matches"]]
    assert not mismatches, placement_table(mismatches[:20])
    errors = Counter(r["error"] for r in records if "error" in r)
    if len(errors) < len(records):  # the operator has a sharding rule: every placement must then work
        assert not errors, placement_table([r for r in records if "error" in r][:20])
    else:
        assert all("sharding strategy" in error for error in errors), errors
