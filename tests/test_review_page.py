"""The hand review (issue 34): a game's own log made into steps, the secrecy rule (a hand
in play is never shown, whatever draws the review), the self-contained document stepped
through with the keyboard and a tap in real headless Chromium, offline from a file: URL,
and a log that is no game refused in words."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect
from review_games import (
    PLAYERS,
    ended_before,
    in_play,
    review_data,
    simulated,
    transcript_events,
    write,
)

from table_controller.event_log import EventLog, GameRecord
from table_controller.review import (
    KeptDecision,
    KeptReview,
    KeptVerdict,
    Review,
    ReviewError,
    StepKind,
    review_file_name,
    review_game,
    review_page,
    review_qr_svg,
    review_view,
)
from table_controller.rules.events import (
    BidMade,
    CardPlayed,
    DealerDiscarded,
    HandDealt,
    HandScored,
    HandStarted,
    HandThrownIn,
    OrderedUp,
    Passed,
    TrumpBid,
    TrumpCalled,
)
from table_controller.seats import Seat

# The screenshots (docs/images/review-375.png and review-1920.png are copies of them).
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"


def _review(log: EventLog, game: int, table: str = "Maple") -> Review:
    events, problems = log.readable_events(game)
    return review_game(
        log.game(game),
        events,
        [str(p) for p in problems],
        lambda seq: log.evidence(game, seq),
        table=table,
    )


@pytest.fixture
def log(tmp_path: Path) -> EventLog:
    return EventLog(tmp_path / "table.sqlite", table="Maple")


# --- the model -----------------------------------------------------------------------


def test_a_simulated_game_becomes_every_hand_step_by_step_each_decision_keyed(
    log: EventLog,
) -> None:
    steps = simulated(seed=7)
    game = write(log, [e for e, _ in steps])
    review = _review(log, game)

    started = [o for _, outs in steps for o in outs if isinstance(o, HandStarted)]
    ended = [o for _, outs in steps for o in outs if isinstance(o, HandScored | HandThrownIn)]
    assert review.finished and review.in_play is None
    assert (
        [h.number for h in review.hands]
        == [h.hand for h in started]
        == list(range(1, len(ended) + 1))
    )
    # Each hand's decisions: every bid, the dealer's discard and every card, in order,
    # keyed 0, 1, 2... (as the analysis keys them: tests/test_review_verdicts.py)
    hand = 0
    dealer = Seat.N
    decisions: dict[int, list[tuple[Seat, str]]] = {}
    for event, outs in steps:
        started = next((o for o in outs if isinstance(o, HandStarted)), None)
        if started is not None:
            hand, dealer = started.hand, started.dealer
        if isinstance(event, Passed | OrderedUp | TrumpCalled | BidMade | TrumpBid):
            decisions.setdefault(hand, []).append((event.seat, "bid"))
        elif isinstance(event, DealerDiscarded) and event.card is not None:
            decisions.setdefault(hand, []).append((dealer, event.card.code))
        elif isinstance(event, CardPlayed):
            decisions.setdefault(hand, []).append((event.seat, event.card.code))
    for h in review.hands:
        keyed = h.decisions
        assert [s.decision for s in keyed] == list(range(len(keyed)))
        assert all(s.hand == h.number for s in h.steps)
        shown = [
            (s.seat, s.card.code if s.kind is not StepKind.BID and s.card is not None else "bid")
            for s in keyed
        ]
        assert shown == decisions.get(h.number, [])
    # The deal as dealt, each seat's hand face up once the hand is over.
    deals = [e for e, _ in steps if isinstance(e, HandDealt)]
    for h, dealt in zip(review.hands, deals, strict=True):
        assert h.dealt and h.upcard == dealt.upcard
        assert {s: set(c) for s, c in h.held.items()} == {s: set(c) for s, c in dealt.hands.items()}
    # The score after each hand, and each trick's winner in its place.
    scored = [o for o in ended if isinstance(o, HandScored)]
    assert [h.scores for h in review.hands if h.scores is not None] == [o.scores for o in scored]
    tricks = [s for h in review.hands for s in h.steps if s.kind is StepKind.TRICK]
    assert len(tricks) == sum(sum(o.tricks) for o in scored)


def test_a_live_tables_game_shows_the_cards_seen_and_counts_the_rest(log: EventLog) -> None:
    """A live table's deal has no hands: a seat's hand is the cards it played, and the
    rest are counted as not seen (the page draws them as backs)."""
    rules, events = transcript_events("003_progressive_tie.jsonl")
    game = write(log, events, rules)
    review = _review(log, game)
    assert len(review.hands) == 8
    view = review_view(review)
    for h, shown in zip(review.hands, view["hands"], strict=True):
        assert not h.dealt
        for s in h.steps:
            if s.kind is StepKind.PLAY and s.seat is not None and s.card is not None:
                assert s.card in h.held[s.seat]
        for frame in shown["frames"]:  # every seat holds a hand's worth, seen or not
            for seat in Seat:
                held = len(frame["held"][seat.name]) + frame["unseen"][seat.name]
                laid = sum(1 for p in frame["trick"] if p[0] == seat.name)
                assert held + laid <= h.size
            if frame["kind"] == "deal":
                for seat in Seat:
                    held = len(frame["held"][seat.name]) + frame["unseen"][seat.name]
                    assert held == h.size, (h.number, seat, frame)


def test_a_renege_is_shown_where_it_happened_with_its_pictures(log: EventLog) -> None:
    """000 s3.3: "If renegging is caught after the next trick/hand has begun, the
    offending player's team will have two points removed from their score" — the
    review shows the renege at the step it was proven, with the camera's pictures."""
    rules, events = transcript_events("000_renege_twice_same_suit_live.jsonl")
    game = write(log, events, rules, pictures=True)
    review = _review(log, game)
    notes = [s for h in review.hands for s in h.steps if s.kind is StepKind.NOTE]
    reneges = [s for s in notes if s.note is not None and s.note.kind == "renege"]
    assert reneges, [s.text for s in notes]
    first = reneges[0]
    assert first.note is not None and "did not follow" in first.note.text
    assert first.note.pictures and all(p.png for p in first.note.pictures)
    data = review_data(review_page(review).html)
    shown = [
        f["note"]
        for h in data["hands"]  # type: ignore[union-attr]
        for f in h["frames"]
        if f["note"]
    ]
    assert any(
        n["kind"] == "renege" and n["pictures"][0]["src"].startswith("data:image/png;base64,")
        for n in shown
    )


