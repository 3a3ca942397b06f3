"""One way for devices and sources to be used in a ``with`` block: they close at its end."""

from __future__ import annotations

from types import TracebackType
from typing import Self


class Closing:
    """A thing with ``close()`` that ``with`` closes, however the block ends."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
