"""The review's verdict on each decision (issue 34): exact verdicts against a plain
minimax, a bad play named as the costliest, a bid costed as the preset scores it, the
player's view blind to the cards the seat could not see, and bad input refused."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller import simulate
from table_controller.cards import Card, cards, effective_suit, legal_plays, trick_winner
from table_controller.review import (
    GameReview,
    Kind,
    ReviewError,
    ReviewOptions,
    View,
    analyse_game,
    complete_deal,
)
from table_controller.rules import scoring
from table_controller.rules.codec import encode
from table_controller.rules.events import (
    CardPlayed,
    DealerChosen,
    DealerDiscarded,
    HandDealt,
    InputEvent,
    OrderedUp,
    Passed,
)
from table_controller.rules.game import Game
from table_controller.rules.hand import Phase
from table_controller.rules.presets import Rules, Variant, preset
from table_controller.seats import SEATS, Seat, Team

N, E, S, W = Seat.N, Seat.E, Seat.S, Seat.W
FEW = ReviewOptions(deals=4)


def play_hand(
    rules: Rules, opening: list[InputEvent], choose: Callable[[Game], InputEvent] | None = None
) -> list[InputEvent]:
    """``opening`` then the hand played to its end, each seat taking ``choose``'s event
    (by default its first legal one)."""
    game = Game(rules)
    log = list(opening)
    game.push_all(log)
    while game.hand is not None:
        event = (choose or (lambda g: g.legal_events()[0]))(game)
        game.push(event)
        log.append(event)
    return log


def random_hand(rules: Rules, rng: random.Random) -> list[InputEvent]:
    """A random deal, bid and played at random to its end (every hand known)."""
    while True:
        opening: list[InputEvent] = [DealerChosen(rng.choice(SEATS)), simulate.deal(rng, rules)]
        choose = simulate.random_choice(rng)
        log = play_hand(rules, opening, lambda g, choose=choose: choose(g, g.legal_events()))
        if any(isinstance(e, CardPlayed) for e in log):
            return log


# --- a minimax written plainly: every card, no pruning -----------------------------------


def brute_force(rules: Rules, game: Game) -> dict[Card, float]:
    """For each legal card of the seat to play: north-south's points minus east-west's
    for the hand, every seat choosing the best card for its side after it."""
    hand = game.hand
    assert hand is not None and hand.trick is not None and hand.maker is not None
    trump = hand.trump
    maker, alone, bid = hand.maker, hand.alone, hand.bid
    active = [s for s in SEATS if hand.active(s)]
    held = {s: set(hand.known[s] or ()) for s in active}

    def score(won: dict[Team, int]) -> float:
        tricks = won[maker.team]
        if rules.variant is Variant.BID_EUCHRE and bid is not None:
            _, mk, df = scoring.bid_hand(rules, bid, tricks)
        else:
            _, mk, df = scoring.euchre_hand(rules, tricks, alone)
        return float(mk - df if maker.team is Team.NS else df - mk)

    def next_seat(seat: Seat) -> Seat:
        s = seat.left
        while s not in active:
            s = s.left
        return s

    def value(plays: list[tuple[Seat, Card]], leader: Seat, won: dict[Team, int]) -> float:
        if len(plays) == len(active):
            winner = trick_winner(plays, trump)
            won = {**won, winner.team: won[winner.team] + 1}
            if not held[winner]:
                return score(won)
            return value([], winner, won)
        seat = leader if not plays else next_seat(plays[-1][0])
        led = effective_suit(plays[0][1], trump) if plays else None
        results = []
        for card in legal_plays(held[seat], led, trump):
            held[seat].remove(card)
            results.append(value([*plays, (seat, card)], leader, won))
            held[seat].add(card)
        return max(results) if seat.team is Team.NS else min(results)

    trick = hand.trick
    seat = game.to_act
    assert seat is not None
    won = {Team.NS: hand.won[Team.NS], Team.EW: hand.won[Team.EW]}
    led = effective_suit(trick.plays[0][1], trump) if trick.plays else None
    out = {}
    for card in legal_plays(held[seat], led, trump):
        held[seat].remove(card)
        out[card] = value([*trick.plays, (seat, card)], trick.leader, won)
        held[seat].add(card)
    return out


def assert_endings_agree(rules: Rules, log: list[InputEvent], review: GameReview, last: int) -> int:
    """Each card decision in the last ``last`` tricks of the review's one hand agrees
    with the plain minimax: every choice's value, the best choice's value and the
    cost. Returns how many were checked."""
    decisions = review.hands[0].decisions
    plays = [d for d in decisions if d.kind is Kind.PLAY]
    final = max(d.trick or 0 for d in plays)
    checked = 0
    for decision in plays:
        if (decision.trick or 0) <= final - last:
            continue
        at = log.index(decision.chosen)
        game = Game.replay(rules, log[:at])
        brute = brute_force(rules, game)
        mine = 1.0 if decision.seat.team is Team.NS else -1.0
        exact = decision.exact
        assert exact is not None and exact.view is View.EXACT and exact.deals == 1
        got = {c.event.card: c.points for c in exact.choices}  # type: ignore[attr-defined]
        assert got == {card: mine * v for card, v in brute.items()}
        best = max(mine * v for v in brute.values())
        assert exact.best.points == best
        assert exact.cost == best - mine * brute[decision.chosen.card]  # type: ignore[attr-defined]
        assert exact.cost >= 0
        checked += 1
    return checked


ENDING_PRESETS = ["bicycle-head-to-head", "td-tournament", "bid-euchre", "family-bid-euchre"]


@pytest.mark.parametrize("name", ENDING_PRESETS)
def test_exact_verdicts_agree_with_a_plain_minimax_on_the_last_three_tricks(name: str) -> None:
    rules = preset(name)
    rng = random.Random(f"endings-{name}")
    checked = 0
    for _ in range(3):
        log = random_hand(rules, rng)
        review = analyse_game(rules, log, random.Random(1), FEW)
        checked += assert_endings_agree(rules, log, review, 3)
    assert checked >= 9


@settings(max_examples=25)
@given(
    seed=st.integers(0, 2**32 - 1),
    name=st.sampled_from(ENDING_PRESETS),
    last=st.sampled_from([2, 3]),
)
def test_exact_verdicts_agree_with_a_plain_minimax_on_random_endings(
    seed: int, name: str, last: int
) -> None:
    rules = preset(name)
    log = random_hand(rules, random.Random(seed))
    review = analyse_game(rules, log, random.Random(seed), ReviewOptions(deals=1))
    assert assert_endings_agree(rules, log, review, last) >= 1


def test_the_pure_python_solver_gives_the_same_verdicts_as_the_compiled_one() -> None:
    rules = preset("bicycle-head-to-head")
    log = random_hand(rules, random.Random(5))
    compiled = analyse_game(rules, log, random.Random(2), FEW)
    pure = analyse_game(rules, log, random.Random(2), ReviewOptions(deals=4, compiled=False))
    assert compiled == pure
    assert assert_endings_agree(rules, log, pure, 3) >= 3


# --- a bad play, built by hand -------------------------------------------------------------


def played(text: str) -> list[InputEvent]:
    """Cards played, written "N 9C, E KC": the seat, then the card."""
    out: list[InputEvent] = []
    for part in text.split(","):
        seat, card = part.split()
        out.append(CardPlayed(Seat[seat], Card.parse(card)))
    return out


# West deals and turns up the J♠; North, East and South pass and West orders it up (so
# spades are trump, the J♣ the left bower), discarding the A♣.
BAD_PLAY_DEAL = HandDealt(
    cards("JS")[0],
    {
        N: cards("JC 9C KS KH 9S"),
        E: cards("9D QS TH KC AD"),
        S: cards("JD AS 9H TS TC"),
        W: cards("AC QD QH KD TD"),
    },
)
BAD_PLAY_LOG: list[InputEvent] = [
    DealerChosen(W),
    BAD_PLAY_DEAL,
    Passed(N),
    Passed(E),
    Passed(S),
    OrderedUp(W),
    DealerDiscarded(cards("AC")[0]),
    # trick 1: East's K♣ takes it
    *played("N 9C, E KC, S TC, W TD"),
    # trick 2: East leads the 9♦ and West's Q♦ holds it; North has no diamond and holds
    # the J♣ (the left bower, the best trump out) but throws the K♥ under
    *played("E 9D, S JD, W QD, N KH"),
    *played("W KD, N JC, E AD, S 9H"),
    *played("N 9S, E QS, S TS, W JS"),
    *played("W QH, N KS, E TH, S AS"),
]


def test_a_trick_thrown_away_with_the_winning_trump_in_hand_is_named_the_costliest() -> None:
    rules = preset("bicycle-head-to-head")
    review = analyse_game(rules, BAD_PLAY_LOG, random.Random(7), ReviewOptions(deals=16))
    north = review.summary(N)
    assert north.costliest, north.text
    worst = north.costliest[0].decision
    assert worst.chosen == CardPlayed(N, Card.parse("KH"))
    assert worst.key == (1, 12)  # 4 bids, the discard, trick 1's four cards, then E S W N
    assert worst.trick == 2
    exact = worst.exact
    assert exact is not None
    # Trumping wins the trick and euchres West (2 to North-South, 000 s2 "2 points:
    # Euchre"); throwing the K♥ lets East-West make it (1 point to them): 3 points.
    assert exact.cost == 3.0
    assert exact.best.event == CardPlayed(N, Card.parse("JC"))
    assert worst.player is not None and worst.player.cost > 0  # North could see it too
    assert worst.player.deals == 16 and worst.player.view is View.PLAYER
    assert "trick 2: played the King of Hearts, cost 3 points" in north.text
    assert "best: played the Jack of Clubs, with all hands known" in north.text
    assert all(c.decision.cost <= worst.cost for c in north.costliest)
    # From North's own view too: trumping was plainly better on the cards it could see.
    seen = review.summary(N, View.PLAYER)
    assert seen.view is View.PLAYER and seen.costliest[0].decision == worst
    assert "from the player's own view, over 16 deals" in seen.costliest[0].text


# --- a bid costed as the preset scores it -----------------------------------------------

# West deals, the 9♠ turned up. With South, North's two top trumps and South's aces
# take every trick (a march, 2 points); alone, North takes two (euchred, 2 to East-West).
MARCH_DEAL = HandDealt(
    cards("9S")[0],
    {
        N: cards("JS AS 9H 9D 9C"),
        E: cards("TS KH QH QC TC"),
        S: cards("JC KS AH AD AC"),
        W: cards("QS KD QD KC TD"),
    },
)


@pytest.mark.parametrize(
    ("options", "cost"),
    [
        # 000 s2: "2 points: Trump partners winning 5 tricks"; "2 points: Euchre – either
        # lone hand or partnership": a march given up for a euchre is 2 + 2
        ({}, 4.0),
        ({"points_march": 3}, 5.0),
        ({"points_euchre_loner": 4}, 6.0),
    ],
)
def test_going_alone_into_a_euchre_instead_of_a_march_costs_the_points_the_preset_scores(
    options: dict[str, int], cost: float
) -> None:
    rules = preset("bicycle-head-to-head", options)
    log = play_hand(rules, [DealerChosen(W), MARCH_DEAL, OrderedUp(N, alone=True)])
    review = analyse_game(rules, log, random.Random(3), FEW)
    call = review.decision(1, 0)
    assert call.kind is Kind.BID and call.seat is N and call.chosen == OrderedUp(N, True)
    assert call.label == "Ordered up the Nine of Spades, alone"
    assert call.exact is not None
    values = {c.event: c.points for c in call.exact.choices}
    assert values[OrderedUp(N, False)] == rules.points_march
    assert values[OrderedUp(N, True)] == -rules.points_euchre_loner
    assert call.exact.cost == cost
    assert call.exact.best.points == rules.points_march
    assert review.summary(N).costliest[0].decision == call


# --- the player's view sees only what the seat saw ----------------------------------------


def test_the_players_view_does_not_change_when_a_card_it_could_not_see_changes() -> None:
    """South's first card, reviewed twice: once as dealt, once with two cards East and
    West still held swapped between them (of one suit, so neither is made to renege).
    The exact verdict sees the swap (in some hands it changes what each card is worth);
    the player's view, with the same seed, must not."""
    rules = preset("bicycle-head-to-head")
    rng = random.Random(11)
    checked = exact_moved = 0
    for _ in range(30):
        log = random_hand(rules, rng)
        deal = log[1]
        assert isinstance(deal, HandDealt)
        plays = [e for e in log if isinstance(e, CardPlayed)]
        at = next((i for i, e in enumerate(plays) if e.seat is S), None)
        if at is None:  # South sat out
            continue
        seen = {e.card for e in plays[:at]}
        seen |= {e.card for e in log if isinstance(e, DealerDiscarded) and e.card is not None}
        trump = Game.replay(rules, log).last_hand.trump  # type: ignore[union-attr]
        pairs = sorted(
            (
                (a, b)
                for a in deal.hands[E]
                for b in deal.hands[W]
                if not {a, b} & (seen | {deal.upcard})
                and effective_suit(a, trump) == effective_suit(b, trump)
            ),
            key=lambda p: -abs(p[0].rank - p[1].rank),
        )
        first = analyse_game(rules, log, random.Random(5), FEW)
        one = next(d for d in first.hands[0].decisions if d.chosen == plays[at])
        for a, b in pairs[:2]:
            hands = dict(deal.hands)
            hands[E] = tuple(b if c == a else c for c in hands[E])
            hands[W] = tuple(a if c == b else c for c in hands[W])
            prefix = log[2 : log.index(plays[at]) + 1]  # up to South's card, which it plays
            other = play_hand(rules, [log[0], HandDealt(deal.upcard, hands), *prefix])
            two = analyse_game(rules, other, random.Random(5), FEW).decision(*one.key)
            assert two.chosen == one.chosen
            assert one.player is not None and one.player == two.player
            exact_moved += one.exact != two.exact
            checked += 1
    assert checked >= 10 and exact_moved >= 2


