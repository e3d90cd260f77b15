"""The stacks of topics.toml, in order, as a JSON list: the source-build workflow's matrix, so that it names none."""

from __future__ import annotations

import json

from scripts.patchset.fragments import load_sources


def main() -> None:
    print(json.dumps(list(load_sources().stacks)))


if __name__ == "__main__":
    main()
