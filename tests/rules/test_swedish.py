"""Scripted rule tests for the Swedish presets (mattmar, norrlandsknack, rams32).

Every expectation here is written from docs/rules.md (sections 2-7 and their house decisions, HD),
the Swedish seed and docs/contract.md, not from what the engine happens to do. Decks are stacked
with ``tests.decks.stack_deck``; unless a test says otherwise there are four players, seat 3
deals and seat 0 is forehand.
"""

from __future__ import annotations

import json
import random

import pytest

from rams_env.rules import Action, Game, IllegalActionError, Phase, TurnedAt, action_name, card_index, make_config
from rams_env.rules.cards import rank_of, suit_of
from tests.decks import stack_deck

SWEDISH = ("mattmar", "norrlandsknack", "rams32")
A = Action
NO_BID, PASS, KNOCK, ACCEPT, REJECT, DRAW = A.NO_BID, A.PASS, A.KNOCK, A.ACCEPT, A.REJECT, A.DRAW
BID_BETTER, BID_SWING = A.BID_BETTER, A.BID_SWING


# ----------------------------------------------------------------------------- helpers
def new_game(
    variant: str = "mattmar",
    hands: dict[int, list[str]] | None = None,
    turned: str = "TC",
    *,
    n: int = 4,
    dealer: int = 3,
    talon: list[str] | None = None,
    scores: list[int] | None = None,
    seed: int = 0,
    **options,
) -> Game:
    """A game whose first deal deals ``hands`` (5 cards per seat), turns ``turned``, talon on top."""
    deck = stack_deck(variant, n, dealer, hands or {}, turned, talon)
    return Game(make_config(variant, n, **options), seed=seed, deck=deck, dealer=dealer, scores=scores)


def do(g: Game, *actions) -> None:
    """Apply actions given as card names or action ids."""
    for a in actions:
        g.apply(card_index(a) if isinstance(a, str) else int(a))


def legal(g: Game) -> set[str]:
    """Names of the legal actions now."""
    return {action_name(a) for a in g.legal_actions()}


def hand(g: Game, seat: int) -> set[str]:
    return set(g.view(seat)["hand"])


def knock_round(g: Game, passes=()) -> None:
    """Forehand makes no bid (if still bidding); every seat knocks unless listed in ``passes``."""
    if g.phase == Phase.BID:
        g.apply(NO_BID)
    while g.phase == Phase.KNOCK:
        g.apply(PASS if g.current_player in passes else KNOCK)


def to_play(g: Game, passes=(), dealer_discard: str | None = None) -> None:
    """No bids, knock round, every non-dealer stands pat, the dealer discards one card (pat)."""
    knock_round(g, passes)
    while g.phase == Phase.BUY:
        if g.current_player == g.dealer:
            do(g, dealer_discard)
        g.apply(DRAW)
    assert g.phase == Phase.PLAY


def play_trick(g: Game, plays) -> None:
    """``plays``: (seat, card, expected legal set or None) in play order."""
    for seat, card, allowed in plays:
        assert g.current_player == seat, (seat, card, g.current_player)
        if allowed is not None:
            assert legal(g) == set(allowed), (seat, card)
        do(g, card)


def finish_randomly(g: Game, rng: random.Random) -> None:
    """Random legal actions until the deal (or game) is over."""
    while g.phase not in (Phase.DEAL_OVER, Phase.GAME_OVER):
        g.apply(rng.choice(g.legal_actions()))


def dealt_hands(deck: list[str], n: int, dealer: int) -> dict[int, set[str]]:
    """docs/rules.md "Dealing" computed independently: 3 each from forehand, turned card, 2 each; dealer gets turned."""
    order = [(dealer + 1 + i) % n for i in range(n)]
    hands: dict[int, list[str]] = {s: [] for s in range(n)}
    pos = 0
    for s in order:
        hands[s] += deck[pos : pos + 3]
        pos += 3
    turned = deck[pos]
    pos += 1
    for s in order:
        hands[s] += deck[pos : pos + 2]
        pos += 2
    hands[dealer].append(turned)
    return {s: set(h) for s, h in hands.items()}


def deck_in_order(variant: str) -> list[str]:
    size = make_config(variant).deck_size
    ranks = "23456789TJQKA" if size == 52 else "789TJQKA"
    return [r + s for s in "CDHS" for r in ranks]


# ----------------------------------------------------------------------------- 2. the deal
@pytest.mark.parametrize(
    "variant,n,dealer",
    [
        ("mattmar", 4, 2),
        ("mattmar", 3, 0),
        ("mattmar", 7, 6),
        ("norrlandsknack", 4, 1),
        ("norrlandsknack", 5, 3),
        ("rams32", 4, 0),
        ("rams32", 6, 5),
    ],
)
def test_dealing_order(variant, n, dealer):
    deck = deck_in_order(variant)
    rng = random.Random(n * 10 + dealer)
    rng.shuffle(deck)
    g = Game(make_config(variant, n), seed=1, deck=deck, dealer=dealer)
    expected = dealt_hands(deck, n, dealer)
    turned = deck[3 * n]
    for s in range(n):
        v = g.view(s)
        assert set(v["hand"]) == expected[s]
        assert len(v["hand"]) == (6 if s == dealer else 5)
        assert v["trump"] == turned[1]
        assert v["turned_card"] == turned
        assert v["dealer"] == dealer
        assert v["talon"] == len(deck) - 5 * n - 1
    assert g.phase == Phase.BID
    assert g.current_player == (dealer + 1) % n  # forehand


def test_talon_is_the_rest_in_order():
    # Forehand bids better cards: he gets the top five of the talon, i.e. deck[21:26].
    deck = deck_in_order("mattmar")
    random.Random(5).shuffle(deck)
    g = Game(make_config("mattmar", 4), seed=1, deck=deck, dealer=3)
    do(g, BID_BETTER, REJECT, REJECT, REJECT)
    assert hand(g, 0) == set(deck[21:26])
    # Then forehand's buy draws the next cards of the talon in order.
    do(g, NO_BID, KNOCK, PASS, PASS, PASS)
    assert g.phase == Phase.BUY and g.current_player == 0
    first, second = sorted(hand(g, 0))[:2]
    do(g, first, second, DRAW)
    assert hand(g, 0) == (set(deck[21:26]) - {first, second}) | set(deck[26:28])


@pytest.mark.parametrize("variant", SWEDISH)
def test_deal_passes_clockwise(variant):
    g = Game(make_config(variant, 4), seed=3, dealer=2)
    rng = random.Random(0)
    for expected_dealer in (2, 3, 0, 1, 2):
        assert g.dealer == expected_dealer
        assert g.current_player == (expected_dealer + 1) % 4
        finish_randomly(g, rng)
        if g.phase == Phase.GAME_OVER:
            break
        g.next_deal()


# ----------------------------------------------------------------------------- 3. bids
def test_forehand_may_bid_better_swing_or_nothing():
    g = new_game()
    assert g.current_player == 0
    assert legal(g) == {"BID_BETTER", "BID_SWING", "NO_BID"}
    g.apply(NO_BID)
    assert g.phase == Phase.KNOCK and g.current_player == 0


def test_better_cards_individual_acceptance_and_exchange_order():
    hands = {
        0: ["2D", "3D", "4D", "5D", "6D"],
        1: ["2H", "3H", "4H", "5H", "6H"],
        2: ["2S", "3S", "4S", "5S", "6S"],
        3: ["7D", "8D", "9D", "TD", "JD"],
    }
    talon = ["AH", "KH", "QH", "JH", "TH", "AS", "KS", "QS", "JS", "TS", "AD", "KD", "QD", "9H", "8H"]
    g = new_game(hands=hands, turned="TC", talon=talon)
    do(g, BID_BETTER)
    assert g.phase == Phase.ANSWER
    # Answers go clockwise from forehand's left, dealer last; each decides for himself.
    assert g.current_player == 1
    assert legal(g) == {"ACCEPT", "REJECT"}
    do(g, REJECT)
    assert g.current_player == 2
    do(g, ACCEPT)
    assert g.current_player == 3
    do(g, ACCEPT)
    # Exchange in seat order from forehand: forehand, then seat 2, then the dealer.
    assert hand(g, 0) == {"AH", "KH", "QH", "JH", "TH"}
    assert hand(g, 1) == set(hands[1])  # rejected: keeps his hand
    assert hand(g, 2) == {"AS", "KS", "QS", "JS", "TS"}
    # The dealer keeps the turned-up trump card and throws in his other five.
    assert hand(g, 3) == {"AD", "KD", "QD", "9H", "8H", "TC"}
    v = g.view(1)
    assert v["trump"] == "C" and v["turned_card"] == "TC"
    assert v["talon"] == 31 - 15
    # Old hands are out of play: nobody holds them any more.
    held = set().union(*(hand(g, s) for s in range(4)))
    assert not held & (set(hands[0]) | set(hands[2]) | set(hands[3]))
    # ... and they were thrown in face down: another player's view does not show them.
    seen_by_1 = json.dumps(g.view(1))
    for card in hands[0] + hands[2] + hands[3]:
        assert f'"{card}"' not in seen_by_1
    # Back to forehand, who may still swing but not bid better cards again.
    assert g.phase == Phase.BID and g.current_player == 0
    assert legal(g) == {"BID_SWING", "NO_BID"}


def test_better_cards_one_acceptance_exchange_order():
    talon = ["AH", "KH", "QH", "JH", "TH", "AS", "KS", "QS", "JS", "TS"]
    g = new_game(hands={1: ["2H", "3H", "4H", "5H", "6H"]}, talon=talon)
    do(g, BID_BETTER, ACCEPT, REJECT, REJECT)
    assert hand(g, 0) == set(talon[:5])
    assert hand(g, 1) == set(talon[5:])
    assert g.view(0)["talon"] == 31 - 10


