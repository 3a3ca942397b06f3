"""The table's membership (table/fleet/membership.py): kept in three files readable by their
owner only, written whole or not at all; one that cannot be read is an error in words."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from table_controller.table.fleet import membership
from table_controller.table.fleet.membership import Membership, MembershipError


def sample() -> Membership:
    return Membership(
        table="table-7",
        name="Table 7",
        username="table-7",
        password="s3cret-password",
        broker_port=1883,
        topic="euchre",
        event="Spring Open",
        rules="td-tournament",
        director_key="-----BEGIN PUBLIC KEY-----\nabc\n-----END PUBLIC KEY-----\n",
        director_host="10.0.0.2",
        director_port=8090,
        options={"stick_the_dealer": True},
    )


def test_saved_and_loaded_the_same_with_files_0600(tmp_path: Path) -> None:
    folder = tmp_path / "fleet"
    assert membership.load(folder) is None
    membership.save(folder, sample())
    assert membership.load(folder) == sample()
    names = sorted(p.name for p in folder.iterdir())
    assert names == ["broker.password", "director.pub", "membership.json"]  # no temp files
    for p in folder.iterdir():
        assert stat.S_IMODE(p.stat().st_mode) == 0o600, p
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert "s3cret" not in (folder / "membership.json").read_text()


def test_saved_again_replaces_the_old(tmp_path: Path) -> None:
    membership.save(tmp_path, sample())
    new = Membership(**{**sample().__dict__, "password": "another"})
    membership.save(tmp_path, new)
    assert membership.load(tmp_path) == new


@pytest.mark.parametrize(
    "damage",
    [
        lambda f: (f / "membership.json").write_text("{not json"),
        lambda f: (f / "membership.json").write_text("[1, 2]"),
        lambda f: (f / "membership.json").write_text(json.dumps({"table": "table-7"})),
        lambda f: (f / "broker.password").unlink(),
        lambda f: (f / "director.pub").unlink(),
        lambda f: (f / "membership.json").write_bytes(b"\xff\xfe"),
    ],
)
def test_a_damaged_membership_is_an_error_in_words_and_kept(tmp_path: Path, damage) -> None:  # type: ignore[no-untyped-def]
    membership.save(tmp_path, sample())
    damage(tmp_path)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    with pytest.raises(MembershipError) as refused:
        membership.load(tmp_path)
    words = str(refused.value)
    assert "remove this table" in words and str(tmp_path) in words
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_a_bundle_without_a_password_is_refused_in_words() -> None:
    bundle = {k: v for k, v in sample().__dict__.items() if k != "password"}
    with pytest.raises(MembershipError, match="password is missing"):
        Membership.of_bundle(bundle, host="10.0.0.2", port=8090)
