"""The table's side of an update (table/fleet/update_agent.py): real wheels served over HTTP,
installed with pip into a temporary root; the game's phase and the restart injected."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fleet_wheels import make_wheel

from table_controller.fleet import update
from table_controller.fleet.update import Releases
from table_controller.fleet.update_order import between_games
from table_controller.table.fleet.update_agent import UpdateAgent, download

IN_GAME = {"phase": "playing", "hand": 3}
OVER = {"phase": "over", "hand": 9}


class Server:
    """Serves the files of a folder; ``cut`` bytes of each when set (a lost link)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.cut: int | None = None
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                path = server.folder / Path(self.path).name
                if not path.is_file():
                    self.send_error(404)
                    return
                data = path.read_bytes()
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data if server.cut is None else data[: server.cut])

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    s = Server(tmp_path / "served")
    yield s
    s.httpd.shutdown()
    s.httpd.server_close()


class Table:
    """What the agent is given: the game's status, the feed, the restart, a clock."""

    def __init__(self, releases: Releases, running: str, base_url: str, **kw: Any) -> None:
        self.status: dict[str, Any] = dict(OVER)
        self.sent: list[dict[str, Any]] = []
        self.restarts = 0
        self.now = 1000.0

        def restart() -> None:
            self.restarts += 1

        self.agent = UpdateAgent(
            releases, table="table-3", running=running, base_url=base_url,
            send=self.sent.append, status=lambda: self.status, restart=restart,
            clock=lambda: self.now, **kw,
        )  # fmt: skip

    def states(self) -> list[str]:
        return [m["state"] for m in self.sent]


def order(wheel: Path, version: str, *, sha256: str | None = None, n: int = 1) -> dict[str, Any]:
    return {
        "kind": "update", "table": "table-3", "id": f"u-{n}", "at": 1000.0,
        "version": version, "url": f"/fleet/release/{wheel.name}",
        "sha256": sha256 or update.sha256_of(wheel),
    }  # fmt: skip


def installed_first(tmp_path: Path) -> Releases:
    releases = Releases(tmp_path / "root")
    first = make_wheel(tmp_path / "first", "1.0")
    update.prepare(releases, first, sha256=update.sha256_of(first))
    releases.switch("1.0")
    return releases


def test_between_games() -> None:
    assert between_games({"phase": "over", "hand": 7})
    assert between_games({"phase": "choosing_dealer", "hand": None})
    assert between_games({})
    assert not between_games({"phase": "choosing_dealer", "hand": 4})  # a misdeal's redeal
    assert not between_games(IN_GAME)
    assert not between_games({"phase": "dealing", "hand": None})


@pytest.mark.slow(budget=60)
def test_an_order_during_a_game_waits_then_switches_and_is_confirmed(
    tmp_path: Path, server: Server
) -> None:
    releases = installed_first(tmp_path)
    wheel = make_wheel(server.folder, "1.1")
    table = Table(releases, "1.0", server.url)
    table.status = dict(IN_GAME)
    table.agent.take(order(wheel, "1.1"))
    for _ in range(3):
        table.agent.step()
    assert table.states() == ["waiting"]  # said once
    assert releases.installed() == ["1.0"] and table.restarts == 0

    table.status = dict(OVER)
    table.agent.step()
    assert table.states() == ["waiting", "downloading", "installing", "restarting"]
    assert table.restarts == 1
    assert releases.version_of(releases.current) == "1.1"
    assert releases.version_of(releases.previous) == "1.0"

    # The restart: the unit's check, then the new release's agent, which connects.
    assert update.boot(releases, now=1001.0) is not None
    after = Table(releases, "1.1", server.url)
    after.agent.connected()
    after.agent.step()
    assert after.sent[-1]["state"] == "running" and after.sent[-1]["id"] == "u-1"
    assert update.status(releases)["pending"] is None


def test_an_order_for_the_version_running_is_answered_at_once(tmp_path: Path) -> None:
    table = Table(Releases(tmp_path), "1.1", "http://127.0.0.1:9")
    table.agent.take({"id": "u-1", "version": "1.1.0", "url": "/x", "sha256": "0"})
    assert table.states() == ["running"]
    table.agent.step()
    assert table.states() == ["running"]


def test_a_download_cut_short_is_refused_and_nothing_changes(
    tmp_path: Path, server: Server
) -> None:
    releases = installed_first(tmp_path)
    wheel = make_wheel(server.folder, "1.1")
    server.cut = 200
    table = Table(releases, "1.0", server.url)
    table.agent.take(order(wheel, "1.1"))
    table.agent.step()
    assert table.states() == ["downloading", "refused"]
    problem = table.sent[-1]["problem"]
    assert "keeps its version" in problem and "run the update again" in problem
    assert releases.version_of(releases.current) == "1.0" and table.restarts == 0
    assert list((releases.root / "downloads").iterdir()) == []  # no half file left
    table.agent.step()
    assert table.states() == ["downloading", "refused"]  # refused once, not again and again


def test_a_wheel_that_is_not_the_one_signed_is_refused(tmp_path: Path, server: Server) -> None:
    releases = installed_first(tmp_path)
    wheel = make_wheel(server.folder, "1.1")
    table = Table(releases, "1.0", server.url)
    table.agent.take(order(wheel, "1.1", sha256="ab" * 32))
    table.agent.step()
    assert table.states() == ["downloading", "installing", "refused"]
    assert "not the one the director sent" in table.sent[-1]["problem"]
    assert releases.installed() == ["1.0"]