def test_better_cards_accept_limited_by_talon():
    # 7 players, 52 cards: 36 dealt, talon 16. Forehand takes 5 (11 left), two accepters take
    # 5 each (1 left): from then on nobody can accept.
    g = new_game(n=7, dealer=6)
    assert g.view(0)["talon"] == 16
    do(g, BID_BETTER)
    assert g.current_player == 1 and legal(g) == {"ACCEPT", "REJECT"}
    do(g, REJECT)
    assert legal(g) == {"ACCEPT", "REJECT"}
    do(g, ACCEPT)  # seat 2
    assert legal(g) == {"ACCEPT", "REJECT"}  # 16 - 5 - 5 = 6 >= 5
    do(g, ACCEPT)  # seat 3
    for seat in (4, 5, 6):
        assert g.current_player == seat
        assert legal(g) == {"REJECT"}
        with pytest.raises(IllegalActionError):
            g.apply(ACCEPT)
        do(g, REJECT)
    assert g.phase == Phase.BID
    assert g.view(0)["talon"] == 1


def test_better_cards_needs_five_cards_for_forehand():
    # rams32 with 6 players: 31 dealt, talon 1: no better cards; a swing still may be bid.
    g = new_game("rams32", n=6, dealer=5, turned="7S", talon=["8H"])
    assert g.view(0)["talon"] == 1
    assert legal(g) == {"BID_SWING", "NO_BID"}
    with pytest.raises(IllegalActionError):
        g.apply(BID_BETTER)


def test_better_cards_with_room_only_for_forehand():
    # rams32 with 5 players: talon 6. The bid can be made; nobody else can accept.
    g = new_game("rams32", n=5, dealer=4, turned="7S")
    assert g.view(0)["talon"] == 6
    do(g, BID_BETTER)
    for seat in (1, 2, 3, 4):
        assert g.current_player == seat
        assert legal(g) == {"REJECT"}
        do(g, REJECT)
    assert g.view(0)["talon"] == 1
    assert legal(g) == {"BID_SWING", "NO_BID"}


def test_swing_unanimous_turns_until_new_suit():
    talon = ["4C", "9C", "2H", "3H"]
    g = new_game(hands={3: ["2D", "3D", "4D", "5D", "6D"]}, turned="TC", talon=talon)
    do(g, BID_SWING)
    for seat in (1, 2, 3):
        assert g.current_player == seat
        assert legal(g) == {"ACCEPT", "REJECT"}
        do(g, ACCEPT)
    v = g.view(1)
    assert v["trump"] == "H"
    assert v["turned_card"] == "2H"
    # The dealer's turned card is replaced by the new one; the old one and those on the way are
    # face up out of play (public: visible in another player's view).
    assert hand(g, 3) == {"2D", "3D", "4D", "5D", "6D", "2H"}
    assert {"TC", "4C", "9C"} <= set(v["out_of_play_public"])
    assert not {"TC", "4C", "9C"} & set().union(*(hand(g, s) for s in range(4)))
    assert v["talon"] == 31 - 3
    assert g.phase == Phase.BID and g.current_player == 0
    assert legal(g) == {"BID_BETTER", "NO_BID"}


@pytest.mark.parametrize("rejecter", [1, 2, 3])
def test_swing_first_rejection_ends_answers(rejecter):
    g = new_game(turned="TC", talon=["2H"])
    before = g.view(0)
    dealer_hand = hand(g, 3)
    do(g, BID_SWING)
    for _ in range(1, rejecter):
        do(g, ACCEPT)
    assert g.current_player == rejecter
    do(g, REJECT)
    # Nobody after the rejecter answers: forehand is back to bidding, nothing changed.
    assert g.phase == Phase.BID and g.current_player == 0
    v = g.view(0)
    assert v["trump"] == "C" and v["turned_card"] == "TC"
    assert v["talon"] == before["talon"]
    assert hand(g, 3) == dealer_hand
    assert g.view(2)["out_of_play_public"] == []
    # The swing was bid (and may not be bid again); better cards remain.
    assert legal(g) == {"BID_BETTER", "NO_BID"}
    with pytest.raises(IllegalActionError):
        g.apply(BID_SWING)


def test_swing_talon_runs_out_keeps_trump():
    # rams32, 6 players: talon of one card, of the trump suit.
    g = new_game("rams32", n=6, dealer=5, turned="7S", talon=["8S"])
    do(g, BID_SWING, ACCEPT, ACCEPT, ACCEPT, ACCEPT, ACCEPT)
    v = g.view(2)
    assert v["trump"] == "S"
    assert v["turned_card"] == "7S"
    assert "7S" in hand(g, 5)
    assert "8S" in v["out_of_play_public"]
    assert "7S" not in v["out_of_play_public"]
    assert v["talon"] == 0
    # Both bids are used up (no talon for better cards): NO_BID is still a required action.
    assert g.phase == Phase.BID and g.current_player == 0
    assert legal(g) == {"NO_BID"}
    do(g, NO_BID)
    assert g.phase == Phase.KNOCK


def test_swing_with_last_talon_card_of_new_suit():
    g = new_game("rams32", n=6, dealer=5, turned="7S", talon=["8H"])
    do(g, BID_SWING, *[ACCEPT] * 5)
    v = g.view(0)
    assert v["trump"] == "H" and v["turned_card"] == "8H"
    assert "8H" in hand(g, 5) and "7S" not in hand(g, 5)
    assert "7S" in v["out_of_play_public"]
    assert v["talon"] == 0
    assert legal(g) == {"NO_BID"}


def test_swing_legal_with_one_talon_card_left_after_better_cards():
    # 7 players mattmar: talon 16; better cards for forehand and two accepters leaves 1 card.
    g = new_game(n=7, dealer=6)
    do(g, BID_BETTER, ACCEPT, ACCEPT, REJECT, REJECT, REJECT, REJECT)
    assert g.view(0)["talon"] == 1
    assert legal(g) == {"BID_SWING", "NO_BID"}


def test_each_bid_at_most_once_then_no_bid_required():
    g = new_game(turned="TC", talon=["2H"])
    do(g, BID_BETTER, REJECT, REJECT, REJECT)
    assert legal(g) == {"BID_SWING", "NO_BID"}
    with pytest.raises(IllegalActionError):
        g.apply(BID_BETTER)
    do(g, BID_SWING, ACCEPT, ACCEPT, ACCEPT)
    assert g.phase == Phase.BID and g.current_player == 0
    assert legal(g) == {"NO_BID"}
    for a in (BID_BETTER, BID_SWING, KNOCK, PASS):
        with pytest.raises(IllegalActionError):
            g.apply(a)
    do(g, NO_BID)
    assert g.phase == Phase.KNOCK and g.current_player == 0


def test_bids_in_either_order():
    # Swing first, then better cards (same trump as after the swing).
    talon = ["2H", "AS", "KS", "QS", "JS", "TS"]
    g = new_game(turned="TC", talon=talon)
    do(g, BID_SWING, ACCEPT, ACCEPT, ACCEPT)
    assert g.view(0)["trump"] == "H"
    do(g, BID_BETTER, REJECT, REJECT, REJECT)
    assert hand(g, 0) == {"AS", "KS", "QS", "JS", "TS"}
    assert g.view(0)["trump"] == "H"
    assert legal(g) == {"NO_BID"}


def test_bids_and_answers_are_public():
    g = new_game(turned="TC", talon=["2H"])
    do(g, BID_SWING, ACCEPT, REJECT)
    for seat in range(4):
        bids = g.view(seat)["bids"]
        assert len(bids) == 1
        assert bids[0]["bid"] == "swing"
        assert [list(a) for a in bids[0]["answers"]] == [[1, True], [2, False]]


def test_dealer_accepting_better_cards_after_swing_keeps_new_turned_card():
    talon = ["2H", "AS", "KS", "QS", "JS", "TS", "AD", "KD", "QD", "JD", "TD"]
    g = new_game(hands={3: ["2C", "3C", "4C", "5C", "6C"]}, turned="TC", talon=talon)
    do(g, BID_SWING, ACCEPT, ACCEPT, ACCEPT)
    do(g, BID_BETTER, REJECT, REJECT, ACCEPT)
    assert hand(g, 3) == {"2H", "AD", "KD", "QD", "JD", "TD"}
    assert g.view(0)["turned_card"] == "2H"


# ----------------------------------------------------------------------------- 4. knock round
@pytest.mark.parametrize("variant", SWEDISH)
def test_dealer_wins_five_tricks_without_play(variant):
    g = new_game(variant, scores=[10, 9, 8, 10])
    do(g, NO_BID, PASS, PASS, PASS)
    assert g.phase == Phase.DEAL_OVER
    assert g.current_player == -1
    assert g.legal_actions() == []
    assert g.tricks_won[3] == 5
    assert g.scores == [10, 9, 8, 5]
    assert g.flights == [0, 0, 0, 0]


def test_free_five_counts_one_by_one_in_norrlandsknack():
    g = new_game("norrlandsknack", scores=[10, 9, 8, 3])
    do(g, NO_BID, PASS, PASS, PASS)
    assert g.phase == Phase.GAME_OVER
    assert g.scores == [10, 9, 8, 0]  # wins with exactly 0, not -2
    assert g.result()["winners"] == [3]


@pytest.mark.parametrize("variant", ["mattmar", "rams32"])
def test_free_five_can_end_the_rams_below_zero(variant):
    g = new_game(variant, scores=[10, 9, 8, 3])
    do(g, NO_BID, PASS, PASS, PASS)
    assert g.scores == [10, 9, 8, -2]
    assert g.phase == Phase.DEAL_OVER  # the match goes on with the next rams
    assert g.result()["ramsar"][0]["winners"] == [3]
    assert g.result()["ramsar"][0]["scores"] == [10, 9, 8, -2]


def test_free_five_not_before_everyone_before_dealer_passed():
    g = new_game()
    do(g, NO_BID, PASS, PASS, KNOCK)
    assert g.phase == Phase.KNOCK and g.current_player == 3
    assert legal(g) == {"PASS", "KNOCK"}


def test_knock_round_order_and_active_view():
    g = new_game(dealer=1)  # forehand 2
    do(g, NO_BID)
    assert g.view(0)["active"] == [None, None, None, None]
    assert g.current_player == 2
    do(g, KNOCK)
    assert g.current_player == 3
    do(g, PASS)
    assert g.current_player == 0
    assert g.view(0)["active"] == [None, None, True, False]
    do(g, KNOCK)
    assert g.current_player == 1
    do(g, PASS)
    assert g.view(2)["active"] == [True, False, True, False]
    assert g.phase == Phase.BUY