# --- a hand in play, and bad input ------------------------------------------------------


def test_a_hand_still_in_play_is_not_analysed_and_is_named() -> None:
    rules = preset("bicycle-head-to-head")
    next_deal = HandDealt(cards("TH")[0], dict(MARCH_DEAL.hands))
    whole = [*BAD_PLAY_LOG, next_deal, Passed(E)]
    review = analyse_game(rules, whole, random.Random(1), FEW)
    assert [h.hand for h in review.hands] == [1]
    assert review.skipped == ()
    assert review.hand_in_play == (1, 2)
    assert review.in_play_text == "Hand 2 is still being played: it is reviewed once it ends."
    assert all(d.hand == 1 for h in review.hands for d in h.decisions)


def test_a_log_that_is_not_a_game_is_refused_in_words() -> None:
    rules = preset("bicycle-head-to-head")
    good = [encode(e) for e in BAD_PLAY_LOG[:4]]
    with pytest.raises(ReviewError, match=r"event 3 of the log cannot be read .* export"):
        analyse_game(rules, [*good[:2], {"type": "card_flipped"}, *good[2:]], random.Random(1))
    with pytest.raises(ReviewError, match="event 2 of the log cannot be read"):
        analyse_game(rules, [good[0], "passed N"], random.Random(1))  # type: ignore[list-item]
    with pytest.raises(ReviewError, match="a list of its events"):
        analyse_game(rules, "hand_dealt", random.Random(1))  # type: ignore[arg-type]
    with pytest.raises(ReviewError, match="at least one deal sampled a decision, not 0"):
        analyse_game(rules, good, random.Random(1), ReviewOptions(deals=0))
    with pytest.raises(ReviewError, match="needs a clock"):
        analyse_game(rules, good, random.Random(1), ReviewOptions(budget=1.0))


