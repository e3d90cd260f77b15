"""Source text of a file the wheel ships: the install-time guard around its headers taken off.

PyTorch's build wraps every header it installs into `torch/include` in a guard that the source tree
does not have: a first line `#if !defined(TORCH_STABLE_ONLY) && !defined(TORCH_TARGET_VERSION)` and
an `#else` / `#error` / `#endif` tail, so that code built against the stable ABI cannot include them.
Diffs, anchors and checksums are about PyTorch's source, so the base tree and the pin see the text
with the guard taken off exactly as it was put on; the venv keeps its installed (guarded) headers.

(Files the build generates or configures, rather than wraps, have no source text at all: they are
left out of the wheel-to-upstream mapping in scripts/layout.py.)
"""

from __future__ import annotations

GUARD_OPEN = "#if !defined(TORCH_STABLE_ONLY) && !defined(TORCH_TARGET_VERSION)\n"
GUARD_CLOSE = (
    "\n#else\n"
    '#error "This file should not be included when either TORCH_STABLE_ONLY or '
    'TORCH_TARGET_VERSION is defined."\n'
    "#endif  // !defined(TORCH_STABLE_ONLY) && !defined(TORCH_TARGET_VERSION)\n"
)
# Macros only the guard names: a file's first or last lines naming them and not being the exact
# guard mean a guard this module does not know how to take off, never source to pass through.
GUARD_MACROS = ("TORCH_STABLE_ONLY", "TORCH_TARGET_VERSION")
GUARD_TAIL_LINES = GUARD_CLOSE.count("\n")


class InstallGuardError(RuntimeError):
    """A shipped file carries a partial or altered install-time guard."""


def add_install_guard(source: str) -> str:
    """The header as the wheel installs it."""
    return GUARD_OPEN + source + GUARD_CLOSE


def has_install_guard(text: str) -> bool:
    return text.startswith(GUARD_OPEN) and text.endswith(GUARD_CLOSE)


def _names_guard_macro(lines: list[str]) -> bool:
    return any(macro in line for line in lines for macro in GUARD_MACROS)


def strip_install_guard(text: str, path: str) -> str:
    """The source text of `path`: the guard taken off, or the text itself when it has none.

    The guard's close starts with a newline of its own, so a source that ends with a newline
    shows a blank line before `#else`, and one without a final newline gets none: taking the close
    off restores both exactly.
    """
    if has_install_guard(text):
        return text[len(GUARD_OPEN) : -len(GUARD_CLOSE)]
    lines = text.splitlines()
    opens, closes = text.startswith(GUARD_OPEN), text.endswith(GUARD_CLOSE)
    if opens or closes or _names_guard_macro(lines[:1] + lines[-GUARD_TAIL_LINES:]):
        found = "opens but does not close" if opens else "closes but does not open" if closes else "differs from"
        raise InstallGuardError(
            f"{path}: its install-time guard {found} the one the wheel puts on every header "
            f"(first line {GUARD_OPEN.strip()!r}, last line {GUARD_CLOSE.splitlines()[-1]!r}); "
            "the wheel's install step changed: update scripts/patchset/wheel_source.py"
        )
    return text


def source_bytes(content: bytes, path: str) -> bytes:
    """`strip_install_guard` on a file's bytes; non-UTF-8 files cannot hold the guard and pass as they are."""
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        return content
    return strip_install_guard(text, path).encode("utf-8")
