"""test_conformance.py's broadcast-memory check, run in a process of its own so that its peak memory is its own.

For each operator named on the command line, each OpInfo sample with two tensor arguments or more, and each
of those arguments: that argument (with those of the same last-dimension length, which an operator may need to
match it, such as interp's xp and fp) tiled to about 2 MiB along its last dimension and given a leading
dimension of 1; the others given a leading batch dimension that makes a copy of it to the broadcast shape
128 MiB. The call's peak memory above what the process held before it (VmHWM, reset through
/proc/self/clear_refs) is printed as one JSON record per case, with the bytes of its outputs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch
from conformance_support import as_outputs, opinfo, samples

TILED_BYTES = 2 << 20  # the broadcast argument
COPY_BYTES = 128 << 20  # a copy of it to the broadcast shape
MAX_OUTPUT_BYTES = 256 << 20  # a case whose outputs alone would take more is left out


def broadcast_cases(arguments: list) -> list[tuple[int, list]]:
    """(the broadcast argument's position, the arguments) for each tensor argument of the sample."""
    tensors = [i for i, a in enumerate(arguments) if isinstance(a, torch.Tensor) and a.dim() > 0 and a.numel() > 0]
    if len(tensors) < 2:
        return []
    cases = []
    for i in tensors:
        together = {j for j in tensors if arguments[j].shape[-1] == arguments[i].shape[-1]}
        times = max(1, TILED_BYTES // (arguments[i].numel() * arguments[i].element_size()))
        tiled = [a.repeat(*([1] * (a.dim() - 1)), times) if j in together else a for j, a in enumerate(arguments)]
        batch = max(2, COPY_BYTES // (tiled[i].numel() * tiled[i].element_size()))
        laid = [a.unsqueeze(0) if j in together else
                a.unsqueeze(0).expand(batch, *a.shape).contiguous() if j in tensors else a
                for j, a in enumerate(tiled)]
        cases.append((i, laid))
    return cases


def resident_bytes(field: str) -> int:
    status = Path("/proc/self/status").read_text()
    return int(status.split(f"{field}:", 1)[1].split()[0]) * 1024


def measure(name: str) -> list[dict]:
    records = []
    for number, sample in enumerate(samples(name)):
        for at, arguments in broadcast_cases([sample.input, *sample.args]):
            call = lambda arguments=arguments, kwargs=sample.kwargs: opinfo(name).op(*arguments, **kwargs)  # noqa: E731
            try:
                on_meta = as_outputs(opinfo(name).op(*[a.to("meta") if isinstance(a, torch.Tensor) else a
                                                       for a in arguments], **sample.kwargs))
            except (RuntimeError, TypeError, ValueError):
                continue  # the tiled shapes do not broadcast
            if sum(o.nbytes for o in on_meta) > MAX_OUTPUT_BYTES:
                continue
            first = as_outputs(call())  # the libraries' first allocations, before the measured call
            del first
            Path("/proc/self/clear_refs").write_text("5")
            before = resident_bytes("VmRSS")
            outputs = as_outputs(call())
            growth = resident_bytes("VmHWM") - before
            records.append({"op": name, "sample": number, "broadcast": at,
                            "shapes": [list(a.shape) for a in arguments if isinstance(a, torch.Tensor)],
                            "output_bytes": sum(o.nbytes for o in outputs), "growth_bytes": growth})
            del outputs
    return records


def main() -> None:
    torch.set_num_threads(1)
    print(json.dumps([record for name in sys.argv[1:] for record in measure(name)]))


if __name__ == "__main__":
    main()