def test_events_the_rules_refuse_are_left_out_as_the_table_left_them_out() -> None:
    rules = preset("bicycle-head-to-head")
    stray = CardPlayed(S, Card.parse("AS"))  # before any deal: the rules refuse it
    review = analyse_game(rules, [BAD_PLAY_LOG[0], stray, *BAD_PLAY_LOG[1:]], random.Random(7), FEW)
    assert len(review.skipped) == 1 and review.skipped[0].startswith("event 2 was left out: ")
    assert review.summary(N).costliest[0].decision.chosen == CardPlayed(N, Card.parse("KH"))


def test_the_json_log_reads_as_the_events() -> None:
    rules = preset("bicycle-head-to-head")
    as_json = analyse_game(rules, [encode(e) for e in BAD_PLAY_LOG], random.Random(4), FEW)
    as_events = analyse_game(rules, BAD_PLAY_LOG, random.Random(4), FEW)
    assert as_json == as_events


# --- the decisions and their key -----------------------------------------------------------


def test_each_bid_discard_and_card_is_one_decision_keyed_by_hand_and_index() -> None:
    rules = preset("bicycle-head-to-head")
    review = analyse_game(rules, BAD_PLAY_LOG, random.Random(4), FEW)
    (hand,) = review.hands
    assert [d.index for d in hand.decisions] == list(range(25))
    assert [d.kind for d in hand.decisions] == [Kind.BID] * 4 + [Kind.DISCARD] + [Kind.PLAY] * 20
    assert [d.chosen for d in hand.decisions] == BAD_PLAY_LOG[2:]
    assert hand.decisions[4].label == "Discarded the Ace of Clubs"
    assert hand.decisions[4].seat is W
    assert [d.trick for d in hand.decisions[5:9]] == [1, 1, 1, 1]
    for d in hand.decisions:
        assert d.exact is not None and d.player is not None, d.unanalysed
        assert d.exact.cost >= 0 and d.player.cost >= 0
        assert d.player.deals == 4
        assert d.exact.choices[0].points == d.exact.best.points
        assert "_" not in d.label and d.label[0].isupper()
    assert review.decision(1, 14).chosen == CardPlayed(N, Card.parse("JC"))


