"""The episode rules of :mod:`rams_env.rules.episode` (their one home), importable from the envs too."""

from __future__ import annotations

from ..rules.episode import (
    EPISODES,
    REWARDS,
    EpisodeKind,
    check_episode,
    episode_ends,
    episode_kind,
    next_deal_or_end,
    shared_win,
    win_rewards,
)

__all__ = [
    "EPISODES",
    "REWARDS",
    "EpisodeKind",
    "check_episode",
    "episode_ends",
    "episode_kind",
    "next_deal_or_end",
    "shared_win",
    "win_rewards",
]