# --- secrecy: a hand in play is never shown --------------------------------------------


def test_a_game_in_progress_shows_its_finished_hands_and_nothing_of_the_hand_in_play(
    tmp_path: Path,
) -> None:
    """The model is the one place: the review of a game cut three cards into hand 3 is
    exactly the review of the same game cut before hand 3 was dealt, whatever is drawn
    from it; only the status line says a hand is being played."""
    steps = simulated(seed=11)
    events = [e for e, _ in steps]
    playing = EventLog(tmp_path / "playing.sqlite", table="Maple")
    before = EventLog(tmp_path / "before.sqlite", table="Maple")
    g1 = write(playing, events[: in_play(steps, 3, 3)])
    g2 = write(before, events[: ended_before(steps, 3)])
    live, cut = _review(playing, g1), _review(before, g2)
    assert not live.finished and live.in_play == 3
    assert [h.number for h in live.hands] == [1, 2]
    assert live.hands == cut.hands
    a, b = review_view(live), review_view(cut)
    assert a["status"] != b["status"] and "hand 3, being played" in a["status"]
    assert {**a, "status": ""} == {**b, "status": ""}
    # The hand in play's cards, as held now, appear nowhere in the document's data.
    doc = review_data(review_page(live).html)
    assert [h["number"] for h in doc["hands"]] == [1, 2]  # type: ignore[union-attr]