def test_first_deal_of_rams_player_at_two_may_pass():
    g = new_game(scores=[2, 10, 10, 10])
    do(g, NO_BID)
    assert legal(g) == {"PASS", "KNOCK"}


def test_two_points_no_second_pass_in_a_row():
    # Deal 1: seat 0 at 2 passes (everyone before the dealer passes: free five for seat 2).
    g = new_game(dealer=2, scores=[2, 10, 10, 10])
    do(g, NO_BID, PASS)  # seat 3 (forehand)
    assert g.current_player == 0 and legal(g) == {"PASS", "KNOCK"}
    do(g, PASS, PASS)
    assert g.phase == Phase.DEAL_OVER and g.scores == [2, 10, 5, 10]
    g.next_deal()  # dealer 3, forehand 0
    assert g.dealer == 3 and g.current_player == 0
    do(g, NO_BID)
    assert g.current_player == 0
    assert legal(g) == {"KNOCK"}
    with pytest.raises(IllegalActionError):
        g.apply(PASS)


def test_two_points_dealer_no_second_pass_in_a_row():
    # Seat 3 at 2 passes as forehand in deal 1; in deal 2 he deals and must knock.
    g = new_game(dealer=2, scores=[10, 10, 10, 2])
    do(g, NO_BID, PASS, KNOCK, PASS, PASS)  # seats 3, 0, 1 then dealer 2 passes; seat 0 alone
    rng = random.Random(1)
    finish_randomly(g, rng)
    assert g.scores[3] == 2
    g.next_deal()
    assert g.dealer == 3
    do(g, NO_BID, KNOCK, KNOCK, KNOCK)
    assert g.current_player == 3
    assert legal(g) == {"KNOCK"}


def test_two_points_after_knocking_may_pass():
    # Seat 0 at 3 knocks and takes exactly one trick: he stands at 2 but did not pass.
    hands = {
        0: ["AH", "2D", "3D", "4D", "5D"],
        1: ["2H", "6D", "7D", "8D", "9D"],
        2: ["3H", "TD", "JD", "QD", "KD"],
        3: ["4H", "AD", "2S", "3S", "4S"],
    }
    g = new_game(hands=hands, turned="5S", scores=[3, 10, 10, 10])
    to_play(g, dealer_discard="2S")
    play_trick(g, [(0, "AH", None), (1, "2H", None), (2, "3H", None), (3, "4H", None)])
    play_trick(g, [(0, "2D", None), (1, "6D", None), (2, "TD", None), (3, "AD", None)])
    play_trick(g, [(3, "3S", None), (0, "3D", None), (1, "7D", None), (2, "JD", None)])
    play_trick(g, [(3, "4S", None), (0, "4D", None), (1, "8D", None), (2, "QD", None)])
    play_trick(g, [(3, "5S", None), (0, "5D", None), (1, "9D", None), (2, "KD", None)])
    assert g.phase == Phase.DEAL_OVER
    assert g.scores == [2, 10, 10, 6]
    g.next_deal()  # dealer 0, forehand 1
    do(g, NO_BID, KNOCK, KNOCK, KNOCK)
    assert g.current_player == 0
    assert legal(g) == {"PASS", "KNOCK"}


def test_credited_dealer_did_not_pass():
    # HD: the dealer credited with five tricks without play did not pass in that deal.
    g = new_game(dealer=2, scores=[10, 10, 7, 10])
    do(g, NO_BID, PASS, PASS, PASS)
    assert g.scores == [10, 10, 2, 10]
    g.next_deal()  # dealer 3, forehand 0
    do(g, NO_BID, KNOCK, KNOCK)
    assert g.current_player == 2
    assert legal(g) == {"PASS", "KNOCK"}
    do(g, PASS, KNOCK)
    finish_randomly(g, random.Random(2))
    assert g.phase == Phase.DEAL_OVER and g.scores[2] == 2
    g.next_deal()  # dealer 0, forehand 1
    do(g, NO_BID, KNOCK)
    assert g.current_player == 2
    assert legal(g) == {"KNOCK"}


def test_two_points_previous_deal_is_of_the_same_rams():
    # HD: the first deal of a rams has no previous deal. Start score 2 so that the new rams
    # again puts everyone at 2; seats 0 and 2 passed in the last deal of the first rams.
    g = new_game(scores=None, start_score=2)
    do(g, NO_BID, PASS, KNOCK, PASS, KNOCK)
    finish_randomly(g, random.Random(3))
    assert g.phase == Phase.DEAL_OVER
    assert g.result()["ramsar"], "one of seats 1 and 3 took three or more tricks: the rams ended"
    g.next_deal()  # new rams: dealer 0, forehand 1
    assert g.scores == [2, 2, 2, 2]
    do(g, NO_BID)
    for seat in (1, 2, 3, 0):
        assert g.current_player == seat
        assert legal(g) == {"PASS", "KNOCK"}, seat
        do(g, KNOCK)


@pytest.mark.parametrize("seat", [0, 1, 2, 3])
def test_one_point_must_always_knock(seat):
    scores = [10, 10, 10, 10]
    scores[seat] = 1
    g = new_game(scores=scores)
    do(g, NO_BID)
    while g.current_player != seat:
        do(g, KNOCK)
    assert legal(g) == {"KNOCK"}
    with pytest.raises(IllegalActionError):
        g.apply(PASS)


def test_dealer_may_pass_when_someone_knocked():
    g = new_game()
    do(g, NO_BID, PASS, KNOCK, PASS)
    assert g.current_player == 3
    assert legal(g) == {"PASS", "KNOCK"}


def test_single_knocker_plays_alone_and_takes_all():
    g = new_game(scores=[10, 10, 10, 10])
    do(g, NO_BID, PASS, KNOCK, PASS, PASS)
    assert g.phase == Phase.BUY and g.current_player == 1
    g.apply(DRAW)
    assert g.phase == Phase.PLAY and g.current_player == 1
    rng = random.Random(0)
    plays = 0
    while g.phase == Phase.PLAY:
        assert g.current_player == 1
        g.apply(rng.choice(g.legal_actions()))
        plays += 1
    assert plays == 5
    assert g.tricks_won == [0, 5, 0, 0]
    assert g.scores == [10, 5, 10, 10]
    assert g.flights == [0, 0, 0, 0]
    assert g.view(3)["hand"] == []


# ----------------------------------------------------------------------------- 5. buying
def _buy_game():
    hands = {
        0: ["2D", "3D", "4D", "5D", "6D"],
        1: ["2H", "3H", "4H", "5H", "6H"],
        2: ["7D", "8D", "9D", "TD", "JD"],
        3: ["7H", "8H", "9H", "TH", "JH"],
    }
    talon = ["2S", "3S", "4S", "5S", "6S", "7S"]
    return new_game(hands=hands, turned="TC", talon=talon)


def test_buying_one_card_at_a_time_and_public_counts():
    g = _buy_game()
    knock_round(g, passes=(1,))
    assert g.phase == Phase.BUY and g.current_player == 0
    assert legal(g) == {"2D", "3D", "4D", "5D", "6D", "DRAW"}
    do(g, "2D")
    assert g.current_player == 0
    assert legal(g) == {"3D", "4D", "5D", "6D", "DRAW"}
    do(g, "3D", DRAW)
    assert hand(g, 0) == {"4D", "5D", "6D", "2S", "3S"}
    # Seat 1 passed: he does not buy. Seat 2 stands pat.
    assert g.current_player == 2
    do(g, DRAW)
    assert hand(g, 2) == {"7D", "8D", "9D", "TD", "JD"}
    # The dealer has six cards: no DRAW before at least one discard; he may discard the turned card.
    assert g.current_player == 3
    assert legal(g) == {"7H", "8H", "9H", "TH", "JH", "TC"}
    do(g, "TC")
    assert legal(g) == {"7H", "8H", "9H", "TH", "JH", "DRAW"}
    do(g, "7H", DRAW)
    assert hand(g, 3) == {"8H", "9H", "TH", "JH", "4S"}  # two discarded, one drawn
    assert g.phase == Phase.PLAY
    for seat in range(4):
        v = g.view(seat)
        assert v["discarded"] == [2, 0, 0, 2]
        assert v["drawn"] == [2, 0, 0, 1]
        assert v["talon"] == 31 - 3
        assert v["turned_card"] is None  # the dealer discarded it face down
    # Discards are face down: nobody else sees them.
    seen_by_1 = json.dumps(g.view(1))
    for card in ("2D", "3D", "7H", "TC"):
        assert f'"{card}"' not in seen_by_1


def test_buy_order_starts_nearest_dealers_left():
    g = _buy_game()
    knock_round(g, passes=(0,))
    assert g.phase == Phase.BUY
    order = []
    while g.phase == Phase.BUY:
        order.append(g.current_player)
        if g.current_player == 3:
            do(g, "7H")
        do(g, DRAW)
    assert order == [1, 2, 3]
    assert g.current_player == 1  # the first leader is also the nearest active to the dealer's left


def test_dealer_standing_pat_discards_exactly_one():
    g = _buy_game()
    knock_round(g)
    do(g, DRAW, DRAW, DRAW)
    assert g.current_player == 3
    assert "DRAW" not in legal(g)
    with pytest.raises(IllegalActionError):
        g.apply(DRAW)
    do(g, "JH", DRAW)
    assert hand(g, 3) == {"7H", "8H", "9H", "TH", "TC"}
    v = g.view(0)
    assert v["discarded"][3] == 1 and v["drawn"][3] == 0
    assert v["talon"] == 31
    assert g.phase == Phase.PLAY


def test_dealer_may_discard_all_six():
    g = _buy_game()
    knock_round(g)
    do(g, DRAW, DRAW, DRAW)
    do(g, "7H", "8H", "9H", "TH", "JH", "TC")
    assert legal(g) == {"DRAW"}
    do(g, DRAW)
    assert hand(g, 3) == {"2S", "3S", "4S", "5S", "6S"}


