"""A director's ruling, as the table announces it: the side, the signed points and what
the director did, then the reason. Before, the table's page showed only the reason the
director typed ("the director ruled: the card was misread"), not what changed.

003 IRREGULARITIES AND PENALTIES, "DO NOT make your own Rulings! Please call the
Tournament Director (TD)": the players learn the TD's ruling from the table.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from test_table_app import plain_table, running, until

from table_controller.cards import Card
from table_controller.feed.signing import Ruling
from table_controller.present import ruling_announcement, ruling_change, signed_points
from table_controller.rules.codec import encode
from table_controller.rules.events import HandDealt, HandVoided, InputEvent, ScoreAdjusted
from table_controller.rules.hand import Phase
from table_controller.seats import Seat, Team

PLAYERS = {Seat.N: "Ann", Seat.E: "Bo", Seat.S: "Cy", Seat.W: "Di"}


@pytest.mark.parametrize(
    ("kind", "change", "said"),
    [
        (
            "dismiss_renege",
            ScoreAdjusted(Team.EW, -2, "x"),
            "E–W (Bo & Di) −2: the director dismissed the renege",
        ),
        (
            "dismiss_renege",  # 000's rules take the penalty from the offenders: given back
            ScoreAdjusted(Team.NS, 2, "x"),
            "N–S (Ann & Cy) +2: the director dismissed the renege",
        ),
        (
            "adjust_score",
            ScoreAdjusted(Team.NS, 1, "x"),
            "N–S (Ann & Cy) +1: the director adjusted the score",
        ),
        (
            "void_hand",
            HandVoided("x"),
            "Hand 3 void: the director voided the hand; the same dealer deals again",
        ),
        (
            "confirm_renege",
            None,
            "The director upheld the renege: its penalty stands, the score does not change",
        ),
    ],
)
def test_a_ruling_says_the_side_the_signed_points_and_what_the_director_did(
    kind: str, change: InputEvent | None, said: str
) -> None:
    assert ruling_change(kind, change, PLAYERS, hand=3) == said


def test_the_announcement_says_the_change_then_the_reason() -> None:
    said = ruling_announcement(
        "dismiss_renege", ScoreAdjusted(Team.EW, -2, "x"), " the 10♣ was misread. ", PLAYERS
    )
    assert (
        said == "E–W (Bo & Di) −2: the director dismissed the renege. Reason: the 10♣ was misread"
    )
    # Seats with no player's name: the side alone.
    assert ruling_change("adjust_score", ScoreAdjusted(Team.EW, 4, "x"), {}) == (
        "E–W +4: the director adjusted the score"
    )
    assert [signed_points(p) for p in (-2, 0, 3)] == ["−2", "0", "+3"]


def test_the_table_applies_a_ruling_and_its_page_says_what_changed(tmp_path: Path) -> None:
    """A real table (its log, rules and page snapshot) applies the director's ruling as
    its feed hands it over (signature already checked), and the notice on its page names
    the side, the signed points and the action."""
    table = plain_table(tmp_path)

    async def body() -> None:
        table.rulings.put_nowait(HandDealt(Card.parse("9H")))
        await until("the deal", lambda: table.game.phase is Phase.BIDDING)
        ruling = Ruling(
            ruling_id="r-1",
            table="test-table",
            kind="dismiss_renege",
            event=encode(ScoreAdjusted(Team.EW, -2, "the 10♣ was misread")),
            reason="the 10♣ was misread",
            director="ann",
            at=0.0,
            game=table.core.game_no,
            hand=1,
        )
        table.feed._on_ruling(ruling)
        await until("the ruling applied", lambda: table.game.team_scores() == (0, -2))
        await until(
            "the ruling's notice",
            lambda: any(n.kind == "director" for n in table.shown.notices),
        )
        snapshot = table.sinks.snapshot
        assert snapshot is not None
        (notice,) = [n for n in snapshot["notices"] if n["kind"] == "director"]
        assert notice["text"] == (
            "E–W −2: the director dismissed the renege. Reason: the 10♣ was misread"
        )

    asyncio.run(running(table, body))
