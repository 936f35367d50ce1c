"""Scripted rule tests for the ``russian`` preset on fixed decks.

One test (or parametrized table) per rule and per house decision of docs/rules.md that concerns
``russian``: the deal (section 2), the knock round (section 4), buying (section 5), trick
legality (section 6.2), scoring and the end of the game (section 7.2 and its HD on timing).
Every expectation is written from docs/rules.md; the engine is only driven through its public API.
"""

from __future__ import annotations

import pytest

import rams_env
from rams_env.rules import Action, Game, IllegalActionError, Phase, card_index, card_name, deck_cards, make_config
from tests.decks import stack_deck

PASS, KNOCK, DRAW = int(Action.PASS), int(Action.KNOCK), int(Action.DRAW)


# --------------------------------------------------------------------------- helpers
def new_game(n, dealer, hands, turned, talon=None, scores=None, **options):
    """A russian game whose first deal gives ``hands`` (all seats named), turns ``turned``, talon on top."""
    deck = stack_deck("russian", n, dealer, hands, turned, talon)
    return Game(make_config("russian", n, **options), seed=0, deck=deck, dealer=dealer, scores=scores)


def act(g, seat, action):
    """Apply ``action`` (a card name or an action id), checking that ``seat`` is the one to act."""
    assert g.current_player == seat, f"seat {g.current_player} is to act, the script expected seat {seat}"
    g.apply(card_index(action) if isinstance(action, str) else int(action))


def legal(g):
    """Legal actions as names: card names and Action names."""
    return {card_name(a) if a < 52 else Action(a).name for a in g.legal_actions()}


def hand(g, seat):
    return set(g.view(seat)["hand"])


def knock_round(g, passes=()):
    """Everybody knocks except the seats in ``passes``."""
    for _ in range(g.config.num_players):
        if g.phase != Phase.KNOCK:
            break
        seat = g.current_player
        g.apply(PASS if seat in passes else KNOCK)
    assert g.phase != Phase.KNOCK


def buy_round(g, discards=None, extra=None):
    """Every active player discards ``discards[seat]`` (default: stands pat) and draws; the
    russian dealer, if active, then makes his extra discard ``extra``."""
    discards = discards or {}
    for _ in range(g.config.num_players + 1):  # at most one turn per buyer; a loop here would be an engine bug
        if g.phase != Phase.BUY:
            break
        seat = g.current_player
        for card in discards.get(seat, ()):
            act(g, seat, card)
        act(g, seat, DRAW)
        if seat == g.dealer and g.phase == Phase.BUY and g.current_player == seat:
            assert extra is not None, "the script must name the dealer's extra discard"
            act(g, seat, extra)
    assert g.phase != Phase.BUY, "buying did not end after every active player's turn"


def play_trick(g, plays):
    """Play ``[(seat, card), ...]`` in order."""
    for seat, card in plays:
        act(g, seat, card)


def play_out_lowest(g):
    """Finish the deal, every player playing his lowest-index legal card."""
    for _ in range(5 * g.config.num_players):
        if g.phase != Phase.PLAY:
            break
        g.apply(g.legal_actions()[0])
    assert g.phase != Phase.PLAY


def assert_game_over(g, winners, settlement):
    assert g.phase == Phase.GAME_OVER
    assert g.current_player == -1
    assert g.legal_actions() == []
    result = g.result()
    assert result["over"] is True
    assert sorted(result["winners"]) == sorted(winners)
    assert result["settlement"] == pytest.approx(settlement)


# --------------------------------------------------------------------------- section 2: the deal
@pytest.mark.parametrize("n", [4, 5, 6, 7])
def test_deck_has_52_cards_with_four_or_more_players(n):
    cfg = make_config("russian", n)
    assert cfg.deck_size == 52
    g = Game(cfg, seed=11)
    assert g.view(0)["talon"] == 52 - 5 * n - 1
    for seat in range(n):
        assert len(g.view(seat)["hand"]) == 5


def test_deck_has_32_cards_ranks_7_to_ace_with_three_players():
    cfg = make_config("russian", 3)
    assert cfg.deck_size == 32
    g = Game(cfg, seed=5)
    assert g.view(0)["talon"] == 32 - 3 * 5 - 1
    dealt = [c for seat in range(3) for c in g.view(seat)["hand"]] + [g.view(0)["turned_card"]]
    assert all(c[0] in "789TJQKA" for c in dealt)
    # A 52-card deck order is not a deck of the 3-player russian game.
    with pytest.raises(ValueError):
        Game(cfg, deck=[card_name(c) for c in deck_cards(52)], dealer=0)


def test_dealing_order_and_turned_card_stays_on_the_table():
    # 3 players, dealer 0, forehand 1; 3 cards each from forehand, turn one, 2 cards each, talon.
    deck = [card_name(c) for c in deck_cards(32)]  # 7C 8C 9C TC JC QC KC AC 7D 8D ...
    g = Game(make_config("russian", 3), seed=0, deck=deck, dealer=0)
    assert hand(g, 1) == {"7C", "8C", "9C", "9D", "TD"}
    assert hand(g, 2) == {"TC", "JC", "QC", "JD", "QD"}
    assert hand(g, 0) == {"KC", "AC", "7D", "KD", "AD"}  # the dealer has 5 cards, not the turned one
    for seat in range(3):
        v = g.view(seat)
        assert v["turned_card"] == "8D"
        assert v["trump"] == "D"
        assert v["talon"] == 16
        assert v["dealer"] == 0


def test_no_bids_the_knock_round_comes_first():
    deck = [card_name(c) for c in deck_cards(52)]
    g = Game(make_config("russian", 4), seed=0, deck=deck, dealer=2)
    assert g.phase == Phase.KNOCK
    assert g.view(0)["phase"] == "knock"
    assert g.current_player == 3  # forehand
    for bid in (Action.BID_BETTER, Action.BID_SWING, Action.NO_BID, Action.ACCEPT, Action.REJECT):
        with pytest.raises(IllegalActionError):
            g.apply(int(bid))


def test_deal_passes_clockwise():
    hands = {1: ["5H", "2C", "3C", "4S", "5S"], 2: ["2H", "KH", "6C", "7C", "8C"]}
    hands |= {3: ["3D", "QD", "4C", "5C", "6S"], 0: ["2D", "8S", "9S", "TS", "JS"]}
    g = new_game(4, 0, hands, "9D")
    knock_round(g, passes={1, 2, 3})  # the dealer is credited with five tricks: the deal is over
    assert g.phase == Phase.DEAL_OVER
    g.next_deal()
    assert g.dealer == 1
    assert g.current_player == 2


# --------------------------------------------------------------------------- section 4: the knock round
@pytest.mark.parametrize("ace", ["AC", "AD", "AH", "AS"])
@pytest.mark.parametrize("n", [3, 4])
def test_player_dealt_an_ace_may_not_pass(n, ace):
    fillers = ["7C", "8D", "9H", "TS"] if n == 3 else ["2C", "3D", "4H", "5S"]
    dealer = n - 1  # forehand is seat 0
    g = new_game(n, dealer, {0: [ace, *fillers]}, "JD")
    assert g.current_player == 0
    assert legal(g) == {"KNOCK"}
    with pytest.raises(IllegalActionError):
        g.apply(PASS)