def test_buying_limited_by_talon():
    # rams32, 6 players: talon of one card.
    g = new_game("rams32", n=6, dealer=5, turned="7S", talon=["8H"])
    knock_round(g)
    assert g.current_player == 0
    assert len(legal(g)) == 6  # five cards + DRAW
    first = sorted(hand(g, 0))[0]
    do(g, first)
    assert legal(g) == {"DRAW"}  # the talon cannot replace a second card
    do(g, DRAW)
    assert "8H" in hand(g, 0)
    for seat in (1, 2, 3, 4):
        assert g.current_player == seat
        assert legal(g) == {"DRAW"}  # empty talon: standing pat is still an action
        do(g, DRAW)
    assert g.current_player == 5
    assert legal(g) == hand(g, 5)  # the dealer must discard one ...
    do(g, "7S")
    assert legal(g) == {"DRAW"}  # ... and no more, since nothing can be drawn
    do(g, DRAW)
    assert len(hand(g, 5)) == 5
    assert g.phase == Phase.PLAY


def test_discards_and_passed_hands_never_return_to_talon():
    # HD: 7 players; better cards for forehand and two accepters leave one talon card. Two players
    # pass, seat 0 buys the last card: every later buyer finds an empty talon.
    g = new_game(n=7, dealer=6)
    do(g, BID_BETTER, ACCEPT, ACCEPT, REJECT, REJECT, REJECT, REJECT, NO_BID)
    do(g, KNOCK, PASS, KNOCK, PASS, KNOCK, KNOCK, KNOCK)
    assert g.view(0)["talon"] == 1
    do(g, sorted(hand(g, 0))[0])
    assert legal(g) == {"DRAW"}
    do(g, DRAW)
    for seat in (2, 4, 5):
        assert g.current_player == seat and legal(g) == {"DRAW"}
        do(g, DRAW)
    assert g.current_player == 6
    do(g, sorted(hand(g, 6))[0])
    assert legal(g) == {"DRAW"} and g.view(0)["talon"] == 0


def test_dealer_discard_limit_with_small_talon():
    # rams32, 5 players: talon 6. Seat 0 buys 4 (2 left); the dealer may discard 3 and draw 2.
    g = new_game("rams32", n=5, dealer=4, turned="7S")
    knock_round(g)
    cards0 = sorted(hand(g, 0))
    do(g, *cards0[:4], DRAW)
    do(g, DRAW, DRAW, DRAW)
    assert g.current_player == 4 and g.view(0)["talon"] == 2
    cards4 = sorted(hand(g, 4))
    do(g, cards4[0], cards4[1], cards4[2])
    assert legal(g) == {"DRAW"}
    do(g, DRAW)
    assert len(hand(g, 4)) == 5 and g.view(0)["talon"] == 0


# ----------------------------------------------------------------------------- 6.1 trick play
# Trump is clubs in these tables (the dealer, seat 3, is turned the ten of clubs); every seat knocks,
# non-dealers stand pat and the dealer discards the card named, so seat 0 leads the first trick.
def _play_game(hands, dealer_discard, *, turned="TC", scores=None, variant="mattmar", passes=()):
    g = new_game(variant, hands=hands, turned=turned, scores=scores)
    to_play(g, passes=passes, dealer_discard=dealer_discard)
    return g


SEED_TRICK_TABLE = [
    # Row 1: hearts nine led; hearts ten, then hearts king from a player who also has hearts four:
    # the king must be played (overtake duty) and wins.
    pytest.param(
        {
            0: ["9H", "2D", "3D", "4D", "5D"],
            1: ["TH", "2H", "6D", "7D", "8D"],
            2: ["KH", "4H", "9D", "TD", "JD"],
            3: ["5H", "6H", "QD", "KD", "AD"],
        },
        "AD",
        [(0, "9H", None), (1, "TH", {"TH"}), (2, "KH", {"KH"}), (3, "5H", {"5H", "6H"})],
        2,
        id="hearts-nine-overtake-duty",
    ),
    # Row 2: diamond ace led; club two from a player without diamonds (clubs trump) wins.
    pytest.param(
        {
            0: ["AD", "2H", "3H", "4H", "5H"],
            1: ["2C", "6H", "7H", "8H", "9H"],
            2: ["3D", "5D", "TH", "JH", "QH"],
            3: ["2S", "3S", "4S", "5S", "6S"],
        },
        "TC",
        [
            (0, "AD", None),
            (1, "2C", {"2C"}),
            (2, "3D", {"3D", "5D"}),
            (3, "2S", {"2S", "3S", "4S", "5S", "6S"}),
        ],
        1,
        id="diamond-ace-trumped",
    ),
    # Row 3: diamond king led; spade nine from a player with neither diamonds nor clubs: the king
    # wins, a discarded card never wins.
    pytest.param(
        {
            0: ["KD", "2H", "3H", "4H", "5H"],
            1: ["9S", "6H", "7H", "8H", "9H"],
            2: ["3D", "TH", "JH", "QH", "KH"],
            3: ["2S", "3S", "4S", "5S", "6S"],
        },
        "TC",
        [
            (0, "KD", None),
            (1, "9S", {"9S", "6H", "7H", "8H", "9H"}),
            (2, "3D", {"3D"}),
            (3, "6S", {"2S", "3S", "4S", "5S", "6S"}),
        ],
        0,
        id="diamond-king-discard-never-wins",
    ),
]


@pytest.mark.parametrize("hands,dealer_discard,plays,winner", SEED_TRICK_TABLE)
def test_seed_trick_examples(hands, dealer_discard, plays, winner):
    g = _play_game(hands, dealer_discard)
    play_trick(g, plays)
    assert g.tricks_won[winner] == 1 and sum(g.tricks_won) == 1
    assert g.current_player == winner  # the winner leads to the next trick
    assert g.view(0)["trick"] == []
    assert g.view(0)["scores"][winner] == 9  # the trick takes its point off at once


def test_follow_cannot_beat_any_card_of_suit():
    hands = {
        0: ["KH", "2D", "3D", "4D", "5D"],
        1: ["2H", "3H", "6D", "7D", "8D"],
        2: ["4H", "AH", "9D", "TD", "JD"],
        3: ["5H", "2S", "QD", "KD", "AD"],
    }
    g = _play_game(hands, "AD")
    play_trick(g, [(0, "KH", None), (1, "3H", {"2H", "3H"}), (2, "AH", {"AH"}), (3, "5H", {"5H"})])


def test_already_trumped_trick_any_card_of_suit_led():
    # Non-trump led and trumped: the follower need not beat the led card.
    hands = {
        0: ["9H", "2D", "3D", "4D", "5D"],
        1: ["2C", "6D", "7D", "8D", "9D"],
        2: ["KH", "4H", "TD", "JD", "QD"],
        3: ["5H", "2S", "3S", "KD", "AD"],
    }
    g = _play_game(hands, "AD")
    play_trick(g, [(0, "9H", None), (1, "2C", {"2C"}), (2, "4H", {"KH", "4H"}), (3, "5H", {"5H"})])
    assert g.tricks_won[1] == 1


def test_must_trump_when_void():
    hands = {
        0: ["9H", "2D", "3D", "4D", "5D"],
        1: ["3C", "5C", "6D", "7D", "8D"],
        2: ["KH", "4H", "TD", "JD", "QD"],
        3: ["5H", "2S", "3S", "KD", "AD"],
    }
    g = _play_game(hands, "AD")
    play_trick(g, [(0, "9H", None), (1, "3C", {"3C", "5C"})])


def test_must_overtrump_if_possible():
    hands = {
        0: ["9H", "2D", "3D", "4D", "5D"],
        1: ["5C", "6D", "7D", "8D", "9D"],
        2: ["3C", "9C", "2S", "JD", "QD"],
        3: ["4C", "6C", "3S", "KD", "AD"],
    }
    g = _play_game(hands, "AD")
    play_trick(g, [(0, "9H", None), (1, "5C", {"5C"}), (2, "9C", {"9C"}), (3, "TC", {"TC"})])
    assert g.tricks_won[3] == 1


def test_lower_trump_when_cannot_overtrump():
    hands = {
        0: ["9H", "2D", "3D", "4D", "5D"],
        1: ["KC", "6D", "7D", "8D", "9D"],
        2: ["3C", "4C", "2S", "JD", "QD"],
        3: ["5C", "6C", "3S", "KD", "AD"],
    }
    g = _play_game(hands, "AD")
    # Seat 2 cannot overtrump the king: any trump, but still a trump (not the spade).
    play_trick(g, [(0, "9H", None), (1, "KC", {"KC"}), (2, "3C", {"3C", "4C"})])


def test_discard_when_no_suit_and_no_trump():
    hands = {
        0: ["9H", "2D", "3D", "4D", "5D"],
        1: ["2S", "3S", "6D", "7D", "8D"],
        2: ["KH", "4H", "TD", "JD", "QD"],
        3: ["5H", "4S", "5S", "KD", "AD"],
    }
    g = _play_game(hands, "AD")
    play_trick(
        g,
        [(0, "9H", None), (1, "8D", {"2S", "3S", "6D", "7D", "8D"}), (2, "KH", {"KH"})],
    )


def test_trump_led_follow_rule_one_with_trumps():
    hands = {
        0: ["5C", "2D", "3D", "4D", "5D"],
        1: ["3C", "9C", "2H", "7D", "8D"],
        2: ["4C", "8C", "2S", "JD", "QD"],
        3: ["3H", "4H", "3S", "KD", "AD"],
    }
    g = _play_game(hands, "AD")
    play_trick(
        g,
        [
            (0, "5C", None),
            (1, "9C", {"9C"}),  # must beat the best trump so far
            (2, "4C", {"4C", "8C"}),  # cannot beat the nine: any trump
            (3, "TC", {"TC"}),  # the dealer's turned ten beats the nine
        ],
    )
    assert g.tricks_won[3] == 1


