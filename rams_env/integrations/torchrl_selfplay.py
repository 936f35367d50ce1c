"""TorchRL self-play: ``RamsSelfPlayEnv``, a batched ``EnvBase`` (``batch_size=[N]``) over :class:`BatchedRamsEnv`.

Every seat of every game is played by the one policy that acts on the env: each step hands out, for each
game, the decision now due (the acting seat's observation, action mask and seat index) and takes one
action per game. Keys (``N`` games, ``P`` players):

- ``"observation"`` (float32 ``(N, OBS_SIZE)``), ``"action_mask"`` (bool ``(N, 60)``), ``"seat"`` (int64
  ``(N,)``: the seat to act), ``"action"`` (int64 ``(N,)``);
- ``"reward"`` (float32 ``(N, P)``): what **each seat** earned from the action just applied (its score
  decrease, or the ``win`` rewards at the episode's end), not only the seat that acted;
- ``"done"``, ``"terminated"``, ``"truncated"`` (bool ``(N, 1)``), kept apart; ``truncated`` is always False
  (Rams episodes are bounded).

Rewards and credit. In a turn-based game a seat's return is its own rewards from its decision to its
next one, and a trick can pay a seat when another seat plays its last card. So the env keeps the seats'
reward streams apart (``(N, P)``) and GAE must not run on the frames as they are (that would credit a
seat with the seats that act between its turns, and mix their values). :func:`seat_decisions` turns a
collector batch (``[N, T]``) into each seat's own decisions, one seat's sequence of one game after
another: the seat's rewards summed from its decision to its next one (or to the episode's end, then
terminal), the next observation being its next decision's. TorchRL's ``GAE`` and ``ClipPPOLoss`` run on
those unchanged (``reward`` and ``done`` of shape ``(M, 1)``); a seat's last decision of a batch, whose
reward is not known yet, is dropped, and the one before it ends its sequence as truncated (``done``
without ``terminated``) so that GAE bootstraps there.

Autoreset. :class:`BatchedRamsEnv` resets a game in the step that ends its episode (Gymnasium's
``SAME_STEP``, :attr:`RamsSelfPlayEnv.autoreset_mode`); here that step reports ``done`` with, under
``"next"``, the next episode's first decision already (Rams has no decision at an episode's end, and a
``terminated`` step is not bootstrapped, so no final observation is needed). TorchRL then resets the
finished games (``"_reset"``): that partial reset hands out the decisions the engine already dealt, so
the games go on exactly as :class:`BatchedRamsEnv` plays them. A game in mid-episode cannot be reset
alone (the engine restarts games at their episode's end or all together): such a ``"_reset"`` is a
``ValueError``. The action spec carries the current masks (``action_spec.rand()`` samples legal actions,
as ``check_env_specs`` does); :func:`~rams_env.integrations.torchrl_vector.masked_actor` and
:func:`~rams_env.integrations.torchrl_vector.value_module` read these keys. Needs ``rams_env[torchrl]``.

    from torchrl.collectors import Collector
    env = RamsSelfPlayEnv(64, episode="rams", reward="win")
    collector = Collector(env, masked_actor(), frames_per_batch=64 * 128, total_frames=-1)
    for batch in collector:
        data = seat_decisions(batch)  # then GAE(...)(data) and ClipPPOLoss(...)(data[rows])
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from tensordict import TensorDict, TensorDictBase
from torchrl.data import Binary, Bounded, Categorical, Composite, Unbounded
from torchrl.envs import EnvBase

from ..envs.contracts import AutoresetMode
from ..envs.credit import SeatCredit
from ..envs.spaces import OBS_HIGH, OBS_LOW
from ..envs.vector import BatchedRamsEnv, BatchStep
from ..obs.encoding import OBS_SIZE
from ..rules.actions import NUM_ACTIONS
from ..rules.seeding import require_seed
from .torchrl_vector import done_spec

__all__ = ["RamsSelfPlayEnv", "seat_decisions"]


class RamsSelfPlayEnv(EnvBase):
    """``num_games`` self-play Rams games as one TorchRL env of batch size ``[num_games]`` (module docstring);
    keywords go to :class:`BatchedRamsEnv` (``variant``, ``num_players``, ``episode``, ``reward``, rule options)."""

    autoreset_mode = AutoresetMode.SAME_STEP  # of the engine underneath; TorchRL sees partial resets

    def __init__(self, num_games: int = 8, device: str | torch.device = "cpu", **kwargs: Any) -> None:
        if "heuristic_seats" in kwargs or "seed" in kwargs:
            raise ValueError("RamsSelfPlayEnv plays every seat itself; seed it with set_seed (or reset)")
        games = BatchedRamsEnv(num_games, **kwargs)
        super().__init__(device=device, batch_size=torch.Size([games.num_games]))
        self.games = games
        n, players = games.num_games, games.num_players
        self.num_players = players
        self.observation_spec = Composite(
            observation=Bounded(OBS_LOW, OBS_HIGH, (n, OBS_SIZE), dtype=torch.float32, device=device),
            action_mask=Binary(n=NUM_ACTIONS, shape=(n, NUM_ACTIONS), dtype=torch.bool, device=device),
            seat=Categorical(players, shape=(n,), dtype=torch.int64, device=device),
            shape=(n,),
            device=device,
        )
        self.action_spec = Categorical(NUM_ACTIONS, shape=(n,), dtype=torch.int64, device=device)
        self.reward_spec = Unbounded(shape=(n, players), dtype=torch.float32, device=device)
        self.done_spec = done_spec(n, device)
        self._seeder = np.random.default_rng()
        self._next_seed: int | None = None
        self._last: BatchStep | None = None  # the decisions now due (the engine's last output)
        self._ended = np.zeros(n, bool)  # games whose episode ended at the last step (already dealt anew)

    def _outputs(self, step: BatchStep, **extra: torch.Tensor) -> TensorDict:
        masks = torch.from_numpy(step.action_masks.astype(bool))
        self.action_spec.update_mask(masks.to(self.device))
        return TensorDict(
            {
                "observation": torch.from_numpy(step.observations.copy()),
                "action_mask": masks,
                "seat": torch.from_numpy(step.seats.copy()),
                **extra,
            },
            batch_size=self.batch_size,
        ).to(self.device)

    def _reset(self, tensordict: TensorDictBase | None = None, **kwargs: Any) -> TensorDictBase:
        n = self.games.num_games
        partial = tensordict is not None and "_reset" in tensordict.keys()  # noqa: SIM118  (a TensorDict, not a dict)
        if partial and self._last is not None:
            mask = tensordict.get("_reset").reshape(n).cpu().numpy().astype(bool)
            if mask.all() and not self._ended.all():
                partial = False  # TorchRL asks for every game: a full reset
            else:
                stuck = np.flatnonzero(mask & ~self._ended)
                if len(stuck):
                    raise ValueError(
                        f"game {int(stuck[0])} is in mid-episode: RamsSelfPlayEnv restarts a game only at its "
                        "episode's end (same-step autoreset) or every game together (a full reset)"
                    )
                self._ended &= ~mask
        if not partial or self._last is None:
            if self._next_seed is None:
                self._next_seed = int(self._seeder.integers(2**63))
            self._last = self.games.reset(seed=self._next_seed)
            self._next_seed = None
            self._ended[:] = False
        no_done = torch.zeros((n, 1), dtype=torch.bool)
        return self._outputs(self._last, done=no_done, terminated=no_done.clone(), truncated=no_done.clone())

    def _step(self, tensordict: TensorDictBase) -> TensorDictBase:
        n = self.games.num_games
        actions = tensordict.get("action").reshape(n).cpu().numpy().astype(np.int64)
        if self._ended.any():
            raise RuntimeError(f'game {int(np.flatnonzero(self._ended)[0])} ended: reset it ("_reset") first')
        step = self.games.step(actions)
        self._last = step
        self._ended = step.terminated.copy()
        column = n, 1
        terminated = torch.from_numpy(step.terminated.copy()).reshape(column)
        truncated = torch.from_numpy(step.truncated.copy()).reshape(column)
        return self._outputs(
            step,
            reward=torch.from_numpy(step.rewards.copy()),
            done=terminated | truncated,
            terminated=terminated,
            truncated=truncated,
        )

    def _set_seed(self, seed: int | None) -> None:
        """The seed of the next full reset (game ``i`` then plays ``BatchedRamsEnv.reset(seed=seed)``'s game
        ``i``); later full resets draw their seeds from a generator seeded by it."""
        if seed is not None:
            seed = require_seed(seed)
        self._seeder = np.random.default_rng(seed)
        self._next_seed = seed

    def close(self, **kwargs: Any) -> None:
        """Close the batched env, then TorchRL's side."""
        self.games.close()
        super().close(**kwargs)


