"""A table plays on at the address it reached the director by, even where the director's
certificate does not name that address.

Found while making the Pi in a box join a director (tests/box/test_box_fleet.py): the box
reaches this machine at 10.0.2.2 (QEMU's user network), an address the director's
certificate cannot name, since the director's machine does not have it. A table joined
at such an address had its feed refused by the broker's name check, "its TLS
certificate was refused (IP address mismatch ...)", and no game reached the dashboard
(this test, before the fix). A venue meets the same wherever the address a table is
given is not one the laptop had when the director started: a router's name for it
(``laptop.lan``), a port forwarded through a NAT, a lease renewed since.

A fleet's table checks the broker and the dashboard against the event's own authority,
from the bundle the director signed; that authority issues the director's certificates
and nothing else (its key never leaves the event's folder), so its signature is what
says the director, not the address. Here the director is ``director start`` on this
machine, and the table is given 127.0.0.2 (loopback, so it reaches the director, but not
an address of the certificate's).
"""

from __future__ import annotations

import dataclasses
import socket
import ssl
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from mosquitto import free_port
from test_director_start import joined_and_approved, up
from test_director_web import log_in
from waiting import wait_until

from table_controller.event_log import EventLog
from table_controller.feed.publisher import Publisher, settings_from_config
from table_controller.feed.tls import client_context, make_certs
from table_controller.fleet import discovery
from table_controller.table.config import TableConfig, parse_config, to_toml
from table_controller.table.fleet.membership import Membership
from table_controller.table.fleet.settings import build

REACHED = "127.0.0.2"  # reaches this machine; not an address the certificate names
GUARD = 120.0  # only against a hang


def local_config(base: Path) -> TableConfig:
    data = {
        "table": {"gpio": "mock"},
        "camera": {"source": "synthetic"},
        "cube": {"port": "none"},
        "web": {"host": "127.0.0.1", "port": 0},
        "fleet": {"folder": "fleet"},
    }
    return parse_config(data, base, "<test>")


def joined_at(url: str, web: int, folder: Path, cookie: str, tls: ssl.SSLContext) -> Membership:
    """The table joins the director at REACHED, approved as the Fleet page approves."""
    found = discovery.parse_director(f"{REACHED}:{web}")
    return joined_and_approved(folder, found, url, cookie, tls, "Table 3")


@pytest.mark.slow(budget=60)
def test_a_table_plays_on_at_the_address_it_reached_the_director_by(tmp_path: Path) -> None:
    folder = tmp_path / "spring"
    web, broker = free_port(), free_port()
    director, password, url, tls = up(folder, web, broker)
    try:
        # The premise: the certificate does not name REACHED (a name check refuses it).
        with (
            socket.create_connection((REACHED, broker), timeout=30) as raw,
            pytest.raises(ssl.SSLCertVerificationError, match="mismatch"),
        ):
            tls.wrap_socket(raw, server_hostname=REACHED)

        cookie = log_in(url, "director", password, tls)
        member = joined_at(url, web, tmp_path / "table" / "fleet", cookie, tls)
        assert (member.director_host, member.broker_port) == (REACHED, broker)

        # The table's feed, as the fleet's table runs it: the broker at REACHED, checked
        # against the event's authority from the bundle: it logs in with its password.
        config = build(local_config(tmp_path / "table"), member, None)
        assert config.feed.broker == REACHED and config.feed.tls_ca is not None
        settings, problem = settings_from_config(config)
        assert problem is None
        log = tmp_path / "table" / "t.sqlite"
        EventLog(log, table="Table 3").close()
        feed = Publisher(settings, log)
        feed.start()
        try:
            wait_until(
                f"the table's feed logged in at {REACHED}",
                lambda: feed.connected_event.is_set() or "refused" in (feed.problem or ""),
                GUARD,
            )
            assert feed.connected_event.is_set(), feed.problem
        finally:
            feed.stop()

        # The dashboard at REACHED (where an update's wheel comes from): taken too.
        context = client_context(ca_pem=member.ca, check_name=False)
        with urllib.request.urlopen(f"https://{REACHED}:{web}/", timeout=30, context=context):
            pass

        # The authority is still checked: a machine with another one is not the director,
        # at REACHED or anywhere (the same settings, another event's ca.crt).
        other = make_certs(tmp_path / "other", [REACHED]).ca_cert
        stranger = Publisher(dataclasses.replace(settings, tls_ca=other), log)
        stranger.start()
        try:
            wait_until(
                "another authority refused",
                lambda: "refused" in (stranger.problem or ""),
                GUARD,
            )
            assert "TLS certificate was refused" in (stranger.problem or "")
            assert not stranger.connected_event.is_set()
        finally:
            stranger.stop()
        with pytest.raises(urllib.error.URLError, match="CERTIFICATE_VERIFY_FAILED"):
            urllib.request.urlopen(
                f"https://{REACHED}:{web}/",
                timeout=30,
                context=client_context(other, check_name=False),
            )
    finally:
        assert director.interrupt() == 0, "".join(director.said)


def test_only_a_fleets_table_leaves_the_name_unchecked(tmp_path: Path) -> None:
    """A club's own [feed] tls_ca (`feed tls-certs`) keeps the name check: its authority
    is the club's, and may sign more than the broker. A fleet's table whose director
    gave no authority (run --insecure) has no TLS to check at all. Not a key of the file:
    a config written back does not carry it."""
    club = parse_config(
        {
            "table": {"name": "Table 1", "gpio": "mock"},
            "camera": {"source": "synthetic"},
            "cube": {"port": "none"},
            "feed": {"enabled": True, "broker": "broker.lan", "tls_ca": "ca.crt"},
        },
        tmp_path,
        "<test>",
    )
    assert club.feed.tls_check_name and settings_from_config(club)[0].tls_check_name
    assert "tls_check_name" not in to_toml(club)

    authority = make_certs(tmp_path / "event", ["director.lan"]).ca_cert.read_text()
    member = Membership(
        table="table-3", name="Table 3", username="table-3", password="secret",
        broker_port=8883, topic="euchre", event="Spring Open", rules="td-tournament",
        director_key="PEM", director_host="laptop.lan", director_port=8090, ca=authority,
    )  # fmt: skip
    fleet = build(local_config(tmp_path), member, None)
    assert (fleet.feed.broker, fleet.feed.tls_check_name) == ("laptop.lan", False)
    assert fleet.feed.tls_ca == tmp_path / "fleet" / "director-ca.crt"
    assert "tls_check_name" not in to_toml(fleet)
    plain = build(local_config(tmp_path), dataclasses.replace(member, ca=""), None)
    assert plain.feed.tls_ca is None and plain.feed.tls_check_name
