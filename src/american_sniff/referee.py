"""The referee: replay a match record and list everything in it that the rules contradict.

:func:`~american_sniff.check_record` plays a :class:`~american_sniff.records.MatchRecord`
again with the engine, from its recorded deals, and compares every claim of
the record with what the rules give: each deal, each opener, each action (its
seat, its legality, the tile a draw took, a placement's end sum and points),
each round's end, finisher, deductions and scores, and the final scores and
winner. Every difference is a :class:`Discrepancy` with a stable ``kind`` (see
:data:`~american_sniff.referee.DISCREPANCY_KINDS`), the round and the action where it is, and a
message for people.

Most discrepancies are claims, and the replay goes on past them with what the
rules give. Some make the rest of the record meaningless, and the replay stops
there (the discrepancy is ``fatal``): a deal that is no deal, an opener that
is no seat, an action made out of turn, an illegal action, and a round whose
actions stop before it ends while later rounds follow. Nothing after a fatal
discrepancy is checked, and the report says so.

The command ``american-sniff check FILE...`` runs the referee on record files.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import attrs

from .engine import new_match
from .errors import InvalidDeal
from .moves import Place
from .records import ActionRecord, MatchRecord, OpenerBy, RoundRecord
from .replayer import (
    IllegalAction,
    Problem,
    ReplayError,
    WrongSeat,
    deal_difference,
    replay_actions,
    step,
)
from .serial import document_header
from .state import Action, Deal, MatchState, RoundEnd, RoundResult

__all__ = ["DISCREPANCY_KINDS", "REPORT_FORMAT", "Discrepancy", "Report", "check_record"]

#: The ``format`` of a report's JSON form.
REPORT_FORMAT = "american-sniff/report"

#: Every kind of discrepancy the referee reports, with its meaning. The kinds
#: are stable: scripts may rely on them.
DISCREPANCY_KINDS: Mapping[str, str] = MappingProxyType(
    {
        "round_number": "a round's number is not its position in the record (1 for the first)",
        "deal": (
            "a round's deal is not a deal for the match: the wrong number or size of hands, "
            "or a tile missing or dealt twice (fatal)"
        ),
        "opener": (
            "a round's opener contradicts the rules: the finisher of the round before opens; "
            "the first round and a round after a block open by lot (fatal when no seat)"
        ),
        "seed": "the record's seed does not deal a round's hands, stock or lot as recorded",
        "wrong_seat": "an action is made by a seat whose turn it is not (fatal)",
        "illegal_action": "an action the rules refuse; code is the refusal code (fatal)",
        "drawn_tile": (
            "a draw claims another tile than the next of the stock, or another move claims a tile"
        ),
        "end_sum": "a placement claims a wrong end sum, or a draw or a pass claims one",
        "points": "a placement claims wrong points, or a draw or a pass claims some",
        "after_round_end": "actions are recorded after the action that ended their round",
        "round_unfinished": (
            "a round's actions stop before the round ends, but a later round follows (fatal)"
        ),
        "after_win": "actions or rounds are recorded after the match was won",
        "end": "a round claims a wrong end: domino, blocked, or null when it did not end",
        "finisher": "a round claims a wrong finisher",
        "deductions": "a round claims wrong settlement deductions",
        "scores": "a round claims wrong scores at its end",
        "final_scores": "the result claims wrong final scores",
        "winner": "the result claims a wrong winner",
    }
)


@attrs.frozen
class Discrepancy:
    """One claim of a record that the rules contradict.

    :ivar kind: What is wrong, as a stable code: a key of
        :data:`~american_sniff.referee.DISCREPANCY_KINDS`.
    :ivar round: The round it is in (1 for the first), or None for the result.
    :ivar action: The index of the action in the round's ``actions`` (from 0),
        or None for a discrepancy of the round as a whole or of the result.
    :ivar message: What is wrong, in words: what the record says and what the
        rules give.
    :ivar code: For an ``illegal_action``, the refusal code
        (:attr:`IllegalMove.code <american_sniff.IllegalMove.code>`); else None.
    :ivar fatal: Whether the replay stops here: nothing after it is checked.
    """

    kind: str
    round: int | None
    action: int | None
    message: str
    code: str | None = None
    fatal: bool = False

    @property
    def where(self) -> str:
        """Where it is, in words: ``"round 2, action 5"``, ``"round 2"`` or ``"result"``."""
        if self.round is None:
            return "result"
        if self.action is None:
            return f"round {self.round}"
        return f"round {self.round}, action {self.action}"

    def __str__(self) -> str:
        kind = self.kind if self.code is None else f"{self.kind} [{self.code}]"
        return f"{self.where}: {kind}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        """The discrepancy as a JSON object: every field, always present (None as null)."""
        return attrs.asdict(self)


@attrs.frozen
class Report:
    """What the referee found in a record.

    :ivar discrepancies: Every discrepancy, in the order of the record.
    :ivar rounds: How many rounds the record holds.
    :ivar actions: How many actions the record holds, in all rounds.
    """

    discrepancies: tuple[Discrepancy, ...]
    rounds: int
    actions: int

    @property
    def ok(self) -> bool:
        """Whether the record agrees with the rules in every claim."""
        return not self.discrepancies

    @property
    def stopped(self) -> Discrepancy | None:
        """The fatal discrepancy the replay stopped at, or None if it reached the end."""
        for found in self.discrepancies:
            if found.fatal:
                return found
        return None

    @property
    def complete(self) -> bool:
        """Whether the whole record was checked (no discrepancy stopped the replay)."""
        return self.stopped is None

    def text(self) -> str:
        """The report for people: a summary line, then one line per discrepancy."""
        size = f"{self.rounds} round{'s' * (self.rounds != 1)}, {self.actions} actions"
        if self.ok:
            return f"valid: {size}; every claim agrees with the rules"
        count = len(self.discrepancies)
        lines = [f"{count} discrepanc{'ies' if count != 1 else 'y'} ({size}):"]
        lines += [f"  {found}" for found in self.discrepancies]
        stopped = self.stopped
        if stopped is not None:
            lines.append(
                f"The replay stops at {stopped.where}: the rest of the record (later actions "
                "and rounds, and the result) cannot be replayed and is not checked."
            )
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text()

    def to_dict(self) -> dict[str, Any]:
        """The report as a dict of JSON values (what :meth:`to_json` writes)."""
        return {
            **document_header(REPORT_FORMAT),
            "ok": self.ok,
            "complete": self.complete,
            "rounds": self.rounds,
            "actions": self.actions,
            "discrepancies": [found.to_dict() for found in self.discrepancies],
        }

    def to_json(self) -> str:
        """The report as JSON text, for scripts."""
        return json.dumps(self.to_dict(), separators=(",", ":"))


def check_record(record: MatchRecord) -> Report:
    """Replay ``record`` and list every discrepancy with the rules.

    The report is ``ok`` when there is none. A record that stops before the
    match is won is checked as far as it goes: it is valid if everything it
    claims is right (its result then has no winner).

    >>> from american_sniff import new_match, apply, legal_moves
    >>> from american_sniff.records import record_match
    >>> import attrs
    >>> state = new_match(2, seed=9)
    >>> states = [state]
    >>> while not state.is_over:
    ...     state = apply(state, legal_moves(state)[0])
    ...     states.append(state)
    >>> record = record_match(states)
    >>> check_record(record).ok
    True
    >>> wrong = attrs.evolve(record, winner=1 - record.winner)
    >>> print(check_record(wrong))
    1 discrepancy (24 rounds, 515 actions):
      result: winner: the record claims winner 0; the rules give 1

    :raises TypeError: if ``record`` is not a :class:`~american_sniff.records.MatchRecord`.
    """
    if type(record) is not MatchRecord:
        raise TypeError(f"check_record() needs a MatchRecord, got {record!r}")
    referee = _Referee(record)
    final = referee.replay()
    if final is not None:
        referee.check_result(final)
    return Report(tuple(referee.found), len(record.rounds), record.action_count)


# -- the replay ---------------------------------------------------------------------------


def _claimed(value: object) -> str:
    """A claimed or expected value as the message shows it."""
    if value is None:
        return "null"
    if isinstance(value, tuple):
        return "[" + ", ".join(map(_claimed, value)) + "]"
    if isinstance(value, RoundEnd):
        return repr(value.value)
    return str(value)


class _Referee:
    """The replay of one record, collecting discrepancies as it goes."""

    def __init__(self, record: MatchRecord) -> None:
        self.record = record
        self.found: list[Discrepancy] = []

    def add(
        self,
        kind: str,
        number: int | None,
        index: int | None,
        message: str,
        *,
        code: str | None = None,
        fatal: bool = False,
    ) -> None:
        assert kind in DISCREPANCY_KINDS
        self.found.append(Discrepancy(kind, number, index, message, code, fatal))

    def compare(
        self, kind: str, number: int | None, index: int | None, claimed: object, rules: object
    ) -> None:
        """Add a discrepancy of ``kind`` if the record's claim differs from the rules."""
        if claimed != rules:
            what = kind.replace("_", " ")
            self.add(
                kind,
                number,
                index,
                f"the record claims {what} {_claimed(claimed)}; the rules give {_claimed(rules)}",
            )

    def deals(self) -> tuple[list[Deal], int | None]:
        """The deals of the record up to the first that is none; and that round's number."""
        record = self.record
        deals: list[Deal] = []
        for number, round_record in enumerate(record.rounds, start=1):
            if _deal_problem(round_record, record.players) is not None:
                return deals, number
            deals.append(round_record.deal())
        return deals, None

    def replay(self) -> MatchState | None:
        """Replay every round; the last state, or None if the replay stopped.

        A record with a seed is replayed once, from its seed, for as long as
        the seed deals every round as recorded (the states are then those of
        the recorded deals); from the first round the seed does not deal, the
        replay goes on from the recorded deals, and the seed is reported.
        """
        record = self.record
        rounds = record.rounds
        deals, bad_deal = self.deals()
        seeded = record.seed is not None
        seed = 0 if record.seed is None else record.seed
        state = new_match(record.players, seed=seed, deals=() if seeded else deals)
        for number, round_record in enumerate(rounds, start=1):
            if state.winner is not None:
                later = len(rounds) - number + 1
                self.add(
                    "after_win",
                    number,
                    None,
                    f"{later} round{'s' * (later != 1)} recorded after side {state.winner} "
                    f"won the match in round {state.round}",
                )
                return state
            if round_record.round != number:
                self.add(
                    "round_number",
                    number,
                    None,
                    f"the round in position {number} is numbered {round_record.round}",
                )
            if number == bad_deal:
                problem = _deal_problem(round_record, record.players)
                assert problem is not None
                kind, message = problem
                self.add(kind, number, None, message, fatal=True)
                return None
            if seeded:
                difference = deal_difference(
                    state,
                    round_record.hands,
                    round_record.stock,
                    round_record.opener,
                    f"seed {seed}",
                )
                if difference is not None:
                    self.add(
                        "seed",
                        number,
                        None,
                        f"the record's seed does not deal this round as recorded: {difference}",
                    )
                    # From here on the recorded deals: replay them up to this round.
                    seeded = False
                    state = self.restart(deals, number)
            self.check_opener(state, round_record, number)
            after = self.play_round(state, round_record, number)
            if after is None:
                return None
            state = after
        return state

    def restart(self, deals: list[Deal], number: int) -> MatchState:
        """The first state of round ``number`` when the record's deals are played.

        The rounds before it were dealt by the seed as recorded, and played
        without a fatal discrepancy: only their states are needed again.
        """
        record = self.record
        assert record.seed is not None
        state = new_match(record.players, seed=record.seed, deals=deals)
        for position, earlier in enumerate(record.rounds[: number - 1], start=1):
            try:
                for after in replay_actions(state, earlier.actions, round=position):
                    state = after
            except ReplayError:
                pass  # actions after the round's end: reported, and skipped, the first time
        return state

    def check_opener(self, state: MatchState, round_record: RoundRecord, number: int) -> None:
        """The finisher of the round before opens; otherwise the lot's seat."""
        before = state.last_round
        if before is not None and before.end is RoundEnd.DOMINO:
            rule, why = OpenerBy.FINISHER, f"seat {before.finisher} went out in round {number - 1}"
        elif before is None:
            rule, why = OpenerBy.LOT, "the first round opens by lot"
        else:
            rule, why = OpenerBy.LOT, f"round {number - 1} was blocked, so a lot picks the opener"
        problems = []
        if round_record.opener_by is not rule:
            problems.append(f"opener_by is {round_record.opener_by.value!r}, not {rule.value!r}")
        if round_record.opener != state.opener:
            problems.append(f"seat {state.opener} opens, not seat {round_record.opener}")
        if problems:
            self.add("opener", number, None, f"{why}: {'; '.join(problems)}")

    def play_round(
        self, state: MatchState, round_record: RoundRecord, number: int
    ) -> MatchState | None:
        """Play the round's actions and check the round's claims; None if the replay stops."""
        ended: RoundResult | None = None
        actions = round_record.actions
        for index, action in enumerate(actions):
            if state.winner is not None or ended is not None:
                self.report_later_actions(state, actions, number, index)
                break
            after = self.play_action(state, action, number, index)
            if after is None:
                return None
            real = after.last_action
            assert real is not None
            self.check_action(number, index, action, real)
            ended = real.round_result
            state = after
        return self.check_round_end(state, round_record, number, ended)

    def report_later_actions(
        self, state: MatchState, actions: Sequence[ActionRecord], number: int, index: int
    ) -> None:
        """Report the actions of round ``number`` from ``index`` on, recorded after its end."""
        later = len(actions) - index
        where = f"seat {actions[index].seat}: {actions[index].move}"
        what = f"{later} action{'s' * (later != 1)} ({where}, ...) recorded after"
        if state.winner is not None:
            self.add("after_win", number, index, f"{what} side {state.winner} won")
        else:
            self.add("after_round_end", number, index, f"{what} the round ended")

    def play_action(
        self, state: MatchState, action: ActionRecord, number: int, index: int
    ) -> MatchState | None:
        """The state after ``action``; None, with a fatal discrepancy, if the rules refuse it."""
        after = step(state, action.seat, action.move, index=index)
        if not isinstance(after, Problem):
            return after
        where = f"seat {action.seat}: {action.move}"
        if isinstance(after, WrongSeat):
            message = f"{where}, but it is seat {after.turn}'s turn"
        else:
            assert isinstance(after, IllegalAction)  # the winner is looked at before
            message = f"{where} is illegal: {after.error}"
        self.add(after.kind, number, index, message, code=after.code, fatal=True)
        return None

    def check_round_end(
        self,
        state: MatchState,
        round_record: RoundRecord,
        number: int,
        ended: RoundResult | None,
    ) -> MatchState | None:
        """Check how round ``number`` ended (``ended``, None if it did not) against its record.

        Return ``state``, or None if the replay stops: the round did not end, yet
        another follows.
        """
        actions = round_record.actions
        if ended is not None:
            rules: tuple[object, ...] = (ended.end, ended.finisher, ended.deductions, ended.scores)
        elif state.winner is None and number < len(self.record.rounds):
            self.add(
                "round_unfinished",
                number,
                None,
                f"the round's {len(actions)} actions stop before it ends (seat {state.turn} "
                f"is to move), but round {number + 1} follows",
                fatal=True,
            )
            return None
        else:
            rules = (None, None, None, state.scores)
        claims = (round_record.end, round_record.finisher, round_record.deductions)
        for kind, claimed, expected in zip(
            ("end", "finisher", "deductions", "scores"),
            (*claims, round_record.scores),
            rules,
            strict=True,
        ):
            self.compare(kind, number, None, claimed, expected)
        return state

    def check_action(self, number: int, index: int, action: ActionRecord, real: Action) -> None:
        """Compare what an action claims with what the rules made of it."""
        placed = type(real.move) is Place
        self.compare("drawn_tile", number, index, action.tile, real.tile)
        self.compare("end_sum", number, index, action.end_sum, real.end_sum if placed else None)
        self.compare("points", number, index, action.points, real.points if placed else None)

    def check_result(self, state: MatchState) -> None:
        """The final scores and the winner are those the replay reached."""
        self.compare("final_scores", None, None, self.record.scores, state.scores)
        self.compare("winner", None, None, self.record.winner, state.winner)


def _deal_problem(round_record: RoundRecord, players: int) -> tuple[str, str] | None:
    """Why the round's deal cannot start the round, as (kind, message); None if it can."""
    if not 0 <= round_record.opener < players:
        return "opener", f"seat {round_record.opener} is not a seat of a {players}-player match"
    try:
        deal = round_record.deal()
    except InvalidDeal as error:
        return "deal", f"the hands and the stock are not a deal: {error}"
    if deal.players != players:
        return "deal", f"{deal.players} hands are dealt in a {players}-player match"
    return None
