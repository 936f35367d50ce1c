"""Picture of the table from one seat's point of view (``render_mode="rgb_array"``).

:func:`render_view` draws a ``view()`` dict (docs/contract.md) and nothing else, so a picture can
never show a card that seat may not know: its own hand face up, the other seats' cards as backs
with their counts (derived from public facts by :func:`hand_counts`), trump, the turned card,
the trick in play with who played what, scores, tricks, who knocked or passed, the talon and
whose turn it is. Every shape (cards, suit pips, backs) is drawn here; no image assets.

Drawing uses Pillow alone, imported only when a picture is made: install it with
``pip install "rams_env[render]"``, which adds moviepy for Gymnasium's ``RecordVideo`` (writing videos).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import numpy as np

WIDTH, HEIGHT = 960, 720  # the picture's size (multiples of 16, as video encoders like)
SHAPE = (HEIGHT, WIDTH, 3)
_SS = 2  # drawn at twice the size, then reduced: smooth edges without antialiased primitives

_FELT, _TABLE, _RIM = (22, 74, 45), (33, 105, 64), (92, 60, 34)
_INK, _RED, _WHITE = (24, 24, 28), (196, 32, 44), (250, 250, 246)
_PANEL, _PANEL_OUT, _TURN = (16, 48, 30), (10, 30, 19), (255, 205, 64)
_MUTED, _TEXT, _GOOD = (150, 170, 158), (236, 240, 232), (120, 220, 140)
_BACK, _BACK_LINE = (44, 62, 140), (120, 140, 210)
_RANK_TEXT = {"T": "10"}
_PHASE_TEXT = {
    "bid": "forehand's bids",
    "answer": "answering a bid",
    "knock": "knock or pass",
    "buy": "buying from the talon",
    "play": "trick play",
    "over": "over",
}
RENDER_EXTRA_HINT = 'render_mode="rgb_array" needs Pillow: pip install "rams_env[render]"'


def require_render_extra() -> None:
    """Check that Pillow, which draws the pictures, is installed, or raise ImportError naming the ``render`` extra.

    moviepy, the extra's other half, is not checked: only Gymnasium's ``RecordVideo`` needs it, and
    Gymnasium's ``check_env`` makes an ``rgb_array`` env without recording anything."""
    require_pillow()


def require_pillow() -> Any:
    """Import Pillow's drawing modules, or raise ImportError naming the ``render`` extra."""
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError as exc:
        raise ImportError(RENDER_EXTRA_HINT) from exc
    return Image, ImageDraw, ImageFont


@lru_cache(maxsize=16)
def _font(size: int) -> Any:
    _, _, image_font = require_pillow()
    try:
        return image_font.load_default(size=size * _SS)  # Pillow >= 10.1 with FreeType
    except (TypeError, OSError, AttributeError):  # pragma: no cover - old or FreeType-less Pillow
        return image_font.load_default()


def hand_counts(view: dict[str, Any]) -> list[int]:
    """Cards in each seat's hand, from public facts of ``view`` only (docs/rules.md, "Dealing" to "Trick play").

    Everyone is dealt 5 (a Swedish dealer also holds the turned card); a player who passed has
    none; a buyer has discarded ``discarded`` and drawn ``drawn`` (a Swedish dealer draws one
    fewer); the russian dealer's extra discard is followed by taking the turned card; every card
    played to a trick has left its hand.
    """
    n = len(view["scores"])
    swedish = view["variant"] != "russian"
    dealer = view["dealer"]
    played = [0] * n
    for trick in view["completed_tricks"]:
        for seat, _ in trick["cards"]:
            played[seat] += 1
    for seat, _ in view["trick"]:
        played[seat] += 1
    counts = []
    for s in range(n):
        if view["active"][s] is False:
            counts.append(0)
            continue
        count = 5 + (1 if swedish and s == dealer else 0) - view["discarded"][s] + view["drawn"][s]
        buying_now = view["phase"] == "buy" and view["to_act"] == s and view["pending_discards"] > 0
        if not swedish and s == dealer and view["discarded"][s] > view["drawn"][s] and not buying_now:
            count += 1  # the russian dealer's extra discard, then the turned card taken in
        counts.append(max(0, count - played[s]))
    return counts


