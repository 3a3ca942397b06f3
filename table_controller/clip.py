"""Values shown in error messages, cut short.

An error names the value that was wrong so a person can find it, but a value read from a
file or a request may be megabytes long: echoing it whole buries the message (and fills
logs). ``clip`` shows at most about 80 characters and says how long the value was.
"""

from __future__ import annotations

LIMIT = 80


def clip(value: object, limit: int = LIMIT) -> str:
    """``repr(value)``, cut to ``limit`` characters with an ellipsis and the full length."""
    try:
        text = repr(value)
    except RecursionError:  # a structure nested past Python's stack
        return "(a value nested too deeply to show)"
    if len(text) <= limit:
        return text
    size = len(value) if isinstance(value, str) else len(text)
    return f"{text[:limit]}… ({size:,} characters)"


def clip_text(text: str, limit: int = LIMIT) -> str:
    """``text`` itself (no quotes), cut like ``clip``."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"
