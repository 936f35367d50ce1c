"""Episode bookkeeping shared by the AEC env and the batched env: when an episode ends and the
``win`` rewards at its end. Both envs call these so their episodes cannot drift apart."""

from __future__ import annotations

from collections.abc import Collection

from .rules import Game, Phase

EPISODES = ("deal", "rams", "match")
REWARDS = ("points", "win")


def check_episode(episode: str, reward: str) -> None:
    """Raise ``ValueError`` for an unknown episode kind or reward, or ``win`` over one deal."""
    if episode not in EPISODES:
        raise ValueError(f"episode must be one of {EPISODES}, got {episode!r}")
    if reward not in REWARDS:
        raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
    if reward == "win" and episode == "deal":
        raise ValueError('reward="win" needs episode="rams" or "match" (a single deal has no winner)')


def end_of_deal(game: Game, episode: str) -> bool:
    """After a deal ended (phase ``DEAL_OVER`` or ``GAME_OVER``): True if the episode ends, else
    deal the next deal and return False (or True if that deal ends the game at once)."""
    if game.phase == Phase.GAME_OVER or episode == "deal" or (episode == "rams" and game.rams_over):
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