def test_a_game_with_no_hand_ended_shows_none(log: EventLog) -> None:
    steps = simulated(seed=3)
    game = write(log, [e for e, _ in steps][: in_play(steps, 1, 2)])
    review = _review(log, game)
    assert review.hands == () and review.in_play == 1 and not review.finished
    assert review_view(review)["hands"] == []


# --- verdicts beside the decisions -------------------------------------------------------


def _kept(*decisions: KeptDecision) -> KeptReview:
    return KeptReview("ready", decisions, {}, 120, ((1, 1),))


def test_verdicts_are_shown_beside_their_decision_and_nothing_without(log: EventLog) -> None:
    steps = simulated(seed=5)
    game = write(log, [e for e, _ in steps])
    review = _review(log, game)
    h1 = review.hands[0]
    card = next(s for s in h1.steps if s.kind is StepKind.PLAY)
    assert card.decision is not None
    exact = KeptVerdict(0.0, "pass", "with all hands known", 1, True)
    costly = KeptVerdict(1.25, "play the A♠", "from the player's own view", 200, False)
    verdicts = _kept(
        KeptDecision(1, 1, 0, Seat.N, "passed", None, exact, None, "from the player's own view: x"),
        KeptDecision(1, 1, card.decision, Seat.E, "played", 1, None, costly),
    )
    view = review_view(review, verdicts)
    frames = view["hands"][0]["frames"]
    shown = {tuple(f["key"]): f["verdict"] for f in frames if f["key"] and f["verdict"]}
    assert set(shown) == {(1, 1, 0), (1, 1, card.decision)}
    drawn = shown[(1, 1, card.decision)]
    assert drawn is not None and drawn["costly"] and drawn["mark"] == "cost 1.2 points"
    assert drawn["lines"] == [
        "From the player's own view, over 200 deals sampled: cost 1.2 points; better: play the A♠."
    ]
    assert shown[(1, 1, 0)] == {
        "mark": "best",
        "costly": False,
        "lines": ["With all hands known: no cost, the best choice."],
        "unanalysed": "From the player's own view: x.",
    }
    plain = review_view(review)
    assert not plain["verdicts"]
    assert all(f["verdict"] is None for h in plain["hands"] for f in h["frames"])


# --- bad input ---------------------------------------------------------------------------


def test_a_log_that_is_not_a_game_is_refused_in_words() -> None:
    record = GameRecord(4, "td-tournament", {}, dict(PLAYERS), 0.0)
    from table_controller.cards import Card
    from table_controller.event_log import LoggedEvent

    nonsense = [
        LoggedEvent(4, n, CardPlayed(Seat.N, Card.parse("AS")), "sim", 0.0, False) for n in (1, 2)
    ]
    with pytest.raises(ReviewError, match=r"game 4 cannot be reviewed: none of its 2 events"):
        review_game(record, nonsense)
    unknown = GameRecord(5, "no-such-rules", {}, {}, 0.0)
    with pytest.raises(ReviewError, match=r"game 5 cannot be reviewed: its rules cannot be used"):
        review_game(unknown, [])


def test_file_names_and_the_qr_code() -> None:
    assert review_file_name("Maple", 3) == "review-maple-game-3.html"
    assert review_file_name("../../etc/passwd", 1) == "review-etc-passwd-game-1.html"
    assert review_file_name("  ", 2) == "review-table-game-2.html"

    svg = review_qr_svg("https://maple.local:8443/review/3")
    assert svg.lstrip().startswith("<?xml") and 'viewBox="0 0 ' in svg
    # Read back from the screen where it is shown: tests/test_review_places.py.


# --- the document in Chromium -------------------------------------------------------------


def _document(tmp_path: Path, seed: int = 7, *, judged: bool = True) -> tuple[Path, Review]:
    log = EventLog(tmp_path / "doc.sqlite", table="Maple")
    steps = simulated(seed=seed)
    game = write(log, [e for e, _ in steps])
    review = _review(log, game)
    path = tmp_path / review_file_name("Maple", game)
    judgement = KeptVerdict(0.75, "play the 9♠", "from the player's own view", 120, False)
    verdicts = _kept(KeptDecision(1, 1, 1, Seat.E, "passed", None, None, judgement))
    path.write_text(review_page(review, verdicts if judged else None).html, encoding="utf-8")
    return path, review


