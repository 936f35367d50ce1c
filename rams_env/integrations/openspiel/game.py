"""The ``python_rams`` game: its ``GameType``, :class:`RamsGame`, :func:`load_game`, and the registration
with pyspiel (importing the package registers the game)."""

from __future__ import annotations

from typing import Any

import pyspiel

from ...obs.encoding import ObservationEncoder
from ...rules import RulesConfig
from ...rules.actions import NUM_ACTIONS
from ...rules.cards import NUM_CARDS
from .parameters import PARAMETERS, SHORT_NAME, ParameterSpec, game_parameters
from .state import RamsObserver, RamsState

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Rams (rams_env)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.REWARDS,
    max_num_players=7,
    min_num_players=3,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=PARAMETERS,
)


def load_game(config: RulesConfig, episode: str = "deal", reward: str = "points", **params: Any) -> pyspiel.Game:
    """The ``python_rams`` game of a rules configuration; ``params``: ``dealer``, ``scores``, ``max_deals``.

    Every parameter is checked here first (``ValueError`` naming it), so a value OpenSpiel's C++ side
    cannot hold is refused with its name rather than by pybind11's conversion error.
    """
    extra = sorted(set(params) - {"dealer", "scores", "max_deals"})
    if extra:
        raise ValueError(f"unknown parameter(s) {extra}; load_game takes dealer, scores and max_deals")
    if isinstance(params.get("scores"), (list, tuple)):
        params["scores"] = ";".join(str(s) for s in params["scores"])
    full = {**game_parameters(config, episode, reward), **params}
    ParameterSpec(full)  # ValueError naming a bad parameter before pyspiel sees it
    return pyspiel.load_game(SHORT_NAME, full)


class RamsGame(pyspiel.Game):
    """Rams as a Python OpenSpiel game (module docstring); ``pyspiel.load_game("python_rams", ...)``."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        spec = ParameterSpec(dict(params or {}))
        low, high = spec.utilities()
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=NUM_CARDS,
            num_players=spec.n,
            min_utility=low,
            max_utility=high,
            utility_sum=None,
            max_game_length=spec.max_deals * spec.config.max_deal_actions,
        )
        super().__init__(_GAME_TYPE, info, spec.params)
        self.spec = spec
        self.config = spec.config
        self.encoder = ObservationEncoder(spec.config)

    def new_initial_state(self) -> RamsState:
        """The state before the first chance node."""
        return RamsState(self)

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: dict | None = None
    ) -> RamsObserver:
        """The observer of the information state (perfect recall) or of the observation."""
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return RamsObserver(self.encoder, perfect_recall=recall)


pyspiel.register_game(_GAME_TYPE, RamsGame)