def test_the_review_is_the_same_for_the_same_seed() -> None:
    rules = preset("family-bid-euchre")
    log = random_hand(rules, random.Random(21))
    one = analyse_game(rules, log, random.Random(9), FEW)
    assert one == analyse_game(rules, log, random.Random(9), FEW)


# --- a live table's log: the deal put together from the cards played ----------------------


def live(log: list[InputEvent]) -> list[InputEvent]:
    """The log as a live table keeps it: the deal without the hands."""
    return [HandDealt(e.upcard) if isinstance(e, HandDealt) else e for e in log]


def test_a_live_tables_hand_is_solved_from_the_cards_played_and_the_discard() -> None:
    rules = preset("bicycle-head-to-head")
    dealt, why = complete_deal(rules, W, HandDealt(BAD_PLAY_DEAL.upcard), BAD_PLAY_LOG[2:])
    assert why == ""
    assert {s: set(c) for s, c in dealt.hands.items()} == {
        s: set(c) for s, c in BAD_PLAY_DEAL.hands.items()
    }
    review = analyse_game(rules, live(BAD_PLAY_LOG), random.Random(7), ReviewOptions(deals=16))
    known = analyse_game(rules, BAD_PLAY_LOG, random.Random(7), ReviewOptions(deals=16))
    assert review == known