def test_player_without_a_dealt_ace_may_pass_or_knock():
    g = new_game(4, 0, {1: ["KC", "KD", "KH", "KS", "2C"]}, "9D")
    assert legal(g) == {"PASS", "KNOCK"}


def test_dealt_ace_binds_the_dealer_too():
    hands = {1: ["2C", "3C", "4D", "5D", "6H"], 2: ["2H", "3H", "4S", "5S", "6C"]}
    hands |= {3: ["7C", "8C", "7D", "8D", "7H"], 0: ["AH", "2D", "3D", "2S", "3S"]}
    g = new_game(4, 0, hands, "9D")
    act(g, 1, KNOCK)
    assert legal(g) == {"PASS", "KNOCK"}
    act(g, 2, PASS)
    act(g, 3, PASS)
    assert g.current_player == 0
    assert legal(g) == {"KNOCK"}


def test_turned_ace_does_not_bind_the_dealer():
    # The turned card is not one of the dealer's 5 dealt cards (docs/rules.md, "Dealing" and "The knock round").
    hands = {1: ["2C", "3C", "4D", "5D", "6H"], 2: ["2H", "3H", "4S", "5S", "6C"]}
    hands |= {3: ["7C", "8C", "7D", "8D", "7H"], 0: ["KH", "2D", "3D", "2S", "3S"]}
    g = new_game(4, 0, hands, "AS")
    act(g, 1, KNOCK)
    act(g, 2, PASS)
    act(g, 3, PASS)
    assert legal(g) == {"PASS", "KNOCK"}


def test_dealer_may_pass_and_then_nobody_takes_the_turned_card():
    hands = {1: ["AS", "2C", "3C", "4D", "5D"], 2: ["2H", "3H", "4S", "5S", "6C"]}
    hands |= {3: ["7C", "8C", "7D", "8D", "7H"], 0: ["KH", "2D", "3D", "2S", "3S"]}
    g = new_game(4, 0, hands, "9D", talon=["QC"])
    act(g, 1, KNOCK)
    act(g, 2, PASS)
    act(g, 3, PASS)
    act(g, 0, PASS)
    assert g.view(0)["active"] == [False, True, False, False]
    assert g.phase == Phase.BUY and g.current_player == 1
    act(g, 1, "2C")
    act(g, 1, DRAW)
    # No extra discard and no take: trick play starts, the turned card still on the table.
    assert g.phase == Phase.PLAY
    assert g.current_player == 1
    assert hand(g, 1) == {"AS", "QC", "3C", "4D", "5D"}
    assert all("9D" not in hand(g, s) for s in range(4))
    assert g.view(2)["turned_card"] == "9D"
    assert g.view(2)["trump"] == "D"


FREE_FIVE_PASSERS = {
    1: ["JC", "JS", "6H", "7H", "8H"],
    2: ["2H", "3H", "4H", "9S", "TS"],
    3: ["2S", "3S", "4S", "6C", "7C"],
}


@pytest.mark.parametrize(
    ("dealer_hand", "dealer_score"),
    [
        (["2C", "3C", "4D", "5D", "6D"], 95),  # 5 tricks
        (["AH", "2C", "3C", "4D", "5D"], 75),  # 5 tricks + heart ace 20
        (["AC", "AS", "3C", "4D", "5D"], 80),  # 5 tricks + clubs 10 + spades 5
    ],
)
def test_dealer_wins_five_tricks_without_play_when_all_before_him_pass(dealer_hand, dealer_score):
    g = new_game(4, 0, {**FREE_FIVE_PASSERS, 0: dealer_hand}, "9D")
    act(g, 1, PASS)
    act(g, 2, PASS)
    act(g, 3, PASS)
    # HD: the deal ends at once; the dealer takes no action.
    assert g.phase == Phase.DEAL_OVER
    assert g.current_player == -1
    assert g.tricks_won == [5, 0, 0, 0]
    # Seat 1 passed with the black jacks: write-off 5 even when passing.
    assert g.scores == [dealer_score, 95, 100, 100]


# --------------------------------------------------------------------------- section 5: buying
BUY5 = {
    0: ["2C", "3D", "4H", "5S", "6C"],
    1: ["7C", "8D", "9H", "TS", "JC"],
    2: ["2D", "3H", "4S", "5C", "6D"],
    3: ["7D", "8H", "9S", "TC", "QC"],
    4: ["2H", "3S", "4C", "5D", "6H"],
}


def test_active_players_buy_from_the_dealers_left_and_the_dealer_last():
    g = new_game(5, 2, BUY5, "9D")
    knock_round(g, passes={4})
    order = []
    for _ in range(20):
        if g.phase != Phase.BUY:
            break
        seat = g.current_player
        if not order or order[-1] != seat:
            order.append(seat)
        g.apply(DRAW if DRAW in g.legal_actions() else g.legal_actions()[0])
    assert order == [3, 0, 1, 2]  # passed seat 4 does not buy; the dealer (2) buys last
    assert g.phase == Phase.PLAY
    assert g.current_player == 3  # the active player nearest the dealer's left leads


def test_buying_discards_one_by_one_then_draws_as_many_from_the_top():
    hands = {1: ["2C", "3C", "4D", "5D", "6H"], 2: ["2H", "3H", "4S", "5S", "6C"]}
    hands |= {3: ["7C", "8C", "7D", "8D", "7H"], 0: ["KH", "2D", "3D", "2S", "3S"]}
    g = new_game(4, 0, hands, "9D", talon=["AC", "KC", "QC", "JC"])
    knock_round(g)
    assert g.current_player == 1
    assert legal(g) == {"2C", "3C", "4D", "5D", "6H", "DRAW"}
    act(g, 1, "2C")
    assert legal(g) == {"3C", "4D", "5D", "6H", "DRAW"}
    act(g, 1, "3C")
    assert g.view(1)["talon"] == 31  # nothing drawn yet
    act(g, 1, DRAW)
    assert hand(g, 1) == {"AC", "KC", "4D", "5D", "6H"}
    v = g.view(3)
    assert v["talon"] == 29
    assert v["discarded"][1] == 2 and v["drawn"][1] == 2  # counts are public
    assert "AC" not in v["hand"]  # ... the cards are not
    # Standing pat: DRAW at once.
    act(g, 2, DRAW)
    assert hand(g, 2) == {"2H", "3H", "4S", "5S", "6C"}
    assert g.view(0)["drawn"][2] == 0
    act(g, 3, "7H")
    act(g, 3, DRAW)
    assert hand(g, 3) == {"7C", "8C", "7D", "8D", "QC"}


def test_dealer_buys_then_discards_one_more_and_takes_the_turned_card():
    hands = {1: ["2C", "3C", "4D", "5D", "6H"], 2: ["2H", "3H", "4S", "5S", "6C"]}
    hands |= {3: ["7C", "8C", "7D", "8D", "7H"], 0: ["KH", "2D", "3D", "2S", "3S"]}
    g = new_game(4, 0, hands, "9D", talon=["AC", "KC"])
    knock_round(g)
    act(g, 1, DRAW)
    act(g, 2, DRAW)
    act(g, 3, DRAW)
    assert g.current_player == 0
    act(g, 0, "2S")
    act(g, 0, "3S")
    act(g, 0, DRAW)
    assert hand(g, 0) == {"KH", "2D", "3D", "AC", "KC"}
    # One more discard, any of his cards (a card just drawn included); no DRAW now.
    assert g.phase == Phase.BUY and g.current_player == 0
    assert legal(g) == {"KH", "2D", "3D", "AC", "KC"}
    act(g, 0, "KC")
    assert hand(g, 0) == {"KH", "2D", "3D", "AC", "9D"}
    assert g.phase == Phase.PLAY
    assert g.current_player == 1
    assert g.view(2)["turned_card"] == "9D"  # the take is public: everyone knows where it is


