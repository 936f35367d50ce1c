"""Collection: one update's games played in the batched env, the learner's decisions kept in a :class:`Rollout`.

One update: the batched env is reset from ``(seed, update)``; every game plays episodes until it has
finished ``episodes_per_game`` of them (a game past its quota keeps stepping with random actions whose
samples are dropped, so that every sample belongs to a complete episode). Each episode's seats are a row
of :class:`~rams_env.envs.seats.Seat` drawn by the run's :class:`~rams_training.mixing.OpponentMix`: most
are pure self-play (every seat is the learner); in a ``pool_fraction`` of the episodes one random seat is the
learner and the others play a frozen snapshot from the opponent pool, in a ``heuristic_fraction`` (second
stage only, training/config.py) the heuristic (inside the env's step), in a ``random_fraction`` uniformly
random legal moves. Each learner decision becomes a row; a seat's reward is what it earns between its decision
and its next one (PPO targets use each acting player's own rewards), and GAE (:func:`gae`) runs along each
seat's own chain of decisions.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numba
import numpy as np

from rams_env.envs.credit import SeatCredit
from rams_env.envs.gym_vector import BatchActor
from rams_env.envs.seats import HEURISTIC_SEAT, LEARNER_SEAT, Seat, caller_seats, heuristic_seat_mask
from rams_env.eval import derive_seed
from rams_env.obs import MAX_PLAYERS, OBS_SIZE
from rams_env.policy import PolicyNet
from rams_env.rules import RulesConfig
from rams_env.rules.actions import NUM_ACTIONS

from .config import GameArgs
from .critic import HIDDEN_SIZE, other_hands
from .mixing import OpponentMix, Policy
from .shaping import EquityShaping
from .targets import Target

CriticValues = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""the privileged critic's values of (observations, other hands)"""


class Rollout:
    """One update's learner decisions, one row each: what PPO needs, and the reward the deciding seat
    earned until its next decision.

    The arrays are kept and reused from update to update, growing when an update needs more rows:
    stacking a fresh copy of every observation each update was a large share of an update, most of it
    in first touches of new memory (docs/performance.md). Rows stay valid until the next ``clear``.
    """

    def __init__(self, hidden: bool) -> None:
        self.size = 0
        self.obs = np.zeros((0, OBS_SIZE), np.float32)
        self.mask = np.zeros((0, NUM_ACTIONS), np.int8)
        self.hidden = np.zeros((0, HIDDEN_SIZE), np.uint8) if hidden else None  # the other hands
        self.action = np.zeros(0, np.int64)
        self.log_prob = np.zeros(0, np.float32)
        self.value = np.zeros(0, np.float64)
        self.seat = np.zeros(0, np.int64)
        self.episode = np.zeros(0, np.int64)  # an id unique within the update
        self.reward = np.zeros(0, np.float64)
        self.advantage = np.zeros(0, np.float64)
        self.ret = np.zeros(0, np.float64)
        self._columns = tuple(name for name, value in vars(self).items() if isinstance(value, np.ndarray))
        self._given = frozenset(self._columns) - {"reward", "advantage", "ret"}  # what add() takes

    def clear(self) -> None:
        self.size = 0

    def add(self, **columns: np.ndarray | None) -> np.ndarray:
        """Append one step's decisions: a value for every column but the three filled in later (reward,
        advantage and ret start at 0); returns their row indices."""
        names = self._columns
        given = {name: value for name, value in columns.items() if value is not None}
        if given.keys() != self._given:
            missing, unknown = sorted(self._given - given.keys()), sorted(given.keys() - self._given)
            raise ValueError(f"Rollout.add needs {missing}, got unknown {unknown}")
        start, end = self.size, self.size + len(given["obs"])
        if end > len(self.obs):
            capacity = max(end, 2 * len(self.obs), 4096)
            for name in names:
                old = getattr(self, name)
                grown = np.zeros((capacity, *old.shape[1:]), old.dtype)
                grown[:start] = old[:start]
                setattr(self, name, grown)
        for name in names:
            getattr(self, name)[start:end] = given.get(name, 0)
        self.size = end
        return np.arange(start, end)


