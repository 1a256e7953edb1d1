"""One conformance suite over every game of the simulator (OpenSpiel's games_sim_test in spirit).

Random playouts through the State interface check the contract every driver relies on: clones
are independent and equal, serialisation is canonical, a terminal state offers no action, returns
stay in bounds, the same seed plays the same game, and the states behave as the game's declared
capabilities (dynamics, chance, match logs) say.
"""

from __future__ import annotations

import random

import pytest

from sim.game import CHANCE, SIMULTANEOUS, TERMINAL, ChanceMode, Dynamics, Game, State
from sim.games import GAMES, load_game

SEEDS = [0, 1, 7]

#: Smaller rules where a game's defaults make random playouts slow; the contract is the same.
#: The dungeon's defaults (1000 nodes, 2000 steps) give ~45,000 decisions per random playout.
OPTIONS: dict[str, dict[str, object]] = {
    "dungeon": {"nodes": 300, "radius": 0.1, "draw_steps": 40},
}


@pytest.fixture(params=sorted(GAMES))
def game(request: pytest.FixtureRequest) -> Game:
    return load_game(request.param, **OPTIONS.get(request.param, {}))


def random_playout(game: Game, seed: int) -> list[str]:
    """Play random legal actions from the seed's initial state; return the serialised trace."""
    rng = random.Random(seed)
    state = game.new_initial_state(seed)
    trace = [state.serialize()]
    for _ in range(game.info.max_game_length):
        if state.is_terminal():
            break
        player = state.current_player()
        assert player != TERMINAL, "a state that is not terminal has someone to act"
        assert player != SIMULTANEOUS, "a sequential game names one player or chance"
        if player == CHANCE:
            assert game.info.chance is ChanceMode.EXPLICIT, "only explicit chance has CHANCE nodes"
            outcomes = state.chance_outcomes()
            assert outcomes, "a chance node lists its outcomes"
            assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
            action = rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
        else:
            assert 0 <= player < game.info.num_players
            actions = state.legal_actions()
            assert len(actions) > 0, "a non-terminal decision node has a legal action"
            action = actions[rng.randrange(len(actions))]
        before = state.serialize()
        copy = state.clone()
        assert copy.serialize() == before, "a clone equals its original"
        copy.apply_action(action)
        assert state.serialize() == before, "playing on a clone leaves the original alone"
        state.apply_action(action)
        assert state.serialize() == copy.serialize(), "the same action gives the same state"
        trace.append(state.serialize())
    assert state.is_terminal(), f"game did not end within {game.info.max_game_length} actions"
    assert state.current_player() == TERMINAL
    assert len(state.legal_actions()) == 0, "a terminal state offers no action"
    returns = state.returns()
    assert len(returns) == game.info.num_players
    assert all(game.info.min_return <= r <= game.info.max_return for r in returns)
    return trace


def test_every_game_declares_its_capabilities(game: Game) -> None:
    """Dynamics and chance are declared, every game here is sequential through its State (the
    playouts drive it one decision at a time), and a game declares a match log exactly when it
    can write one."""
    info = game.info
    assert isinstance(info.chance, ChanceMode)
    assert info.dynamics is Dynamics.SEQUENTIAL
    assert info.writes_match_log == callable(getattr(game, "play_logged", None))


def test_the_dungeon_is_sequential_with_chance_sampled_inside_its_state() -> None:
    """As sim/game.py says: simultaneous on the wire, but the simulator's State serialises each
    logical step into one decision per acting agent (no SIMULTANEOUS), and the trap problems,
    dice and step order are drawn inside the state (no CHANCE nodes); it writes match logs."""
    info = load_game("dungeon", **OPTIONS["dungeon"]).info
    assert info.dynamics is Dynamics.SEQUENTIAL
    assert info.chance is ChanceMode.SAMPLED
    assert info.writes_match_log


@pytest.mark.parametrize("seed", SEEDS)
def test_random_playouts_keep_the_state_contract(game: Game, seed: int) -> None:
    """Clones, serialisation, terminal states and returns behave on random playouts."""
    random_playout(game, seed)


def test_same_seed_gives_the_same_playout(game: Game) -> None:
    """Two playouts from one seed are identical step by step (lockstep determinism)."""
    assert random_playout(game, 3) == random_playout(game, 3)


def test_initial_state_depends_on_the_seed_only(game: Game) -> None:
    """new_initial_state is a pure function of the seed."""
    first: State = game.new_initial_state(11)
    assert first.serialize() == game.new_initial_state(11).serialize()


def test_every_strategy_plays_a_whole_match_reproducibly(game: Game) -> None:
    """Each named strategy finishes a match, in bounds, and the same seed replays it exactly."""
    names = sorted(game.strategies())
    assert "random" in names, "every game ships a random baseline"
    for index, name in enumerate(names):
        seats = [name] + ["random"] * (game.info.num_players - 1)
        if index % 2:
            seats.reverse()
        result = game.play(5, seats)
        assert result == game.play(5, seats)
        assert len(result.returns) == game.info.num_players
        assert all(game.info.min_return <= r <= game.info.max_return for r in result.returns)
        assert 0 < result.length <= game.info.max_game_length