def test_the_document_steps_with_the_keyboard_and_a_tap_offline(
    browser: Browser, tmp_path: Path
) -> None:
    path, review = _document(tmp_path)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url))
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    body = page.locator("body")
    expect(body).to_have_attribute("data-step", "0")
    expect(page.locator("#step-text")).to_contain_text("deals")
    first = review.hands[0]
    # The deal: every seat's hand face up (the hand is over).
    for seat, cards in first.held.items():
        for card in cards:
            expect(page.locator(f"#seat-{seat.name} [data-card='{card.code}']")).to_have_count(1)
    page.keyboard.press("ArrowRight")
    expect(body).to_have_attribute("data-step", "1")
    expect(page.locator("#step-text")).to_have_text(first.steps[0].text)
    expect(page.locator("#verdict")).to_be_hidden()
    judged = next(i for i, s in enumerate(first.steps, 1) if s.decision == 1)
    for _ in range(judged - 1):  # to the decision with a verdict: shown beside it
        page.keyboard.press("ArrowRight")
    expect(body).to_have_attribute("data-step", str(judged))
    expect(page.locator("#verdict")).to_contain_text("cost 0.8 points")
    expect(page.locator("#verdict")).to_contain_text("over 120 deals sampled")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#verdict")).to_be_hidden()
    page.keyboard.press("End")
    last = len(first.steps)
    expect(body).to_have_attribute("data-step", str(last))
    expect(page.locator("#step-text")).to_have_text(first.steps[-1].text)
    page.keyboard.press("ArrowRight")  # past a hand's end: the next hand's deal
    expect(body).to_have_attribute("data-hand", "2")
    expect(body).to_have_attribute("data-step", "0")
    page.keyboard.press("ArrowLeft")
    expect(body).to_have_attribute("data-hand", "1")
    expect(body).to_have_attribute("data-step", str(last))
    page.keyboard.press("Home")
    expect(body).to_have_attribute("data-step", "0")
    page.keyboard.press("ArrowDown")
    expect(body).to_have_attribute("data-hand", "2")
    page.keyboard.press("ArrowUp")
    expect(body).to_have_attribute("data-hand", "1")
    # A tap: the buttons, big enough for a finger, and a line of the hand's steps.
    for button in ("#next", "#prev", "#first", "#last"):
        box = page.locator(button).bounding_box()
        assert box is not None and box["width"] >= 44 and box["height"] >= 44
    page.locator("#next").click()
    expect(body).to_have_attribute("data-step", "1")
    first_play = next(i for i, s in enumerate(first.steps, 1) if s.kind is StepKind.PLAY)
    page.locator("#steps button").nth(first_play).click()
    expect(body).to_have_attribute("data-step", str(first_play))
    seat = first.steps[first_play - 1].seat
    assert seat is not None
    card = first.steps[first_play - 1].card
    assert card is not None
    expect(page.locator(f"#play-{seat.name} [data-card='{card.code}']")).to_have_count(1)
    page.locator("#hands button").nth(len(review.hands) - 1).click()
    expect(body).to_have_attribute("data-hand", str(review.hands[-1].number))
    # Offline: the file itself is the only thing the browser asked for.
    assert asked == [path.as_uri()], asked
    assert errors == []