@pytest.mark.parametrize("extra", ["AH", "KS", "2D", "3C", "JH"])
def test_dealer_extra_discard_may_be_any_card(extra):
    hands = {1: ["2C", "3S", "4D", "5D", "6H"], 2: ["2H", "3H", "4S", "5S", "6C"]}
    hands |= {3: ["7C", "8C", "7D", "8D", "7H"], 0: ["AH", "KS", "2D", "3C", "JH"]}
    g = new_game(4, 0, hands, "9D")
    knock_round(g)
    buy_round(g, extra=extra)
    assert hand(g, 0) == {"AH", "KS", "2D", "3C", "JH", "9D"} - {extra}
    assert g.phase == Phase.PLAY


RANK_MAJOR = [r + s for r in "23456789T" for s in "CDHS"]  # 36 cards, no jack or better


def test_talon_limits_how_many_cards_a_player_may_discard():
    # 7 players, 52 cards: 35 dealt, 1 turned, 16 in the talon.
    hands = {seat: RANK_MAJOR[5 * seat : 5 * seat + 5] for seat in range(7)}
    talon = ["JC", "QD", "KH", "AS", "JD", "QH", "KS", "AC", "JH", "QS", "KC", "AD", "JS", "QC", "KD", "AH"]
    g = new_game(7, 6, hands, RANK_MAJOR[35], talon=talon)
    assert g.view(0)["talon"] == 16
    knock_round(g)
    for seat in (0, 1, 2):  # 5 discards each: 16 -> 11 -> 6 -> 1
        for card in hands[seat]:
            act(g, seat, card)
        assert legal(g) == {"DRAW"}
        act(g, seat, DRAW)
        assert hand(g, seat) == set(talon[5 * seat : 5 * seat + 5])
    assert g.view(0)["talon"] == 1
    assert legal(g) == set(hands[3]) | {"DRAW"}
    act(g, 3, hands[3][0])
    assert legal(g) == {"DRAW"}  # a second discard could not be replaced
    act(g, 3, DRAW)
    assert g.view(0)["talon"] == 0
    for seat in (4, 5, 6):
        assert g.current_player == seat
        assert legal(g) == {"DRAW"}
        act(g, seat, DRAW)
    # The dealer's extra discard and take do not use the talon.
    assert legal(g) == set(hands[6])
    act(g, 6, hands[6][0])
    assert RANK_MAJOR[35] in hand(g, 6)
    assert g.phase == Phase.PLAY


# --------------------------------------------------------------------------- section 6.2: trick legality
# Dealer 0, trump diamonds (9D turned); everybody knocks; the dealer drops TS and takes 9D.
PLAY_A = {
    1: ["5H", "2C", "3C", "4S", "5S"],
    2: ["2H", "KH", "6C", "7C", "8C"],
    3: ["3D", "QD", "4C", "5C", "6S"],
    0: ["2D", "8S", "9S", "TS", "JS"],
}


def start_play_a():
    g = new_game(4, 0, PLAY_A, "9D")
    knock_round(g)
    buy_round(g, extra="TS")
    assert g.phase == Phase.PLAY and g.current_player == 1
    return g


def test_follow_suit_with_any_card_else_any_trump_else_any_card():
    g = start_play_a()
    assert legal(g) == {"5H", "2C", "3C", "4S", "5S"}  # a free lead
    act(g, 1, "5H")
    assert legal(g) == {"2H", "KH"}  # follow suit, no duty to beat
    act(g, 2, "2H")
    assert legal(g) == {"3D", "QD"}  # no hearts: any trump
    act(g, 3, "QD")
    assert legal(g) == {"2D", "9D"}  # no hearts: any trump, no duty to overtrump
    act(g, 0, "2D")
    assert g.tricks_won == [0, 0, 0, 1]
    assert g.current_player == 3
    act(g, 3, "6S")
    assert legal(g) == {"8S", "9S", "JS"}  # holding the suit led: may not trump
    act(g, 0, "8S")
    assert legal(g) == {"4S", "5S"}
    act(g, 1, "4S")
    assert legal(g) == {"KH", "6C", "7C", "8C"}  # neither suit nor trump: any card
    act(g, 2, "6C")
    assert g.tricks_won == [1, 0, 0, 1]


def test_queen_is_not_due_after_a_win_with_a_low_trump():
    g = start_play_a()
    play_trick(g, [(1, "5H"), (2, "2H"), (3, "3D"), (0, "2D")])
    assert g.tricks_won == [0, 0, 0, 1]
    assert legal(g) == {"QD", "4C", "5C", "6S"}


def test_trump_ace_then_king_must_be_led_then_queen_after_winning_with_the_king():
    hands = {1: ["AD", "KD", "QD", "2C", "3C"], 2: ["2D", "4C", "5C", "6H", "7H"]}
    hands |= {3: ["3H", "4H", "5H", "6S", "7S"], 0: ["8H", "9H", "8S", "9S", "TS"]}
    g = new_game(4, 0, hands, "9D")
    knock_round(g, passes={3, 0})
    buy_round(g)
    assert legal(g) == {"AD"}  # trump ace first
    act(g, 1, "AD")
    assert legal(g) == {"2D"}
    act(g, 2, "2D")
    assert legal(g) == {"KD"}  # then the trump king
    act(g, 1, "KD")
    act(g, 2, "4C")
    assert legal(g) == {"QD"}  # won with the king, holds the queen
    act(g, 1, "QD")
    act(g, 2, "5C")
    assert legal(g) == {"2C", "3C"}  # won with the queen: a free lead
    assert g.tricks_won == [0, 3, 0, 0]


def test_trump_king_must_be_led_without_the_ace():
    hands = {1: ["KD", "2C", "3C", "4S", "5H"], 2: ["2D", "4C", "5C", "6H", "7H"]}
    hands |= {3: ["3H", "4H", "8C", "6S", "7S"], 0: ["8H", "9H", "8S", "9S", "TS"]}
    g = new_game(4, 0, hands, "9D")
    knock_round(g, passes={3, 0})
    buy_round(g)
    assert legal(g) == {"KD"}


def test_trump_ace_must_be_led_whenever_its_holder_is_on_lead():
    hands = {1: ["5H", "2C", "3C", "4S", "5S"], 2: ["AD", "KH", "6C", "7C", "8C"]}
    hands |= {3: ["2H", "4C", "5C", "6S", "7S"], 0: ["3H", "8S", "9S", "TS", "JS"]}
    g = new_game(4, 0, hands, "9D")
    knock_round(g)
    buy_round(g, extra="TS")
    act(g, 1, "5H")
    assert legal(g) == {"KH"}  # a plain suit led: the trump ace is not forced
    play_trick(g, [(2, "KH"), (3, "2H"), (0, "3H")])
    assert g.tricks_won == [0, 0, 1, 0]
    assert legal(g) == {"AD"}


