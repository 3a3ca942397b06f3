# The compiled solver's functions (_solver.c); search.py wraps them.
from collections.abc import Callable

def solve(
    config: bytes,
    h0: int,
    h1: int,
    h2: int,
    h3: int,
    leader: int,
    plays: bytes,
    alpha: int,
    beta: int,
    clock: Callable[[], float],
    deadline: float,
    /,
) -> int | None: ...
def values(
    config: bytes,
    h0: int,
    h1: int,
    h2: int,
    h3: int,
    leader: int,
    plays: bytes,
    clock: Callable[[], float],
    deadline: float,
    /,
) -> bytes | None: ...
