"""The verdicts on the review page (issue 34): the page's decisions and the analysis's
are keyed alike by construction (the analysis's own ``is_decision``), per game of a
match; the verdicts as kept (their written form, refused in words when unreadable);
drawn beside each decision and in each player's costliest decisions, in real headless
Chromium; and a game in progress never yields a verdict of the hand in play."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect
from review_games import in_play, simulated, write
from test_review_analysis import BAD_PLAY_LOG

from table_controller.event_log import EventLog
from table_controller.review import (
    KeptReview,
    Kind,
    Review,
    ReviewError,
    ReviewOptions,
    StepKind,
    analyse_game,
    kept_review,
    merge,
    review_game,
    review_page,
    review_view,
)
from table_controller.rules.events import CardPlayed, DealerDiscarded
from table_controller.rules.presets import PRESETS, preset

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
CHEAP = ReviewOptions(deals=2)


def _review(log: EventLog, game: int) -> Review:
    events, problems = log.readable_events(game)
    return review_game(log.game(game), events, [str(p) for p in problems], table="Maple")


def _analysed(log: EventLog, game: int, options: ReviewOptions = CHEAP) -> KeptReview:
    record = log.game(game)
    events, _ = log.readable_events(game)
    rules = preset(record.rules_name, record.options)
    return kept_review(analyse_game(rules, [e.event for e in events], random.Random(1), options))


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_decision_of_the_analysis_lands_on_one_step_with_its_seat_and_choice(
    tmp_path: Path, name: str
) -> None:
    """Under every preset (a best of three's games too: hands numbered afresh in each),
    each decision the analysis keys is exactly one step of the page's model, the same
    seat and the same choice; and the page has no decision the analysis lacks."""
    rules = preset(name)
    for seed in (3, 8):
        log = EventLog(tmp_path / f"{name}-{seed}.sqlite", table="Maple")
        steps = simulated(seed=seed, rules=name)
        game = write(log, [e for e, _ in steps], name)
        review = _review(log, game)
        analysed = analyse_game(rules, [e for e, _ in steps], random.Random(1), CHEAP)
        keyed: dict[tuple[int, int, int], list] = {}
        for hand in review.hands:
            for step in hand.steps:
                if step.key is not None:
                    keyed.setdefault(step.key, []).append(step)
        decisions = [d for h in analysed.hands for d in h.decisions]
        assert decisions and len(keyed) == len(decisions)
        for d in decisions:
            key = (d.game, d.hand, d.index)
            assert len(keyed.get(key, [])) == 1, key
            step = keyed[key][0]
            assert step.seat is d.seat
            if d.kind is Kind.PLAY:
                assert isinstance(d.chosen, CardPlayed)
                assert step.kind is StepKind.PLAY and step.card == d.chosen.card
            elif d.kind is Kind.DISCARD:
                assert isinstance(d.chosen, DealerDiscarded)
                assert step.kind is StepKind.DISCARD and step.card == d.chosen.card
            else:
                assert step.kind is StepKind.BID
        if rules.best_of > 1:
            assert len({h.game for h in review.hands}) >= 2  # the join was per game
        # Every verdict is drawn on its step: none lost, none on another decision.
        kept = kept_review(analysed)
        view = review_view(review, kept)
        drawn = [f for h in view["hands"] for f in h["frames"] if f["verdict"] is not None]
        assert len(drawn) == len(decisions)


def test_the_dealers_discard_is_a_decision_on_the_page_as_in_the_analysis(
    tmp_path: Path,
) -> None:
    log = EventLog(tmp_path / "bad.sqlite", table="Maple")
    game = write(log, BAD_PLAY_LOG, "bicycle-head-to-head")
    hand = _review(log, game).hands[0]
    discard = next(s for s in hand.steps if s.kind is StepKind.DISCARD)
    assert discard.key == (1, 1, 4)  # four bids, then the discard
    worst = next(s for s in hand.steps if s.key == (1, 1, 12))
    assert worst.card is not None and worst.card.code == "KH"


def test_kept_verdicts_are_written_and_read_back_and_garbage_is_refused_in_words(
    tmp_path: Path,
) -> None:
    log = EventLog(tmp_path / "g.sqlite", table="Maple")
    game = write(log, [e for e, _ in simulated(seed=5)])
    kept = _analysed(log, game)
    assert kept.state == "ready" and kept.decisions
    again = KeptReview.from_json(kept.to_json())
    assert again == kept
    for bad in ("", "[]", '{"format": 99}', '{"format": 1, "state": "odd"}', "{nope"):
        with pytest.raises(ReviewError, match="the verdicts kept for this game cannot be read"):
            KeptReview.from_json(bad)
    # Hands analysed at different times join into the same verdicts as all at once.
    first = kept.hands[:3]
    early = _analysed(log, game, ReviewOptions(deals=2, done=frozenset(kept.hands[3:])))
    late = _analysed(log, game, ReviewOptions(deals=2, done=frozenset(first)))
    assert early.hands == first and set(late.hands).isdisjoint(first)
    assert merge(early, late) == kept


def test_a_game_in_progress_yields_no_verdict_of_the_hand_in_play(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "p.sqlite", table="Maple")
    steps = simulated(seed=11)
    game = write(log, [e for e, _ in steps][: in_play(steps, 3, 3)])
    kept = _analysed(log, game)
    assert kept.hands == ((1, 1), (1, 2))
    assert {d.hand for d in kept.decisions} == {1, 2}
    # Even a verdict of the hand in play, were one given, has no step to be drawn on.
    whole = write(log, [e for e, _ in steps])
    everything = _analysed(log, whole)
    view = review_view(_review(log, game), everything)
    assert [h["number"] for h in view["hands"]] == [1, 2]
    shown = [f["key"] for h in view["hands"] for f in h["frames"] if f["verdict"]]
    assert shown and all(k[1] in (1, 2) for k in shown)
    named = [c["text"] for s in view["costliest"] for c in s["costly"]]
    assert all(t.startswith(("Hand 1", "Hand 2")) for t in named), named


def test_the_page_says_the_verdicts_are_being_worked_out_or_why_they_failed(
    tmp_path: Path,
) -> None:
    log = EventLog(tmp_path / "w.sqlite", table="Maple")
    review = _review(log, write(log, [e for e, _ in simulated(seed=5)]))
    working = review_view(review, KeptReview.working())
    assert working["verdicts_status"] == "The verdicts are being worked out..."
    assert working["hands"] and not working["verdicts"]
    failed = review_view(review, KeptReview.failed("its process ended without an answer"))
    assert failed["verdicts_status"].startswith(
        "The verdicts on each decision could not be worked out (its process ended"
    )
    assert "can still be replayed" in failed["verdicts_status"]
    assert review_view(review)["verdicts_status"] == ""


def _bad_play_document(tmp_path: Path) -> tuple[Path, Review]:
    log = EventLog(tmp_path / "bad.sqlite", table="Maple")
    game = write(log, BAD_PLAY_LOG, "bicycle-head-to-head")
    review = _review(log, game)
    kept = _analysed(log, game, ReviewOptions(deals=16))
    path = tmp_path / "bad.html"
    path.write_text(review_page(review, kept).html, encoding="utf-8")
    return path, review


def test_a_bad_play_is_shown_as_the_costliest_and_its_link_opens_its_step(
    browser: Browser, tmp_path: Path
) -> None:
    """North throws the K♥ under with the left bower in hand (a renege-free loss of a
    trick, and of the hand): the summary names it first, its link opens its step, and
    the step shows both views' verdicts with the better card drawn as the page draws
    cards."""
    path, review = _bad_play_document(tmp_path)
    hand = review.hands[0]
    at = next(i for i, s in enumerate(hand.steps, 1) if s.key == (1, 1, 12))
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    summary = page.locator("#verdicts")
    expect(summary).to_be_visible()
    north = summary.locator(".seat-costliest").nth(0)
    expect(north.locator("h3")).to_have_text("Ann (North)")
    first = north.locator(".costly-link").first
    expect(first).to_contain_text("Hand 1, trick 2: played the K♥, cost 3 points")
    expect(first).to_contain_text("better: play the J♣")
    first.click()
    body = page.locator("body")
    expect(body).to_have_attribute("data-step", str(at))
    verdict = page.locator("#verdict")
    expect(verdict).to_contain_text("This decision cost 3 points")
    expect(verdict).to_contain_text("With all hands known: cost 3 points; better: play the J♣.")
    expect(verdict).to_contain_text("From the player's own view, over 16 deals sampled: cost")
    expect(page.locator(f"#steps button >> nth={at} >> .mark")).to_have_text("cost 3 points")
    # No internal name or code where a person reads it.
    text = page.locator("body").inner_text()
    for code in ("KH", "JC", "Kind.", "View.", "exact=", "None"):
        assert code not in text, code
    assert errors == []
    page.close()