# Dealer 0 and seat 3 pass; seat 1 leads, seat 2 holds the trump ace (trump diamonds, 9D turned).
@pytest.mark.parametrize(
    ("led", "expected"),
    [
        ("KD", {"AD"}),  # ace on a led trump king
        ("QD", {"AD"}),  # ... queen
        ("JD", {"AD"}),  # ... jack
        ("TD", {"AD", "2D"}),  # a trump ten: any trump
        ("KH", {"6H", "7H", "8H"}),  # a plain king: follow suit
    ],
)
def test_trump_ace_must_be_played_on_a_led_trump_face_card(led, expected):
    hands = {1: [led, "2C", "3C", "4C", "5S"], 2: ["AD", "2D", "6H", "7H", "8H"]}
    hands |= {3: ["3H", "4H", "5H", "6S", "7S"], 0: ["8S", "9S", "TS", "6C", "7C"]}
    g = new_game(4, 0, hands, "9D")
    knock_round(g, passes={3, 0})
    buy_round(g)
    if led == "KD":
        assert legal(g) == {"KD"}
    else:
        assert legal(g) == {led, "2C", "3C", "4C", "5S"}
    act(g, 1, led)
    assert legal(g) == expected


def test_queen_must_be_led_after_winning_with_the_trump_ace_played_on_a_face_card():
    hands = {1: ["KD", "2C", "3C", "4C", "5S"], 2: ["AD", "QD", "6H", "7H", "8H"]}
    hands |= {3: ["3H", "4H", "5H", "6S", "7S"], 0: ["8S", "9S", "TS", "6C", "7C"]}
    g = new_game(4, 0, hands, "9D")
    knock_round(g, passes={3, 0})
    buy_round(g)
    act(g, 1, "KD")
    assert legal(g) == {"AD"}
    act(g, 2, "AD")
    assert g.current_player == 2
    assert legal(g) == {"QD"}


# --------------------------------------------------------------------------- section 7.2: scoring
def test_full_four_player_deal():
    """52 cards: buying, the dealer's take, honour leads, aces, a fine, a passer's jacks."""
    hands = {
        1: ["AS", "KS", "2H", "3C", "4C"],
        2: ["JC", "JS", "5H", "6H", "7C"],
        3: ["KD", "QD", "8S", "9S", "TC"],
        0: ["AD", "2D", "TH", "JH", "5S"],
    }
    g = new_game(4, 0, hands, "9D", talon=["QS", "2S", "3D", "4D"])
    assert g.config.deck_size == 52
    assert legal(g) == {"KNOCK"}  # dealt the spade ace
    act(g, 1, KNOCK)
    act(g, 2, PASS)  # black jacks
    act(g, 3, KNOCK)
    act(g, 0, KNOCK)
    buy_round(g, discards={1: ["3C", "4C"], 3: ["TC"], 0: ["5S"]}, extra="JH")
    assert hand(g, 1) == {"AS", "KS", "QS", "2S", "2H"}
    assert hand(g, 3) == {"KD", "QD", "3D", "8S", "9S"}
    assert hand(g, 0) == {"AD", "9D", "4D", "2D", "TH"}
    assert g.current_player == 1

    def trick(plays, legal_sets, tricks_after):
        for (seat, card), expected in zip(plays, legal_sets, strict=True):
            assert legal(g) == expected, (seat, card)
            act(g, seat, card)
            assert [g.view(s)["scores"] for s in range(4)] == [[100] * 4] * 4  # records wait for the end
        assert g.tricks_won == tricks_after

    trick(
        [(1, "AS"), (3, "9S"), (0, "2D")],
        [{"AS", "KS", "QS", "2S", "2H"}, {"8S", "9S"}, {"AD", "9D", "4D", "2D"}],
        [1, 0, 0, 0],
    )
    trick([(0, "AD"), (1, "2H"), (3, "3D")], [{"AD"}, {"KS", "QS", "2S", "2H"}, {"KD", "QD", "3D"}], [2, 0, 0, 0])
    trick([(0, "TH"), (1, "2S"), (3, "QD")], [{"9D", "4D", "TH"}, {"KS", "QS", "2S"}, {"KD", "QD"}], [2, 0, 0, 1])
    trick([(3, "KD"), (0, "4D"), (1, "QS")], [{"KD"}, {"9D", "4D"}, {"KS", "QS"}], [2, 0, 0, 2])
    assert g.view(1)["turned_card"] == "9D"  # still in the dealer's hand, where everyone knows it is
    play_trick(g, [(3, "8S"), (0, "9D"), (1, "KS")])
    assert g.view(1)["turned_card"] is None  # played
    assert g.tricks_won == [3, 0, 0, 2]
    assert g.phase == Phase.DEAL_OVER
    # dealer: 3 tricks + diamond ace 15; seat 1: no trick, fine 5 + spade ace 5;
    # seat 2: passed with the black jacks, 5; seat 3: 2 tricks.
    assert g.scores == [82, 110, 95, 98]
    assert g.view(1)["scores"] == [82, 110, 95, 98]
    assert g.result()["winners"] is None


def test_full_three_player_deal_with_32_cards():
    """3 players, 32 cards: four jacks and no trick, a fine with two aces, all five tricks with the trump ace."""
    hands = {
        0: ["AC", "KC", "8D", "9D", "8S"],
        1: ["JD", "JH", "JC", "JS", "7C"],
        2: ["AH", "QH", "TS", "9S", "7D"],
    }
    g = new_game(3, 2, hands, "7H", talon=["AD", "KH"])
    assert g.config.deck_size == 32
    assert g.view(0)["talon"] == 16
    assert legal(g) == {"KNOCK"}
    act(g, 0, KNOCK)
    assert legal(g) == {"PASS", "KNOCK"}
    act(g, 1, KNOCK)
    assert legal(g) == {"KNOCK"}
    act(g, 2, KNOCK)
    buy_round(g, discards={0: ["8S"], 2: ["7D"]}, extra="9S")
    assert hand(g, 0) == {"AC", "KC", "AD", "8D", "9D"}
    assert hand(g, 2) == {"AH", "KH", "QH", "7H", "TS"}
    start = [100, 100, 100]

    def step(seat, card, expected):
        assert legal(g) == expected, (seat, card)
        act(g, seat, card)
        assert g.view(seat)["scores"] == start

    step(0, "AC", {"AC", "KC", "AD", "8D", "9D"})
    step(1, "7C", {"JC", "7C"})
    step(2, "7H", {"AH", "KH", "QH", "7H"})
    step(2, "AH", {"AH"})
    step(0, "8D", {"KC", "AD", "8D", "9D"})
    step(1, "JH", {"JH"})
    step(2, "KH", {"KH"})
    step(0, "9D", {"KC", "AD", "9D"})
    step(1, "JS", {"JC", "JD", "JS"})
    step(2, "QH", {"QH"})  # won with the king, holds the queen
    step(0, "KC", {"KC", "AD"})
    step(1, "JC", {"JC", "JD"})
    step(2, "TS", {"TS"})
    step(0, "AD", {"AD"})
    act(g, 1, "JD")
    assert g.tricks_won == [0, 0, 5]
    assert g.phase == Phase.DEAL_OVER
    # seat 0: no trick, fine 5 + clubs 10 + diamonds 15; seat 1: four jacks and no trick, 5 off;
    # seat 2 (dealer, took the turned 7H): 5 tricks + the heart ace 20.
    assert g.scores == [130, 95, 75]


