"""OpenSpiel's NFSP (its PyTorch version) on ``python_rams`` as a benchmark pipeline (``openspiel``).

Self-play through OpenSpiel's ``rl_environment``, one NFSP agent per seat as in OpenSpiel's NFSP
examples, whole ramsar with the win reward by default. Their input is the information state tensor of
``python_rams``, which is the project's observation vector of the player (seats relative to it), so the
average policy of seat 0 plays any seat from the observation ``rams eval`` gives: ``agent()`` is its
greedy legal play, and ``save()`` writes it with
:func:`rams_env.integrations.openspiel.policy_file.save_nfsp_policy` (``*.nfsp.pt``, read by ``load_agent``).

The environment hands NFSP each information state as a float32 array rather than a list of Python
floats, so that the replay and reservoir buffers hold about 4.6 KB per state instead of about 37 KB.

``--set KEY=VALUE``: :class:`benchmarks.learning.schemas.OpenSpielSettings`.
"""

from __future__ import annotations

import time
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyspiel
import torch
from open_spiel.python import rl_environment
from open_spiel.python.pytorch import nfsp

from rams_env.agents.neural import PolicyAgent
from rams_env.integrations import openspiel as rams_openspiel
from rams_env.integrations.openspiel.policy_file import SUFFIX, nfsp_policy_agent, save_nfsp_policy
from rams_env.rules import make_config
from rams_env.rules.seeding import wrap_seed

from .schemas import check_options

if TYPE_CHECKING:
    from .harness import Settings


class ArrayEnvironment(rl_environment.Environment):
    """OpenSpiel's ``rl_environment`` with each information state as a float32 numpy array."""

    def get_time_step(self) -> rl_environment.TimeStep:
        step = super().get_time_step()
        states = step.observations["info_state"]
        states[:] = [np.asarray(s, np.float32) for s in states]
        return step


class OpenSpielPipeline:
    """NFSP self-play on ``python_rams``; the average policy of seat 0 is the agent."""

    name = "openspiel"

    def __init__(self, settings: Settings, **options: Any) -> None:
        o = check_options(self.name, options, settings)  # before any work: OpenSpielSettings
        episode, reward, hidden = o["episode"], o["reward"], o["hidden"]
        self.settings = settings
        torch.set_num_threads(max(1, int(settings.threads)))
        self.hidden = [int(h) for h in hidden]
        self.config = make_config(settings.variant, settings.num_players)
        params = {"variant": settings.variant, "players": settings.num_players, "episode": episode, "reward": reward}
        game = pyspiel.load_game(rams_openspiel.SHORT_NAME, params)
        self.env = ArrayEnvironment(game, seed=wrap_seed(settings.seed, 32))
        size = self.env.observation_spec()["info_state"][0]
        actions = self.env.action_spec()["num_actions"]
        # NFSP samples its actions and its mode from numpy's global generator
        np.random.seed(wrap_seed(settings.seed, 32))
        self.agents = [
            nfsp.NFSP(
                seat,
                size,
                actions,
                self.hidden,
                reservoir_buffer_capacity=o["reservoir_capacity"],
                anticipatory_param=o["anticipatory"],
                batch_size=o["batch_size"],
                rl_learning_rate=o["rl_lr"],
                sl_learning_rate=o["sl_lr"],
                min_buffer_size_to_learn=o["min_buffer"],
                learn_every=o["learn_every"],
                optimizer_str="sgd",
                replay_buffer_capacity=o["replay_capacity"],
                epsilon_start=0.06,
                epsilon_end=0.001,
                epsilon_decay_duration=1_000_000,
                seed=wrap_seed(settings.seed + seat, 32),
            )
            for seat in range(settings.num_players)
        ]
        self.step: rl_environment.TimeStep | None = None
        self.decisions, self.episodes, self.seconds = 0, 0, 0.0

    def train_for(self, seconds: float) -> int:
        """NFSP steps until ``seconds`` have passed (an episode in progress goes on at the next call)."""
        start = time.perf_counter()
        deadline = start + seconds
        with warnings.catch_warnings():
            # NFSP builds its batches with torch.tensor of a list of these arrays: slower than one array, not wrong.
            warnings.filterwarnings("ignore", message="Creating a tensor from a list of numpy.ndarrays")
            while time.perf_counter() < deadline:
                if self.step is None or self.step.last():
                    self.step = self.env.reset()
                seat = self.step.observations["current_player"]
                action = self.agents[seat].step(self.step).action
                self.step = self.env.step([action])
                self.decisions += 1
                if self.step.last():
                    for agent in self.agents:  # every agent sees the end of the episode (its last reward)
                        agent.step(self.step)
                    self.episodes += 1
        self.seconds += time.perf_counter() - start
        if self.settings.progress:
            rate = self.decisions / max(self.seconds, 1e-9)
            print(f"{self.name}: {self.episodes} episodes, {self.decisions} decisions ({rate:.0f}/s)", flush=True)
        return self.decisions

    def agent(self) -> PolicyAgent:
        """The greedy legal play of seat 0's average policy (a copy of its current weights)."""
        return nfsp_policy_agent(self.agents[0], self.config, self.hidden)

    def save(self) -> Path:
        """Seat 0's average policy as ``out/name/average_policy.nfsp.pt``; ``rams eval PATH`` loads it."""
        path = Path(self.settings.out) / self.name / f"average_policy{SUFFIX}"
        return save_nfsp_policy(path, self.agents[0], self.config, self.hidden)

    def close(self) -> None:
        """Drop the agents and their buffers."""
        self.agents, self.step = [], None
