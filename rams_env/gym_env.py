"""Single-agent Gymnasium view of Rams: one seat learns, the other seats are played by policies.

The action mask is offered the way sb3-contrib's ``MaskablePPO`` expects: the method
``action_masks()`` (found by ``get_action_masks`` through wrappers) and ``info["action_mask"]``.
Rewards are the learning seat's own (its rewards accumulated since its last action), never the
reward of whoever happens to act next.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces

from .encoding import OBS_SIZE
from .env import OBS_HIGH, OBS_LOW, RamsEnv
from .rules.actions import NUM_ACTIONS

Policy = Callable[[dict[str, np.ndarray]], int]


def _as_policy(opponent: Any) -> Policy:
    if hasattr(opponent, "act"):
        return opponent.act
    if callable(opponent):
        return opponent
    raise TypeError(f"an opponent must be callable or have act(observation), got {type(opponent).__name__}")


class RamsGymEnv(gymnasium.Env):
    """One learning seat against given opponents (default: uniformly random legal play).

    ``learner_seat`` is a seat or ``"random"`` (drawn at each reset); ``opponents`` is one policy
    for every other seat or a list with one per other seat, in seat order. A policy is a callable
    ``observation -> action`` or an object with ``act(observation)``; the observation is
    ``env.observe(agent)`` of the PettingZoo env. ``reset()`` skips episodes that end before
    the learner's first decision; rewards the learner receives before that decision come with
    its first ``step()``. An illegal action of the learner ends the
    episode with ``illegal_reward`` (default -1) unless ``illegal_action="raise"``, so that
    unmasked learners (and ``check_env``) can explore. ``render_mode="human"`` prints the table
    from the learner's seat after ``reset()`` and every ``step()``, never from another seat. Other
    keywords go to :class:`RamsEnv`.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        variant: str = "mattmar",
        num_players: int = 4,
        learner_seat: int | str = 0,
        opponents: Any = None,
        render_mode: str | None = None,
        illegal_action: str = "terminate",
        **env_kwargs: Any,
    ) -> None:
        self.aec = RamsEnv(
            variant=variant,
            num_players=num_players,
            # The AEC env prints the table from the seat to act at every step in "human" mode, each
            # opponent's hand included: the wrapper renders (as text) and prints the learner's only.
            render_mode="ansi" if render_mode == "human" else render_mode,
            illegal_action=illegal_action,
            **env_kwargs,
        )
        n = self.aec.config.num_players
        if learner_seat != "random" and (not isinstance(learner_seat, int) or not 0 <= learner_seat < n):
            raise ValueError(f"learner_seat must be a seat 0..{n - 1} or 'random', got {learner_seat!r}")
        self.learner_seat = learner_seat
        if opponents is None or not isinstance(opponents, Sequence):
            self._opponents: list[Policy | None] = [None if opponents is None else _as_policy(opponents)] * n
        else:
            if len(opponents) != n - 1:
                raise ValueError(f"opponents: give one policy or {n - 1} (one per other seat), got {len(opponents)}")
            self._opponent_list = [_as_policy(o) for o in opponents]
            self._opponents = []
        self.render_mode = render_mode
        self.observation_space = spaces.Box(OBS_LOW, OBS_HIGH, (OBS_SIZE,), np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._learner = "player_0"
        self._last_mask = np.zeros(NUM_ACTIONS, np.int8)
        self._carry = 0.0

    def _policies_for(self, seat: int) -> list[Policy | None]:
        if self._opponents:
            return self._opponents
        others = iter(self._opponent_list)
        return [None if s == seat else next(others) for s in range(self.aec.config.num_players)]

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        aec_seed = None if seed is None else int(self.np_random.integers(2**63))
        if seed is None and self.aec.game is None:
            aec_seed = int(self.np_random.integers(2**63))
        n = self.aec.config.num_players
        seat = int(self.np_random.integers(n)) if self.learner_seat == "random" else int(self.learner_seat)
        self._learner = self.aec.possible_agents[seat]
        self._policies = self._policies_for(seat)
        self.aec.reset(seed=aec_seed, options=options)
        self._advance()
        while self.aec.terminations[self._learner]:
            # The episode ended before the learner had a decision (say everyone before the dealer
            # passed): it teaches nothing, so deal the next one from the same generator.
            self.aec.reset()
            self._advance()
        # Rewards the learner got before its first decision are paid with its first step.
        self._carry = float(self.aec._cumulative_rewards[self._learner])
        observed = self._observe()
        if self.render_mode == "human":
            self.render()
        return observed

    def step(self, action: int):
        aec, learner = self.aec, self._learner
        if aec.terminations[learner]:
            raise RuntimeError("the episode is over: call reset()")
        if aec.agent_selection != learner:
            raise RuntimeError("internal error: the learner is not to act")
        aec.step(int(action))
        self._advance()
        reward = float(aec._cumulative_rewards[learner]) + self._carry
        self._carry = 0.0
        obs, info = self._observe()
        if self.render_mode == "human":
            self.render()
        return obs, reward, bool(aec.terminations[learner]), False, info

    def _advance(self) -> None:
        """Let the other seats play until the learner is to act or the episode ends."""
        aec, learner = self.aec, self._learner
        while not aec.terminations[learner] and aec.agent_selection != learner:
            agent = aec.agent_selection
            policy = self._policies[aec._seat[agent]]
            if policy is None:
                legal = aec.legal_actions()
                action = legal[int(self.np_random.integers(len(legal)))]
            else:
                action = int(policy(aec.observe(agent)))
            aec.step(action)

    def _observe(self) -> tuple[np.ndarray, dict[str, Any]]:
        obs = self.aec.observe(self._learner)
        self._last_mask = obs["action_mask"]
        info = dict(self.aec.infos[self._learner])
        info["action_mask"] = obs["action_mask"]
        info["seat"] = self.aec._seat[self._learner]
        return obs["observation"], info

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (sb3-contrib MaskablePPO)."""
        return self._last_mask.astype(bool)

    def render(self) -> str | np.ndarray | None:
        """The table from the learner's seat, in every render mode and also once the episode is over
        (``"rgb_array"``: an ``(720, 960, 3)`` uint8 picture drawn from the learner's ``view()``;
        ``"human"``: printed, and also after every ``reset()`` and ``step()``)."""
        if self.render_mode is None:
            return self.aec.render()  # warns
        if self.aec.game is None:
            return None
        picture = self.aec._render_from(self.aec._seat[self._learner])
        if self.render_mode == "human":
            print(picture)
            return None
        return picture