def test_a_live_loners_hand_is_solved_for_the_cards_and_says_why_not_for_the_bids() -> None:
    rules = preset("bicycle-head-to-head")
    log = live(play_hand(rules, [DealerChosen(W), MARCH_DEAL, OrderedUp(N, alone=True)]))
    dealt, why = complete_deal(rules, W, HandDealt(MARCH_DEAL.upcard), log[2:])
    assert set(dealt.hands) == {N, E, W}  # South sat out: its cards were never seen
    assert "South's cards were seen" in why
    review = analyse_game(rules, log, random.Random(3), FEW)
    (hand,) = review.hands
    assert "South's cards were seen" in hand.note
    bid, discard, *cards_played = hand.decisions
    assert bid.exact is None and bid.player is not None  # North knew its own hand
    assert bid.unanalysed.startswith("with all hands known: not all of South's cards")
    assert discard.kind is Kind.DISCARD and discard.exact is None and discard.player is not None
    assert len(cards_played) == 15
    for d in cards_played:  # the three hands in play are known: each card is solved
        assert d.exact is not None and d.player is not None and d.unanalysed == ""


def test_a_live_hand_whose_discard_was_not_seen_is_solved_only_from_the_players_view() -> None:
    rules = preset("bicycle-head-to-head")
    log = play_hand(rules, [DealerChosen(W), MARCH_DEAL, OrderedUp(N)])
    log = [DealerDiscarded(None) if isinstance(e, DealerDiscarded) else e for e in live(log)]
    review = analyse_game(rules, log, random.Random(3), FEW)
    (hand,) = review.hands
    assert hand.note == "The dealer's discard was not seen."
    assert all(d.exact is None for d in hand.decisions)
    assert all("the dealer's discard was not seen" in d.unanalysed for d in hand.decisions)
    west = [d for d in hand.decisions if d.seat is W]
    others = [d for d in hand.decisions if d.seat is not W]
    assert west and all(d.player is None for d in west)  # West's hand is not known
    assert others and all(d.player is not None for d in others)
    assert review.summary(W).text == "West: no decision cost points."


