"""tomllib on Python 3.11+, else the tomli that pip vendors (GPU machines may run 3.10 with no network)."""

from __future__ import annotations

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    from pip._vendor import tomli as tomllib  # type: ignore[no-redef]

loads = tomllib.loads
TOMLDecodeError = tomllib.TOMLDecodeError