# Cached: the module has one name (rams_training.rollout), and numba's cache stamp is this file alone, so the
# function reads no global (the seats' count comes from its arguments, not from MAX_PLAYERS).
@numba.njit(cache=True)
def gae(
    rows: np.ndarray,
    seat: np.ndarray,
    reward: np.ndarray,
    value: np.ndarray,
    advantage: np.ndarray,
    ret: np.ndarray,
    gamma: float,
    lam: float,
) -> None:
    """GAE for one episode's decisions ``rows`` (in play order) along each seat's own chain of
    decisions; a seat's last decision is terminal. Writes ``advantage`` and ``ret`` at those rows."""
    seats = 0
    for k in range(len(rows)):
        seats = max(seats, seat[rows[k]] + 1)
    next_value = np.zeros(seats)
    running = np.zeros(seats)
    for k in range(len(rows) - 1, -1, -1):
        r, s = rows[k], seat[rows[k]]
        delta = reward[r] + gamma * next_value[s] - value[r]
        running[s] = delta + gamma * lam * running[s]
        advantage[r] = running[s]
        ret[r] = running[s] + value[r]
        next_value[s] = value[r]


@dataclass
class Episode:
    """One finished episode of game ``game`` of the batched env: its learner decisions, as rows of the
    trainer's ``rollout`` in play order."""

    game: int
    rows: np.ndarray


def episode_rows(episodes: list[Episode]) -> np.ndarray:
    """The rollout rows of ``episodes``, one after the other: the batch of an update."""
    return np.concatenate([e.rows for e in episodes]) if episodes else np.zeros(0, np.int64)


@dataclass
class Table:
    """One table size of a run: its rules, its batched env, and who plays the draws' heuristic seats there."""

    config: RulesConfig
    env: Any
    heuristic: Seat
    """the env's compiled heuristic, inside its step; or (``compiled_heuristic`` false, deprecated) an outside
    ``HeuristicAgent``, reseeded every update"""

    @property
    def inside(self) -> bool:
        """Whether the env plays the heuristic seats inside its step (each game's next seats are drawn ahead)."""
        return self.heuristic == HEURISTIC_SEAT


PAST_QUOTA = -1
"""who acts in a game past its quota: random legal moves in every seat, nothing recorded (a player of its own,
apart from the random seats, so that each draws its own noise)"""


@dataclass
class Games:
    """Where each game of the batched env stands during one update's collection."""

    players: np.ndarray
    """per game and seat, who plays it in the current episode: an index of :attr:`Collector.seats`"""
    heuristic: np.ndarray
    """per game and seat, whether the env's heuristic plays it in the current episode"""
    finished: np.ndarray
    """the episodes it has finished"""
    episode: np.ndarray
    """the episode it plays now (an id unique within the update)"""
    next_episode: int
    """the next episode id to hand out"""
    credit: SeatCredit
    """each seat's latest learner row (its decision id) and the rewards owed to it"""
    finished_episodes: dict[int, int] = field(default_factory=dict)
    """episode -> its game, in the order they ended"""
    next_players: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    """``Table.inside``: the players of the game's next episode, drawn ahead"""
    next_heuristic: np.ndarray = field(default_factory=lambda: np.empty(0, bool))
    """``Table.inside``: the env's heuristic seats of the game's next episode"""