class _Canvas:
    """Pillow drawing in logical pixels (the picture's), drawn at ``_SS`` times the size."""

    def __init__(self) -> None:
        image, image_draw, _ = require_pillow()
        self._image_mod = image
        self.image = image.new("RGB", (WIDTH * _SS, HEIGHT * _SS), _FELT)
        self.draw = image_draw.Draw(self.image)

    @staticmethod
    def _box(x0: float, y0: float, x1: float, y1: float) -> list[int]:
        return [round(x0 * _SS), round(y0 * _SS), round(x1 * _SS), round(y1 * _SS)]

    def rect(
        self,
        box: tuple[float, float, float, float],
        fill: Any,
        outline: Any = None,
        width: float = 1,
        radius: float = 0,
    ) -> None:
        self.draw.rounded_rectangle(
            self._box(*box),
            radius=round(radius * _SS),
            fill=fill,
            outline=outline,
            width=max(1, round(width * _SS)) if outline is not None else 0,
        )

    def ellipse(self, box: tuple[float, float, float, float], fill: Any, outline: Any = None, width: float = 1) -> None:
        self.draw.ellipse(
            self._box(*box), fill=fill, outline=outline, width=max(1, round(width * _SS)) if outline is not None else 0
        )

    def polygon(self, points: list[tuple[float, float]], fill: Any) -> None:
        self.draw.polygon([(x * _SS, y * _SS) for x, y in points], fill=fill)

    def line(self, points: list[tuple[float, float]], fill: Any, width: float = 1) -> None:
        self.draw.line([(x * _SS, y * _SS) for x, y in points], fill=fill, width=max(1, round(width * _SS)))

    def text(self, xy: tuple[float, float], text: str, size: int, fill: Any = _TEXT, anchor: str = "la") -> None:
        self.draw.text((xy[0] * _SS, xy[1] * _SS), text, font=_font(size), fill=fill, anchor=anchor)

    def text_width(self, text: str, size: int) -> float:
        return self.draw.textlength(text, font=_font(size)) / _SS

    def array(self) -> np.ndarray:
        small = self.image.reduce(_SS)
        return np.asarray(small, dtype=np.uint8).copy()


# --------------------------------------------------------------------------- cards
def _suit(c: _Canvas, suit: str, cx: float, cy: float, size: float, fill: Any = None) -> None:
    """A suit pip drawn from circles and polygons, ``size`` high, centred on (cx, cy)."""
    fill = fill if fill is not None else (_RED if suit in "DH" else _INK)
    s = size
    if suit == "D":
        c.polygon([(cx, cy - s / 2), (cx + 0.38 * s, cy), (cx, cy + s / 2), (cx - 0.38 * s, cy)], fill)
    elif suit == "H":
        r = 0.25 * s
        top = cy - 0.2 * s
        c.ellipse((cx - 2 * r, top - r, cx, top + r), fill)
        c.ellipse((cx, top - r, cx + 2 * r, top + r), fill)
        c.polygon([(cx - 1.95 * r, top + 0.3 * r), (cx + 1.95 * r, top + 0.3 * r), (cx, cy + 0.5 * s)], fill)
    elif suit == "S":
        r = 0.24 * s
        low = cy + 0.1 * s
        c.ellipse((cx - 2 * r, low - r, cx, low + r), fill)
        c.ellipse((cx, low - r, cx + 2 * r, low + r), fill)
        c.polygon([(cx - 1.95 * r, low - 0.3 * r), (cx + 1.95 * r, low - 0.3 * r), (cx, cy - 0.5 * s)], fill)
        c.polygon([(cx, cy + 0.1 * s), (cx - 0.16 * s, cy + 0.5 * s), (cx + 0.16 * s, cy + 0.5 * s)], fill)
    else:  # clubs
        r = 0.2 * s
        for dx, dy in ((0, -0.27), (-0.24, 0.07), (0.24, 0.07)):
            x, y = cx + dx * s, cy + dy * s
            c.ellipse((x - r, y - r, x + r, y + r), fill)
        c.ellipse((cx - 0.12 * s, cy - 0.12 * s, cx + 0.12 * s, cy + 0.12 * s), fill)
        c.polygon([(cx, cy), (cx - 0.16 * s, cy + 0.5 * s), (cx + 0.16 * s, cy + 0.5 * s)], fill)


