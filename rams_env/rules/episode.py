"""Episode bookkeeping shared by the AEC env, the batched env, the server and OpenSpiel: when an
episode ends and the ``win`` rewards at its end. All of them call these so their episodes cannot
drift apart."""

from __future__ import annotations

from collections.abc import Collection
from enum import IntEnum

from .game import Game
from .phases import Phase


class EpisodeKind(IntEnum):
    """What one episode is: one deal, one rams, or a match of ramsar (docs/contract.md "Making an environment")."""

    DEAL = 0
    RAMS = 1
    MATCH = 2

    @property
    def label(self) -> str:
        """The word the env takes for it: "deal", "rams" or "match"."""
        return self.name.lower()


EPISODES = tuple(kind.label for kind in EpisodeKind)
REWARDS = ("points", "win")


def check_episode(episode: str, reward: str) -> None:
    """Raise ``ValueError`` for an unknown episode kind or reward, or ``win`` over one deal."""
    if episode not in EPISODES:
        raise ValueError(f"episode must be one of {EPISODES}, got {episode!r}")
    if reward not in REWARDS:
        raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
    if reward == "win" and episode == "deal":
        raise ValueError('reward="win" needs episode="rams" or "match" (a single deal has no winner)')


def episode_kind(episode: str) -> EpisodeKind:
    """The :class:`EpisodeKind` of an env's ``episode`` word (``ValueError`` for another word)."""
    if episode not in EPISODES:
        raise ValueError(f"episode must be one of {EPISODES}, got {episode!r}")
    return EpisodeKind(EPISODES.index(episode))


def episode_ends(game: Game, episode: str) -> bool:
    """After a deal ended (phase ``DEAL_OVER`` or ``GAME_OVER``): whether the episode ends with it.
    The one test of every env, the server and OpenSpiel."""
    kind = episode_kind(episode)
    return game.phase == Phase.GAME_OVER or kind == EpisodeKind.DEAL or (kind == EpisodeKind.RAMS and game.rams_over)


def next_deal_or_end(game: Game, episode: str) -> bool:
    """After a deal ended (phase ``DEAL_OVER`` or ``GAME_OVER``): True if the episode ends there;
    else deal the next deal and return False (or True if that deal ends the game at once)."""
    if episode_ends(game, episode):
        return True
    game.next_deal()  # a new rams' fresh scores are no reward
    return game.phase == Phase.GAME_OVER  # russian: going out on jacks at the deal


def win_rewards(game: Game) -> list[float]:
    """``reward="win"`` at the end of an episode: +1 shared by the winners, -1 by the others."""
    return shared_win(game.winners if game.winners is not None else game.rams_winners(), game.n)  # type: ignore[arg-type]


def shared_win(winners: Collection[int], num_players: int) -> list[float]:
    """+1 shared by the ``winners``' seats, -1 shared by the other seats."""
    losers = [s for s in range(num_players) if s not in winners]
    return [1.0 / len(winners) if s in winners else -1.0 / len(losers) if losers else 0.0 for s in range(num_players)]
