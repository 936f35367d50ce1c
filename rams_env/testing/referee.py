"""The reference engine's side of a check: one game played by the pure-Python rules, seeded as
``rams_env.env(engine="reference")`` seeds it, paying what the rules say (docs/contract.md "Rewards and infos")."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..envs.aec import RamsEnv
from ..obs.encoding import ObservationEncoder, action_mask
from ..rules import Game, Phase, RulesConfig
from ..rules.episode import next_deal_or_end, win_rewards


class Referee:
    """One game of a batched face (same-step autoreset): the decision due, and what each action pays.

    Episodes start as ``rams_env.env(engine="reference").reset(seed=seed)`` and then ``reset()`` start
    them, skipping episodes that end before any decision. ``heuristic`` maps seats to agents that play
    them (as ``BatchedRamsEnv(heuristic_seats=...)`` does): their moves' rewards join the step before,
    or, after the episode ended, the next step; an episode without a controlled decision is dropped."""

    def __init__(
        self, config: RulesConfig, episode: str, reward: str, seed: int, heuristic: dict[int, Any] | None = None
    ) -> None:
        self.config, self.episode, self.reward = config, episode, reward
        self._aec = RamsEnv(config=config, episode=episode, reward=reward, engine="reference")
        self._aec.reset(seed=seed)
        self.encoder = ObservationEncoder(config)
        self.heuristic = heuristic or {}
        self.carry = np.zeros(config.num_players)
        self.game = self._first_game()
        self.game = self._advance(self.game, self.carry, self.carry, True)[0]

    def _first_game(self) -> Game:
        while all(self._aec.terminations.values()):  # no decision in this episode: batched envs skip it
            self._aec.reset()
        game = self._aec.game
        assert isinstance(game, Game)
        return game

    def _new_game(self) -> Game:
        self._aec.reset()
        return self._first_game()

    @property
    def seat(self) -> int:
        """The seat to act."""
        return self.game.current

    def legal(self) -> list[int]:
        """The legal actions of the seat to act, as the rules give them."""
        return self.game.legal_actions()

    def observation(self, seat: int | None = None) -> np.ndarray:
        """What ``seat`` (default: the seat to act) sees, encoded from the reference game."""
        return self.encoder.encode(self.game, self.seat if seat is None else seat)

    def mask(self, seat: int | None = None) -> np.ndarray:
        """``seat``'s action mask from the reference game."""
        return action_mask(self.game, self.seat if seat is None else seat)

    def _apply(self, game: Game, action: int, into: np.ndarray, ended: bool) -> tuple[Game, bool, bool]:
        before = np.array(game.scores, np.float64)
        game.apply(action)
        if self.reward == "points":
            into += before - np.array(game.scores)  # a new rams' fresh scores (next_deal) are no reward
        if game.phase >= Phase.DEAL_OVER and next_deal_or_end(game, self.episode):
            if self.reward == "win" and not ended:
                into += win_rewards(game)
            return self._new_game(), True, ended
        return game, ended, False

    def _advance(self, game: Game, rewards: np.ndarray, carry: np.ndarray, ended: bool) -> tuple[Game, bool]:
        while game.current in self.heuristic:
            agent = self.heuristic[game.current]
            seat = game.current
            action = agent.act({"observation": self.encoder.encode(game, seat), "action_mask": action_mask(game, seat)})
            game, ended, again = self._apply(game, int(action), carry if ended else rewards, ended)
            if again:  # an episode with no controlled decision: dropped
                carry[:] = 0.0
        return game, ended

    def step(self, action: int) -> tuple[np.ndarray, bool]:
        """Apply ``action`` (then the heuristic seats' moves): every seat's rewards, and whether the episode ended."""
        rewards, self.carry = self.carry, np.zeros(self.config.num_players)
        game, ended, _ = self._apply(self.game, int(action), rewards, False)
        self.game, ended = self._advance(game, rewards, self.carry, ended)
        return rewards, ended
