"""One rank of test_conformance.py's DTensor check: every placement of every tensor argument, against eager.

Run as two processes of a gloo group (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT in the environment), with the
operators' names as arguments; rank 0 writes one JSON record per (operator, sample, placements) to the report
path. Every rank builds the same samples (the same seed), so distribute_tensor shards identical data.
"""

from __future__ import annotations

import itertools
import json
import sys

import torch
import torch.distributed as dist
from conformance_support import as_outputs, opinfo, same_bits, samples
from torch.distributed.tensor import DeviceMesh, DTensor, Replicate, Shard, distribute_tensor
from torch.distributed.tensor.debug import CommDebugMode

# Samples of more tensors, dimensions or elements would multiply the placements past what the check needs.
MAX_TENSORS, MAX_DIM, MAX_NUMEL, MAX_SAMPLES = 3, 3, 4096, 12


def placements_of(tensor: torch.Tensor) -> list:
    return [Replicate()] + [Shard(dim) for dim in range(tensor.dim())]


def check(name: str, mesh: DeviceMesh) -> list[dict]:
    op = opinfo(name)
    tensor_samples = [s for s in samples(name) if isinstance(s.input, torch.Tensor)]
    records = []
    for index, sample in enumerate(tensor_samples[:MAX_SAMPLES]):
        arguments = [sample.input, *sample.args]
        tensor_at = [i for i, a in enumerate(arguments) if isinstance(a, torch.Tensor)]
        tensors = [arguments[i] for i in tensor_at]
        if len(tensors) > MAX_TENSORS or any(t.dim() > MAX_DIM or t.numel() > MAX_NUMEL for t in tensors):
            continue
        expected = as_outputs(op.op(*arguments, **sample.kwargs))
        for placements in itertools.product(*(placements_of(t) for t in tensors)):
            distributed = list(arguments)
            for i, tensor, placement in zip(tensor_at, tensors, placements, strict=True):
                distributed[i] = distribute_tensor(tensor, mesh, [placement])
            record = {"op": op.name, "sample": index, "shapes": [list(t.shape) for t in tensors],
                      "placements": [str(p) for p in placements]}
            with CommDebugMode() as comm:
                try:
                    result = as_outputs(op.op(*distributed, **sample.kwargs))
                except Exception as error:  # noqa: BLE001 - every error is recorded, the test judges it
                    record["error"] = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
            record["collectives"] = {str(op): count for op, count in comm.get_comm_counts().items() if count}
            if "error" not in record:
                record["result_placements"] = [str(r.placements) if isinstance(r, DTensor) else "-" for r in result]
                try:
                    full = [r.full_tensor() if isinstance(r, DTensor) else r for r in result]
                    record["matches"] = len(full) == len(expected) and all(
                        same_bits(ours, theirs, nan_sign=True) for ours, theirs in zip(full, expected, strict=True))
                except Exception as error:  # noqa: BLE001 - a local result of the wrong shape fails here
                    record["matches"] = False
                    record["error_after"] = f"{type(error).__name__}: {str(error).splitlines()[0]}"
            records.append(record)
    return records


def main(report: str, names: list[str]) -> None:
    dist.init_process_group("gloo")
    try:
        mesh = DeviceMesh("cpu", list(range(dist.get_world_size())))
        records = [record for name in names for record in check(name, mesh)]
        if dist.get_rank() == 0:
            with open(report, "w") as out:
                json.dump(records, out)
    finally:
        dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
