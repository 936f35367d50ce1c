"""RLlib self-play on the batched engine: an env runner that plays every seat of its games with one module.

RLlib 2.60's multi-agent env runner builds its env through RLlib's own vectorization, a Python list of
sub-envs stepped one by one, each with per-agent dict bookkeeping. :class:`BatchedSelfPlayEnvRunner`
replaces that path for self-play with one shared policy (the common case for Rams): it steps
``num_envs_per_env_runner`` games of :class:`~rams_env.envs.BatchedRamsEnv` in one compiled call, and
every step runs the module once on the decisions now due (one per game, by whichever seat acts).

What the learner sees. Each (game, seat) is a ``SingleAgentEpisode`` of that seat's own decisions, as in
:func:`~rams_env.integrations.torchrl_selfplay.seat_decisions`: a step's reward is what the seat earned
from its decision up to its next one (the tricks and deals that the other seats' moves close), and its
episode terminates with the game's episode. A sample ends each seat's chunk at its latest decision, whose
outcome is not known yet; PPO bootstraps there, and the next sample continues from it (``episode.cut()``,
as RLlib's own runners do). So RLlib's PPO, with its learner connectors and GAE unchanged, trains one
single-agent module (``default_policy``) on all seats' decisions: parameter-sharing self-play.

The config is a single-agent one (:func:`selfplay_ppo_config`): ``env_config`` holds the keywords of
:class:`BatchedRamsEnv` (``variant``, ``num_players``, ``episode``, ``reward``, rule options, ``config``);
the module is :class:`~rams_env.integrations.rllib.MaskedPPOModule` on the dict observations. One env
step counts one decision, and RLlib's episode metrics count seat episodes (``num_players`` a game, their
returns the seats' own: under the win reward they sum to zero). Games are seeded from ``config.seed``
and the runner's index. The batched env resets a game in the step that ends its episode (same-step
autoreset): the runner closes every seat's episode of that game there and opens new ones from the next
decisions. Needs the ``rams_env[rllib]`` extra.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.columns import Columns
from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner
from ray.rllib.env.single_agent_episode import SingleAgentEpisode
from ray.rllib.utils.metrics import RLMODULE_INFERENCE_TIMER

from ..envs.contracts import AutoresetMode
from ..envs.credit import Closed, SeatCredit
from ..envs.spaces import action_space, batched, dict_observation_space
from ..envs.vector import BatchedRamsEnv
from .rllib import DEFAULT_ACTIVATION, DEFAULT_HIDDEN, masked_module_spec

__all__ = ["BatchedSelfPlayEnvRunner", "selfplay_ppo_config"]

REFUSED = ("num_games", "heuristic_seats", "seed")  # set by the runner


class _Spaces:
    """What RLlib's connector builders read of an env: the spaces of one decision and of a batch."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}  # noqa: RUF012  (of the engine underneath)

    def __init__(self, num_envs: int) -> None:
        self.num_envs = num_envs
        self.single_observation_space = dict_observation_space()  # one decision as the masked module reads it
        self.single_action_space = action_space()
        self.observation_space = batched(self.single_observation_space, num_envs)
        self.action_space = batched(self.single_action_space, num_envs)
        self.unwrapped = self

    def close(self) -> None:
        """Nothing to release: the runner closes the games."""


def _checked_env_config(env_config: Mapping[str, Any] | None) -> dict[str, Any]:
    config = dict(env_config or {})
    for key in REFUSED:
        if key in config:
            raise ValueError(
                f"env_config[{key!r}] is set by BatchedSelfPlayEnvRunner (num_games: num_envs_per_env_runner; "
                "seed: the algorithm's seed; every seat is the learning policy)"
            )
    return config


