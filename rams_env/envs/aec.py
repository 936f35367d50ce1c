"""PettingZoo AEC environment for Rams (docs/contract.md)."""

from __future__ import annotations

import random
import warnings
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..rules import Game, IllegalActionError, RulesConfig
from ..rules.actions import NUM_ACTIONS, action_name
from ..rules.config import DEFAULT_NUM_PLAYERS, DEFAULT_VARIANT
from ..rules.seeding import check_seed
from ..rules.spec import EnvSpec, make_spec
from .backends import ENGINES, CompiledBackend, GameMirror, ReferenceBackend, action_id
from .contracts import Backend
from .render import render_table
from .spaces import action_space, dict_observation_space

RESET_OPTIONS = ("deck", "dealer", "scores")


def seat_int(seat: Any, n: int, what: str = "seat") -> int:
    """``seat`` as a Python int in ``0..n-1``: an int or a numpy integer (not a bool), else ``ValueError``."""
    index = None if isinstance(seat, (bool, np.bool_)) else action_id(seat)
    if index is None or not 0 <= index < n:
        raise ValueError(f"{what} must be a seat 0..{n - 1}, got {seat!r}")
    return index


def _plain(value: Any) -> Any:
    """A numpy integer as a Python int; anything else unchanged (the engine checks it)."""
    return int(value) if isinstance(value, np.integer) else value


def _plain_list(values: Any) -> Any:
    """A numpy array, list or tuple with numpy integers as a list of Python values; else unchanged."""
    if isinstance(values, np.ndarray):
        return values.tolist()
    if isinstance(values, (list, tuple)):
        return [_plain(v) for v in values]
    return values


