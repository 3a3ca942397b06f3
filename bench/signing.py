"""The CPU cost of a table's signature: signing one message at the table, checking it at
the director (feed/table_signing.py), against the JSON of the message alone; and of a
picture's (feed/picture_signing.py), against the SHA-256 of its bytes alone.

Run it as ``.venv/bin/python bench/signing.py [--messages 5000]``. What is measured:
``time.process_time`` (this process's CPU time, not the wall clock) over many messages,
divided by their number; each a real event message as a table sends it (a card played,
its outputs), a real heartbeat and a real answer to a ruling (each with its place in the
table's order, as signed now), signed with a real Ed25519 key by the ``cryptography``
package. Signing includes building the canonical bytes (a JSON round trip and a sorted
dump); checking includes the same, on the payload as the director parsed it. A picture
is random bytes of an evidence picture's size (30 KB) and of the largest the director
takes (1 MB): hashing does not depend on what the bytes show. Signing it includes its
SHA-256 and the record's canonical bytes; checking, taking the signature off first.
Nothing is simulated but the game: the message's fields are fixed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sysinfo import cpu_model, version

from table_controller.feed import messages
from table_controller.feed.picture_signing import check_picture, sign_picture
from table_controller.feed.table_order import Place, placed
from table_controller.feed.table_signing import (
    check_message,
    load_private,
    load_public,
    new_table_key,
    sign_message,
)


def per_message(n: int, work: Callable[[], object]) -> float:
    """CPU microseconds per call of ``work``, over ``n`` calls (after a few to warm up)."""
    for _ in range(min(n, 50)):
        work()
    start = time.process_time()
    for _ in range(n):
        work()
    return (time.process_time() - start) / n * 1e6


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench/signing.py")
    ap.add_argument("--messages", type=int, default=5000, help="messages per figure")
    args = ap.parse_args(argv)
    pair = new_table_key()
    private = load_private(pair.private_pem)
    public = load_public(pair.public_pem, table="table-1")
    event = messages.event_message(
        table="table-1", game=3, seq=127, at=1_767_000_000.123, source="camera",
        input_event={"event": "card_played", "seat": "N", "card": "JH"},
        outputs=[{"event": "trick_won", "seat": "N", "trick": 4}], hand=6, evidence=True,
    )  # fmt: skip
    place = Place(boot=1_767_000_000, link=1, n=1234)
    status = messages.status_message(
        table="table-1", at=1_767_000_000.5, every=10.0, game=3, hand=6, phase="playing",
        scores=(7, 5), players={"N": "Ann", "E": "Bo", "S": "Cy", "W": "Di"}, faults=[],
        backlog=0, name="Table 1",
        fleet={"version": "0.1.0", "devices": {"camera": "ok", "lights": "ok", "cube": "ok"},
               "disk_free_mb": 12000, "config_seq": 2},
    )  # fmt: skip
    status = placed(status, place)
    ack = placed(
        messages.ack_message(table="table-1", ruling_id="5f0c" * 8, ok=True, problem=None,
                             at=1_767_000_001.5),
        place,
    )  # fmt: skip
    print(
        f"CPU: {cpu_model()} ({platform.machine()}, {os.cpu_count()} logical CPUs); "
        f"Python {platform.python_version()}, cryptography {version('cryptography')}"
    )
    print(f"{args.messages} messages a figure, CPU time (time.process_time) per message:")
    for kind, payload in (("events", event), ("status", status), ("acks", ack)):
        signed = sign_message(kind, payload, private)
        wire = json.dumps(signed)
        size = len(json.dumps(payload))
        parsed = json.loads(wire)
        assert check_message(kind, parsed, public, table="table-1").ok
        plain = per_message(args.messages, partial(json.dumps, payload))
        sign = per_message(args.messages, partial(sign_message, kind, payload, private))
        check = per_message(
            args.messages, partial(check_message, kind, parsed, public, table="table-1")
        )
        print(
            f"  {kind:7s} ({size} bytes, {len(wire) - size} more signed): "
            f"sign {sign:.0f} us, verify {check:.0f} us (its JSON alone {plain:.0f} us)"
        )
    for size in (30 * 1024, 1024 * 1024):
        picture = os.urandom(size)
        wire = sign_picture("evidence", "table-1", 3, 127, picture, private)
        assert check_picture("evidence", "table-1", 3, 127, wire, public).verdict.ok
        n = max(50, args.messages // (20 if size > 100_000 else 1))
        digest = per_message(n, partial(hashlib.sha256, picture))
        sign = per_message(
            n, partial(sign_picture, "evidence", "table-1", 3, 127, picture, private)
        )
        check = per_message(n, partial(check_picture, "evidence", "table-1", 3, 127, wire, public))
        print(
            f"  picture ({size // 1024} KB, {len(wire) - size} more signed; {n} of them): "
            f"sign {sign:.0f} us, verify {check:.0f} us (its SHA-256 alone {digest:.0f} us)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
