"""TorchRL self-play collectors, decisions/s: ``RamsSelfPlayEnv`` (batched, with ``seat_decisions``) against
TorchRL's ``PettingZooWrapper`` over one AEC game, one torch thread, the same ``PolicyNet``, in one run.

Run: ``python -m benchmarks.torchrl_selfplay_speed [--batches 3]``.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from typing import Any

import torch
from tensordict.nn import TensorDictModule
from torchrl.collectors import Collector

from rams_env.integrations.torchrl import (
    LOGITS_KEY,
    OBSERVATION_KEY,
    make_env,
    masked_sampler,
)
from rams_env.integrations.torchrl_selfplay import RamsSelfPlayEnv, seat_decisions
from rams_env.integrations.torchrl_vector import masked_actor
from rams_env.obs import OBS_SIZE
from rams_env.options import arg, options_parser
from rams_env.policy import PolicyNet
from rams_env.rules.actions import NUM_ACTIONS

GAME = {"variant": "mattmar", "num_players": 4, "episode": "rams", "reward": "win"}


class Logits(torch.nn.Module):
    """The policy head of a :class:`PolicyNet`."""

    def __init__(self, net: PolicyNet) -> None:
        super().__init__()
        self.net = net

    def forward(self, observation: torch.Tensor) -> torch.Tensor:
        return self.net(observation)[0]


def rate(env: Any, actor: Any, frames: int, batches: int) -> tuple[float, int]:
    """Frames/s of a collector over ``batches`` batches after one warm-up (and the seat decisions kept)."""
    collector = Collector(env, actor, frames_per_batch=frames, total_frames=-1, auto_register_policy_transforms=False)
    batches_of = iter(collector)
    next(batches_of)  # numba's compile, the first reset
    started, steps, kept = time.perf_counter(), 0, 0
    for _ in range(batches):
        batch = next(batches_of)
        steps += batch.numel()
        if "seat" in batch.keys():  # noqa: SIM118  (a TensorDict, not a dict)
            kept += len(seat_decisions(batch))
    elapsed = time.perf_counter() - started
    collector.shutdown()
    return steps / elapsed, kept


@dataclass(kw_only=True)
class TorchRLSelfPlayArgs:
    """The options of ``python -m benchmarks.torchrl_selfplay_speed``."""

    batches: int = arg(3, "timed batches per collector", low=1)


def main(argv: list[str] | None = None) -> None:
    """Measure both collectors and print their decisions/s."""
    parser = options_parser(__doc__.split("\n\n")[0], TorchRLSelfPlayArgs, validate=True)
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", message="PettingZoo in TorchRL is tested")
    torch.set_num_threads(1)
    torch.manual_seed(0)
    net = PolicyNet(OBS_SIZE, NUM_ACTIONS)
    logits = TensorDictModule(Logits(net), in_keys=[OBSERVATION_KEY], out_keys=[LOGITS_KEY])
    aec_actor = masked_sampler(logits)
    aec_rate, _ = rate(make_env(seed=0, **GAME), aec_actor, 1024, args.batches)
    print(f"PettingZooWrapper (one AEC game): {aec_rate:,.0f} decisions/s")
    for games, frames in ((32, 4096), (128, 8192)):
        env = RamsSelfPlayEnv(games, **GAME)
        env.set_seed(0)
        batched_rate, kept = rate(env, masked_actor(net), frames, args.batches)
        print(
            f"RamsSelfPlayEnv({games}): {batched_rate:,.0f} decisions/s, seat_decisions included "
            f"({kept} of {frames * args.batches} decisions kept)"
        )


if __name__ == "__main__":
    main()