def test_trump_led_no_trump_any_card():
    hands = {
        0: ["5C", "2D", "3D", "4D", "5D"],
        1: ["2H", "3H", "4H", "7D", "8D"],
        2: ["4C", "8C", "2S", "JD", "QD"],
        3: ["5H", "6H", "3S", "KD", "AD"],
    }
    g = _play_game(hands, "AD")
    play_trick(g, [(0, "5C", None), (1, "2H", {"2H", "3H", "4H", "7D", "8D"})])


def test_trump_ace_led_at_first_lead():
    hands = {
        0: ["AC", "3C", "2H", "2D", "3D"],
        1: ["3H", "4H", "5H", "7D", "8D"],
        2: ["4C", "8C", "2S", "JD", "QD"],
        3: ["5C", "6H", "3S", "KD", "AD"],
    }
    g = _play_game(hands, "AD")
    assert legal(g) == {"AC"}
    with pytest.raises(IllegalActionError):
        do(g, "3C")


def test_trump_ace_to_trump_led_by_someone_else():
    hands = {
        0: ["5C", "2H", "3H", "2D", "3D"],
        1: ["AC", "QC", "4H", "7D", "8D"],
        2: ["4C", "8C", "2S", "JD", "QD"],
        3: ["6H", "7H", "3S", "KD", "AD"],
    }
    g = _play_game(hands, "AD")
    play_trick(g, [(0, "5C", None), (1, "AC", {"AC"})])  # not the queen, though it also beats


def test_trump_ace_holder_follows_normally_on_non_trump_lead():
    hands = {
        0: ["9H", "2H", "3H", "2D", "3D"],
        1: ["AC", "3C", "4D", "7D", "8D"],
        2: ["4H", "8C", "2S", "JD", "QD"],
        3: ["6H", "7H", "3S", "KD", "AD"],
    }
    g = _play_game(hands, "AD")
    play_trick(g, [(0, "9H", None), (1, "3C", {"AC", "3C"})])  # must trump: any trump


def test_trump_ace_held_by_dealer_led_at_his_first_lead():
    # The dealer was turned the trump ace; he wins the first trick with the heart ace and must lead
    # the trump ace next.
    hands = {
        0: ["9H", "2D", "3D", "4D", "5D"],
        1: ["2H", "6D", "7D", "8D", "9D"],
        2: ["3H", "TD", "JD", "QD", "KD"],
        3: ["AH", "AD", "2S", "3S", "KC"],
    }
    g = _play_game(hands, "2S", turned="AC")
    play_trick(g, [(0, "9H", None), (1, "2H", None), (2, "3H", None), (3, "AH", {"AH"})])
    assert g.current_player == 3
    assert legal(g) == {"AC"}


def test_forced_trump_lead_when_other_at_one_point():
    hands = {
        0: ["5C", "6C", "2H", "2D", "3D"],
        1: ["3H", "4H", "5H", "7D", "8D"],
        2: ["4C", "8C", "2S", "JD", "QD"],
        3: ["6H", "7H", "3S", "KD", "AD"],
    }
    g = _play_game(hands, "AD", scores=[10, 10, 1, 10])
    assert g.current_player == 0
    assert legal(g) == {"5C", "6C"}


def test_forced_trump_lead_not_for_the_player_at_one_himself():
    hands = {
        0: ["5C", "6C", "2H", "2D", "3D"],
        1: ["3H", "4H", "5H", "7D", "8D"],
        2: ["4C", "8C", "2S", "JD", "QD"],
        3: ["6H", "7H", "3S", "KD", "AD"],
    }
    g = _play_game(hands, "AD", scores=[1, 10, 10, 10])
    assert legal(g) == {"5C", "6C", "2H", "2D", "3D"}


def test_forced_trump_lead_without_trumps_any_card():
    hands = {
        0: ["2H", "3H", "4H", "2D", "3D"],
        1: ["5H", "6H", "7H", "7D", "8D"],
        2: ["4C", "8C", "2S", "JD", "QD"],
        3: ["8H", "9H", "3S", "KD", "AD"],
    }
    g = _play_game(hands, "AD", scores=[10, 10, 1, 10])
    assert legal(g) == {"2H", "3H", "4H", "2D", "3D"}


def test_forced_trump_lead_trump_ace_decides_which_trump():
    hands = {
        0: ["AC", "6C", "2H", "2D", "3D"],
        1: ["3H", "4H", "5H", "7D", "8D"],
        2: ["4C", "8C", "2S", "JD", "QD"],
        3: ["6H", "7H", "3S", "KD", "AD"],
    }
    g = _play_game(hands, "AD", scores=[10, 10, 1, 10])
    assert legal(g) == {"AC"}


def test_forced_trump_lead_live_score_next_leader():
    # HD live score: seat 1 starts at 2 and takes the first trick (now at 1); seat 0 then wins
    # the second trick and must lead a trump although nobody stood at 1 when the deal started.
    hands = {
        0: ["KD", "5C", "6C", "2D", "3H"],
        1: ["AH", "3S", "4D", "7D", "8D"],
        2: ["2H", "4S", "5S", "JS", "QS"],
        3: ["4H", "6H", "5D", "6S", "7S"],
    }
    g = _play_game(hands, "7S", scores=[10, 2, 10, 10])
    assert legal(g) == {"KD", "5C", "6C", "2D", "3H"}  # nobody at 1: free lead
    play_trick(g, [(0, "3H", None), (1, "AH", {"AH"}), (2, "2H", {"2H"}), (3, "4H", {"4H", "6H"})])
    assert g.view(0)["scores"][1] == 1
    assert legal(g) == {"3S", "4D", "7D", "8D"}  # seat 1 himself leads freely
    play_trick(g, [(1, "4D", None), (2, "4S", {"4S", "5S", "JS", "QS"}), (3, "5D", {"5D"}), (0, "KD", {"KD"})])
    assert g.current_player == 0
    assert legal(g) == {"5C", "6C"}


def test_forced_trump_lead_ends_when_player_leaves_one_point():
    # Seat 1 starts at 1 (forced for the others), takes the first trick and stands at 0 (mattmar
    # plays on): no one stands at 1 any more, so seat 0's later lead is free.
    hands = {
        0: ["KD", "5C", "6C", "2D", "3H"],
        1: ["AH", "3S", "4D", "7D", "8D"],
        2: ["2H", "4S", "5S", "JS", "QS"],
        3: ["4H", "6H", "5D", "6S", "7S"],
    }
    g = _play_game(hands, "7S", scores=[10, 1, 10, 10])
    assert legal(g) == {"5C", "6C"}  # seat 1 at 1: seat 0 must lead a trump
    play_trick(g, [(0, "5C", None), (1, "AH", None), (2, "2H", None), (3, "TC", {"TC"})])
    # The dealer's ten of clubs wins; seat 1 still at 1, the dealer must lead trump: he has none.
    assert g.current_player == 3
    assert legal(g) == {"4H", "6H", "5D", "6S"}


# ----------------------------------------------------------------------------- 7.1 scoring
@pytest.mark.parametrize(
    "start,tricks,end",
    [(10, 3, 7), (10, 1, 9), (7, 0, 10)],
    ids=["three-off", "one-off", "flies-capped"],
)
def test_seed_scoring_examples(start, tricks, end):
    # Seat 0 knocks and takes ``tricks`` tricks; the dealer (seat 3) takes the rest.
    lead = ["AH", "KH", "QH"][:tricks]
    low = ["2S", "3S", "4S", "5S", "6S"][: 5 - tricks]
    hands = {
        0: lead + low,
        1: ["2D", "3D", "4D", "5D", "6D"],
        2: ["7D", "8D", "9D", "TD", "JD"],
        3: ["AS", "KS", "QS", "JS", "TS"],
    }
    # Trump diamonds; seats 1 and 2 pass, the dealer knocks and discards the turned queen.
    g = new_game(hands=hands, turned="QD", scores=[start, 10, 10, 10])
    to_play(g, passes=(1, 2), dealer_discard="QD")
    for _ in range(5):  # seat 0 leads his hearts first; the dealer can only discard to them
        first = g.legal_actions()
        g.apply(max(first, key=lambda c: (suit_of(c) == 2, c)) if g.current_player == 0 else first[0])
        g.apply(g.legal_actions()[0])
    assert g.tricks_won[0] == tricks
    assert g.scores[0] == end
    assert g.flights[0] == (1 if tricks == 0 else 0)


def test_flights_capped_counted_and_passed_unchanged():
    # Dealer at 5 takes all five tricks with trumps; seats 0 (7), 1 (3) and 2 (10) knock and fly.
    hands = {
        0: ["2H", "3H", "4H", "5H", "6H"],
        1: ["2D", "3D", "4D", "5D", "6D"],
        2: ["2S", "3S", "4S", "5S", "6S"],
        3: ["AC", "KC", "QC", "JC", "TC"],
    }
    g = new_game(hands=hands, turned="9C", scores=[7, 3, 10, 5])
    to_play(g, dealer_discard="9C")
    play_trick(g, [(0, "2H", None), (1, "2D", None), (2, "2S", None), (3, "TC", {"AC", "KC", "QC", "JC", "TC"})])
    assert g.scores == [7, 3, 10, 4]
    play_trick(g, [(3, "AC", {"AC"}), (0, "3H", None), (1, "3D", None), (2, "3S", None)])
    play_trick(g, [(3, "KC", None), (0, "4H", None), (1, "4D", None), (2, "4S", None)])
    play_trick(g, [(3, "QC", None), (0, "5H", None), (1, "5D", None), (2, "5S", None)])
    play_trick(g, [(3, "JC", None), (0, "6H", None), (1, "6D", None), (2, "6S", None)])
    assert g.scores == [10, 8, 10, 0]  # 7+5 capped at 10, 3+5, 10 stays 10 (capped), 5-5
    assert g.flights == [1, 1, 1, 0]  # a capped flight is still a flight
    assert g.phase == Phase.DEAL_OVER
    assert g.result()["ramsar"][0]["winners"] == [3]


