"""Every bad input we try on torch.cbrt and the error it gets, as docs/cbrt.md's markdown table."""

from __future__ import annotations

from collections.abc import Callable

import torch


def cbrt_into_shifted_self(base: torch.Tensor) -> object:
    return torch.cbrt(base[:3], out=base[1:])


def uncoalesced_coo() -> torch.Tensor:
    with torch.sparse.check_sparse_tensor_invariants(enable=True):
        return torch.sparse_coo_tensor([[0, 0]], [1.0, 2.0], (2,))


BAD_INPUTS: list[tuple[str, Callable[[], object]]] = [
    ("complex input", lambda: torch.cbrt(torch.ones(2, dtype=torch.cfloat))),
    ("complex input on the meta device", lambda: torch.cbrt(torch.ones(2, dtype=torch.cdouble, device="meta"))),
    ("in-place on an integer tensor", lambda: torch.ones(2, dtype=torch.int64).cbrt_()),
    ("in-place on a bool tensor", lambda: torch.ones(2, dtype=torch.bool).cbrt_()),
    ("`out=` of integer dtype", lambda: torch.cbrt(torch.ones(2), out=torch.empty(2, dtype=torch.int32))),
    ("`out=` on another device", lambda: torch.cbrt(torch.ones(2), out=torch.empty(2, device="meta"))),
    ("in-place on an expanded (overlapping) tensor", lambda: torch.ones(1).expand(4).cbrt_()),
    ("`out=` overlapping the input partially", lambda: cbrt_into_shifted_self(torch.arange(4.0))),
    ("a non-tensor argument", lambda: torch.cbrt("8")),
    ("a Python number", lambda: torch.cbrt(8.0)),
    ("an extra positional argument", lambda: torch.cbrt(torch.ones(1), torch.ones(1))),
    ("an unknown keyword", lambda: torch.cbrt(torch.ones(1), alpha=2)),
    ("an argument to `Tensor.cbrt`", lambda: torch.ones(1).cbrt(2)),
    ("uncoalesced sparse COO in place", lambda: uncoalesced_coo().cbrt_()),
]


def outcome(call: Callable[[], object]) -> str:
    try:
        call()
    except Exception as error:  # noqa: BLE001 - the table reports whatever is raised
        first_line = str(error).strip().splitlines()[0]
        return f"`{type(error).__name__}`: {first_line}"
    return "no error"


def escape_pipes(text: str) -> str:
    return text.replace("|", "\\|")


def markdown_table() -> str:
    rows = ["| bad input | error |", "|---|---|"]
    rows += [f"| {name} | {escape_pipes(outcome(call))} |" for name, call in BAD_INPUTS]
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    print(markdown_table(), end="")