def seat_decisions(batch: TensorDictBase) -> TensorDict:
    """Each seat's own decisions of a collector batch of :class:`RamsSelfPlayEnv` (``[N, T]``, module docstring).

    Returns a flat TensorDict ``[M]``, one (game, seat) sequence after another in time order, with
    ``observation``, ``action_mask``, ``action``, ``action_log_prob`` (when the batch has it), and under
    ``next``: ``observation``, ``reward``, ``done``, ``terminated``, ``truncated`` (``(M, 1)``) — GAE's and
    ClipPPOLoss's inputs.
    """
    if batch.batch_dims == 1:
        batch = batch.unsqueeze(0)  # one game
    games, frames = batch.shape[:2]
    seats = batch["seat"].cpu().numpy()
    rewards = batch["next", "reward"].cpu().numpy().astype(np.float64)  # [N, T, P]
    done = batch["next", "done"].reshape(games, frames).cpu().numpy()
    # Replay the frames through the one credit rule: a seat's rewards to its latest decision (decision id g*T+t).
    credit = SeatCredit(games, rewards.shape[-1])
    reward = np.zeros((games, frames))  # what decision (g, t) earned
    keep = np.zeros((games, frames), bool)  # its reward is known within the batch
    terminal = np.zeros((games, frames), bool)
    nxt_of = np.zeros((games, frames), np.int64)  # the frame of the observation that follows it
    every = np.arange(games)
    for t in range(frames):
        closed = credit.decide(every, seats[:, t], every * frames + t)
        g0, t0 = np.divmod(closed.ids, frames)
        reward[g0, t0], keep[g0, t0], nxt_of[g0, t0] = closed.earned, True, t
        credit.pay(rewards[:, t])
        closed = credit.end(np.flatnonzero(done[:, t]))
        g0, t0 = np.divmod(closed.ids, frames)
        reward[g0, t0], keep[g0, t0], terminal[g0, t0], nxt_of[g0, t0] = closed.earned, True, True, t0
    g, t = np.nonzero(keep)
    order = np.lexsort((t, seats[g, t], g))  # by game, then seat, then time
    g, t = g[order], t[order]
    s = seats[g, t]
    last = np.ones(len(g), bool)
    last[:-1] = (g[1:] != g[:-1]) | (s[1:] != s[:-1])  # the end of each (game, seat) sequence
    ends = terminal[g, t]
    cut = last & ~ends  # bootstrap here, and keep GAE out of the next sequence
    nxt = nxt_of[g, t]
    gi, ti, ni = (torch.as_tensor(x, dtype=torch.int64) for x in (g, t, nxt))
    column = (len(g), 1)
    terminated = torch.as_tensor(ends).reshape(column)
    truncated = torch.as_tensor(cut).reshape(column)
    data = {
        "observation": batch["observation"][gi, ti],
        "action_mask": batch["action_mask"][gi, ti],
        "action": batch["action"][gi, ti],
        "next": {
            "observation": batch["observation"][gi, ni],
            "reward": torch.as_tensor(reward[g, t], dtype=torch.float32).reshape(column),
            "done": terminated | truncated,
            "terminated": terminated,
            "truncated": truncated,
        },
    }
    if "action_log_prob" in batch.keys():  # noqa: SIM118  (a TensorDict, not a dict)
        data["action_log_prob"] = batch["action_log_prob"][gi, ti]
    return TensorDict(data, batch_size=[len(g)])