@pytest.mark.parametrize("width", [375, 1920])
def test_the_document_is_readable_at_375_and_1920_px(
    browser: Browser, tmp_path: Path, width: int
) -> None:
    """The review with the analysis's own verdicts (as the table and the director keep
    them), opened at a costly decision: nothing runs off the side, the verdicts and
    each player's costliest decisions are read on a phone and on a wall screen."""
    import random

    from table_controller.review import ReviewOptions, analyse_game, kept_review
    from table_controller.rules.presets import preset

    path, review = _document(tmp_path, seed=7, judged=False)
    steps = simulated(seed=7)
    judged = kept_review(
        analyse_game(
            preset("td-tournament"), [e for e, _ in steps], random.Random(34), ReviewOptions()
        )
    )
    path.write_text(review_page(review, judged).html, encoding="utf-8")
    hand = review.hands[0]
    costly = {d.key for d in judged.decisions if d.costly}
    at = next(i for i, s in enumerate(hand.steps, 1) if s.key in costly)
    page = browser.new_page(viewport={"width": width, "height": 900 if width < 1000 else 1080})
    page.goto(path.as_uri() + f"#hand-1-step-{at}")
    expect(page.locator("body")).to_have_attribute("data-step", str(at))
    expect(page.locator("#verdict")).to_contain_text("With all hands known")
    summary = page.locator("#verdicts")
    if width < 1000:  # folded on a phone, so the table comes first: opened for the picture
        expect(summary).not_to_have_attribute("open", "")
        summary.locator("summary").click()
    expect(summary.locator(".seat-costliest")).to_have_count(4)
    # Nothing runs off the side: the page is no wider than the screen.
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    for seat in "NESW":
        box = page.locator(f"#seat-{seat}").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"review-{width}.png"), full_page=width < 1000)


def test_a_renege_shows_in_the_browser_with_its_pictures(browser: Browser, tmp_path: Path) -> None:
    """The renege's step shows its sentence and the camera's pictures, inline."""
    log = EventLog(tmp_path / "renege.sqlite", table="Maple")
    rules, events = transcript_events("000_renege_twice_same_suit_live.jsonl")
    game = write(log, events, rules, pictures=True)
    review = _review(log, game)
    path = tmp_path / "renege.html"
    path.write_text(review_page(review).html, encoding="utf-8")
    hand = review.hands[0]
    at = next(
        i
        for i, s in enumerate(hand.steps, 1)
        if s.kind is StepKind.NOTE and s.note is not None and s.note.kind == "renege"
    )
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{path.as_uri()}#hand-{hand.number}-step-{at}")
    note = page.locator("#note")
    expect(note).to_contain_text("did not follow")
    expect(note.locator("img").first).to_be_visible()
    assert note.locator("img").first.get_attribute("src").startswith("data:image/png;base64,")  # type: ignore[union-attr]
    expect(page.locator(f"#steps button >> nth={at} >> .mark")).to_have_text("renege")
    page.close()


def test_the_bidding_so_far_is_shown_beside_the_table(browser: Browser, tmp_path: Path) -> None:
    path, review = _document(tmp_path, judged=False)
    hand = review.hands[0]
    bids = [s.text for s in hand.steps if s.kind is StepKind.BID]
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(path.as_uri())
    expect(page.locator("#bidding")).to_be_hidden()  # the deal: no bid yet
    page.keyboard.press("End")
    expect(page.locator("#bidding")).to_have_text("Bidding: " + " · ".join(bids))
    page.close()


def test_a_refused_event_of_the_hand_in_play_is_counted_never_told(log: EventLog) -> None:
    """A refused event's words may name a card still held ("... holds the J♥"): the
    review of a game in progress counts the hand in play's refused events, and tells
    them only once the hand has ended."""
    from table_controller.rules.game import Game
    from table_controller.rules.presets import preset

    steps = simulated(seed=11)
    cut = in_play(steps, 3, 2)
    events = [e for e, _ in steps][:cut]
    game = Game(preset("td-tournament"))
    for e in events:
        game.push(e)
    hand = game.hand
    assert hand is not None and game.to_act is not None
    other = next(s for s in Seat if s is not game.to_act and hand.known[s])
    held = sorted(hand.known[other])[0]  # another seat's card: the rules refuse it
    g = write(log, [*events, CardPlayed(game.to_act, held)])
    review = _review(log, g)
    assert review.in_play == 3
    assert review.problems == (
        "1 event of hand 3, being played, could not be replayed: said once the hand has ended",
    )
    assert held.pretty not in " ".join(review.problems)