def _card(c: _Canvas, card: str, x: float, y: float, w: float, h: float, dim: bool = False) -> None:
    """A face-up card with its top-left corner at (x, y)."""
    rank, suit = _RANK_TEXT.get(card[0], card[0]), card[1]
    color = _RED if suit in "DH" else _INK
    c.rect((x, y, x + w, y + h), fill=(226, 226, 220) if dim else _WHITE, outline=(90, 90, 90), width=1, radius=w * 0.1)
    corner = max(9, round(h * 0.2))
    c.text((x + w * 0.1, y + h * 0.05), rank, corner, color)
    _suit(c, suit, x + w * 0.1 + corner * 0.35, y + h * 0.05 + corner * 1.55, corner * 0.7)
    c.text((x + w * 0.9, y + h * 0.95), rank, corner, color, anchor="rd")
    _suit(c, suit, x + w * 0.58, y + h * 0.58, min(w, h) * 0.5)


def _back(c: _Canvas, x: float, y: float, w: float, h: float) -> None:
    """The project's card back: a blue card with a grid of small diamonds inside a white frame."""
    c.rect((x, y, x + w, y + h), fill=_WHITE, outline=(60, 60, 60), width=1, radius=w * 0.12)
    m = max(2.0, w * 0.1)
    x0, y0, x1, y1 = x + m, y + m, x + w - m, y + h - m
    c.rect((x0, y0, x1, y1), fill=_BACK, radius=w * 0.06)
    cols = max(1, round((x1 - x0) / 7))
    rows = max(1, round((y1 - y0) / 7))
    dx, dy = (x1 - x0) / cols, (y1 - y0) / rows
    for i in range(cols):
        for j in range(rows):
            px, py = x0 + (i + 0.5) * dx, y0 + (j + 0.5) * dy
            c.polygon(
                [(px, py - dy * 0.38), (px + dx * 0.38, py), (px, py + dy * 0.38), (px - dx * 0.38, py)], _BACK_LINE
            )


def _empty_slot(c: _Canvas, x: float, y: float, w: float, h: float, label: str) -> None:
    c.rect((x, y, x + w, y + h), fill=None, outline=(90, 140, 105), width=1.5, radius=w * 0.1)
    c.text((x + w / 2, y + h / 2), label, 11, _MUTED, anchor="mm")


# --------------------------------------------------------------------------- table
_CX, _CY = 480, 330  # table centre
_RX, _RY = 372, 212  # ellipse the other seats sit on
_CARD_W, _CARD_H = 54, 76  # trick and turned cards
_PANEL_W, _PANEL_H = 164, 98


def _seat_angle(offset: int, n: int) -> float:
    """Angle of the seat ``offset`` places clockwise from the viewer (the viewer at the bottom)."""
    return math.pi / 2 + offset * 2 * math.pi / n


def _seat_status(view: dict[str, Any], s: int) -> tuple[str, Any]:
    active = view["active"][s]
    if active is True:
        return "knocked", _GOOD
    if active is False:
        return "passed", _MUTED
    return "undecided", _MUTED


def _badges(c: _Canvas, view: dict[str, Any], s: int, x: float, y: float) -> None:
    """Dealer (D) and forehand (F) chips, right-aligned at (x, y)."""
    for letter, who, fill in (("F", view["forehand"], (70, 130, 200)), ("D", view["dealer"], (235, 235, 235))):
        if who == s:
            c.ellipse((x - 18, y, x, y + 18), fill=fill, outline=_INK, width=1)
            c.text((x - 9, y + 9.5), letter, 11, _INK, anchor="mm")
            x -= 22