def test_passed_players_unchanged_and_no_flight():
    hands = {
        0: ["AH", "KH", "QH", "JH", "TH"],
        1: ["2D", "3D", "4D", "5D", "6D"],
        2: ["2S", "3S", "4S", "5S", "6S"],
        3: ["2H", "3H", "7D", "8D", "9D"],
    }
    g = new_game(hands=hands, turned="9C", scores=[10, 4, 6, 10])
    to_play(g, passes=(1, 2), dealer_discard="9C")
    assert g.view(1)["hand"] == [] and g.view(2)["hand"] == []
    finish_randomly(g, random.Random(0))
    assert g.scores[1:3] == [4, 6]
    assert g.flights[1:3] == [0, 0]


def _two_player_race(variant):
    # Seats 0 (at 1) and 1 (at 2) knock, seats 2 and 3 pass. No clubs (trump) in play.
    hands = {
        0: ["AH", "KH", "7D", "8D", "7S"],
        1: ["QH", "JH", "AD", "KD", "8S"],
        2: ["9S", "TS", "JS", "QS", "KS"],
        3: ["7H", "8H", "9D", "TD", "JD"],
    }
    g = new_game(variant, hands=hands, turned="9C", scores=[1, 2, 10, 10])
    knock_round(g, passes=(2, 3))
    do(g, DRAW, DRAW)
    assert g.phase == Phase.PLAY and g.current_player == 0
    return g


@pytest.mark.parametrize("variant", ["mattmar", "rams32"])
def test_deal_played_to_end_below_zero_and_tied_winners_share(variant):
    g = _two_player_race(variant)
    play_trick(g, [(0, "AH", None), (1, "JH", {"QH", "JH"})])
    assert g.scores[0] == 0
    assert g.phase == Phase.PLAY  # mattmar: the deal is always played to the end
    play_trick(g, [(0, "7D", None), (1, "KD", {"AD", "KD"})])
    play_trick(g, [(1, "AD", None), (0, "8D", {"8D"})])
    play_trick(g, [(1, "QH", None), (0, "KH", {"KH"})])
    play_trick(g, [(0, "7S", None), (1, "8S", {"8S"})])
    assert g.scores == [-1, -1, 10, 10]  # scores go below 0
    assert g.phase == Phase.DEAL_OVER
    rams = g.result()["ramsar"][0]
    assert rams["scores"] == [-1, -1, 10, 10]
    assert rams["winners"] == [0, 1]  # all tied lowest share the win


def test_norrlandsknack_first_to_zero_wins_at_once():
    g = _two_player_race("norrlandsknack")
    play_trick(g, [(0, "AH", None), (1, "JH", {"QH", "JH"})])
    assert g.phase == Phase.GAME_OVER  # the deal is abandoned
    assert g.current_player == -1
    assert g.legal_actions() == []
    assert g.scores == [0, 2, 10, 10]  # no flight for seat 1, who had no trick yet
    assert g.flights == [0, 0, 0, 0]
    assert g.result()["winners"] == [0]
    assert g.result()["over"] is True
    with pytest.raises(IllegalActionError):
        g.apply(card_index("KD"))


def test_norrlandsknack_continues_while_nobody_at_zero():
    g = _two_player_race("norrlandsknack")
    play_trick(g, [(0, "7D", None), (1, "KD", {"AD", "KD"})])
    assert g.scores == [1, 1, 10, 10]
    assert g.phase == Phase.PLAY


@pytest.mark.parametrize("seed", range(8))
def test_norrlandsknack_random_games_end_at_exactly_zero(seed):
    g = Game(make_config("norrlandsknack", 4), seed=seed)
    rng = random.Random(seed)
    while g.phase != Phase.GAME_OVER:
        if g.phase == Phase.DEAL_OVER:
            assert min(g.scores) > 0
            g.next_deal()
            continue
        before = list(g.scores)
        g.apply(rng.choice(g.legal_actions()))
        if g.phase != Phase.GAME_OVER:
            assert min(g.scores) >= 1
    winners = g.result()["winners"]
    assert len(winners) == 1
    assert g.scores[winners[0]] == 0
    assert min(g.scores) == 0 and g.scores.count(0) == 1
    # The last action took exactly one point off the winner (a trick, or the free five's count).
    assert before[winners[0]] in (1, 2, 3, 4, 5)


# ----------------------------------------------------------------------------- full deals
def test_full_deal_mattmar():
    hands = {
        0: ["AH", "KS", "QS", "2D", "3C"],
        1: ["KH", "AS", "4D", "5D", "6C"],
        2: ["2S", "3S", "4S", "7D", "8D"],
        3: ["QH", "JS", "AD", "KD", "9C"],
    }
    g = new_game("mattmar", hands=hands, turned="5H", talon=["TH", "9H"])
    do(g, NO_BID, KNOCK, KNOCK, PASS, KNOCK)
    do(g, "3C", "2D", DRAW)
    assert hand(g, 0) == {"AH", "KS", "QS", "TH", "9H"}
    do(g, DRAW)
    do(g, "9C", DRAW)
    assert hand(g, 3) == {"QH", "JS", "AD", "KD", "5H"}
    assert g.phase == Phase.PLAY and g.current_player == 0
    play_trick(g, [(0, "AH", {"AH"}), (1, "KH", {"KH"}), (3, "5H", {"QH", "5H"})])
    play_trick(g, [(0, "KS", {"KS", "QS", "TH", "9H"}), (1, "AS", {"AS"}), (3, "JS", {"JS"})])
    play_trick(g, [(1, "4D", {"4D", "5D", "6C"}), (3, "KD", {"AD", "KD"}), (0, "9H", {"TH", "9H"})])
    play_trick(g, [(0, "QS", {"QS", "TH"}), (1, "6C", {"5D", "6C"}), (3, "QH", {"QH"})])
    play_trick(g, [(3, "AD", {"AD"}), (0, "TH", {"TH"}), (1, "5D", {"5D"})])
    assert g.tricks_won == [3, 1, 0, 1]
    assert g.scores == [7, 9, 10, 9]
    assert g.flights == [0, 0, 0, 0]
    assert g.phase == Phase.DEAL_OVER
    assert g.result()["ramsar"] == []


def test_full_deal_norrlandsknack_with_swing():
    # 3 players, seat 0 deals, seat 1 is forehand. Spades turned; forehand swings to diamonds.
    hands = {
        1: ["KD", "QD", "AC", "KC", "3H"],
        2: ["4H", "5H", "6H", "7H", "2C"],
        0: ["2D", "AH", "KH", "QC", "JC"],
    }
    g = new_game("norrlandsknack", hands=hands, turned="7S", n=3, dealer=0, talon=["3S", "8D"], scores=[4, 10, 7])
    assert g.current_player == 1
    do(g, BID_SWING)
    assert g.current_player == 2
    do(g, ACCEPT)
    assert g.current_player == 0
    do(g, ACCEPT)
    v = g.view(2)
    assert v["trump"] == "D" and v["turned_card"] == "8D"
    assert set(v["out_of_play_public"]) == {"7S", "3S"}
    assert hand(g, 0) == {"2D", "8D", "AH", "KH", "QC", "JC"}
    do(g, NO_BID, KNOCK, KNOCK, KNOCK)
    do(g, DRAW, DRAW, "JC", DRAW)
    assert g.phase == Phase.PLAY and g.current_player == 1
    play_trick(g, [(1, "AC", None), (2, "2C", {"2C"}), (0, "QC", {"QC"})])
    play_trick(g, [(1, "3H", None), (2, "7H", {"4H", "5H", "6H", "7H"}), (0, "AH", {"AH", "KH"})])
    play_trick(g, [(0, "KH", {"2D", "8D", "KH"}), (1, "QD", {"KD", "QD"}), (2, "4H", {"4H", "5H", "6H"})])
    play_trick(g, [(1, "KC", {"KD", "KC"}), (2, "5H", {"5H", "6H"}), (0, "2D", {"2D", "8D"})])
    play_trick(g, [(0, "8D", {"8D"}), (1, "KD", {"KD"}), (2, "6H", {"6H"})])
    assert g.tricks_won == [2, 3, 0]
    assert g.scores == [2, 7, 10]  # seat 2 flies from 7, capped at 10
    assert g.flights == [0, 0, 1]
    assert g.phase == Phase.DEAL_OVER


def test_full_deal_rams32_better_cards_and_below_zero():
    # 5 players, seat 2 deals, seat 3 is forehand; talon of 6 cards.
    hands = {
        3: ["7D", "8D", "7C", "8C", "JC"],
        1: ["AS", "AH", "AD", "9C", "TC"],
        2: ["7H", "QH", "9D", "TD", "QC"],
    }
    talon = ["QS", "JH", "TH", "9H", "8H", "KC"]
    g = new_game("rams32", hands=hands, turned="7S", n=5, dealer=2, talon=talon, scores=[10, 2, 10, 10, 10])
    assert g.view(0)["talon"] == 6
    do(g, BID_BETTER)
    for seat in (4, 0, 1, 2):
        assert g.current_player == seat and legal(g) == {"REJECT"}
        do(g, REJECT)
    assert hand(g, 3) == {"QS", "JH", "TH", "9H", "8H"}
    assert legal(g) == {"BID_SWING", "NO_BID"}
    do(g, NO_BID, KNOCK, PASS, PASS)
    assert g.current_player == 1 and legal(g) == {"PASS", "KNOCK"}  # at 2, first deal of the rams
    do(g, KNOCK, KNOCK)
    assert g.phase == Phase.BUY and g.current_player == 3
    do(g, "8H")
    assert legal(g) == {"DRAW"}
    do(g, DRAW)
    assert hand(g, 3) == {"QS", "JH", "TH", "9H", "KC"}
    assert legal(g) == {"DRAW"}
    do(g, DRAW)
    do(g, "9D")
    assert legal(g) == {"DRAW"}
    do(g, DRAW)
    assert g.phase == Phase.PLAY and g.current_player == 3
    play_trick(g, [(3, "JH", None), (1, "AH", {"AH"}), (2, "7H", {"7H", "QH"})])
    play_trick(g, [(1, "AS", {"AS"}), (2, "7S", {"7S"}), (3, "QS", {"QS"})])
    assert g.scores[1] == 0 and g.phase == Phase.PLAY
    play_trick(g, [(1, "AD", {"AD", "9C", "TC"}), (2, "TD", {"TD"}), (3, "9H", {"TH", "9H", "KC"})])
    play_trick(g, [(1, "9C", None), (2, "QC", {"QC"}), (3, "KC", {"KC"})])
    play_trick(g, [(3, "TH", {"TH"}), (1, "TC", {"TC"}), (2, "QH", {"QH"})])
    assert g.tricks_won == [0, 3, 1, 1, 0]
    assert g.scores == [10, -1, 9, 9, 10]
    assert g.phase == Phase.DEAL_OVER
    assert g.result()["ramsar"][0]["winners"] == [1]
    g.next_deal()
    assert g.scores == [10] * 5  # a new rams starts from 10
    assert g.dealer == 3