def test_a_renege_is_not_costed_as_a_choice() -> None:
    rules = preset("bid-euchre")
    rng = random.Random(33)
    for _ in range(200):
        log = random_hand(rules, rng)
        game = Game(rules)
        game.push_all(log[:2])
        for i, event in enumerate(log[2:], 2):
            if game.phase is Phase.PLAYING and isinstance(event, CardPlayed):
                legal = game.legal_events()
                off = [
                    e
                    for e in (
                        CardPlayed(event.seat, c) for c in sorted(game.hand.known[event.seat] or ())
                    )  # type: ignore[union-attr]
                    if e not in legal
                ]
                if off and event.seat == game.to_act:
                    reneged = play_hand(rules, [*log[:i], off[0]])
                    review = analyse_game(rules, reneged, random.Random(1), FEW)
                    d = next(d for d in review.hands[0].decisions if d.chosen == off[0])
                    assert d.exact is None and "renege" in d.unanalysed
                    return
            game.push(event)
    pytest.fail("no hand offered a renege")


def test_the_time_budget_is_read_on_the_clock_given() -> None:
    rules = preset("bicycle-head-to-head")
    now = [0.0]

    def clock() -> float:
        now[0] += 1.0  # every look at the clock is a second later
        return now[0]

    review = analyse_game(
        rules, BAD_PLAY_LOG, random.Random(4), ReviewOptions(deals=50, clock=clock, budget=2.5)
    )
    plays = [d for d in review.hands[0].decisions if d.kind is Kind.PLAY and d.player is not None]
    assert plays and all(1 <= d.player.deals < 50 for d in plays if d.player is not None)


def test_in_a_match_each_games_hands_are_keyed_with_the_game() -> None:
    rules = preset("bicycle-head-to-head", {"points_to_win": 1})  # a game is one hand
    log = [e for e, _ in simulate.play(rules, random.Random(8))]
    review = analyse_game(rules, log, random.Random(2), ReviewOptions(deals=1))
    games = sorted({h.game for h in review.hands})
    assert games[:2] == [1, 2]
    second = next(h for h in review.hands if h.game == 2 and h.decisions)
    first = second.decisions[0]
    assert review.decision(second.hand, 0, game=2) == first
    assert first.game == 2 and first.key == (second.hand, 0)
    texts = [c.text for s in review.summaries for c in s.costliest if c.decision.game == 2]
    assert all(t.startswith("game 2, hand ") for t in texts)