def test_aces_count_as_held_after_buying():
    """A dealt ace discarded does not count; an ace drawn does; the dealer's taken trump ace does."""
    hands = {
        1: ["AS", "KC", "QC", "2D", "3D"],
        2: ["4C", "5C", "6D", "7D", "8S"],
        3: ["2S", "3S", "4S", "9C", "TC"],
        0: ["2H", "8C", "5S", "3C", "9D"],
    }
    g = new_game(4, 0, hands, "AH", talon=["JC", "AC"])
    knock_round(g, passes={3})
    buy_round(g, discards={1: ["AS"], 2: ["8S"]}, extra="9D")
    assert hand(g, 1) == {"JC", "KC", "QC", "2D", "3D"}
    assert hand(g, 2) == {"AC", "4C", "5C", "6D", "7D"}
    assert hand(g, 0) == {"AH", "2H", "8C", "5S", "3C"}
    play_trick(g, [(1, "KC"), (2, "AC"), (0, "8C")])
    play_trick(g, [(2, "6D"), (0, "2H"), (1, "2D")])
    assert legal(g) == {"AH"}
    play_trick(g, [(0, "AH"), (1, "3D"), (2, "7D")])
    play_trick(g, [(0, "5S"), (1, "JC"), (2, "4C")])
    play_trick(g, [(0, "3C"), (1, "QC"), (2, "5C")])
    assert g.tricks_won == [3, 1, 1, 0]
    # dealer: 3 + heart ace 20; seat 1: 1 (his spade ace was discarded); seat 2: 1 + clubs ace 10.
    assert g.scores == [77, 99, 89, 100]


# Seats 0 (forehand, leads) and 1 knock; seat 2 and the dealer (3) pass. Seat 1 holds the trump
# K Q T 9 and the 3 of suit ``lead``; seat 0 leads the 2 of that suit and never takes a trick.
PASSERS = {2: ["6C", "7C", "8C", "6D", "7D"], 3: ["8D", "6H", "7H", "8H", "6S"]}


def no_trick_game(x_cards, trump, lead, talon=None, y_hand=None):
    fillers = [c for c in ("4C", "4D", "4H", "4S", "5C", "5D", "5H", "5S") if c[1] != trump and c not in x_cards]
    x_hand = ["2" + lead, *x_cards]
    x_hand += fillers[: 5 - len(x_hand)]
    y_hand = y_hand or ["K" + trump, "Q" + trump, "T" + trump, "9" + trump, "3" + lead]
    g = new_game(4, 3, {0: x_hand, 1: y_hand, **PASSERS}, "2" + trump, talon=talon)
    knock_round(g, passes={2, 3})
    return g


def finish_no_trick_game(g, lead):
    act(g, 0, "2" + lead)
    act(g, 1, "3" + lead)
    play_out_lowest(g)
    assert g.tricks_won == [0, 5, 0, 0]
    assert g.phase == Phase.DEAL_OVER


@pytest.mark.parametrize(
    ("aces", "trump", "lead", "fine"),
    [
        ([], "H", "S", 5),
        (["AS"], "H", "S", 10),
        (["AC"], "H", "S", 15),
        (["AD"], "H", "S", 20),
        (["AH"], "D", "S", 25),
        (["AS", "AC"], "H", "S", 20),
        (["AC", "AD"], "H", "S", 30),
        (["AS", "AC", "AD"], "H", "S", 35),
        (["AC", "AD", "AH"], "S", "H", 50),  # the seed's own example: 50
    ],
)
def test_no_trick_is_fined_5_plus_the_aces_held(aces, trump, lead, fine):
    g = no_trick_game(aces, trump, lead)
    buy_round(g)
    finish_no_trick_game(g, lead)
    assert g.scores == [100 + fine, 95, 100, 100]


@pytest.mark.parametrize(
    ("x_cards", "x_score"),
    [
        (["JC", "JS"], 100),  # a pair and no trick: neither fine nor write-off
        (["JC", "JS", "AC"], 100),  # ... not even the aces' part of the fine
        (["JD", "JH"], 100),  # red pair (JH is trump: played under the king)
        (["JC", "JS", "JD", "JH"], 95),  # all four jacks and no trick: 5 off
        (["JC", "JS", "JD"], 100),  # three jacks hold the black pair
        (["JC", "JD"], 105),  # one black and one red jack are no pair: fined
        (["JC"], 105),
    ],
)
def test_active_jack_holder_without_a_trick(x_cards, x_score):
    g = no_trick_game(x_cards, "H", "S")
    buy_round(g)
    finish_no_trick_game(g, "S")
    assert g.scores == [x_score, 95, 100, 100]


def test_jacks_are_judged_on_the_dealt_cards_a_drawn_jack_does_not_make_a_pair():
    g = no_trick_game(["JC", "4C", "4D", "5C"], "H", "S", talon=["JS"])
    buy_round(g, discards={0: ["4C"]})
    assert {"JC", "JS"} <= hand(g, 0)
    finish_no_trick_game(g, "S")
    assert g.scores == [105, 95, 100, 100]  # fined as a player without jacks


@pytest.mark.parametrize("discard_jacks", [False, True])
def test_jack_write_off_for_an_active_player_with_tricks_even_after_discarding_them(discard_jacks):
    if discard_jacks:
        y_hand, talon, discards = ["KH", "QH", "TH", "JC", "JS"], ["9H", "3S"], {1: ["JC", "JS"]}
    else:
        y_hand, talon, discards = ["KH", "QH", "JC", "JS", "3S"], None, {}
    g = no_trick_game(["4C", "4D", "5C", "5D"], "H", "S", talon=talon, y_hand=y_hand)
    buy_round(g, discards=discards)
    finish_no_trick_game(g, "S")
    assert g.scores == [105, 90, 100, 100]  # seat 1: 5 tricks + 5 for the black jacks


@pytest.mark.parametrize(
    ("jacks", "write_off"),
    [
        (["JC", "JS"], 5),
        (["JD", "JH"], 5),
        (["JC", "JS", "JD"], 5),
        (["JC", "JS", "JD", "JH"], 10),
        (["JC", "JD"], 0),
        (["JS", "JH"], 0),
        (["JC"], 0),
    ],
)
def test_jacks_write_off_for_a_player_who_passes(jacks, write_off):
    seat1 = jacks + ["2H", "3H", "4H", "5H"][: 5 - len(jacks)]
    hands = {1: seat1, 2: ["6H", "7H", "8H", "9S", "TS"], 3: ["2S", "3S", "4S", "6C", "7C"]}
    hands[0] = ["2C", "3C", "4D", "5D", "6D"]
    g = new_game(4, 0, hands, "9D")
    knock_round(g, passes={1, 2, 3})
    assert g.phase == Phase.DEAL_OVER
    assert g.scores == [95, 100 - write_off, 100, 100]


