"""Fill docs/cbrt.md's generated blocks between their `<!-- name:begin -->` / `<!-- name:end -->` markers: the bad-input
table (from the operator), the accuracy table (from a saved `scripts.measure.accuracy` table) and the performance
figures (from docs/BENCHMARKS.md)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from scripts.layout import REPO_ROOT
from scripts.measure.bench_summary import BENCHMARKS, summary_of

PAGE = REPO_ROOT / "docs" / "cbrt.md"  # the operator page whose tables these are


def section_pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- {name}:begin -->\n)(.*?)(<!-- {name}:end -->)", re.DOTALL)


def read_section(text: str, name: str) -> str:
    found = section_pattern(name).search(text)
    if found is None:
        raise SystemExit(f"{PAGE.relative_to(REPO_ROOT)} has no <!-- {name}:begin/end --> markers")
    return found.group(2)


def replace_section(text: str, name: str, body: str) -> str:
    read_section(text, name)
    return section_pattern(name).sub(lambda m: m.group(1) + body + m.group(3), text)


def update_performance(readme: Path = PAGE, benchmarks: Path = BENCHMARKS) -> None:
    """The performance block from docs/BENCHMARKS.md alone: `make bench` calls this after writing the report."""
    readme.write_text(replace_section(readme.read_text(), "performance", summary_of(benchmarks)))


def main() -> None:
    from scripts.measure.bad_inputs import markdown_table

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--accuracy", type=Path, help="markdown table printed by `python -m scripts.measure.accuracy`")
    args = parser.parse_args()
    text = replace_section(PAGE.read_text(), "bad-inputs", markdown_table())
    text = replace_section(text, "performance", summary_of(BENCHMARKS))
    if args.accuracy:
        text = replace_section(text, "accuracy", args.accuracy.read_text())
    PAGE.write_text(text)
    print(f"{PAGE.relative_to(REPO_ROOT)}: tables and performance figures updated")


if __name__ == "__main__":
    main()
