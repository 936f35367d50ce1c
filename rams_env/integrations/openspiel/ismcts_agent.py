"""OpenSpiel's ISMCTS as a Rams agent (:class:`ISMCTSAgent`, ``rams eval ismcts:200``) and its rollout
evaluators run on the engine."""

from __future__ import annotations

import random
import time
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from ...agents.base import Observation, game_behind
from ...agents.search import rollout_action
from ...rules import Game, RulesConfig
from ...rules.seeding import check_seed
from .from_game import state_from_game
from .game import load_game
from .resample import resample
from .state import RamsState, StateCore


class HeuristicRolloutEvaluator(mcts.Evaluator):
    """Rollouts by the search agent's rollout policy (:func:`rams_env.agents.search.rollout_action`)."""

    def __init__(self, n_rollouts: int = 1, seed: int | None = None) -> None:
        self.n_rollouts = n_rollouts
        self.rng = random.Random(seed)

    def evaluate(self, state: RamsState) -> np.ndarray:
        """Mean returns of ``n_rollouts`` rollouts to the end of the episode."""
        total = np.zeros(state.num_players())
        for _ in range(self.n_rollouts):
            core = state._core.copy(track=False)
            while not core.over:
                if core.chance:
                    core.apply_chance(self.rng.choice(core.chance_outcomes())[0])
                else:
                    core.apply_player(rollout_action(core.game, self.rng))  # type: ignore[arg-type]
            total += core.returns()
        return total / self.n_rollouts

    def prior(self, state: RamsState) -> list[tuple[int, float]]:
        """Uniform over the legal actions (chance: the chance outcomes)."""
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


class FastRandomRolloutEvaluator(HeuristicRolloutEvaluator):
    """OpenSpiel's random rollouts (uniform legal actions) run on the engine without OpenSpiel's per-step cost."""

    def evaluate(self, state: RamsState) -> np.ndarray:
        """Mean returns of ``n_rollouts`` uniformly random rollouts."""
        total = np.zeros(state.num_players())
        rng = self.rng
        for _ in range(self.n_rollouts):
            core = state._core.copy(track=False)
            while not core.over:
                if core.chance:
                    core.apply_chance(rng.choice(core.chance_outcomes())[0])
                else:
                    core.apply_player(rng.choice(core.game.legal_actions()))  # type: ignore[union-attr]
            total += core.returns()
        return total / self.n_rollouts


EVALUATORS = ("random", "heuristic", "openspiel_random")


