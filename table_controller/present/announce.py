"""What the table page says in sentences: whom the table waits for, and who won.

``Game.expecting()`` is the rules core's own line for developers' errors ("the deal by E
(hand_dealt)"): it names event codes and seat letters. Players read the felt from across
a room, so the page gets its words here, with the players' names and their seats in
words ("Waiting for Bo (East) to pass or order up").

The end of a game is announced big and held until the next deal: a table starts its
next game at once (``TableCore.start_game``), so the ending is kept (``Shown.ended``)
and shown until that game's first hand is dealt.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from table_controller.present.snapshot import GameOverShown, ReviewLink
from table_controller.present.words import SEAT_NAMES, TEAM_SHORT, TEAM_WORDS, card_face, suit_text
from table_controller.rules.events import GameEnded, HandStarted, MatchWon, OutputEvent
from table_controller.rules.game import Game
from table_controller.rules.hand import Phase
from table_controller.rules.presets import FirstDealer, Variant
from table_controller.seats import SEATS, Seat, Team


def seat_names(players: Mapping[Seat, str]) -> dict[Seat, str]:
    """Each seat's player as the page names them: the seat in words when none is given."""
    out = {}
    for seat in SEATS:
        name = (players.get(seat) or "").strip()
        out[seat] = name or SEAT_NAMES[seat]
    return out


def who(names: Mapping[Seat, str], seat: Seat) -> str:
    """A player with their seat in words: "Bo (East)"; the seat alone when unnamed."""
    name = names.get(seat) or SEAT_NAMES[seat]
    return name if name == SEAT_NAMES[seat] else f"{name} ({SEAT_NAMES[seat]})"


def pair(names: Mapping[Seat, str], team: Team) -> str:
    """A team as its players: "Ann and Cy"."""
    a, b = team.seats
    return f"{names.get(a) or SEAT_NAMES[a]} and {names.get(b) or SEAT_NAMES[b]}"


def waiting_for(game: Game, names: Mapping[Seat, str]) -> str:
    """What the table waits for, as a sentence for the felt."""
    phase, hand, rules = game.phase, game.hand, game.rules
    if phase is Phase.CHOOSING_DEALER:
        how = rules.first_dealer
        if how is FirstDealer.HIGH_CUT:
            return "Each player cuts a card: the highest cut deals first"
        if how in (FirstDealer.FIRST_ACE, FirstDealer.FIRST_JACK):
            rank = "an ace" if how is FirstDealer.FIRST_ACE else "a jack"
            return f"Cards are dealt face up, one to each player, until {rank}: it deals first"
        return "Choose the first dealer"
    if phase is Phase.DEALING:
        dealer = game.dealer
        return "Waiting for the deal" if dealer is None else f"{who(names, dealer)} deals"
    if phase is Phase.OVER:
        return "The game is over"
    assert hand is not None
    turn = hand.turn
    if phase is Phase.BIDDING:
        assert turn is not None
        seat = who(names, turn)
        if rules.variant is Variant.BID_EUCHRE:
            return f"{seat} to bid or pass"
        if hand.round == 1:
            return f"{seat} to pass or order up"
        assert hand.upcard is not None
        barred = suit_text(hand.upcard.suit)
        if turn == hand.dealer and rules.stick_the_dealer:
            return f"{seat}, the dealer, must name a suit (not {barred})"
        return f"{seat} to pass or name a suit (not {barred})"
    if phase is Phase.CHOOSING_REMEDY:
        assert hand.offender is not None
        a, b = hand.offender.team.other.seats
        return (
            f"{who(names, a)} or {who(names, b)} to take the penalty or to void the bid "
            "and go alone"
        )
    if phase is Phase.NAMING_TRUMP:
        assert turn is not None
        return f"{who(names, turn)} to name trump"
    if phase is Phase.DISCARDING:
        return f"{who(names, hand.dealer)}, the dealer, to discard"
    if phase is Phase.EXCHANGING:
        assert hand.maker is not None
        return f"{who(names, hand.maker)} and partner to exchange a card"
    player = hand.next_to_play()
    if player is None:
        return "Waiting for the trick to be gathered"
    trick = hand.trick
    verb = "lead" if trick is None or trick.led is None else "play"
    return f"{who(names, player)} to {verb}"