def test_jacks_of_the_turned_card_do_not_count_for_the_dealer():
    # The dealer is dealt JD and takes the turned JH: jacks are judged on the 5 dealt cards.
    hands = {
        1: ["3S", "4S", "5S", "6C", "7C"],
        2: ["2C", "3C", "4C", "5D", "6D"],
        3: ["7D", "8D", "9S", "TS", "8C"],
        0: ["KH", "QH", "TH", "JD", "2S"],
    }
    g = new_game(4, 0, hands, "JH")
    knock_round(g, passes={2, 3})
    buy_round(g, extra="2S")
    assert hand(g, 0) == {"KH", "QH", "JH", "TH", "JD"}
    act(g, 1, "3S")
    assert legal(g) == {"KH", "QH", "JH", "TH"}
    act(g, 0, "TH")
    play_out_lowest(g)
    assert g.tricks_won == [5, 0, 0, 0]
    assert g.scores == [95, 105, 100, 100]


# Four aces / five of one suit: dealer 0, forehand 1, trump diamonds unless said otherwise.
def test_four_aces_win_the_game_at_once():
    hands = {
        1: ["2C", "3D", "4H", "5S", "6C"],
        2: ["AC", "AD", "AH", "AS", "2D"],
        3: ["JC", "JS", "8C", "9C", "TC"],  # black jacks: not written off in a four-aces deal
        0: ["2H", "3H", "4S", "5D", "6D"],
    }
    g = new_game(4, 0, hands, "9D", scores=[100, 80, 60, 40])
    knock_round(g, passes={3})
    buy_round(g, extra="2H")
    assert g.scores == [100, 80, 60, 40]
    # The winner receives the others' remaining records; each of them pays his own.
    assert_game_over(g, [2], [-100, -80, 220, -40])


def test_four_aces_completed_by_buying():
    hands = {
        1: ["AC", "AD", "AH", "2C", "3C"],
        2: ["4C", "5D", "6H", "7S", "8C"],
        3: ["2D", "3D", "4H", "5S", "6C"],
        0: ["2H", "3H", "4S", "5C", "6D"],
    }
    g = new_game(4, 0, hands, "9D", talon=["AS"])
    knock_round(g, passes={2, 3, 0})
    assert g.phase == Phase.BUY
    buy_round(g, discards={1: ["2C"]})
    assert_game_over(g, [1], [-100, 300, -100, -100])


def test_four_aces_completed_by_the_dealers_take_of_the_turned_ace():
    hands = {
        1: ["2C", "3D", "4H", "5S", "6C"],
        2: ["4C", "5D", "6H", "7S", "8C"],
        3: ["2D", "3H", "4D", "6S", "7C"],
        0: ["AC", "AD", "AH", "2S", "3C"],
    }
    g = new_game(4, 0, hands, "AS")
    knock_round(g, passes={2, 3})
    buy_round(g, extra="3C")
    assert hand(g, 0) == {"AC", "AD", "AH", "AS", "2S"}
    assert_game_over(g, [0], [300, -100, -100, -100])


def test_four_aces_are_checked_before_five_of_one_suit():
    hands = {
        1: ["2H", "3H", "4H", "5H", "6H"],  # five of a suit, and the first leader
        2: ["AC", "AD", "AH", "AS", "2D"],
        3: ["3D", "4D", "5S", "6S", "7C"],
        0: ["8C", "7H", "8S", "9S", "TS"],
    }
    g = new_game(4, 0, hands, "9D")
    knock_round(g, passes={3})
    buy_round(g, extra="TS")
    assert g.scores == [100, 100, 100, 100]  # no five-of-a-suit scoring
    assert_game_over(g, [2], [-100, -100, 300, -100])


@pytest.mark.parametrize(
    ("spades", "holder_score"), [(["2S", "3S", "4S", "5S", "6S"], 95), (["AS", "2S", "3S", "4S", "5S"], 90)]
)
def test_five_of_one_suit_ends_the_deal(spades, holder_score):
    hands = {
        1: spades,
        2: ["AD", "2C", "3C", "6H", "7H"],  # the trump ace
        3: ["JD", "JH", "8C", "9C", "TC"],  # red jacks, passes: no write-off in this deal
        0: ["AH", "2H", "3H", "4C", "5C"],
    }
    g = new_game(4, 0, hands, "9D")
    knock_round(g, passes={3})
    buy_round(g, extra="5C")
    assert g.phase == Phase.DEAL_OVER
    assert g.current_player == -1
    # holder: 5 off (plus the ace's value); others active: fined 5 + their aces, trump ace included.
    assert g.scores == [100 + 5 + 20, holder_score, 100 + 5 + 15, 100]
    assert g.result()["winners"] is None


def test_five_of_one_suit_completed_by_the_dealers_take():
    hands = {
        1: ["AS", "2C", "3C", "6H", "7H"],
        2: ["4C", "5C", "8H", "7S", "8C"],
        3: ["3H", "4H", "5H", "6S", "9C"],
        0: ["2D", "3D", "4D", "5D", "7C"],
    }
    g = new_game(4, 0, hands, "9D")
    knock_round(g, passes={2, 3})
    buy_round(g, extra="7C")
    assert g.phase == Phase.DEAL_OVER
    assert g.scores == [95, 110, 100, 100]


def test_five_of_one_suit_first_found_from_the_first_leader_decides():
    # Dealer 1, forehand 2: seat order 2, 3, 0, 1. Seats 3 and 0 both hold five of a suit.
    hands = {
        2: ["2C", "3D", "4S", "5D", "6S"],
        3: ["2H", "3H", "4H", "5H", "6H"],
        0: ["AC", "KC", "QC", "JC", "TC"],
        1: ["7S", "8S", "9S", "7D", "8D"],
    }
    g = new_game(4, 1, hands, "9D")
    knock_round(g)
    buy_round(g, extra="7S")
    assert g.phase == Phase.DEAL_OVER
    # seat 3 writes off 5; seat 0 is fined 5 + clubs ace 10; seats 2 and 1 are fined 5.
    assert g.scores == [115, 105, 105, 95]


def test_five_of_one_suit_counts_only_active_players():
    hands = {
        1: ["2H", "3H", "4H", "5H", "6H"],  # passes
        2: ["AS", "2C", "3C", "6D", "7S"],
        3: ["4C", "5C", "8S", "7D", "8C"],
        0: ["8H", "9H", "9S", "TS", "JS"],
    }
    g = new_game(4, 0, hands, "9D")
    knock_round(g, passes={1})
    buy_round(g, extra="JS")
    assert g.phase == Phase.PLAY


# --------------------------------------------------------------------------- going out on jacks
OUT_FILL = {0: ["2C", "3C", "4D", "5D", "6H"], 1: ["7C", "8C", "2D", "3D", "7H"]}
OUT_FILL |= {2: ["2H", "3H", "4S", "5S", "8H"], 3: ["4C", "5C", "6D", "7D", "9H"]}


def jack_hand(jacks, seat=0):
    return jacks + [c for c in OUT_FILL[seat] if c not in jacks][: 5 - len(jacks)]


