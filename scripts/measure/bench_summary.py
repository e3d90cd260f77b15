"""docs/cbrt.md's performance figures, read from docs/BENCHMARKS.md: the machine, the date and every ratio it quotes.

`make bench` rewrites docs/BENCHMARKS.md on whatever machine runs it; docs/cbrt.md's block between
`<!-- performance:begin -->` and `<!-- performance:end -->` is made from that file alone, so the two cannot
name different machines, dates or figures (test/test_readme.py recomputes the block).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from scripts.layout import REPO_ROOT

BENCHMARKS = REPO_ROOT / "docs" / "BENCHMARKS.md"


@dataclass(frozen=True)
class TargetRow:
    description: str
    sizes: tuple[str, ...]  # "2^16", ...
    worst: float | None
    worst_size: str
    required: float
    met: bool


@dataclass(frozen=True)
class Report:
    cpu: str
    cpus: str
    system: str
    torch: str
    capability: str
    numpy: str
    date: str
    targets: dict[str, TargetRow]
    throughput: dict[tuple[str, str, int], dict[str, float]]  # (dtype, "2^k", threads) -> kernel -> Gelem/s


def table_after(text: str, heading: str) -> list[dict[str, str]]:
    """The rows of the first markdown table under the `## heading...` line, as header -> cell."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(f"## {heading}")), None)
    if start is None:
        raise ValueError(f"docs/BENCHMARKS.md has no '## {heading}' section")
    rows: list[list[str]] = []
    for line in lines[start + 1:]:
        if line.startswith("## "):
            break
        if line.startswith("|"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
        elif rows:
            break
    header, body = rows[0], rows[2:]
    return [dict(zip(header, row, strict=True)) for row in body]


def field(text: str, pattern: str) -> re.Match[str]:
    found = re.search(pattern, text, re.MULTILINE)
    if found is None:
        raise ValueError(f"docs/BENCHMARKS.md: no line matches {pattern!r}")
    return found


def parse(text: str) -> Report:
    machine = field(text, r"^- machine: (.+), (\d+) logical CPUs, \d+ torch threads, (.+)$")
    versions = field(text, r"^- torch (\S+) \(CPU capability picked: (\w+);.*\), numpy (\S+), Python")
    date = field(text, r"^- date: (\S+)$").group(1)
    targets = {}
    for row in table_after(text, "Targets"):
        worst = re.fullmatch(r"([\d.]+)x at (2\^\d+)", row["worst ratio"])
        targets[row["target"]] = TargetRow(
            row["target"], tuple(s.strip() for s in row["sizes"].split(",")), float(worst.group(1)) if worst else None,
            worst.group(2) if worst else "", float(row["required"].removesuffix("x")), row["met"] == "yes")
    throughput = {}
    for row in table_after(text, "Throughput"):
        key = (row.pop("dtype"), row.pop("size"), int(row.pop("threads")))
        throughput[key] = {kernel: float(cell) for kernel, cell in row.items() if cell != "-"}
    return Report(machine.group(1), machine.group(2), machine.group(3), versions.group(1), versions.group(2),
                  versions.group(3), date, targets, throughput)


def span(sizes: list[str], among: tuple[str, ...]) -> str:
    """2^16-2^22 for a run of consecutive sizes of `among`, else the sizes listed."""
    if len(sizes) == 1:
        return sizes[0]
    first = among.index(sizes[0])
    if list(among[first:first + len(sizes)]) == sizes:
        return f"{sizes[0]}-{sizes[-1]}"
    return ", ".join(sizes)


def spread(values: list[float], digits: int = 2) -> str:
    low, high = f"{min(values):.{digits}f}", f"{max(values):.{digits}f}"
    return f"{low}x" if low == high else f"{low}-{high}x"


def sizes_text(sizes: tuple[str, ...]) -> str:
    return sizes[0] if len(sizes) == 1 else f"{sizes[0]} to {sizes[-1]}"


def sizes_listed(sizes: tuple[str, ...]) -> str:
    return " and ".join(sizes) if len(sizes) <= 2 else f"{sizes[0]} to {sizes[-1]}"


def numpy_sentence(report: Report) -> str:
    rows = [report.targets[f"{d} vs numpy.cbrt, 1 thread"] for d in ("float32", "float64")]
    worst = ", ".join(f"{r.worst:.2f}x {r.description.split()[0]} at {r.worst_size}" for r in rows)
    sizes = sizes_text(rows[0].sizes)
    if all(r.worst > 1 for r in rows):
        return f"`torch.cbrt` is faster than `numpy.cbrt` at every size from {sizes} (worst {worst})."
    return f"From {sizes} `torch.cbrt` runs at {worst} the speed of `numpy.cbrt` at worst."


def sleef_sentence(report: Report) -> str:
    """Where the copy itself is not `required` times faster than Sleef, no kernel can be: the sizes split there."""
    fast, bound = [], []
    for dtype in ("float32", "float64"):
        key = next(k for k in report.targets if re.fullmatch(rf"{dtype} vs Sleef \S+ \(.+\), 1 thread", k))
        row = report.targets[key]
        sleef = key.removeprefix(f"{dtype} vs ").removesuffix(", 1 thread")
        cells = [(s, report.throughput[(dtype, s, 1)]) for s in row.sizes]
        ours = [(s, c["torch.cbrt"] / c[sleef], c["copy (bandwidth)"] / c[sleef]) for s, c in cells]
        reachable = [(s, r) for s, r, copy in ours if copy >= row.required]
        beyond = [(s, copy) for s, _, copy in ours if copy < row.required]
        if reachable:
            fast.append(f"{spread([r for _, r in reachable])} ({dtype}, {span([s for s, _ in reachable], row.sizes)})")
        if beyond:
            bound.append(f"{spread([c for _, c in beyond])} ({dtype}, {span([s for s, _ in beyond], row.sizes)})")
    text = f"Against {sleef} `torch.cbrt` runs {' and '.join(fast)}" if fast else f"Against {sleef}"
    if bound:
        text += (f"{';' if fast else ','} at {'the other sizes' if fast else 'every size'} the copy itself runs only "
                 f"{' and '.join(bound)} Sleef's speed, so the {row.required:g}x target is beyond this machine's "
                 "memory there")
    return text + "."


def worst(report: Report, description: str) -> TargetRow:
    return report.targets[description]


def half_sentence(report: Report) -> str:
    bf16, fp16 = (worst(report, f"{d} vs float32 elements/s, 1 thread") for d in ("bfloat16", "float16"))
    return f"bfloat16 runs at {bf16.worst:.2f}x or better of float32's elements/s, float16 at {fp16.worst:.2f}x or better."


def threads_sentence(report: Report) -> str:
    row = worst(report, "float32 vs torch.neg, 2 threads")
    return (f"On 2 threads, at {sizes_listed(row.sizes)} elements, `torch.cbrt` reaches {row.worst:.2f}x `torch.neg` "
            f"or better (worst at {row.worst_size}).")


def compile_sentence(report: Report) -> str:
    rows = [r for k, r in report.targets.items() if k.startswith("torch.compile(torch.cbrt) vs eager")]
    where = sorted({r.worst_size for r in rows}, key=lambda s: int(s.removeprefix("2^")))
    at = f"at {where[0]}, the worst size of every dtype" if len(where) == 1 else f"at each dtype's worst size ({', '.join(where)})"
    return (f"`torch.compile(torch.cbrt)` against eager, both allocating their result, is "
            f"{spread([r.worst for r in rows])} {at}.")


def default_build_sentence(report: Report) -> str:
    """The x86 DEFAULT build's Gelem/s and its ratio to the scalar loop it replaced."""
    parts = []
    for dtype in ("float32", "float64"):
        row = worst(report, f"{dtype} DEFAULT build vs the scalar loop (before Vectorized cbrt)")
        speeds = [report.throughput[(dtype, s, 1)]["torch.cbrt (DEFAULT build)"] for s in row.sizes]
        parts.append((spread(speeds).removesuffix("x"), f"{row.worst:.2f}x"))
    (f32, f32_ratio), (f64, f64_ratio) = parts
    return (f"The x86 DEFAULT build has no fma instructions: its float lanes fuse in double, {f32} Gelem/s for float32, "
            f"{f32_ratio} or more the element-by-element loop it replaces, and its double lanes call `std::fma`, "
            f"{f64} Gelem/s, {f64_ratio} or more that loop (every x86 CPU with fma instructions runs the AVX2 or "
            "AVX512 build; see [CBRT_KERNEL.md](CBRT_KERNEL.md)).")


def composite_sentence(report: Report) -> str:
    row = worst(report, "float32 vs sign(x) * abs(x) ** (1/3), 1 thread")
    return (f"Against `sign(x) * abs(x) ** (1/3)` `torch.cbrt` is {row.worst:.2f}x or better at every size from "
            f"{sizes_text(row.sizes)} (float32).")


def summary(text: str) -> str:
    """docs/cbrt.md's performance block for the report `text` (docs/BENCHMARKS.md)."""
    report = parse(text)
    met = sum(r.met for r in report.targets.values())
    head = (f"The committed run: {report.cpu}, {report.cpus} logical CPUs, {report.system}; torch {report.torch} "
            f"({report.capability} build), numpy {report.numpy}; {report.date}; 1 thread unless said. It met {met} of its "
            f"{len(report.targets)} targets; the targets table gives each one its bandwidth ceiling, the copy's ratio to "
            "the same denominator, which no kernel that reads and writes its tensors once can beat.")
    sentences = [head, numpy_sentence(report), sleef_sentence(report), half_sentence(report),
                 threads_sentence(report), compile_sentence(report), default_build_sentence(report),
                 composite_sentence(report)]
    return wrap(" ".join(sentences)) + "\n"


def wrap(text: str, width: int = 100) -> str:
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return "\n".join([*lines, line])


def summary_of(path: Path = BENCHMARKS) -> str:
    return summary(path.read_text(encoding="utf-8"))