def game_over(
    game: Game,
    recent: Sequence[OutputEvent],
    players: Mapping[Seat, str],
    ended: GameOverShown | None = None,
) -> GameOverShown | None:
    """The end of a game, to announce big, until the next deal: from ``recent`` (a game
    of this match ended and no hand is dealt since) or ``ended`` (the announcement of the
    table's previous game, kept while this new game has dealt no hand)."""
    if game.hand is not None:
        return None
    names = seat_names(players)
    since: list[OutputEvent] = []
    for ev in reversed(recent):
        if isinstance(ev, HandStarted):
            break
        since.append(ev)
    ends = [ev for ev in since if isinstance(ev, GameEnded)]
    won = next((ev for ev in since if isinstance(ev, MatchWon)), None)
    if ends:
        return _announcement(ends[0], won, game.rules.best_of, names)
    if ended is not None and game.last_hand is None:
        return ended.copy()
    return None


def review_link(game: int) -> ReviewLink:
    """Where the table's page serves the hand review of ``game`` (its number in the
    table's log): shown with the game's end, with a QR code to take it home."""
    return {
        "url": f"/review/{game}",
        "qr": f"/review/{game}/qr.svg",
        "file": f"/review/{game}/file",
        "text": "Replay this game hand by hand",
    }


def _announcement(
    ev: GameEnded, won: MatchWon | None, best_of: int, names: Mapping[Seat, str]
) -> GameOverShown:
    ns, ew = ev.scores
    score = f"{max(ns, ew)} to {min(ns, ew)}"
    winner = won.winner if won is not None else ev.winner
    if winner is None:
        title = "A tie"
        text = f"Game {ev.game} ends in a tie, {ns} to {ew}"
    elif won is not None:
        title = f"{pair(names, winner)} win the match"
        a, b = won.games if winner is Team.NS else won.games[::-1]
        text = f"{TEAM_WORDS[winner]} won the match, {a} games to {b}"
    else:
        title = f"{pair(names, winner)} win"
        of = f" of {best_of}" if best_of > 1 else ""
        text = f"{TEAM_WORDS[winner]} won game {ev.game}{of}, {score}"
    return {
        "game": ev.game,
        "team": None if winner is None else winner.name,
        "title": title,
        "text": text,
        "score": {"NS": ns, "EW": ew},
        "next": "The next game starts when the cards are dealt",
    }


_SEAT_LETTER = re.compile(r"\b([NESW])\b")
_CARD_CODE = re.compile(r"\b([9TJQKA][CDHS])\b")


def in_words(text: str) -> str:
    """The rules core's own sentences (an irregularity's detail, a refusal) name seats by
    letter and may name a card by code ("N passed out of turn; the bid stays with E",
    "JH is already on the table"): on the page, seats in words and cards as faces."""
    text = _CARD_CODE.sub(lambda m: card_face(m.group(1)), text)
    return _SEAT_LETTER.sub(lambda m: SEAT_NAMES[Seat[m.group(1)]], text)


def tricks_text(won: Mapping[str, int] | None) -> str:
    """The tricks of the hand in play, counted: "Tricks: N–S 2 · E–W 1"."""
    if won is None:
        return ""
    return f"Tricks: {TEAM_SHORT[Team.NS]} {won['NS']} · {TEAM_SHORT[Team.EW]} {won['EW']}"


__all__ = [
    "TEAM_SHORT",
    "TEAM_WORDS",
    "game_over",
    "in_words",
    "pair",
    "review_link",
    "seat_names",
    "tricks_text",
    "waiting_for",
    "who",
]