class RamsEnv(AECEnv):
    """Rams as a PettingZoo AEC environment; ``player_i`` sits in seat ``i``.

    ``illegal_action="raise"`` (default) raises on an illegal action; ``"terminate"`` ends the
    episode instead, with ``illegal_reward`` for the offender and 0 for the others (PettingZoo's
    TerminateIllegalWrapper semantics). ``engine="compiled"`` (default) runs the rules compiled
    with numba, ``"reference"`` the pure-Python engine; both play identical games. Other keywords
    override rule options (``start_score``...).

    ``config`` (keyword only): a ready :class:`~rams_env.rules.RulesConfig` (``make_config(...)``) instead
    of ``variant``, ``num_players`` and rule options. With it a rule option is a ``ValueError`` naming it,
    and so is a ``variant`` or ``num_players`` that is not the config's own (the same values are fine;
    left at their defaults they are not given: ``config=make_config("russian", 5)`` alone is russian at
    5 players). A ``config`` that is not a ``RulesConfig`` is a ``TypeError`` naming its type. ``spec`` (keyword
    only): a ready :class:`~rams_env.rules.spec.EnvSpec` holding rules, episode, reward and illegal actions
    (``rams_env.make`` passes one); a field given beside it must agree with it.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "rams_v1",
        "render_modes": ["ansi", "human", "rgb_array"],
        "render_fps": 2,
        "is_parallelizable": False,
    }

    def __init__(
        self,
        variant: str = DEFAULT_VARIANT,  # "mattmar"
        num_players: int = DEFAULT_NUM_PLAYERS,  # 4
        episode: str = "deal",
        reward: str = "points",
        render_mode: str | None = None,
        illegal_action: str | None = None,  # None: "raise"
        illegal_reward: float = -1.0,
        engine: str = "compiled",
        *,
        config: RulesConfig | None = None,
        spec: EnvSpec | None = None,
        **rule_options: Any,
    ) -> None:
        super().__init__()
        fields = (variant, num_players, episode, reward, illegal_action, illegal_reward)
        self.rams_spec = make_spec(*fields, config=config, spec=spec, face_default="raise", **rule_options)
        """what this env plays (:class:`~rams_env.rules.spec.EnvSpec`), its illegal-action policy resolved"""
        self.config = self.rams_spec.config
        episode, reward, illegal_action = self.rams_spec.episode, self.rams_spec.reward, self.rams_spec.illegal_action
        illegal_reward = self.rams_spec.illegal_reward
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'ansi', 'human' or 'rgb_array', got {render_mode!r}")
        if render_mode == "rgb_array":
            from .render_rgb import require_render_extra

            # Fail here, naming the extra, rather than at the first render() or in RecordVideo.
            require_render_extra()
        if engine not in ENGINES:
            raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
        self.episode, self.reward_kind, self.render_mode = episode, reward, render_mode
        self.illegal_action, self.illegal_reward = illegal_action, float(illegal_reward)
        n = self.config.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        if engine == "compiled":
            self._backend: Backend = CompiledBackend(self.config, episode, reward)
        else:
            self._backend = ReferenceBackend(self.config, episode)
        self.engine = engine
        self._apply = self._backend.apply
        self.encoder = self._backend.encoder
        self.observation_spaces = {a: dict_observation_space() for a in self.possible_agents}
        self.action_spaces = {a: action_space() for a in self.possible_agents}
        self._seeder = random.Random()

    @property
    def game(self) -> Game | GameMirror | None:
        """The game in its current state (``None`` before ``reset``). With the compiled engine this
        is a live, read-only :class:`~rams_env.envs.backends.GameMirror`: read it, do not change it."""
        return self._backend.game

    def seat_of(self, agent: str) -> int:
        """The seat of ``agent`` (``"player_2"``: 2); ``KeyError`` for a name that is not an agent's."""
        return self._seat[agent]

    def cumulative_reward(self, agent: str) -> float:
        """What ``last()`` would report as ``agent``'s reward: its rewards since its last step."""
        return self._cumulative_rewards[agent]

    @property
    def seeder_state(self) -> object:
        """The state of the seed sequence that ``reset()`` without a seed draws from (set it back to
        undo the draws of a reset that the caller abandons)."""
        return self._seeder.getstate()

    @seeder_state.setter
    def seeder_state(self, state: object) -> None:
        self._seeder.setstate(state)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ reset / step
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new episode; ``options`` may hold ``deck``, ``dealer`` and ``scores``.

        ``seed`` and the seats and scores of ``options`` may be Python or numpy integers. A reset
        that fails (a bad option) changes nothing: it neither adopts ``seed`` nor draws from the
        seed sequence, and the episode in progress stays as it was.
        """
        if options is not None and not isinstance(options, Mapping):
            raise TypeError(f"options must be a dict (keys among {list(RESET_OPTIONS)}) or None, got {options!r}")
        seeder = self._seeder if seed is None else random.Random(check_seed(seed))
        backend = self._backend
        if options:
            unknown = sorted(set(options) - set(RESET_OPTIONS), key=str)
            if unknown:
                # A warning, not an error: PettingZoo's api_test passes {"options": 1} to check the
                # signature. Bad values of the known options raise ValueError.
                warnings.warn(f"ignoring unknown reset option(s) {unknown}; known: {list(RESET_OPTIONS)}", stacklevel=2)
            deck, dealer, scores = options.get("deck"), options.get("dealer"), options.get("scores")
            state = seeder.getstate()
            try:
                start = backend.start(seeder.getrandbits(63), _plain_list(deck), _plain(dealer), _plain_list(scores))
            except BaseException:
                seeder.setstate(state)  # a failed reset draws nothing from the seed sequence
                raise
        else:
            start = backend.start(seeder.getrandbits(63))
        self._seeder = seeder
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        scores, tricks = start.scores, start.tricks
        self.infos = {a: {"score": scores[i], "tricks": tricks[i]} for i, a in enumerate(self.agents)}
        self._rewarded = False
        if start.over:  # russian: going out on jacks in the first deal
            self.agent_selection = self.possible_agents[0]
            self._end_episode()
            if self._rewarded:
                self._accumulate_rewards()
        else:
            self.agent_selection = self.possible_agents[start.next_seat]

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        result = self._apply(action)
        if result is None:  # illegal: nothing has changed, the pending rewards included
            if self.illegal_action == "raise":
                raise IllegalActionError(f"{agent}: {self._backend.illegal(action)}")
            self._terminate_illegal(agent, action)
            return
        rewards = self.rewards
        self._cumulative_rewards[agent] = 0.0
        if self._rewarded:
            for a in rewards:
                rewards[a] = 0.0
            self._rewarded = False
        if result.scored and self.reward_kind == "points":
            for a, change in zip(self.possible_agents, result.score_changes, strict=True):
                rewards[a] = float(change)
            self._rewarded = True
        if result.infos_changed:
            self._update_infos(result.scores, result.tricks)
        if result.over:  # everyone is terminated: agent_selection stays with the agent that acted
            self._end_episode()
        else:
            self.agent_selection = self.possible_agents[result.next_seat]
        if self._rewarded:
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _end_episode(self) -> None:
        if self.reward_kind == "win":
            for a, r in zip(self.possible_agents, self._backend.win_rewards(), strict=True):
                self.rewards[a] += r
            self._rewarded = True
        self.terminations = dict.fromkeys(self.agents, True)

    def _terminate_illegal(self, agent: str, action: Any) -> None:
        legal = self._backend.legal()
        self._cumulative_rewards[agent] = 0.0  # as any step of the agent: its earlier rewards were read
        for a in self.rewards:
            self.rewards[a] = 0.0
        self.rewards[agent] = self.illegal_reward
        self._rewarded = True
        self.terminations = dict.fromkeys(self.agents, True)
        index = action_id(action)
        self.infos[agent]["illegal_action"] = (
            action_name(index) if index is not None and 0 <= index < NUM_ACTIONS else repr(action)
        )
        self.infos[agent]["legal_actions"] = [action_name(a) for a in legal]
        self._accumulate_rewards()

    def _update_infos(self, scores: list[int], tricks: list[int]) -> None:
        infos = self.infos
        for a, score, won in zip(self.possible_agents, scores, tricks, strict=True):
            info = infos.get(a)
            if info is not None:
                info["score"] = score
                info["tricks"] = won

    # ------------------------------------------------------------------ observing
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``{"observation": float32 vector, "action_mask": int8 (60,)}`` for ``agent``; once the
        episode is over (also after PettingZoo has stepped the agent out), its final observation
        with an all-zero mask."""
        try:
            seat = self._seat[agent]
            over = self.terminations[agent]
        except KeyError:
            if agent not in self._seat:
                raise self._unknown(agent) from None
            over = True  # stepped out of the finished episode
        except AttributeError:
            raise RuntimeError("observe() before reset(): call reset() first") from None
        except TypeError:  # unhashable
            raise self._unknown(agent) from None
        observation, mask = self._backend.observe(seat)
        if over:
            mask[:] = 0
        return {"observation": observation, "action_mask": mask}

    def view(self, agent: str | int) -> dict[str, Any]:
        """Plain dict of what ``agent`` (name, or seat as a Python or numpy int) may know (docs/contract.md)."""
        if isinstance(agent, str):
            seat = self._seat.get(agent)
            if seat is None:
                raise self._unknown(agent)
        elif isinstance(agent, (bool, np.bool_)) or action_id(agent) is None:
            raise ValueError(f"agent must be an agent name or a seat, got {agent!r}")
        else:
            seat = seat_int(agent, len(self.possible_agents))
        game = self.game
        if game is None:
            raise RuntimeError("view() before reset(): call reset() first")
        return game.view(seat)

    def _unknown(self, agent: Any) -> ValueError:
        names = self.possible_agents
        return ValueError(f"unknown agent {agent!r}: the agents are {names[0]} to {names[-1]}")

    def legal_actions(self) -> list[int]:
        """Legal action ids of the agent to act (empty once the episode is over)."""
        if self.terminations.get(self.agent_selection):
            return []
        return self._backend.legal()

    # ------------------------------------------------------------------ rendering
    def render(self) -> str | np.ndarray | None:
        """The table from the seat of ``agent_selection``: the seat to act; once the episode is over,
        the seat that acted last (then each finished agent in turn as PettingZoo steps them out).
        ``"rgb_array"`` draws only that seat's ``view()`` (rams_env.envs.render_rgb)."""
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn(
                "render() called without a render_mode; pass render_mode='ansi', 'human' or 'rgb_array'."
            )
            return None
        return self.render_from(self._seat.get(self.agent_selection, 0))

    def render_from(self, viewer: int) -> str | np.ndarray | None:
        """Render in ``render_mode`` as seat ``viewer`` sees the table."""
        if self.render_mode == "rgb_array":
            from .render_rgb import render_view

            return render_view(self.view(viewer))
        text = render_table(self.game, viewer)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def raw_env(*args: Any, **kwargs: Any) -> RamsEnv:
    """The unwrapped environment (same arguments as :func:`env`, which are :class:`RamsEnv`'s)."""
    return RamsEnv(*args, **kwargs)


