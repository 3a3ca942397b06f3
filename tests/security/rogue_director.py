"""A rogue "director", as an attacker on the venue's network runs one (issue: trust over
the air, finding 1): it announces ``_euchre-director._tcp`` over mDNS and answers a
table's hello and request to join, approving at once, with a bundle sealed to the
table's key and carrying the rogue's own key. Nobody approves anything.

``--key empty`` announces and says hello with an empty key (what the old tables took
without a word); ``--key own`` with the rogue's own key (what a table pinned to the real
director's fingerprint must refuse). Prints one JSON line when it is ready, and one per
request to join it took.

    python rogue_director.py --address 10.213.5.1 --port 8090 --key empty
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from zeroconf import IPVersion, ServiceInfo, Zeroconf

from table_controller.feed.signing import new_keys
from table_controller.fleet import discovery, sealing


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--address", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--key", choices=("empty", "own"), required=True)
    parser.add_argument("--quiet", action="store_true", help="answer HTTP only, no mDNS")
    args = parser.parse_args()
    _, public_pem = new_keys()
    key = "" if args.key == "empty" else discovery.key_text(public_pem)
    asked: dict[str, bytes] = {}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *a: Any) -> None:
            pass

        def answer(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path == "/api/fleet/hello":
                hello = {"event": "Spring Open", "broker_port": 1883, "key": key}
                return self.answer(200, {**hello, "version": "0.1.0"})
            rid = self.path.rsplit("/", 1)[-1]
            if rid not in asked:
                return self.answer(404, {"problem": "no such request"})
            bundle = {
                "table": "table-9", "name": "Table 9", "username": "table-9",
                "password": "rogue", "broker_port": 1883, "topic": "euchre",
                "event": "Spring Open", "rules": "td-tournament", "options": {},
                "director_key": public_pem.decode(),
            }  # fmt: skip
            sealed = sealing.seal(asked[rid], json.dumps(bundle).encode())
            self.answer(200, {"state": "approved", "sealed": base64.b64encode(sealed).decode()})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            rid = f"r{len(asked) + 1}"
            asked[rid] = base64.b64decode(body["key"])
            print(json.dumps({"asked": rid}), flush=True)
            salt = base64.b64encode(os.urandom(16)).decode()
            self.answer(202, {"request": rid, "code": "1111", "salt": salt})

    server = ThreadingHTTPServer((args.address, args.port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    if args.quiet:
        print(json.dumps({"ready": True, "fingerprint": discovery.key_fingerprint(public_pem)}))
        sys.stdout.flush()
        sys.stdin.read()
        server.shutdown()
        return
    zc = Zeroconf(interfaces=[args.address], ip_version=IPVersion.V4Only)
    props = {"event": "Spring Open", "broker_port": "1883", "version": "0.1.0", "key": key}
    info = ServiceInfo(
        discovery.SERVICE,
        f"Spring Open {args.port}.{discovery.SERVICE}",  # two rogues: two names
        port=args.port,
        properties=props,
        server=f"rogue-director-{args.port}.local.",
        parsed_addresses=[args.address],
    )
    zc.register_service(info)
    print(json.dumps({"ready": True, "fingerprint": discovery.key_fingerprint(public_pem)}))
    sys.stdout.flush()
    sys.stdin.read()  # until the test closes it
    zc.unregister_service(info)
    zc.close()
    server.shutdown()


if __name__ == "__main__":
    main()
