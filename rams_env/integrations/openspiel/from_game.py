"""A ``python_rams`` state at an engine game's current decision: the deal's deck and history read
off the :class:`~rams_env.rules.Game`, replayed, and checked to be that game."""

from __future__ import annotations

import pyspiel

from ...rules import Game, Phase
from ...rules.config import RUSSIAN
from ...rules.episode import EpisodeKind
from .game import load_game
from .parameters import ParameterSpec
from .state import ACCEPT, BID_SWING, DRAW, KNOCK, NO_BID, PASS, REJECT, RamsState, StateCore, copied


def state_from_game(game: Game, pyspiel_game: pyspiel.Game | None = None) -> RamsState:
    """A ``python_rams`` state (episode ``"deal"``, reward ``"points"``) at ``game``'s current decision.

    The history of the current deal is rebuilt from the engine game (its deck from where the cards
    are now, its actions from the public record and the players' face-down piles) and replayed; the
    result is checked to be ``game`` exactly. Earlier deals are not part of the state: its returns
    count the points of the current deal. ``pyspiel_game`` (optional) is ``load_game(game.config)``.
    """
    if game.current < 0:
        raise ValueError("state_from_game needs a game with a player to act")
    pyspiel_game = pyspiel_game or load_game(game.config)
    spec: ParameterSpec = pyspiel_game.spec
    if spec.config != game.config or spec.kind != EpisodeKind.DEAL or spec.reward != "points":
        raise ValueError("pyspiel_game must be load_game(game.config) (episode deal, reward points)")
    deck, actions = _history(game)
    root = StateCore(spec)
    root.dealer = game.dealer
    root.info = [f"p{p} d{game.dealer}" for p in range(spec.n)]
    start = list(game.scores)
    if game.config.swedish:  # a Swedish trick takes its point off at once
        start = [s + t for s, t in zip(start, game.tricks_won, strict=True)]
    names = ("flights", "rams_flights", "totals", "passed_prev", "rams_log", "rams_number", "deal_number")
    root.start_fields = {name: copied(getattr(game, name)) for name in (*names, "deal_in_rams")}
    root.start_fields["scores"] = start  # the first Game is dealt with the deal's start scores
    root.root = None
    core = root.copy()
    core.root = root
    for c in deck:
        core.apply_chance(c)
    for _, action in actions:
        core.apply_player(action)
    mine, theirs = core.game.to_dict(), game.to_dict()  # type: ignore[union-attr]
    mine.pop("rng")
    theirs.pop("rng")
    if mine != theirs:
        diff = sorted(k for k in mine if mine[k] != theirs[k])
        raise RuntimeError(f"rebuilding the deal's history failed (differs in {diff})")
    state = pyspiel_game.new_initial_state()
    state._core = core
    return state


def _history(game: Game) -> tuple[list[int], list[tuple[int, int]]]:
    """The current deal's deck and its (seat, action) history, read off an engine game."""
    n, cfg, dealer = game.n, game.config, game.dealer
    order = [(game.forehand + i) % n for i in range(n)]
    swung = any(bid == BID_SWING and happened for bid, _, happened in game.bid_log)
    first_turned = game.out_public[0] if swung else game.turned
    talon_from = {c: t for t, c in enumerate(game.talon[: game.talon_pos])}
    held: dict[int, list[int]] = {s: list(game.hands[s]) + list(game.out_hidden[s]) for s in range(n)}
    for cards, _ in game.completed:
        for s, c in cards:
            held[s].append(c)
    for s, c in game.trick:
        held[s].append(c)
    turned = {first_turned, game.turned}
    deck: list[int] = []
    packets = {s: sorted(c for c in held[s] if c not in talon_from and c not in turned) for s in range(n)}
    if any(len(p) != 5 for p in packets.values()):
        raise RuntimeError("the engine game's cards do not add up to a deal")
    deck = [c for s in order for c in packets[s][:3]] + [first_turned] + [c for s in order for c in packets[s][3:]]
    deck += list(game.talon)
    fh = game.forehand
    actions: list[tuple[int, int]] = []
    for bid, answers, _ in game.bid_log:
        actions += [(fh, bid)] + [(s, ACCEPT if a else REJECT) for s, a in answers]
    if game.pending_bid:
        actions += [(fh, game.pending_bid)] + [(s, ACCEPT if a else REJECT) for s, a in game.answers]
    phase = game.phase
    if phase >= Phase.KNOCK and cfg.bids:
        actions.append((fh, NO_BID))
    for s in order:
        if game.active[s] is None:
            break
        actions.append((s, KNOCK if game.active[s] else PASS))
    if phase >= Phase.BUY:
        for i, s in enumerate(game.buy_order):
            if phase == Phase.BUY and i > game.buyer_index:
                break
            count = game.discards[s]
            cards = list(game.out_hidden[s][len(game.out_hidden[s]) - count :]) if count else []
            drew = phase > Phase.BUY or i < game.buyer_index or (game.take_pending and s == game.current)
            if not drew:
                actions += [(s, c) for c in cards]
                break
            extra = 1 if cfg.family == RUSSIAN and s == dealer and not game.take_pending else 0
            actions += [(s, c) for c in cards[: count - extra]] + [(s, DRAW)] + [(s, c) for c in cards[count - extra :]]
    for cards, _ in game.completed:
        actions += list(cards)
    actions += list(game.trick)
    return deck, actions