def _forwarded(name: str) -> property:
    """A hot attribute read straight from the raw env once reset() has been called."""

    def get(self: _OrderEnforcing) -> Any:
        if not self.has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw, name)

    return property(get, doc=f"The raw env's ``{name}``.")


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order enforcing with its checks kept, and the hot paths (``last``, ``step``,
    the attributes the agent iterator reads) answered without chains of ``__getattr__``. It keeps its
    own record of ``reset()`` and of a ``step()`` since the agent iterator's last agent (PettingZoo's
    flags are PettingZoo's business), set as PettingZoo sets its own."""

    def __init__(self, env: RamsEnv) -> None:
        super().__init__(env)
        self._raw = env
        self._reset_called = False
        self._updated = False  # a step() or reset() since the agent iterator's last agent

    @property
    def has_reset(self) -> bool:
        """Whether ``reset()`` has been called (before it, PettingZoo's order checks refuse to step)."""
        return self._reset_called

    agents = _forwarded("agents")
    agent_selection = _forwarded("agent_selection")
    terminations = _forwarded("terminations")
    truncations = _forwarded("truncations")
    rewards = _forwarded("rewards")
    infos = _forwarded("infos")

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._reset_called = self._updated = True  # before the raw reset, as PettingZoo's flags
        super().reset(seed=seed, options=options)

    def last(self, observe: bool = True):
        if not self.has_reset:
            return super().last(observe)
        return self._raw.last(observe)

    def agent_iter(self, max_iter: int = 2**63) -> _AgentIterable:
        """PettingZoo's order-enforcing agent iterator, reading the raw env's attributes directly."""
        if not self.has_reset:
            super().agent_iter(max_iter)  # raises: agent_iter before reset
        return _AgentIterable(self, max_iter)

    def step(self, action: Any) -> None:
        if self.has_reset:
            self._updated = True  # PettingZoo's step counts a step after the episode too (and warns)
            if self._raw.agents:
                self._raw.step(action)
                return
        super().step(action)