class ISMCTSAgent:
    """OpenSpiel's ``ISMCTSBot`` as a Rams agent (``rams eval ismcts:<simulations>``).

    Each decision rebuilds the deal as a ``python_rams`` state (:func:`state_from_game`, episode
    ``deal``, reward ``points``: the search maximises the seat's points in this deal) and runs
    ``simulations`` ISMCTS simulations; each samples the hidden cards again with
    ``resample_from_infostate`` (only what the seat knows). ``evaluator``: ``"random"`` (uniformly
    random rollouts, as OpenSpiel's ``RandomRolloutEvaluator``, run on the engine), ``"openspiel_random"``
    (OpenSpiel's own ``RandomRolloutEvaluator``, slower) or ``"heuristic"`` (the search agent's
    rollout policy); ``rollouts`` per leaf. ``uct_c``: the UCT constant (default 5 Swedish, 20 russian:
    points, not win rates, are the values). ``final_policy``: ``max_visit_count`` or ``max_value``.
    ``seed`` seeds the bot, the evaluator and the resampling. ``env``: a rams_env AEC env, for
    ``act(observation)`` (as for ``SearchAgent``); the evaluation harness calls ``act_game``.
    ``decisions`` and ``seconds`` count the searched decisions and their time. Should resampling fail
    (``RuntimeError``), a world already sampled for the decision is reused.
    """

    def __init__(
        self,
        simulations: int = 100,
        seed: int | None = None,
        evaluator: str = "random",
        rollouts: int = 1,
        uct_c: float | None = None,
        final_policy: str = "max_visit_count",
        env: Any = None,
    ) -> None:
        if isinstance(simulations, bool) or not isinstance(simulations, int) or simulations < 1:
            raise ValueError(f"simulations must be a positive int, got {simulations!r}")
        if evaluator not in EVALUATORS:
            raise ValueError(f"evaluator must be one of {EVALUATORS}, got {evaluator!r}")
        if isinstance(rollouts, bool) or not isinstance(rollouts, int) or rollouts < 1:
            raise ValueError(f"rollouts must be a positive int, got {rollouts!r}")
        policies = {"max_visit_count": ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT}
        policies["max_value"] = ismcts.ISMCTSFinalPolicyType.MAX_VALUE
        if final_policy not in policies:
            raise ValueError(f"final_policy must be one of {sorted(policies)}, got {final_policy!r}")
        if uct_c is not None and not uct_c > 0:
            raise ValueError(f"uct_c must be positive, got {uct_c!r}")
        seed = check_seed(seed)
        self.simulations, self.evaluator, self.rollouts = simulations, evaluator, rollouts
        self.uct_c, self.final_policy = uct_c, policies[final_policy]
        self.env = env
        self.rng = random.Random(seed)
        self.np_rng = np.random.RandomState(None if seed is None else seed % 2**32)
        self._bots: dict[RulesConfig, tuple[pyspiel.Game, ismcts.ISMCTSBot]] = {}
        self.decisions, self.seconds = 0, 0.0
        self._worlds: list[StateCore] = []  # worlds sampled for the current decision (a fallback)

    def _bot(self, config: RulesConfig) -> tuple[pyspiel.Game, ismcts.ISMCTSBot]:
        if config not in self._bots:
            game = load_game(config)
            if self.evaluator == "openspiel_random":
                evaluator: mcts.Evaluator = mcts.RandomRolloutEvaluator(self.rollouts, self.np_rng)
            elif self.evaluator == "random":
                evaluator = FastRandomRolloutEvaluator(self.rollouts, self.rng.getrandbits(63))
            else:
                evaluator = HeuristicRolloutEvaluator(self.rollouts, self.rng.getrandbits(63))
            c = self.uct_c if self.uct_c is not None else (5.0 if config.swedish else 20.0)
            bot = ismcts.ISMCTSBot(
                game, evaluator, c, self.simulations, random_state=self.np_rng, final_policy_type=self.final_policy
            )
            bot.set_resampler(self._resample)
            self._bots[config] = (game, bot)
        return self._bots[config]

    def _resample(self, state: RamsState, player: int) -> RamsState:
        try:
            core = resample(state._core, player, self.rng)
        except RuntimeError:  # a world far from what the sampler proposes: reuse one sampled for this decision
            if not self._worlds:
                raise
            core = self.rng.choice(self._worlds).copy()
        else:
            if len(self._worlds) < 32:
                self._worlds.append(core.copy())
        return state._wrap(core)

    def act_game(self, game: Game, seat: int) -> int:
        """The ISMCTS action of ``seat`` (the player to act), using only what ``seat`` may know."""
        if game.current_player != seat:
            raise ValueError(f"seat {seat} is not to act (current player: {game.current_player})")
        legal = game.legal_actions()
        if len(legal) == 1:
            return legal[0]
        start = time.perf_counter()
        pgame, bot = self._bot(game.config)
        state = state_from_game(game, pgame)
        self._worlds = []
        action = int(bot.step(state))
        self.decisions += 1
        self.seconds += time.perf_counter() - start
        return action

    def act(self, observation: Observation) -> int:
        """The action for ``observation`` of the env's player to act (needs ``ISMCTSAgent(env=...)``)."""
        game = game_behind(self.env, observation, "ISMCTSAgent")
        return self.act_game(game, game.current_player)