# ----------------------------------------------------------------------------- match
def _run_match(variant, n, seed):
    """Play a whole match with random legal actions, checking every deal against docs/rules.md "Swedish scoring"."""
    g = Game(make_config(variant, n), seed=seed)
    rng = random.Random(seed)
    totals, flights, ramsar = [0] * n, [0] * n, []
    new_rams, prev_dealer = True, None
    while True:
        if new_rams:
            assert g.scores == [10] * n
        if prev_dealer is not None:
            assert g.dealer == (prev_dealer + 1) % n  # rotates, also across ramsar
        prev_dealer = g.dealer
        start = list(g.scores)
        finish_randomly(g, rng)
        active = g.view(0)["active"]
        free = all(active[s] is False for s in range(n) if s != g.dealer)
        expected = list(start)
        for s in range(n):
            if free and s == g.dealer:
                expected[s] = start[s] - 5
            elif active[s]:
                expected[s] = start[s] - g.tricks_won[s]
                if g.tricks_won[s] == 0:
                    expected[s] = min(start[s] + 5, 10)
                    flights[s] += 1
            else:
                assert active[s] is False
        assert g.scores == expected
        assert g.flights == flights
        new_rams = min(expected) <= 0
        assert len(g.result()["ramsar"]) == len(ramsar) + (1 if new_rams else 0)
        if new_rams:
            low = min(expected)
            ramsar.append((expected, [s for s in range(n) if expected[s] == low]))
            totals = [t + e for t, e in zip(totals, expected, strict=True)]
            got = g.result()["ramsar"][-1]
            assert got["scores"] == expected and got["winners"] == ramsar[-1][1]
        if len(ramsar) == 6:
            assert g.phase == Phase.GAME_OVER
            break
        assert g.phase == Phase.DEAL_OVER
        g.next_deal()
    result = g.result()
    assert result["totals"] == totals
    low = min(totals)
    tied = [s for s in range(n) if totals[s] == low]
    fewest = min(flights[s] for s in tied)
    assert result["winners"] == [s for s in tied if flights[s] == fewest]
    return totals, flights, result["winners"]


@pytest.mark.parametrize("variant,n,seed", [("mattmar", 4, 0), ("mattmar", 3, 1), ("rams32", 4, 2), ("rams32", 5, 3)])
def test_match_six_ramsar_random_play(variant, n, seed):
    _run_match(variant, n, seed)


def _find_tied_match(variant, n, flights_differ):
    for seed in range(600):
        totals, flights, winners = _run_match(variant, n, seed)  # checks the winner rule itself
        low = min(totals)
        tied = [s for s in range(n) if totals[s] == low]
        if len(tied) > 1 and (len({flights[s] for s in tied}) > 1) == flights_differ:
            return totals, flights, winners, tied
    pytest.fail(f"no {variant} match with tied totals among 600 seeds")


@pytest.mark.parametrize("variant", ["mattmar", "rams32"])
def test_match_tie_broken_by_fewest_flights(variant):
    _, flights, winners, tied = _find_tied_match(variant, 4, flights_differ=True)
    fewest = min(flights[s] for s in tied)
    assert winners == [s for s in tied if flights[s] == fewest]
    assert set(winners) < set(tied)


def test_match_tie_with_equal_flights_shared():
    _, _, winners, tied = _find_tied_match("mattmar", 3, flights_differ=False)
    assert winners == tied


def test_match_scores_reset_and_dealer_rotates_across_ramsar():
    # The first rams ends at once (free five from 3); the next deal starts a new rams at 10 each,
    # dealt by the previous forehand.
    g = new_game(scores=[10, 9, 8, 3], dealer=3)
    do(g, NO_BID, PASS, PASS, PASS)
    assert g.phase == Phase.DEAL_OVER
    first = g.result()["ramsar"][0]
    assert first["scores"] == [10, 9, 8, -2] and first["winners"] == [3]
    g.next_deal()
    assert g.scores == [10, 10, 10, 10]
    assert g.dealer == 0 and g.current_player == 1
    assert g.result()["totals"] == [10, 9, 8, -2]


# ----------------------------------------------------------------------------- views (docs/contract.md)
CONTRACT_KEYS = {"seat", "dealer", "phase", "hand", "trump", "turned_card", "trick", "tricks", "scores"}
CONTRACT_KEYS |= {"active", "talon"}


def test_view_contract_keys_and_phases():
    g = new_game(turned="TC", talon=["2H"])
    phases = []
    for seat in range(4):
        v = g.view(seat)
        assert set(v) >= CONTRACT_KEYS
        assert v["seat"] == seat
        json.dumps(v)
    phases.append(g.view(0)["phase"])
    do(g, BID_SWING)
    phases.append(g.view(0)["phase"])
    do(g, REJECT, NO_BID)
    phases.append(g.view(0)["phase"])
    do(g, KNOCK, KNOCK, KNOCK, KNOCK)
    phases.append(g.view(0)["phase"])
    do(g, DRAW, DRAW, DRAW)
    do(g, sorted(hand(g, 3) - {"TC"})[0], DRAW)
    phases.append(g.view(0)["phase"])
    finish_randomly(g, random.Random(0))
    phases.append(g.view(0)["phase"])
    assert phases == ["bid", "answer", "knock", "buy", "play", "over"]
    assert set(g.view(2)) >= CONTRACT_KEYS


def test_view_turned_card_known_until_it_leaves_sight():
    g = _buy_game()
    for seat in range(4):
        assert g.view(seat)["turned_card"] == "TC"
    knock_round(g)
    assert g.view(1)["turned_card"] == "TC"  # still in the dealer's hand, everyone knows it
    do(g, DRAW, DRAW, DRAW)
    assert g.view(0)["turned_card"] == "TC"
    do(g, "7H")  # a face-down discard: nobody else can tell whether it was the turned card
    assert g.view(0)["turned_card"] is None


def test_view_turned_card_none_after_dealer_passes():
    g = new_game()
    do(g, NO_BID, KNOCK, PASS, PASS, PASS)
    assert g.view(3)["hand"] == []
    for seat in range(4):
        assert g.view(seat)["turned_card"] is None


def test_view_turned_card_none_after_it_is_played():
    hands = {
        0: ["9H", "2D", "3D", "4D", "5D"],
        1: ["TH", "2H", "6D", "7D", "8D"],
        2: ["KH", "4H", "9D", "TD", "JD"],
        3: ["2S", "3S", "QD", "KD", "AD"],
    }
    g = new_game(hands=hands, turned="TC")
    knock_round(g)
    do(g, DRAW, DRAW, DRAW)
    assert g.view(0)["turned_card"] == "TC"  # dealer's buy not finished: he has discarded nothing
    do(g, "AD", DRAW)
    play_trick(g, [(0, "9H", None), (1, "TH", None), (2, "KH", None)])
    do(g, "TC")
    assert g.view(0)["turned_card"] is None


def test_view_turned_card_kept_through_better_cards():
    g = new_game(turned="TC")
    do(g, BID_BETTER, REJECT, REJECT, ACCEPT)
    assert "TC" in hand(g, 3)
    assert g.view(1)["turned_card"] == "TC"


def test_view_hand_active_talon_trick():
    hands = {
        0: ["9H", "2D", "3D", "4D", "5D"],
        1: ["TH", "2H", "6D", "7D", "8D"],
        2: ["KH", "4H", "9D", "TD", "JD"],
        3: ["5H", "6H", "QD", "KD", "AD"],
    }
    g = new_game(hands=hands, turned="TC")
    do(g, NO_BID, KNOCK, PASS)
    v = g.view(1)
    assert v["hand"] == [] and v["active"] == [True, False, None, None]
    assert g.view(0)["hand"] != []
    do(g, KNOCK, KNOCK)
    assert g.view(0)["active"] == [True, False, True, True]
    assert g.view(0)["talon"] == 31
    do(g, "2D", DRAW, DRAW, "AD", DRAW)
    assert g.view(2)["talon"] == 30
    do(g, "9H")
    assert g.view(1)["trick"] == [[0, "9H"]]
    do(g, "KH")
    assert g.view(3)["trick"] == [[0, "9H"], [2, "KH"]]
    do(g, "5H")
    assert g.view(0)["trick"] == []  # a completed trick is no longer current
    assert g.view(0)["tricks"] == [0, 0, 1, 0]
    assert g.view(0)["scores"] == [10, 10, 9, 10]


def test_view_hides_other_hands():
    hands = {
        0: ["9H", "2D", "3D", "4D", "5D"],
        1: ["TH", "2H", "6D", "7D", "8D"],
        2: ["KH", "4H", "9D", "TD", "JD"],
        3: ["5H", "6H", "QD", "KD", "AD"],
    }
    talon = ["AS", "KS", "QS"]
    g = new_game(hands=hands, turned="TC", talon=talon)

    discards: dict[int, list[str]] = {}

    def check(hidden_talon):
        for seat in range(4):
            text = json.dumps(g.view(seat))
            others = [s for s in range(4) if s != seat]
            hidden = [c for s in others for c in hands[s] + discards.get(s, [])] + hidden_talon
            for card in hidden:
                assert f'"{card}"' not in text, (seat, card)

    check(talon)
    do(g, NO_BID, KNOCK, KNOCK, KNOCK, KNOCK, "2D", DRAW, DRAW, DRAW, "KD", DRAW)
    assert g.phase == Phase.PLAY
    hands[0] = ["9H", "AS", "3D", "4D", "5D"]  # seat 0 discarded 2D face down and drew AS
    hands[3] = ["5H", "6H", "QD", "AD", "TC"]  # the dealer discarded KD face down
    discards.update({0: ["2D"], 3: ["KD"]})
    check(["KS", "QS"])


