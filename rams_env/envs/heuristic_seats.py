"""The heuristic seats of a batched env (``BatchedRamsEnv(heuristic_seats=...)``): seat masks and the
heuristics' seeds; the compiled core (:mod:`rams_env.compiled.core`) plays them as ``HEURISTIC`` roles."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import MAX_SEATS as P
from .seats import derive_seed


def seat_masks(seats: Any, num_games: int, num_players: int) -> np.ndarray:
    """Per game, the seat bit mask of a bool array (num_players,) or (num_games, num_players)."""
    array = np.asarray(seats)
    if array.dtype != bool:
        raise ValueError(f"heuristic_seats must be a bool array, got dtype {array.dtype}")
    if array.shape == (num_players,):
        array = np.broadcast_to(array, (num_games, num_players))
    if array.shape != (num_games, num_players):
        raise ValueError(
            f"heuristic_seats must have shape ({num_players},) or ({num_games}, {num_players}), got {array.shape}"
        )
    full = np.flatnonzero(array.all(axis=1))
    if len(full):
        raise ValueError(f"game {int(full[0])}: every seat is a heuristic seat; each game needs a controlled seat")
    return (array.astype(np.int64) << np.arange(num_players, dtype=np.int64)).sum(axis=1)


def unpack_seats(masks: np.ndarray, num_players: int) -> np.ndarray:
    """Per game and seat, whether the seat bit is set in the game's mask."""
    return (masks[:, None] >> np.arange(num_players, dtype=np.int64)) & 1 == 1


def heuristic_seed(game_seed: int, seat: int) -> int:
    """The default seed of heuristic seat ``seat`` in a game seeded ``game_seed``."""
    return derive_seed(game_seed, seat, _HEURISTIC_TAG)


_HEURISTIC_TAG = 0x68657572  # keeps the heuristics' seeds apart from the games'


def checked_heuristic_seeds(seeds: list[int], given: Any, num_games: int, num_players: int) -> np.ndarray:
    """Per game and seat (padded to ``P``), the heuristic seats' seeds: given, or derived from the game seeds."""
    out = np.zeros((num_games, P), np.int64)
    if given is None:
        for i, seed in enumerate(seeds):
            out[i, :num_players] = [heuristic_seed(seed, seat) for seat in range(num_players)]
        return out
    try:
        array = np.asarray(given)
    except (TypeError, ValueError) as err:
        raise ValueError(f"heuristic_seeds must be an int array of shape ({num_games}, {num_players}): {err}") from None
    if array.shape != (num_games, num_players) or not np.issubdtype(array.dtype, np.integer):
        raise ValueError(
            f"heuristic_seeds must be an int array of shape ({num_games}, {num_players}), "
            f"got {array.dtype} {array.shape}"
        )
    if (array < 0).any() or (array >= 2**63).any():
        raise ValueError("heuristic_seeds must be from 0 to 2**63 - 1")
    out[:, :num_players] = array
    return out


__all__ = ["checked_heuristic_seeds", "heuristic_seed", "seat_masks", "unpack_seats"]
