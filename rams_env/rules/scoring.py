"""How deals, ramsar and matches score and end (docs/rules.md "Scoring"): the phase machine's closing steps.

Functions on a :class:`~rams_env.rules.game.Game` that change its state, called by its phase
methods: a Swedish trick's point (taken at once), the jacks shown, the deal's score, and the end of a
rams or of the match with its winners (and the russian settlement).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .cards import ALL_JACKS_BONUS, ALL_JACKS_NO_TRICK, FIVE_OF_A_SUIT_BONUS
from .config import END_AT_ZERO
from .phases import Phase

if TYPE_CHECKING:
    from .game import Game


def take_trick_point(game: Game, seat: int) -> bool:
    """Swedish: a trick takes a point off at once; True if it won a norrlandsknack rams."""
    if game.phase != Phase.PLAY:
        game.tricks_won[seat] += 1
    game.scores[seat] -= 1
    if game.config.end == END_AT_ZERO and game.scores[seat] == 0:
        game.deal_reason = "zero"
        end_rams(game, (seat,), "zero")
        return True
    return False


def show_jacks(game: Game, seat: int) -> None:
    """Show ``seat``'s counted jacks (russian), once: they are public from now on."""
    if game.jacks_shown[seat]:
        return
    game.jacks_shown[seat] = True
    game.shown.append((seat, "jacks", game.jack_cards[seat]))


def finish_deal(game: Game) -> None:
    """Score the deal that was played (or won without play) and end it, or the rams if someone reached 0."""
    cfg, n = game.config, game.n
    if cfg.swedish:
        for seat in range(n):
            if game.active[seat] and game.tricks_won[seat] == 0:
                game.scores[seat] = min(game.scores[seat] + cfg.flight_fine, cfg.flight_cap)
                game.flights[seat] += 1
                game.rams_flights[seat] += 1
    else:
        score_russian_deal(game)
    if any(s <= 0 for s in game.scores):
        low = min(game.scores)
        end_rams(game, tuple(s for s in range(n) if game.scores[s] == low), "zero")
    else:
        deal_over(game)


def score_russian_deal(game: Game) -> None:
    """Russian deal scores: tricks, aces and jacks written off, fines for the active seats without a trick."""
    fine = game.config.flight_fine
    for seat in range(game.n):
        bonus = game.jacks[seat]
        if bonus and not game.jacks_shown[seat]:
            show_jacks(game, seat)
        if not game.active[seat]:
            game.scores[seat] -= bonus
        elif game.tricks_won[seat]:
            game.scores[seat] -= game.tricks_won[seat] + game.aces_held[seat] + bonus
        elif bonus:
            game.scores[seat] -= ALL_JACKS_NO_TRICK if bonus == ALL_JACKS_BONUS else 0
        else:
            game.scores[seat] += fine + game.aces_held[seat]
            game.flights[seat] += 1
            game.rams_flights[seat] += 1


def score_flush(game: Game, holder: int) -> None:
    """Russian five of a suit: the holder writes off his bonus and aces, every other active seat is fined."""
    fine = game.config.flight_fine
    for seat in game.play_order:
        if seat == holder:
            game.scores[seat] -= FIVE_OF_A_SUIT_BONUS + game.aces_held[seat]
        else:
            game.scores[seat] += fine + game.aces_held[seat]
    if any(s <= 0 for s in game.scores):
        low = min(game.scores)
        end_rams(game, tuple(s for s in range(game.n) if game.scores[s] == low), "zero")
    else:
        deal_over(game)


def deal_over(game: Game) -> None:
    """The deal is over and nobody is to act: ``Game.next_deal`` deals the next one."""
    game.phase = Phase.DEAL_OVER
    game.current = -1


def end_rams(game: Game, winners: tuple[int, ...], reason: str) -> None:
    """The rams is won by ``winners``; the match ends with it after its last rams (fewest flights break a tie)."""
    game.rams_over = True
    game.rams_log.append((tuple(game.scores), winners, reason))
    game.totals = [t + s for t, s in zip(game.totals, game.scores, strict=False)]
    if game.rams_number + 1 < game.config.ramsar_per_match:
        deal_over(game)
        return
    if game.config.ramsar_per_match == 1:
        end_game(game, winners, reason)
        return
    low = min(game.totals)
    tied = [s for s in range(game.n) if game.totals[s] == low]
    fewest = min(game.flights[s] for s in tied)
    end_game(game, tuple(s for s in tied if game.flights[s] == fewest), "match")


def end_game(game: Game, winners: tuple[int, ...], reason: str) -> None:
    """The match (or russian game) is won by ``winners``; russian: the losers pay their records to them."""
    if not game.rams_over:  # russian four aces / jacks: the game ends without a completed deal
        game.rams_over = True
        game.rams_log.append((tuple(game.scores), winners, reason))
        game.totals = [t + s for t, s in zip(game.totals, game.scores, strict=False)]
    game.winners = winners
    game.end_reason = reason
    if not game.config.swedish:
        pot = sum(max(0, game.scores[s]) for s in range(game.n) if s not in winners)
        game.settlement = tuple(
            pot / len(winners) if s in winners else -float(max(0, game.scores[s])) for s in range(game.n)
        )
    game.phase = Phase.GAME_OVER
    game.current = -1