def _panel(c: _Canvas, view: dict[str, Any], s: int, count: int, cx: float, cy: float) -> None:
    """One other seat: name, role chips, knock/pass, score and tricks, its cards as backs."""
    x0, y0 = cx - _PANEL_W / 2, cy - _PANEL_H / 2
    to_act = view["to_act"] == s
    c.rect(
        (x0, y0, x0 + _PANEL_W, y0 + _PANEL_H),
        fill=_PANEL,
        outline=_TURN if to_act else _PANEL_OUT,
        width=3 if to_act else 1.5,
        radius=10,
    )
    c.text((x0 + 9, y0 + 7), f"player_{s}", 15, _TURN if to_act else _TEXT)
    _badges(c, view, s, x0 + _PANEL_W - 7, y0 + 6)
    status, color = _seat_status(view, s)
    c.text((x0 + 9, y0 + 28), status, 12, color)
    if to_act:
        c.text((x0 + _PANEL_W - 9, y0 + 28), "to act", 12, _TURN, anchor="ra")
    c.text((x0 + 9, y0 + 45), f"score {view['scores'][s]}   tricks {view['tricks'][s]}", 13)
    bw, bh = 18, 26
    for i in range(count):
        _back(c, x0 + 9 + i * 11, y0 + 64, bw, bh)
    label = f"x{count}" if count else "no cards"
    lx = x0 + 9 + (count - 1) * 11 + bw + 6 if count else x0 + 9
    c.text((lx, y0 + 77), label, 13, _TEXT, anchor="lm")
    if view["active"][s] and (view["discarded"][s] or view["drawn"][s]):
        c.text(
            (x0 + _PANEL_W - 9, y0 + 77), f"buy -{view['discarded'][s]} +{view['drawn'][s]}", 11, _MUTED, anchor="rm"
        )


def _header(c: _Canvas, view: dict[str, Any], n: int) -> None:
    c.rect((0, 0, WIDTH, 40), fill=_PANEL_OUT)
    title = f"Rams - {view['variant']}, {n} players   rams {view['rams'] + 1}, deal {view['deal'] + 1}"
    c.text((12, 20), title, 16, _TEXT, anchor="lm")
    phase = view["phase"]
    if phase == "over":
        words = "game over" if view["winners"] is not None else ("rams over" if view["rams_over"] else "deal over")
    else:
        words = _PHASE_TEXT.get(phase, phase)
    c.text((WIDTH / 2 + 70, 20), f"phase: {words}", 16, _TEXT, anchor="lm")
    c.text((WIDTH - 56, 20), "trump", 16, _TEXT, anchor="rm")
    c.ellipse((WIDTH - 48, 3, WIDTH - 14, 37), fill=_WHITE)
    _suit(c, view["trump"], WIDTH - 31, 20, 24)
    bids = view.get("bids") or []
    if bids:
        parts = []
        for b in bids:
            kind = "better cards" if b["bid"] == "better" else "swing"
            yes = [f"p{s}" for s, a in b["answers"] if a]
            no = [f"p{s}" for s, a in b["answers"] if not a]
            state = "pending" if not b["done"] else ("made" if b["happened"] else "failed")
            answer = ", ".join(
                x for x in (("yes: " + " ".join(yes)) if yes else "", ("no: " + " ".join(no)) if no else "") if x
            )
            parts.append(f"{kind} ({state}{'; ' + answer if answer else ''})")
        c.text((12, 47), "bids: " + "  |  ".join(parts), 12, _MUTED)