@pytest.mark.parametrize(
    ("jacks", "record", "goes_out"),
    [
        (["JC", "JS"], 5, True),
        (["JD", "JH"], 1, True),
        (["JC", "JS", "JD", "JH"], 4, True),
        (["JC", "JS", "AS"], 3, True),  # before the knock round: the dealt ace does not matter
        (["JC", "JS"], 6, False),
        (["JC", "JD"], 5, False),  # not a pair
    ],
)
def test_going_out_on_jacks(jacks, record, goes_out):
    hands = {**OUT_FILL, 0: jack_hand(jacks)}
    scores = [record, 100, 90, 80]
    g = new_game(4, 3, hands, "9S", scores=scores)
    if goes_out:
        assert g.scores == scores
        assert_game_over(g, [0], [270, -100, -90, -80])
    else:
        assert g.phase == Phase.KNOCK
        assert g.current_player == 0


@pytest.mark.parametrize(("dealer", "winner"), [(1, 3), (3, 0), (2, 3), (0, 3)])
def test_going_out_on_jacks_first_eligible_from_forehand_wins(dealer, winner):
    hands = {**OUT_FILL, 0: jack_hand(["JC", "JS"], 0), 3: jack_hand(["JD", "JH"], 3)}
    g = new_game(4, dealer, hands, "9S", scores=[5, 100, 100, 4])
    loser = 3 if winner == 0 else 0
    settlement = [0.0] * 4
    settlement[winner] = 200 + (5 if winner == 3 else 4)
    settlement[loser] = -(5 if loser == 0 else 4)
    settlement[1] = settlement[2] = -100
    assert_game_over(g, [winner], settlement)


# --------------------------------------------------------------------------- records and the end of the game
# Dealer 3 passes with seat 2; seats 0 and 1 play: seat 0 takes 2 tricks, seat 1 takes 3. Trump clubs.
END_HANDS = {
    0: ["KH", "QH", "3S", "4S", "5D"],
    1: ["KS", "QS", "3H", "4H", "6D"],
    2: ["2D", "3D", "4D", "7S", "8S"],
    3: ["2H", "5H", "9C", "9S", "TD"],
}


def play_end_deal(scores):
    g = new_game(4, 3, END_HANDS, "2C", scores=scores)
    knock_round(g, passes={2, 3})
    buy_round(g)
    play_trick(g, [(0, "KH"), (1, "3H")])
    play_trick(g, [(0, "QH"), (1, "4H")])
    play_trick(g, [(0, "3S"), (1, "KS")])
    play_trick(g, [(1, "QS"), (0, "4S")])
    assert g.view(2)["scores"] == scores  # unchanged until the deal ends
    play_trick(g, [(1, "6D"), (0, "5D")])
    assert g.tricks_won == [2, 3, 0, 0]
    return g


def test_game_goes_on_while_every_record_is_above_zero():
    g = play_end_deal([3, 4, 50, 60])
    assert g.scores == [1, 1, 50, 60]
    assert g.phase == Phase.DEAL_OVER
    assert g.result()["winners"] is None


@pytest.mark.parametrize(
    ("scores", "final", "winners", "settlement"),
    [
        ([2, 3, 50, 60], [0, 0, 50, 60], [0, 1], [55, 55, -50, -60]),  # a tie shares
        ([2, 1, 50, 60], [0, -2, 50, 60], [1], [0, 110, -50, -60]),  # the lowest record wins
        ([1, 3, 50, 60], [-1, 0, 50, 60], [0], [110, 0, -50, -60]),
        ([2, 10, 50, 60], [0, 7, 50, 60], [0], [117, -7, -50, -60]),
    ],
)
def test_game_ends_when_a_record_reaches_zero_at_the_end_of_a_deal(scores, final, winners, settlement):
    g = play_end_deal(scores)
    assert g.scores == final
    assert_game_over(g, winners, settlement)


@pytest.mark.parametrize("start", [100, 150, 200])
def test_start_score_options(start):
    g = Game(make_config("russian", 4, start_score=start), seed=3)
    assert g.scores == [start] * 4
    assert g.view(0)["scores"] == [start] * 4


@pytest.mark.parametrize("start", [0, 10, 99, 120, 250])
def test_other_start_scores_are_refused(start):
    with pytest.raises(ValueError, match="start_score"):
        make_config("russian", 4, start_score=start)


FULL4_HANDS = {
    1: ["AS", "KS", "2H", "3C", "4C"],
    2: ["JC", "JS", "5H", "6H", "7C"],
    3: ["KD", "QD", "8S", "9S", "TC"],
    0: ["AD", "2D", "TH", "JH", "5S"],
}
FULL4_SCRIPT = [KNOCK, PASS, KNOCK, KNOCK, "3C", "4C", DRAW, "TC", DRAW, "5S", DRAW, "JH"]
FULL4_SCRIPT += ["AS", "9S", "2D", "AD", "2H", "3D", "TH", "2S", "QD", "KD", "4D", "QS", "8S", "9D", "KS"]


def test_clone_and_json_round_trip_continue_a_russian_deal_identically():
    """Every intermediate state (the dealer's pending take, a queen due, ...) survives a copy."""

    def fresh():
        return new_game(4, 0, FULL4_HANDS, "9D", talon=["QS", "2S", "3D", "4D"])

    ids = [card_index(a) if isinstance(a, str) else a for a in FULL4_SCRIPT]
    for k in range(len(ids) + 1):
        g = fresh()
        for a in ids[:k]:
            g.apply(a)
        copies = [g, g.clone(), Game.from_json(g.to_json())]
        for a in ids[k:]:
            legals = [c.legal_actions() for c in copies]
            assert legals[1] == legals[0] and legals[2] == legals[0], k
            for c in copies:
                c.apply(a)
        for c in copies:
            assert c.scores == [82, 110, 95, 98]
            assert c.result() == copies[0].result()


def test_next_deal_is_refused_after_the_game_is_over():
    hands = {**OUT_FILL, 0: jack_hand(["JC", "JS"])}
    g = new_game(4, 3, hands, "9S", scores=[5, 100, 100, 100])
    assert g.phase == Phase.GAME_OVER
    with pytest.raises(IllegalActionError):
        g.next_deal()
    with pytest.raises(IllegalActionError):
        g.apply(KNOCK)


def test_a_lone_knocker_plays_the_five_tricks_alone():
    # Everybody passes but forehand, the dealer included: forehand takes all five tricks.
    hands = {1: ["AS", "2C", "3C", "4D", "5D"], 2: ["2H", "3H", "4S", "5S", "6C"]}
    hands |= {3: ["7C", "8C", "7D", "8D", "7H"], 0: ["KH", "2D", "3D", "2S", "3S"]}
    g = new_game(4, 0, hands, "9D")
    knock_round(g, passes={2, 3, 0})
    buy_round(g)
    for _ in range(5):
        assert g.current_player == 1
        g.apply(g.legal_actions()[0])
    assert g.tricks_won == [0, 5, 0, 0]
    assert g.scores == [100, 90, 100, 100]  # 5 tricks + the spade ace 5


def test_dealer_credited_with_five_tricks_gets_his_jacks_too():
    g = new_game(4, 0, {**FREE_FIVE_PASSERS, 0: ["JD", "JH", "AC", "4D", "5D"]}, "9D")
    knock_round(g, passes={1, 2, 3})
    assert g.scores == [100 - 5 - 10 - 5, 95, 100, 100]


