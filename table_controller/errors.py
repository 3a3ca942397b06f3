"""The root of every error the package raises on purpose.

Each module keeps its own error class, named for what went wrong there (a card the rules
refuse, a config line, an unplugged cube), and each of them is a ``TableControllerError``:
a caller that runs the table (the command line, a service) can tell "the table said no,
in words" from a bug with one ``except``. Each also keeps the built-in base it had
(``ValueError``, ``OSError``...), so code that caught those still does.
"""

from __future__ import annotations


class TableControllerError(Exception):
    """An error the table explains in words: what went wrong and what to do."""


__all__ = ["TableControllerError"]