def _centre(c: _Canvas, view: dict[str, Any]) -> None:
    """Talon and turned card in the middle of the table."""
    y = _CY - _CARD_H / 2 - 6
    tx = _CX - _CARD_W - 14
    talon = view["talon"]
    if talon:
        for i in range(min(4, max(1, talon // 6))):
            _back(c, tx - i * 2, y - i * 2, _CARD_W, _CARD_H)
    else:
        _empty_slot(c, tx, y, _CARD_W, _CARD_H, "empty")
    c.text((tx + _CARD_W / 2, y + _CARD_H + 6), f"talon {talon}", 12, _TEXT, anchor="ma")
    ux = _CX + 14
    turned = view["turned_card"]
    if turned:
        _card(c, turned, ux, y, _CARD_W, _CARD_H)
        where = {"dealer": "dealer holds it", "table": "on the table"}.get(view.get("turned_card_at"), "")
        c.text((ux + _CARD_W / 2, y + _CARD_H + 6), "turned card", 12, _TEXT, anchor="ma")
        if where:
            c.text((ux + _CARD_W / 2, y + _CARD_H + 21), where, 11, _MUTED, anchor="ma")
    else:
        _empty_slot(c, ux, y, _CARD_W, _CARD_H, "gone")
        c.text((ux + _CARD_W / 2, y + _CARD_H + 6), "turned card", 12, _MUTED, anchor="ma")
    if not view["trick"] and view["completed_tricks"]:
        last = view["completed_tricks"][-1]
        played = "  ".join(f"p{s} {_RANK_TEXT.get(card[0], card[0])}{card[1]}" for s, card in last["cards"])
        c.text((_CX, y + _CARD_H + 40), f"last trick to player_{last['winner']}: {played}", 12, _MUTED, anchor="ma")


def _trick(c: _Canvas, view: dict[str, Any], viewer: int, n: int) -> None:
    """The trick in play: each card pushed from the centre towards the seat that played it."""
    for order, (s, card) in enumerate(view["trick"], 1):
        a = _seat_angle((s - viewer) % n, n)
        px, py = _CX + 0.52 * _RX * math.cos(a), _CY + 0.5 * _RY * math.sin(a) + 8
        x, y = px - _CARD_W / 2, py - _CARD_H / 2
        _card(c, card, x, y, _CARD_W, _CARD_H)
        label = f"{order}. " + ("you" if s == viewer else f"p{s}")
        w = c.text_width(label, 11) + 8
        c.rect((px - w / 2, y + _CARD_H + 2, px + w / 2, y + _CARD_H + 17), fill=_PANEL_OUT, radius=4)
        c.text((px, y + _CARD_H + 9.5), label, 11, _TURN if order == 1 else _TEXT, anchor="mm")


def _own_seat(c: _Canvas, view: dict[str, Any], viewer: int) -> None:
    """The viewer's panel and hand, face up, along the bottom."""
    top = 590
    to_act = view["to_act"] == viewer
    c.rect(
        (10, top, 230, HEIGHT - 10),
        fill=_PANEL,
        outline=_TURN if to_act else _PANEL_OUT,
        width=3 if to_act else 1.5,
        radius=10,
    )
    c.text((20, top + 9), f"player_{viewer} (you)", 16, _TURN if to_act else _TEXT)
    _badges(c, view, viewer, 222, top + 8)
    status, color = _seat_status(view, viewer)
    c.text((20, top + 34), status, 13, color)
    if to_act:
        c.text((220, top + 34), "your turn", 13, _TURN, anchor="ra")
    c.text((20, top + 56), f"score {view['scores'][viewer]}   tricks {view['tricks'][viewer]}", 14)
    extra = []
    if view["discarded"][viewer] or view["drawn"][viewer]:
        extra.append(f"discarded {view['discarded'][viewer]}, drew {view['drawn'][viewer]}")
    if view["flights"][viewer]:
        extra.append(f"flights {view['flights'][viewer]}")
    if extra:
        c.text((20, top + 80), "   ".join(extra), 12, _MUTED)
    hand = view["hand"]
    w, h, gap = 70, 100, 10
    x = 250
    if not hand:
        c.text((x + 10, top + 60), "no cards in hand", 16, _MUTED, anchor="lm")
    for i, card in enumerate(hand):
        _card(c, card, x + i * (w + gap), top + 10, w, h)


def _banner(c: _Canvas, view: dict[str, Any]) -> None:
    if view["phase"] != "over":
        return
    winners = view["winners"]
    if winners is not None:
        text = (
            "Game over - winner" + ("s" if len(winners) > 1 else "") + ": " + ", ".join(f"player_{s}" for s in winners)
        )
    else:
        text = "Rams over" if view["rams_over"] else "Deal over"
    w = c.text_width(text, 20) + 40
    c.rect((_CX - w / 2, 540, _CX + w / 2, 576), fill=_PANEL_OUT, outline=_TURN, width=2, radius=10)
    c.text((_CX, 558), text, 20, _TURN, anchor="mm")


def render_view(view: dict[str, Any]) -> np.ndarray:
    """The table as ``view`` (one seat's ``view()`` dict) shows it: a ``(720, 960, 3)`` uint8 array."""
    n = len(view["scores"])
    viewer = view["seat"]
    c = _Canvas()
    c.ellipse((_CX - _RX - 30, _CY - _RY - 30, _CX + _RX + 30, _CY + _RY + 30), fill=_TABLE, outline=_RIM, width=8)
    _header(c, view, n)
    counts = hand_counts(view)
    for offset in range(1, n):
        s = (viewer + offset) % n
        a = _seat_angle(offset, n)
        _panel(c, view, s, counts[s], _CX + _RX * math.cos(a), _CY + _RY * math.sin(a))
    _centre(c, view)
    _trick(c, view, viewer, n)
    _own_seat(c, view, viewer)
    _banner(c, view)
    return c.array()