def test_five_tricks_without_play_can_end_the_game():
    g = new_game(4, 0, {**FREE_FIVE_PASSERS, 0: ["AH", "2C", "3C", "4D", "5D"]}, "9D", scores=[20, 50, 60, 70])
    knock_round(g, passes={1, 2, 3})
    assert g.scores == [-5, 45, 60, 70]
    assert_game_over(g, [0], [175, -45, -60, -70])


def test_five_of_one_suit_can_end_the_game():
    hands = {
        1: ["2S", "3S", "4S", "5S", "6S"],
        2: ["AD", "2C", "3C", "6H", "7H"],
        3: ["JD", "JH", "8C", "9C", "TC"],
        0: ["AH", "2H", "3H", "4C", "5C"],
    }
    g = new_game(4, 0, hands, "9D", scores=[100, 5, 100, 40])
    knock_round(g, passes={3})
    buy_round(g, extra="5C")
    assert g.scores == [125, 0, 120, 40]
    assert_game_over(g, [1], [-125, 285, -120, -40])


# --------------------------------------------------------------------------- HD (2026-12-01) through the env
# The same scripts on both engines of the env: the compiled one (legal sets, scores, rewards and
# winners come from it) and the pure-Python reference.
ENGINES = ("compiled", "reference")


def scripted_env(engine, dealer, hands, turned, scores=None, episode="deal", reward="points", talon=None):
    """A 4-player russian env on ``engine`` whose first deal gives ``hands`` (every seat named)."""
    env = rams_env.raw_env(variant="russian", num_players=4, episode=episode, reward=reward, engine=engine)
    deck = stack_deck("russian", 4, dealer, hands, turned, talon)
    env.reset(seed=0, options={"deck": deck, "dealer": dealer, "scores": scores or [100] * 4})
    return env


def env_act(env, seat, action):
    """Step ``action`` (a card name or an action id), checking that ``seat`` is the one to act."""
    assert env.agent_selection == f"player_{seat}", f"{env.agent_selection} is to act, the script expected {seat}"
    env.step(card_index(action) if isinstance(action, str) else int(action))


def env_legal(env):
    """The legal actions now as names, from the engine; the acting seat's mask must agree."""
    legal_ids = env.legal_actions()
    mask = env.observe(env.agent_selection)["action_mask"]
    assert mask.nonzero()[0].tolist() == sorted(legal_ids)
    return {card_name(a) if a < 52 else Action(a).name for a in legal_ids}


def env_scores(env):
    return [env.infos[f"player_{s}"]["score"] for s in range(4)]


@pytest.mark.parametrize("engine", ENGINES)
def test_env_four_aces_are_checked_before_five_of_one_suit(engine):
    # HD on timing: four aces first, whoever holds them (here the dealer, the last in seat order),
    # before five of one suit held by the first leader.
    hands = {
        1: ["2H", "3H", "4H", "5H", "6H"],  # forehand, first leader: five hearts
        2: ["3D", "4D", "5S", "6S", "7C"],
        3: ["8C", "7H", "8S", "9S", "TS"],
        0: ["AC", "AD", "AH", "AS", "2D"],  # the dealer: four aces
    }
    env = scripted_env(engine, 0, hands, "9D", episode="rams", reward="win")
    for seat, action in [(1, KNOCK), (2, PASS), (3, PASS), (0, KNOCK), (1, DRAW), (0, DRAW), (0, "2D")]:
        env_act(env, seat, action)
    assert all(env.terminations.values())
    assert env.rewards == pytest.approx({"player_0": 1.0, "player_1": -1 / 3, "player_2": -1 / 3, "player_3": -1 / 3})
    assert env_scores(env) == [100] * 4  # no five-of-a-suit scoring
    view = env.view(2)
    assert view["phase"] == "over" and view["winners"] == [0]
    assert [(s["seat"], s["what"]) for s in view["shown"]] == [(0, "four_aces")]
    assert env.game.result()["reason"] == "four_aces"


@pytest.mark.parametrize("engine", ENGINES)
def test_env_five_of_one_suit_first_found_from_the_first_leader(engine):
    # Dealer 1: forehand 2 passes, so seat 3 leads first; seats 3 and 0 both hold five of a suit.
    hands = {
        2: ["2C", "3D", "4S", "5D", "6S"],
        3: ["2H", "3H", "4H", "5H", "6H"],
        0: ["AC", "KC", "QC", "JC", "TC"],
        1: ["7S", "8S", "9S", "7D", "8D"],
    }
    env = scripted_env(engine, 1, hands, "9D")
    for seat, action in [(2, PASS), (3, KNOCK), (0, KNOCK), (1, KNOCK), (3, DRAW), (0, DRAW), (1, DRAW), (1, "7S")]:
        env_act(env, seat, action)
    assert all(env.terminations.values())
    # seat 3 writes off 5; seat 0 is fined 5 + the clubs ace 10; the dealer is fined 5; seat 2 passed.
    assert env_scores(env) == [115, 105, 100, 95]
    assert [(s["seat"], s["what"]) for s in env.view(0)["shown"]] == [(3, "five_of_a_suit")]


# Honour leads (HD on leads): ace, then king, then queen. Each script is (seat, card, legal set
# before the card is played or None); dealer 0, trump diamonds (9D turned), seats 3 and 0 pass.
HONOUR_LEADS = {
    "ace_led": (
        {1: ["AD", "KD", "QD", "2C", "3C"], 2: ["2D", "4C", "5C", "6H", "7H"]},
        [
            (1, "AD", {"AD"}),  # the trump ace first
            (2, "2D", {"2D"}),
            (1, "KD", {"KD"}),  # won with the ace, holds king and queen: the king
            (2, "4C", None),
            (1, "QD", {"QD"}),  # won with the king: the queen
            (2, "5C", None),
            (1, "2C", {"2C", "3C"}),  # won with the queen: a free lead
        ],
    ),
    "ace_on_a_led_jack": (
        {1: ["JD", "2C", "3C", "4C", "5S"], 2: ["AD", "KD", "QD", "6H", "7H"]},
        [
            (1, "JD", {"JD", "2C", "3C", "4C", "5S"}),
            (2, "AD", {"AD"}),  # ace on a led trump face card
            (2, "KD", {"KD"}),  # won with the ace, holds king and queen: the king, not the queen
            (1, "2C", None),
            (2, "QD", {"QD"}),  # the queen after the trick the king won
            (1, "3C", None),
            (2, "6H", {"6H", "7H"}),
        ],
    ),
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", sorted(HONOUR_LEADS))
def test_env_honour_leads_ace_then_king_then_queen(case, engine):
    hands, script = HONOUR_LEADS[case]
    hands = {**hands, 3: ["3H", "4H", "5H", "6S", "7S"], 0: ["8H", "9H", "8S", "9S", "TS"]}
    env = scripted_env(engine, 0, hands, "9D")
    for seat, action in [(1, KNOCK), (2, KNOCK), (3, PASS), (0, PASS), (1, DRAW), (2, DRAW)]:
        env_act(env, seat, action)
    for seat, card, allowed in script:
        if allowed is not None:
            assert env_legal(env) == allowed, (seat, card)
        env_act(env, seat, card)
    leader = script[0][0] if case == "ace_led" else 2
    assert env.infos[f"player_{leader}"]["tricks"] == 3