# ----------------------------------------------------------------------------- illegal actions
def _illegal_cases():
    # (setup actions from a fresh standard game, illegal action, seat to act, phase name)
    return [
        pytest.param([], KNOCK, 0, "BID", id="knock-while-bidding"),
        pytest.param([BID_SWING], PASS, 1, "ANSWER", id="pass-while-answering"),
        pytest.param([NO_BID], ACCEPT, 0, "KNOCK", id="accept-in-knock-round"),
        pytest.param([NO_BID], card_index("9H"), 0, "KNOCK", id="card-in-knock-round"),
        pytest.param([NO_BID, KNOCK, KNOCK, KNOCK, KNOCK], card_index("KH"), 0, "BUY", id="discard-not-held"),
        pytest.param([NO_BID, KNOCK, KNOCK, KNOCK, KNOCK, DRAW, DRAW, DRAW], DRAW, 3, "BUY", id="dealer-draw-first"),
        pytest.param(
            [NO_BID, KNOCK, KNOCK, KNOCK, KNOCK, DRAW, DRAW, DRAW, card_index("AD"), DRAW, card_index("9H")],
            card_index("6D"),
            1,
            "PLAY",
            id="revoke",
        ),
        pytest.param([], 60, 0, "BID", id="out-of-range"),
        pytest.param([], -1, 0, "BID", id="negative"),
    ]


@pytest.mark.parametrize("setup,action,seat,phase", _illegal_cases())
def test_illegal_action_raises_and_leaves_state(setup, action, seat, phase):
    hands = {
        0: ["9H", "2D", "3D", "4D", "5D"],
        1: ["TH", "2H", "6D", "7D", "8D"],
        2: ["KH", "4H", "9D", "TD", "JD"],
        3: ["5H", "6H", "QD", "KD", "AD"],
    }
    g = new_game(hands=hands, turned="TC")
    do(g, *setup)
    assert g.current_player == seat
    before, legal_before = g.to_json(), g.legal_actions()
    with pytest.raises(IllegalActionError) as info:
        g.apply(action)
    message = str(info.value)
    if 0 <= action < 60:
        assert action_name(action) in message
    else:
        assert str(action) in message
    assert str(seat) in message
    assert phase.lower() in message.lower()
    assert isinstance(info.value, ValueError)
    assert g.to_json() == before
    assert g.legal_actions() == legal_before
    # The game goes on normally afterwards.
    g.apply(legal_before[0])


def test_no_action_after_game_over():
    g = new_game("norrlandsknack", scores=[10, 10, 10, 1])
    do(g, NO_BID, PASS, PASS, PASS)
    assert g.phase == Phase.GAME_OVER
    before = g.to_json()
    for a in (NO_BID, KNOCK, DRAW, 0):
        with pytest.raises(IllegalActionError):
            g.apply(a)
    assert g.to_json() == before


# ----------------------------------------------------------------------------- presets and inputs
@pytest.mark.parametrize(
    "variant,deck_size,low,high",
    [("mattmar", 52, 3, 7), ("norrlandsknack", 52, 3, 7), ("rams32", 32, 3, 6)],
)
def test_swedish_presets(variant, deck_size, low, high):
    cfg = make_config(variant)
    assert cfg.num_players == 4 and cfg.start_score == 10 and cfg.deck_size == deck_size
    for n in range(low, high + 1):
        make_config(variant, n)
    for n in (low - 1, high + 1):
        with pytest.raises(ValueError, match="num_players"):
            make_config(variant, n)
    g = Game(cfg, seed=0)
    assert g.scores == [10] * 4


def test_rams32_deck_has_no_low_cards():
    with pytest.raises(ValueError):
        Game(make_config("rams32"), seed=0, deck=deck_in_order("mattmar"))
    deck = deck_in_order("rams32")
    assert len(deck) == 32
    Game(make_config("rams32"), seed=0, deck=deck, dealer=0)


@pytest.mark.parametrize("bad", [[0, 10, 10, 10], [11, 10, 10, 10], [10, 10, 10]])
def test_swedish_scores_between_one_and_ten(bad):
    with pytest.raises(ValueError):
        Game(make_config("mattmar"), seed=0, scores=bad)


# ----------------------------------------------------------------------------- random cross-check
def _rules_play_legal(hand_cards, trick, trump, forced_lead):
    """docs/rules.md "Legal cards in the Swedish presets" written out independently: the cards (indices)
    that may be played."""
    suit, rank = suit_of, rank_of
    ace = trump * 13 + 12
    trumps = {c for c in hand_cards if suit(c) == trump}
    if not trick:
        if ace in hand_cards:
            return {ace}
        return trumps if forced_lead and trumps else set(hand_cards)
    led = suit(trick[0][1])
    if led == trump and ace in hand_cards:
        return {ace}
    trumped = [rank(c) for _, c in trick if suit(c) == trump]
    follow = {c for c in hand_cards if suit(c) == led}
    if follow:
        if led != trump and trumped:
            return follow
        best = max(rank(c) for _, c in trick if suit(c) == led)
        return {c for c in follow if rank(c) > best} or follow
    if trumps:
        if trumped:
            return {c for c in trumps if rank(c) > max(trumped)} or trumps
        return trumps
    return set(hand_cards)


def _rules_trick_winner(trick, trump):
    led = suit_of(trick[0][1])
    trumps = [(rank_of(c), s) for s, c in trick if suit_of(c) == trump]
    if trumps:
        return max(trumps)[1]
    return max((rank_of(c), s) for s, c in trick if suit_of(c) == led)[1]


def _check_random_rams(variant, n, seed, max_deals=40):
    g = Game(make_config(variant, n), seed=seed)
    rng = random.Random(seed)
    passed_before = [False] * n  # passed in the previous deal of this rams
    for _ in range(max_deals):
        start = list(g.scores)
        accepted = 0
        trick: list[tuple[int, int]] = []
        tricks = [0] * n
        while g.phase not in (Phase.DEAL_OVER, Phase.GAME_OVER):
            seat, v = g.current_player, g.view(g.current_player)
            cards = {card_index(c) for c in v["hand"]}
            got = set(g.legal_actions())
            if g.phase == Phase.BID:
                made = {b["bid"] for b in v["bids"]}
                want = {int(NO_BID)}
                if "better" not in made and v["talon"] >= 5:
                    want.add(int(BID_BETTER))
                if "swing" not in made and v["talon"] >= 1:
                    want.add(int(BID_SWING))
                accepted = 0
            elif g.phase == Phase.ANSWER:
                pending = v["bids"][-1]
                want = {int(ACCEPT), int(REJECT)}
                if pending["bid"] == "better" and v["talon"] - 5 * (1 + accepted) < 5:
                    want = {int(REJECT)}
            elif g.phase == Phase.KNOCK:
                must = start[seat] == 1 or (start[seat] == 2 and passed_before[seat])
                want = {int(KNOCK)} if must else {int(PASS), int(KNOCK)}
            elif g.phase == Phase.BUY:
                k = v["discarded"][seat]
                if seat == g.dealer:
                    want = (cards if k < v["talon"] + 1 else set()) | ({int(DRAW)} if k >= 1 else set())
                else:
                    want = (cards if k < v["talon"] else set()) | {int(DRAW)}
            else:
                live = [start[s] - tricks[s] for s in range(n)]
                forced = any(live[o] == 1 for o in range(n) if o != seat)
                want = _rules_play_legal(cards, trick, "CDHS".index(v["trump"]), forced)
            assert got == want, (variant, n, seed, g.phase.name, seat, v)
            action = rng.choice(sorted(got))
            if g.phase == Phase.ANSWER and action == ACCEPT:
                accepted += 1
            was_play = g.phase == Phase.PLAY
            g.apply(action)
            if was_play:
                trick.append((seat, action))
                active_count = sum(1 for a in v["active"] if a)
                if len(trick) == active_count:
                    winner = _rules_trick_winner(trick, "CDHS".index(v["trump"]))
                    tricks[winner] += 1
                    assert g.tricks_won == tricks
                    if g.phase == Phase.PLAY:
                        assert g.current_player == winner
                    trick = []
            elif g.phase == Phase.PLAY and not trick and sum(tricks) == 0:
                # Play begins: every active player holds five cards, the first leader is the
                # active player nearest the dealer's left.
                active = g.view(0)["active"]
                for s in range(n):
                    assert len(g.view(s)["hand"]) == (5 if active[s] else 0)
                first = next(s for s in ((g.dealer + 1 + i) % n for i in range(n)) if active[s])
                assert g.current_player == first
        if g.phase == Phase.GAME_OVER:
            return
        rams_ended = min(g.scores) <= 0
        passed_before = [False] * n if rams_ended else [a is False for a in g.view(0)["active"]]
        g.next_deal()


@pytest.mark.parametrize(
    "variant,n",
    [
        ("mattmar", 3),
        ("mattmar", 4),
        ("mattmar", 7),
        ("norrlandsknack", 4),
        ("norrlandsknack", 6),
        ("rams32", 3),
        ("rams32", 5),
        ("rams32", 6),
    ],
)
def test_random_play_legal_actions_match_rules(variant, n):
    for seed in range(6):
        _check_random_rams(variant, n, seed)


@pytest.mark.parametrize(("variant", "place"), [("mattmar", TurnedAt.DEALER), ("russian", TurnedAt.TABLE)])
def test_the_turned_cards_place_is_a_word_in_views_and_saved_states(variant, place):
    g = Game(make_config(variant, 4), seed=3)
    assert g.turned_at is place and g.view(0)["turned_card_at"] == place.label == place.name.lower()
    assert json.loads(g.to_json())["turned_at"] == place.label
    assert Game.from_json(g.to_json()).turned_at is place