class Collector:
    """Plays updates' episodes of ``game`` with the learner's network ``net`` acting through ``policy``.

    ``critic_values`` (the privileged critic's, or None) replaces the policy's values where given.
    ``mix`` draws each episode's seats (training/mixing.py). ``gae``: the (gamma, lambda) of the algorithm's
    advantages and returns.
    """

    def __init__(
        self,
        *,
        game: GameArgs,
        seed: int,
        net: PolicyNet,
        policy: Policy,
        critic_values: CriticValues | None,
        rollout: Rollout,
        mix: OpponentMix,
        gae: tuple[float, float],
        reward_scale: float,
        start_score: int,
    ) -> None:
        self.game, self.seed, self.gae = game, seed, gae
        self.net, self.policy, self.critic_values = net, policy, critic_values
        self.rollout, self.mix = rollout, mix
        self.reward_scale, self.start_score = reward_scale, start_score
        self.seats: list[Seat] = [LEARNER_SEAT]  # every player seen, by its index; the learner's is 0
        self._actors: list[Callable[[np.ndarray, np.ndarray], np.ndarray] | None] = [None]  # by seats' index
        self._rows: dict[tuple[Seat, ...], tuple[np.ndarray, np.ndarray]] = {}  # row -> its players, heuristic seats

    @property
    def targets(self) -> tuple[Target, ...]:
        """The run's frozen targets (the mix draws one per episode where there are any)."""
        return self.mix.targets

    def collect(
        self, table: Table, update: int, steps: int, points_weight: float = 0.0
    ) -> tuple[list[Episode], dict[str, float], int]:
        """Play update ``update``'s episodes at ``table`` after ``steps`` learner decisions (``points_weight``:
        the stage's): the learner's decisions of each (rows of ``rollout``) with GAE done, the collection's
        statistics, and the number of episodes finished."""
        game = self.game
        env = table.env
        self.rollout.clear()
        if not table.inside:  # the outside heuristic's bid sampling, per update
            table.heuristic.agent.seed(derive_seed(self.seed, 2, update))
        games = self._draw_games(table, steps)
        if table.inside:
            env.set_heuristic_seats(games.heuristic)
        out = env.reset(seed=derive_seed(self.seed, 1, update))
        if table.inside:
            env.set_next_heuristic_seats(games.next_heuristic)
        shaping = points_weight / self.start_score
        equity_shaping = EquityShaping(table.config, env) if game.equity_shaping else None
        env_steps = 0
        every = np.arange(game.num_games)
        while (games.finished < game.episodes_per_game).any():
            active = games.finished < game.episodes_per_game
            acting = np.where(active, games.players[every, out.seats], PAST_QUOTA)
            learner = acting == 0
            actions = np.empty(game.num_games, np.int64)
            self._learner_decisions(out, env, games, np.flatnonzero(learner), actions)
            self._other_decisions(out, acting, np.flatnonzero(~learner), actions)
            before = env.scores if shaping else None
            out = env.step(actions)
            env_steps += game.num_games
            rewards = out.rewards * self.reward_scale
            if shaping:  # score decreases of the games still going (a finished game was reset)
                rewards += (before - env.scores) * ~out.done[:, None] * shaping
            if equity_shaping is not None:
                rewards += equity_shaping.step(env, out.done) * self.reward_scale
            games.credit.pay(np.where(active[:, None], rewards, 0))  # each seat's reward to its latest decision
            self._end_episodes(table, games, np.flatnonzero(out.done).tolist(), active, steps)
        ready, mean_return = self._finish(games.finished_episodes)
        return ready, {"env_steps": env_steps, "mean_return": mean_return}, len(games.finished_episodes)

    def _draw_games(self, table: Table, steps: int) -> Games:
        """Every game's first seats (and, ``table.inside``, the next ones, drawn ahead)."""
        n, players = self.game.num_games, table.config.num_players
        games = Games(
            players=np.empty((n, players), np.int64),
            heuristic=np.empty((n, players), bool),
            finished=np.zeros(n, np.int64),
            episode=np.arange(n),
            next_episode=n,
            credit=SeatCredit(n, players, np.float32),  # owed as the float32 rollout adds it
        )
        for i in range(n):
            self._place(table, games, i, self.mix.draw(players, steps))
        if table.inside:  # the env plays the heuristic seats, so each game's next seats are drawn ahead
            games.next_players, games.next_heuristic = np.empty((n, players), np.int64), np.empty((n, players), bool)
            for i in range(n):
                self._place(table, games, i, self.mix.draw(players, steps), ahead=True)
        return games

    def _place(self, table: Table, games: Games, i: int, row: tuple[Seat, ...], ahead: bool = False) -> None:
        """Game ``i``'s seats of its current episode (``ahead``: of its next one) are ``row``."""
        known = self._rows.get(row)
        if known is None:
            played = tuple(table.heuristic if seat == HEURISTIC_SEAT else seat for seat in row)
            for seat in played:
                if seat not in self.seats:
                    self.seats.append(seat)
                    random_play = self._random if seat.kind == "random" else None  # none for the env's heuristic
                    self._actors.append(BatchActor(seat.agent) if seat.kind == "agent" else random_play)
            heuristic = heuristic_seat_mask(caller_seats(played, len(row)), len(row))
            known = self._rows[row] = np.array([self.seats.index(seat) for seat in played]), heuristic
        if ahead:
            games.next_players[i], games.next_heuristic[i] = known
        else:
            games.players[i], games.heuristic[i] = known

    def _learner_decisions(self, out: Any, env: Any, games: Games, rows: np.ndarray, actions: np.ndarray) -> None:
        """The learner's actions in games ``rows`` into ``actions``, each decision a new rollout row."""
        if not len(rows):
            return
        seats = out.seats[rows]
        obs_rows, mask_rows = out.observations[rows], out.action_masks[rows]
        act, logp, value = self.policy(self.net, obs_rows, mask_rows)
        hidden = None
        if self.critic_values is not None:
            hidden = other_hands(env.hands[rows], seats)
            value = self.critic_values(obs_rows, hidden)
        actions[rows] = act
        new_rows = self.rollout.add(
            obs=obs_rows,
            mask=mask_rows,
            hidden=hidden,
            action=act,
            log_prob=logp,
            value=value,
            seat=seats,
            episode=games.episode[rows],
        )
        closed = games.credit.decide(rows, seats, new_rows)
        self.rollout.reward[closed.ids] = closed.earned

    def _other_decisions(self, out: Any, acting: np.ndarray, others: np.ndarray, actions: np.ndarray) -> None:
        """The actions of games ``others`` into ``actions``, by who acts there (``acting``: an index of ``seats``,
        or ``PAST_QUOTA``), player by player in the order of their first game (each draws from its own
        generator, so that order keeps runs reproducible)."""
        who = acting[others]
        players, first = np.unique(who, return_index=True)
        for player in players[np.argsort(first)].tolist():
            idx = others[who == player]
            actor = self._random if player == PAST_QUOTA else self._actors[player]
            assert actor is not None, f"{self.seats[player]} makes no decision outside the env's step"
            actions[idx] = actor(out.observations[idx], out.action_masks[idx])

    def _random(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Uniformly random legal moves, from the run's generator: one draw a call."""
        noise = np.random.default_rng(self.rng.getrandbits(32)).random((len(masks), NUM_ACTIONS))
        noise[masks == 0] = -1.0
        return noise.argmax(axis=1)

    @property
    def rng(self) -> random.Random:
        """The run's generator (the mix's): opponents and the random seats' noise draw from it."""
        return self.mix.rng

    def _end_episodes(self, table: Table, games: Games, ended: list[int], active: np.ndarray, steps: int) -> None:
        """Games ``ended`` finished an episode: count it (if within the quota) and draw the next one's seats."""
        players = table.config.num_players
        for i in ended:
            if active[i]:
                games.finished_episodes[int(games.episode[i])] = i
            if table.inside:  # the episode the env started with the drawn-ahead seats
                games.players[i] = games.next_players[i]
                self._place(table, games, i, self.mix.draw(players, steps), ahead=True)
            else:
                self._place(table, games, i, self.mix.draw(players, steps))
            games.finished[i] += 1
            games.episode[i] = games.next_episode
            games.next_episode += 1
        closed = games.credit.end(np.asarray(ended, np.int64))  # every seat's last decision of the episodes
        self.rollout.reward[closed.ids] = closed.earned
        if table.inside and ended:
            table.env.set_next_heuristic_seats(games.next_heuristic)

    def _finish(self, finished_episodes: dict[int, int]) -> tuple[list[Episode], float]:
        """The finished episodes in the order they ended, their GAE done; the mean return of a seat in one."""
        rollout, size = self.rollout, self.rollout.size
        rank = np.full(max(finished_episodes, default=-1) + 1, -1, np.int64)
        rank[list(finished_episodes)] = np.arange(len(finished_episodes))
        row_rank = rank[rollout.episode[:size]]  # every learner row belongs to a finished episode
        order = np.argsort(row_rank, kind="stable")  # episodes in the order they ended, each in play order
        chains = np.split(order, np.flatnonzero(np.diff(row_rank[order])) + 1) if size else []
        gamma, lam = self.gae
        for rows in chains:
            gae(rows, rollout.seat, rollout.reward, rollout.value, rollout.advantage, rollout.ret, gamma, lam)
        games = list(finished_episodes.values())
        ready = [Episode(games[int(row_rank[rows[0]])], rows) for rows in chains]
        # A seat's return in an episode: the sum of its rewards there.
        key = row_rank * MAX_PLAYERS + rollout.seat[:size]
        played = np.bincount(key, minlength=1) > 0
        sums = np.bincount(key, weights=rollout.reward[:size], minlength=1)
        mean_return = float(np.mean(sums[played] / self.reward_scale)) if played.any() else 0.0
        return ready, mean_return
