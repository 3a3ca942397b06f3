"""A game's verdicts at the table (issue 34): worked out in the runner's process as each
hand ends (only the new hand each time), kept beside the log so a restart does not redo
them, "being worked out" on the page meanwhile, a failure said in words with the replay
still shown, and never a verdict of the hand in play: the analysis is not even given it."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from pathlib import Path

from review_games import ended_before, in_play, review_data, simulated, write
from verdict_gate import counted_judge, dies
from waiting import apart

from table_controller.event_log import EventLog
from table_controller.review import KeptReview, ended_only
from table_controller.rules.events import HandScored, HandThrownIn, InputEvent
from table_controller.rules.presets import preset
from table_controller.table.log.export import page_review
from table_controller.table.log.verdicts import Judge, TableVerdicts, verdicts_folder

RULES = preset("td-tournament")


def _hand_ends(steps: list) -> list[tuple[InputEvent, ...]]:
    """The game's events up to each hand's end, as the table has them then."""
    ends, so_far = [], []
    for event, outputs in steps:
        so_far.append(event)
        if any(isinstance(o, HandScored | HandThrownIn) for o in outputs):
            ends.append(tuple(so_far))
    return ends


async def _until(condition: Callable[[], bool]) -> None:
    while not condition():
        await asyncio.sleep(0.02)


def test_verdicts_are_worked_out_as_hands_end_and_kept_through_a_restart(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "table.sqlite", table="Maple")
    steps = simulated(seed=5)
    game = write(log, [e for e, _ in steps])
    hands = len(_hand_ends(steps))
    gate = tmp_path / "gate"
    gate.mkdir()
    folder = verdicts_folder(log.path)

    async def play() -> tuple[KeptReview | None, KeptReview | None]:
        verdicts = TableVerdicts(folder, functools.partial(counted_judge, str(gate)))
        ends = _hand_ends(steps)
        verdicts.hand_ended(game, RULES, ends[0])
        await _until(lambda: (gate / "jobs").exists())
        # Held: the page shows the replay, the verdicts "being worked out".
        working = await asyncio.to_thread(verdicts.for_page, game, hands, lambda: (RULES, ()))
        (gate / "go").write_text("", encoding="utf-8")
        await _until(lambda: verdicts.backlog.waiting == 0)
        for events in ends[1:]:  # each later hand: worked out once the one before is kept
            verdicts.hand_ended(game, RULES, events)
            await _until(lambda: verdicts.backlog.waiting == 0)
        ready = await asyncio.to_thread(verdicts.for_page, game, hands, lambda: (RULES, ()))
        await verdicts.close()
        return working, ready

    working, ready = apart(play)
    assert working is not None and working.state == "working"
    assert ready is not None and ready.state == "ready"
    assert ready.hands == tuple((1, h) for h in range(1, hands + 1))
    # Kept private, as the log is (docs/security.md).
    assert folder.stat().st_mode & 0o777 == 0o700
    assert (folder / f"game-{game}.json").stat().st_mode & 0o777 == 0o600
    assert [p.name for p in folder.iterdir()] == [f"game-{game}.json"]
    # Each hand was worked out once: every job but the first was given the hands before.
    jobs = (gate / "jobs").read_text(encoding="utf-8").split("\n")[:-1]
    assert [int(line.split()[0]) for line in jobs] == list(range(hands))

    # A restart: what was kept is read back and not worked out again (this work dies).
    async def restarted() -> str:
        again = TableVerdicts(folder, dies)
        again.attach(asyncio.get_running_loop())
        shown = await asyncio.to_thread(page_review, log, game, table="Maple", verdicts=again)
        assert shown is not None and again.backlog.waiting == 0
        await again.close()
        return shown.html

    html = apart(restarted)
    assert '"verdicts_state":"ready"' in html and '"costliest":[{' in html
    assert (gate / "jobs").read_text(encoding="utf-8").count("\n") == hands


def test_a_game_not_yet_kept_is_worked_out_quietly_when_opened_and_a_failure_said(
    tmp_path: Path,
) -> None:
    log = EventLog(tmp_path / "table.sqlite", table="Maple")
    game = write(log, [e for e, _ in simulated(seed=5)])
    folder = verdicts_folder(log.path)

    async def opened() -> tuple[str, KeptReview | None]:
        verdicts = TableVerdicts(folder, dies)
        verdicts.attach(asyncio.get_running_loop())
        first = await asyncio.to_thread(page_review, log, game, table="Maple", verdicts=verdicts)
        assert first is not None
        await _until(lambda: verdicts.backlog.waiting == 0 and verdicts.kept(game) is not None)
        await verdicts.close()
        return first.html, verdicts.kept(game)

    html, kept = apart(opened)
    assert "The verdicts are being worked out..." in html
    assert '"hands":[{' in html  # the replay is shown meanwhile
    assert kept is not None and kept.state == "failed"
    assert kept.problem == "its process ended without an answer"

    async def reopened() -> str:
        verdicts = TableVerdicts(folder, dies)
        shown = await asyncio.to_thread(page_review, log, game, table="Maple", verdicts=verdicts)
        assert shown is not None
        return shown.html

    again = apart(reopened)
    assert "could not be worked out (its process ended without an answer)" in again
    assert "The hands can still be replayed." in again and '"hands":[{' in again


def test_the_analysis_is_never_given_the_hand_in_play(tmp_path: Path) -> None:
    steps = simulated(seed=11)
    events = [e for e, _ in steps]
    cut = events[: in_play(steps, 3, 2)]
    assert ended_only(RULES, cut) == tuple(events[: ended_before(steps, 3)])
    assert ended_only(RULES, events[: in_play(steps, 1, 1)]) == ()
    log = EventLog(tmp_path / "table.sqlite", table="Maple")
    game = write(log, cut)
    gate = tmp_path / "gate"
    gate.mkdir()
    (gate / "go").write_text("", encoding="utf-8")
    folder = verdicts_folder(log.path)

    async def mid_game() -> KeptReview | None:
        verdicts = TableVerdicts(folder, functools.partial(counted_judge, str(gate)))
        verdicts.hand_ended(game, RULES, tuple(cut))  # as if handed the whole log
        await _until(lambda: verdicts.backlog.waiting == 0)
        await verdicts.close()
        return verdicts.kept(game)

    kept = apart(mid_game)
    assert kept is not None and kept.hands == ((1, 1), (1, 2))
    assert {d.hand for d in kept.decisions} == {1, 2}
    given = int((gate / "jobs").read_text(encoding="utf-8").split()[1])
    assert given == ended_before(steps, 3)


def test_a_failure_kept_is_tried_once_more_after_a_restart(tmp_path: Path) -> None:
    """A process that died (out of memory, say) left a failure kept: after a restart the
    game is worked out once more when opened; a second failure is then left said."""
    log = EventLog(tmp_path / "table.sqlite", table="Maple")
    game = write(log, [e for e, _ in simulated(seed=5)])
    folder = verdicts_folder(log.path)
    gate = tmp_path / "gate"
    gate.mkdir()
    (gate / "go").write_text("", encoding="utf-8")

    async def run(work: Judge, opens: int) -> list[str]:
        verdicts = TableVerdicts(folder, work)
        verdicts.attach(asyncio.get_running_loop())
        states = []
        for _ in range(opens):
            shown = await asyncio.to_thread(
                page_review, log, game, table="Maple", verdicts=verdicts
            )
            assert shown is not None
            states.append(str(review_data(shown.html)["verdicts_state"]))
            await _until(lambda: verdicts.backlog.waiting == 0)
        await verdicts.close()
        return states

    assert apart(lambda: run(dies, 2)) == ["working", "failed"]  # failed, not tried again
    assert apart(lambda: run(dies, 2)) == ["working", "failed"]  # a restart: once more
    held = functools.partial(counted_judge, str(gate))
    assert apart(lambda: run(held, 2)) == ["working", "ready"]
    kept = TableVerdicts(folder).kept(game)
    assert kept is not None and kept.state == "ready" and kept.decisions