class _AgentIterable:
    def __init__(self, wrapper: _OrderEnforcing, max_iter: int) -> None:
        self.wrapper, self.max_iter = wrapper, max_iter

    def __iter__(self) -> _AgentIterator:
        return _AgentIterator(self.wrapper, self.max_iter)


class _AgentIterator:
    """``AECOrderEnforcingIterator``'s checks: stop when no agent is left or after ``max_iter``
    agents, and insist on a ``step()`` (or ``reset()``) between two agents."""

    def __init__(self, wrapper: _OrderEnforcing, max_iter: int) -> None:
        self.wrapper, self.raw, self.left = wrapper, wrapper._raw, max_iter

    def __iter__(self) -> _AgentIterator:
        return self

    def __next__(self) -> str:
        raw = self.raw
        if not raw.agents or self.left <= 0:
            raise StopIteration
        self.left -= 1
        wrapper = self.wrapper
        assert wrapper._updated, "need to call step() or reset() in a loop over `agent_iter`"
        wrapper._updated = False
        return raw.agent_selection


def env(*args: Any, **kwargs: Any) -> AECEnv:
    """The environment wrapped in PettingZoo's order enforcing (calls before ``reset()`` fail).

    PettingZoo's ``AssertOutOfBoundsWrapper`` is left out: the engine rejects every illegal
    action itself, with a message naming the action and the legal ones.
    """
    return _OrderEnforcing(raw_env(*args, **kwargs))
