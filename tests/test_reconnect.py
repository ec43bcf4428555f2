"""What a host needs to resume and reconnect: the state's ``seq``, the events since N, bot seeds."""

from __future__ import annotations

import pytest

from american_sniff import (
    MatchState,
    apply,
    apply_event,
    make_bot,
    new_match,
    spectator_view,
    view_for,
)
from american_sniff.bots import bot_seed
from american_sniff.views import EventsUnavailable, events_since
from scenarios import random_play, sweep


def _match(players: int, seed: int, steps: int = 500) -> list[MatchState]:
    return random_play(new_match(players, seed=seed), steps, seed)


@pytest.mark.sweep
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_state_seq_is_every_views_seq_along_random_matches(players: int) -> None:
    """``state.seq`` is the views' ``seq`` at every state, counting on across rounds."""
    for seed in range(sweep(3)):
        states = _match(players, seed)
        assert states[-1].round > 2  # the matches cross round boundaries
        for number, state in enumerate(states):
            assert state.seq == number
            assert state.seq == spectator_view(state).seq
            assert all(view_for(state, seat).seq == state.seq for seat in range(players))
            assert state.seq == state.info.actions_before + len(state.history)


def _viewers(players: int) -> list[int | None]:
    return [None, *range(players)]


@pytest.mark.sweep
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_events_since_n_turn_the_view_at_n_into_the_view_now(players: int) -> None:
    """For seats and spectators, from every N the state replays, across round boundaries."""
    crossed = 0
    for seed in range(sweep(2)):
        states = _match(players, seed, steps=300)
        for state in states[:: max(1, len(states) // 40)] + [states[-1]]:
            for seq in range(max(0, state.seq - 30), state.seq + 1):
                viewer = _viewers(players)[seq % (players + 1)]
                if seq < state.info.actions_before - 1:
                    with pytest.raises(EventsUnavailable):
                        events_since(state, viewer, seq)
                    continue
                events = events_since(state, viewer, seq)
                assert [event.seq for event in events] == list(range(seq + 1, state.seq + 1))
                view = view_for(states[seq], viewer)
                for event in events:
                    view = apply_event(view, event)
                assert view == view_for(state, viewer)
                crossed += states[seq].round != state.round
    assert crossed  # some of them start in the round before


def test_the_events_since_the_round_before_include_the_action_that_ended_it() -> None:
    """From the seq before a round's last action: that action's event opens the new round."""
    states = _match(2, 3)
    index = next(n for n, s in enumerate(states) if s.round == 2)
    later = states[index + 3]
    events = events_since(later, 1, index - 1)
    assert [event.seq for event in events] == [index, index + 1, index + 2, index + 3]
    assert events[0].next_round == view_for(states[index], 1)
    assert all(event.next_round is None for event in events[1:])
    assert events_since(later, 1, later.seq) == ()


def test_events_since_refuses_a_seq_it_cannot_answer() -> None:
    """Negative, ahead of the state, or before what it can replay: each refused, saying which."""
    states = _match(2, 3)
    index = next(n for n, s in enumerate(states) if s.round == 2)
    state = states[index + 2]
    cases = {-1: "negative", state.seq + 1: "behind it", index - 2: "send a whole view"}
    for seq, words in cases.items():
        with pytest.raises(EventsUnavailable, match=words) as caught:
            events_since(state, 0, seq)
        assert (caught.value.seq, caught.value.latest) == (seq, state.seq)
        assert caught.value.earliest == index - 1
    with pytest.raises(ValueError, match="seat"):
        events_since(state, 2, state.seq)
    with pytest.raises(TypeError, match="integer"):
        events_since(state, 0, True)
    with pytest.raises(TypeError, match="MatchState"):
        events_since(view_for(state, 0), 0, 0)  # type: ignore[arg-type]


def test_events_since_the_first_round_start_at_zero() -> None:
    """In round 1 every seq from 0 is answered: there is no round before."""
    state = _match(4, 1, steps=6)[-1]
    assert state.round == 1
    assert len(events_since(state, None, 0)) == state.seq
    with pytest.raises(EventsUnavailable):
        events_since(new_match(2, seed=1), None, 1)


def test_events_since_refuses_a_state_its_round_does_not_lead_to() -> None:
    """A state made by hand, whose round does not play again to it, is refused, not answered."""
    state = _match(2, 5, steps=8)[-1]
    forged = state.evolve(scores=(99, 0))
    with pytest.raises(ValueError, match="does not play again"):
        events_since(forged, 0, 0)
    emptied = state.evolve(hands=((), ()))
    with pytest.raises(ValueError, match="does not play again"):
        events_since(emptied, 0, 0)


def test_the_bot_seed_makes_a_restarted_host_choose_the_same_moves() -> None:
    """Bots made afresh from ``bot_seed`` play one match alike however often they are remade."""

    def play(state: MatchState, steps: int) -> MatchState:
        for _ in range(steps):
            bot = make_bot("search", bot_seed(state.seed, state.turn, state.seq), playouts=2)
            state = apply(state, bot.choose(view_for(state, state.turn)))
        return state

    start = new_match(3, seed=11)
    straight = play(start, 30)
    resumed = play(play(start, 17), 13)  # "restarted" after 17 actions
    assert straight == resumed
    assert bot_seed(1, 0, 0) != bot_seed(1, 1, 0) != bot_seed(2, 1, 0)


@pytest.mark.parametrize(
    ("seed", "seat", "seq"), [(-1, 0, 0), (2**64, 0, 0), (1, -1, 0), (1, 0, -3), (1, 0, 1.5)]
)
def test_the_bot_seed_refuses_what_is_not_a_seed_seat_or_seq(
    seed: object, seat: object, seq: object
) -> None:
    """Each part is checked, and the message names it."""
    with pytest.raises(ValueError, match=r"seed|seat|seq"):
        bot_seed(seed, seat, seq)  # type: ignore[arg-type]