def test_a_release_needing_a_missing_package_is_refused_in_words(
    tmp_path: Path, server: Server
) -> None:
    releases = installed_first(tmp_path)
    wheel = make_wheel(server.folder, "1.1", requires=["camera-magic>=2"])
    table = Table(releases, "1.0", server.url)
    table.agent.take(order(wheel, "1.1"))
    table.agent.step()
    assert table.states()[-1] == "refused"
    assert "camera-magic>=2 (not installed)" in table.sent[-1]["problem"]
    assert releases.version_of(releases.current) == "1.0"


def test_a_download_over_the_size_cap_is_refused(tmp_path: Path, server: Server) -> None:
    wheel = make_wheel(server.folder, "1.1")
    with pytest.raises(update.UpdateRefused, match="over the 0 MB"):
        download(f"{server.url}/fleet/release/{wheel.name}", tmp_path, limit=100)
    with pytest.raises(update.UpdateRefused, match="not http"):
        download(f"file://{wheel}", tmp_path)
    with pytest.raises(update.UpdateRefused, match="does not name a wheel"):
        download(f"{server.url}/../../etc/passwd", tmp_path)


def test_a_release_that_never_reaches_the_director_goes_back(tmp_path: Path) -> None:
    releases = Releases(tmp_path)
    for v in ("1.0", "1.1"):
        (releases.folder / v / "table_controller").mkdir(parents=True)
    releases.switch("1.0")
    update.switch_for_restart(releases, "1.1", order="u-4", now=1000.0)
    update.boot(releases, now=1000.0)
    table = Table(releases, "1.1", "http://127.0.0.1:9", confirm_within=300.0)
    table.now = 1200.0
    table.agent.step()
    assert table.restarts == 0
    table.now = 1301.0
    table.agent.step()
    assert table.restarts == 1  # restarted: the unit's check goes back
    assert "went back to 1.0" in (update.boot(releases, now=1302.0) or "")

    back = Table(releases, "1.0", "http://127.0.0.1:9")
    back.agent.connected()
    back.agent.step()
    assert back.states() == ["rolled-back"]
    assert back.sent[0]["version"] == "1.1" and back.sent[0]["id"] == "u-4"
    back.agent.connected()
    back.agent.step()
    assert back.states() == ["rolled-back"]  # told once


def test_a_damaged_record_of_orders_refuses_every_order(tmp_path: Path) -> None:
    """The ids taken are kept on disk; a file that cannot be read refuses, in words,
    rather than forgetting what was taken."""
    from table_controller.feed.signing import new_keys
    from table_controller.fleet.orders import sign_order

    private, public = new_keys()
    releases = Releases(tmp_path)
    table = Table(releases, "1.0", "http://127.0.0.1:9", director_key=public)
    body = {
        "kind": "update", "table": "table-3", "id": "u-9", "at": table.now,
        "expires": table.now + 600, "downgrade": False, "version": "1.1",
        "url": "/fleet/release/table_controller-1.1-py3-none-any.whl", "sha256": "ab" * 32,
    }  # fmt: skip
    (tmp_path / update.TAKEN).write_text("{not json")
    table.agent.on_order("commands", sign_order(body, private))
    assert table.states() == ["refused"]
    assert "cannot be read" in table.sent[-1]["problem"] and "sudo rm" in table.sent[-1]["problem"]
    (tmp_path / update.TAKEN).unlink()
    table.agent.on_order("commands", sign_order(body, private))
    assert table.states() == ["refused"]  # taken: held for the step, said nothing yet
    assert update.TakenOrders(tmp_path).ids() == {"u-9"}
    again = Table(releases, "1.0", "http://127.0.0.1:9", director_key=public)  # restarted
    again.agent.on_order("commands", sign_order(body, private))
    assert again.states() == ["refused"] and "taken already" in again.sent[-1]["problem"]


def test_the_wheel_comes_over_https_checked_against_the_events_authority(
    tmp_path: Path, server: Server
) -> None:
    """A fleet's table fetches the release from the director over HTTPS, checked against
    the authority its signed bundle gave it: a machine with another certificate is not
    the director, and nothing is installed (before: plain HTTP, no check but the sha256)."""
    import ssl

    from table_controller.feed.tls import client_context, make_certs

    ours = make_certs(tmp_path / "event-tls", ["127.0.0.1"])
    theirs = make_certs(tmp_path / "other-tls", ["127.0.0.1"])
    served = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    served.load_cert_chain(str(ours.cert), str(ours.key))
    server.httpd.socket = served.wrap_socket(server.httpd.socket, server_side=True)
    url = server.url.replace("http://", "https://")
    wheel = make_wheel(server.folder, "1.1")
    event = client_context(ca_pem=ours.ca_cert.read_text())
    got = download(f"{url}/{wheel.name}", tmp_path / "downloads", context=event)
    assert got.read_bytes() == wheel.read_bytes()
    stranger = client_context(ca_pem=theirs.ca_cert.read_text())
    with pytest.raises(update.UpdateRefused, match="could not be fetched from the director"):
        download(f"{url}/{wheel.name}", tmp_path / "elsewhere", context=stranger)
    assert not any((tmp_path / "elsewhere").iterdir())