class BatchedSelfPlayEnvRunner(SingleAgentEnvRunner):
    """Samples self-play decisions of ``num_envs_per_env_runner`` batched games (module docstring)."""

    def make_env(self) -> None:
        """The batched games from ``config.env_config``, seeded from ``config.seed`` and the runner's index."""
        if getattr(self, "games", None) is not None:
            self.games.close()
        self.games = BatchedRamsEnv(self.config.num_envs_per_env_runner, **_checked_env_config(self.config.env_config))
        self.num_envs = self.games.num_games
        self.num_players = self.games.num_players
        self.env = _Spaces(self.num_envs)
        seed = self.config.seed
        if seed is None:
            self._games_seed = None
        else:  # one seed per runner (the local one is index 0)
            self._games_seed = int(np.random.SeedSequence([seed, self.worker_index or 0]).generate_state(1)[0])
        self._needs_initial_reset = True

    def _restart(self) -> None:
        """New episodes in every game, and empty episode objects for every seat."""
        seed, self._games_seed = self._games_seed, None  # seeded once; later resets draw on
        step = self.games.reset(seed=seed)
        self._step = step
        self._episodes = [[self._new_seat_episode() for _ in range(self.num_players)] for _ in range(self.num_envs)]
        self._credit = SeatCredit(self.num_envs, self.num_players)  # each seat's rewards to its latest decision
        self._pending: dict[int, tuple[int, dict[str, Any], dict[str, np.ndarray]]] = {}  # decision id: what it did
        self._next_id = 0
        self._needs_initial_reset = False

    def _new_seat_episode(self) -> SingleAgentEpisode:
        return SingleAgentEpisode(
            observation_space=self.env.single_observation_space, action_space=self.env.single_action_space
        )

    def _actions(self, observations: np.ndarray, masks: np.ndarray, explore: bool) -> dict[str, np.ndarray]:
        """The module's actions for one decision a game, with the log-probabilities and logits PPO keeps."""
        batch = {Columns.OBS: {"observation": torch.from_numpy(observations), "action_mask": torch.from_numpy(masks)}}
        with self.metrics.log_time(RLMODULE_INFERENCE_TIMER), torch.no_grad():
            if explore:
                out = self.module.forward_exploration(batch)
                dist = self.module.get_exploration_action_dist_cls().from_logits(out[Columns.ACTION_DIST_INPUTS])
                actions = dist.sample()
            else:
                out = self.module.forward_inference(batch)
                dist = self.module.get_inference_action_dist_cls().from_logits(out[Columns.ACTION_DIST_INPUTS])
                actions = out[Columns.ACTION_DIST_INPUTS].argmax(-1)
            logp = dist.logp(actions)
        return {
            Columns.ACTIONS: actions.numpy(),
            Columns.ACTION_LOGP: logp.numpy(),
            Columns.ACTION_DIST_INPUTS: out[Columns.ACTION_DIST_INPUTS].numpy(),
        }

    def _close_steps(self, closed: Closed, observations: list[dict[str, np.ndarray]] | None) -> None:
        """Add closed decisions to their seats' episodes, each with what it earned up to the observation of its
        game's decision now due (``observations``), or its own last one at the episode's end (None: terminated)."""
        for game, seat, decision, earned in zip(*(x.tolist() for x in closed), strict=True):
            action, extras, due = self._pending.pop(decision)
            self._episodes[game][seat].add_env_step(
                observation=due if observations is None else observations[game],
                action=action,
                reward=float(earned),
                terminated=observations is None,
                extra_model_outputs=extras,
            )

    def _sample(
        self,
        *,
        num_timesteps: int | None = None,
        num_episodes: int | None = None,
        explore: bool,
        random_actions: bool = False,
        force_reset: bool = False,
    ) -> list[SingleAgentEpisode]:
        """Step the games until ``num_timesteps`` decisions (or ``num_episodes`` finished seat episodes);
        every seat's finished episodes and the chunks of its ongoing one."""
        if random_actions:
            raise ValueError("BatchedSelfPlayEnvRunner samples from the module (random_actions is not offered)")
        if force_reset or num_episodes is not None or self._needs_initial_reset:
            self._restart()
        done: list[SingleAgentEpisode] = []
        steps = 0
        while (steps < num_timesteps) if num_timesteps is not None else (len(done) < num_episodes):
            step = self._step
            observations, masks, seats = step.observations, step.action_masks, step.seats
            due = [{"observation": o, "action_mask": m} for o, m in zip(observations.copy(), masks.copy(), strict=True)]
            games = np.arange(self.num_envs)
            ids = np.arange(self._next_id, self._next_id + self.num_envs)
            self._next_id += self.num_envs
            opened = self._credit.open[games, seats] < 0
            closed = self._credit.decide(games, seats, ids)  # the decision now due continues its seat's episode
            self._close_steps(closed, due)
            for game in np.flatnonzero(opened).tolist():  # or opens it: what came before is no decision's
                self._episodes[game][int(seats[game])].add_env_reset(observation=due[game])
            out = self._actions(observations, masks, explore)
            actions = out[Columns.ACTIONS]
            for game in range(self.num_envs):
                extras = {key: out[key][game] for key in (Columns.ACTION_LOGP, Columns.ACTION_DIST_INPUTS)}
                self._pending[int(ids[game])] = (int(actions[game]), extras, due[game])  # due[game]: the terminal's too
            step = self._step = self.games.step(actions)
            steps += self.num_envs
            self._credit.pay(step.rewards)
            ended = np.flatnonzero(step.done)
            self._close_steps(self._credit.end(ended), None)  # every seat's last decision: terminated
            for game in ended.tolist():
                for seat in range(self.num_players):
                    episode = self._episodes[game][seat]
                    if len(episode):
                        done.append(episode.to_numpy() if self.episodes_to_numpy else episode)
                    self._episodes[game][seat] = self._new_seat_episode()
        self._done_episodes_for_metrics.extend(done)
        chunks: list[SingleAgentEpisode] = []
        if num_timesteps is not None:  # cut every seat's ongoing episode at its latest decision
            for game in range(self.num_envs):
                for seat in range(self.num_players):
                    episode = self._episodes[game][seat]
                    if len(episode) == 0:  # no new step of this seat since the last cut (or only its reset)
                        continue
                    self._episodes[game][seat] = episode.cut(len_lookback_buffer=self.config.episode_lookback_horizon)
                    episode.validate()
                    self._ongoing_episodes_for_metrics[episode.id_].append(episode)
                    chunks.append(episode.to_numpy() if self.episodes_to_numpy else episode)
        self._log_env_steps(metric=self._metrics_num_env_steps_sampled, num_steps=steps)
        self._increase_sampled_metrics(steps, len(done))
        return done + chunks

    def stop(self) -> None:
        """Close the games' engine."""
        if getattr(self, "games", None) is not None:
            self.games.close()
            self.games = None
        super().stop()


def selfplay_ppo_config(
    env_config: Mapping[str, Any] | None = None,
    num_envs_per_env_runner: int = 64,
    hidden: Sequence[int] = DEFAULT_HIDDEN,
    activation: str = DEFAULT_ACTIVATION,
) -> PPOConfig:
    """PPO self-play on :class:`BatchedRamsEnv` through :class:`BatchedSelfPlayEnvRunner`: every seat of
    ``num_envs_per_env_runner`` games a runner plays the one masked module (``default_policy``); chain further
    RLlib settings on it. ``env_config`` (keywords of :class:`BatchedRamsEnv`) is checked here by building
    one game, rather than inside a remote env runner."""
    config = _checked_env_config(env_config)
    BatchedRamsEnv(1, **config).close()
    return (
        PPOConfig()
        .environment(
            env=None,
            env_config=config,
            observation_space=dict_observation_space(),
            action_space=action_space(),
            disable_env_checking=True,
        )
        .env_runners(env_runner_cls=BatchedSelfPlayEnvRunner, num_envs_per_env_runner=num_envs_per_env_runner)
        .rl_module(rl_module_spec=masked_module_spec(hidden, activation))
    )
