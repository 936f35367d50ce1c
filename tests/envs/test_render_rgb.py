"""render_mode="rgb_array": a fixed-size uint8 picture of the table, drawn from one seat's view()."""

from __future__ import annotations

import itertools
import json
import random
import subprocess
import sys
from pathlib import Path

import gymnasium
import imageio_ffmpeg
import moviepy  # noqa: F401  (RecordVideo needs it: part of the render extra, so of dev)
import numpy as np
import pytest

import rams_env
from rams_env.envs import RamsGymEnv
from rams_env.envs.render_rgb import SHAPE, hand_counts, render_view
from rams_env.rules.actions import Action
from rams_env.rules.cards import card_name

PLAYERS = {"mattmar": range(3, 8), "norrlandsknack": range(3, 8), "rams32": range(3, 7), "russian": range(3, 8)}
CASES = [(v, n) for v, ns in PLAYERS.items() for n in ns]
ROOT = Path(__file__).resolve().parents[2]


def _play(e, rng: random.Random, knock: float = 0.8):
    """Random legal play (knocking more often than not, so that tricks get played); yields each state."""
    raw = e.unwrapped
    yield
    while not e.terminations[e.agent_selection]:
        legal = raw.legal_actions()
        e.step(Action.KNOCK if Action.KNOCK in legal and rng.random() < knock else rng.choice(legal))
        yield


@pytest.mark.parametrize(("variant", "n"), CASES)
def test_shape_dtype_and_fixed_size(variant, n):
    e = rams_env.env(variant=variant, num_players=n, episode="rams", render_mode="rgb_array")
    e.reset(seed=n)
    rng = random.Random(n)
    pictures = 0
    for i, _ in enumerate(_play(e, rng)):
        if i % 7 == 0 or e.terminations[e.agent_selection]:
            img = e.render()
            assert isinstance(img, np.ndarray)
            assert img.shape == SHAPE == (720, 960, 3)
            assert img.dtype == np.uint8
            pictures += 1
        if i > 120:
            break
    assert pictures >= 2


def test_render_is_the_view_of_the_seat_to_act_and_nothing_else(monkeypatch):
    e = rams_env.env(variant="mattmar", num_players=4, render_mode="rgb_array")
    e.reset(seed=11)
    raw = e.unwrapped
    for _ in range(3):
        e.step(raw.legal_actions()[0])
    view = raw.view(e.agent_selection)
    assert np.array_equal(e.render(), render_view(view))
    # The picture is a function of the dict alone: a JSON copy draws the same picture...
    assert np.array_equal(render_view(json.loads(json.dumps(view))), render_view(view))
    # ...and render() reads nothing but view(): give it another state's view and it draws that one.
    other = rams_env.env(variant="russian", num_players=6, render_mode="rgb_array")
    other.reset(seed=2)
    foreign = other.unwrapped.view(other.agent_selection)
    monkeypatch.setattr(raw, "view", lambda agent: foreign)
    assert np.array_equal(e.render(), render_view(foreign))


def _deck_for(dealer: int, n: int, hands: dict[int, list[str]], turned: str, rest: list[str]) -> list[str]:
    """A mattmar deck dealing ``hands`` (5 cards each) with ``turned`` turned up (docs/rules.md "Dealing")."""
    order = [(dealer + 1 + i) % n for i in range(n)]
    deck = [c for s in order for c in hands[s][:3]] + [turned] + [c for s in order for c in hands[s][3:]]
    return deck + rest


def test_hidden_cards_never_change_the_picture():
    """Two deals that differ only in cards seat 1 cannot see (other hands, the talon) look the same to it."""
    n, dealer = 4, 0
    all_cards = [card_name(i) for i in range(52)]
    hands = {s: all_cards[5 * s : 5 * s + 5] for s in range(n)}
    turned, rest = all_cards[20], all_cards[21:]
    first = _deck_for(dealer, n, hands, turned, rest)
    # Swap a card between seats 2 and 3, and one of seat 0's with the talon's top card.
    hands2 = {s: list(h) for s, h in hands.items()}
    hands2[2][0], hands2[3][4] = hands2[3][4], hands2[2][0]
    rest2 = list(rest)
    hands2[0][1], rest2[0] = rest2[0], hands2[0][1]
    second = _deck_for(dealer, n, hands2, turned, rest2)
    assert first != second and sorted(first) == sorted(second)

    pictures = []
    for deck in (first, second):
        e = rams_env.env(variant="mattmar", num_players=n, render_mode="rgb_array")
        e.reset(seed=5, options={"deck": deck, "dealer": dealer})
        assert e.agent_selection == "player_1"  # forehand bids first
        assert e.unwrapped.view(1)["hand"] == sorted(hands[1], key=rams_env.card_index)
        pictures.append((e.render(), render_view(e.unwrapped.view(2))))
    (own1, seat2_1), (own2, seat2_2) = pictures
    assert np.array_equal(own1, own2)  # seat 1 sees the same table
    assert not np.array_equal(seat2_1, seat2_2)  # while seat 2's own hand, drawn face up, differs


def test_picture_changes_with_the_state():
    e = rams_env.env(variant="rams32", num_players=4, render_mode="rgb_array")
    e.reset(seed=3)
    rng = random.Random(3)
    pictures = [e.render() for _ in _play(e, rng)]
    assert len(pictures) > 10
    changed = sum(not np.array_equal(a, b) for a, b in itertools.pairwise(pictures))
    assert changed == len(pictures) - 1  # every action shows: a new seat to act, a card played, ...
    # The same view seen from another seat is another picture (its own hand face up).
    view = e.unwrapped.view(0)
    assert not np.array_equal(render_view(view), render_view(e.unwrapped.view(1)))


def test_small_changes_of_the_view_show():
    e = rams_env.env(variant="mattmar", num_players=5)
    e.reset(seed=8)
    view = e.unwrapped.view(e.agent_selection)
    base = render_view(view)
    for key, value in [
        ("scores", [9, *view["scores"][1:]]),
        ("tricks", [1, *view["tricks"][1:]]),
        ("active", [True, False, *view["active"][2:]]),
        ("talon", view["talon"] - 1),
        ("trump", "D" if view["trump"] != "D" else "C"),
        ("turned_card", None),
        ("to_act", (view["to_act"] + 1) % 5),
        ("hand", view["hand"][1:]),
        ("trick", [[(view["seat"] + 1) % 5, "AS"]]),
    ]:
        changed = dict(view, **{key: value})
        assert not np.array_equal(render_view(changed), base), key


@pytest.mark.parametrize("variant", list(PLAYERS))
def test_hand_counts_from_public_facts_match_the_game(variant):
    for n in (3, 5):
        e = rams_env.env(variant=variant, num_players=n, episode="rams", engine="reference")
        e.reset(seed=20 + n)
        rng = random.Random(n)
        game = e.unwrapped.game
        for i, _ in enumerate(_play(e, rng, knock=0.6)):
            if game.phase.name in ("DEAL_OVER", "GAME_OVER"):
                continue
            counts = hand_counts(game.view(i % n))
            assert counts == [len(h) for h in game.hands], (i, game.view(0))
            if i > 400:
                break


def test_episode_end_is_drawn_from_the_last_seat_to_act():
    e = rams_env.env(variant="norrlandsknack", num_players=3, render_mode="rgb_array")
    e.reset(seed=4)
    last = None
    for _ in _play(e, random.Random(4)):
        if not e.terminations[e.agent_selection]:
            last = e.agent_selection
    agent = e.agent_selection
    assert e.terminations[agent] and agent == last
    view = e.unwrapped.view(agent)
    assert view["phase"] == "over"
    assert np.array_equal(e.render(), render_view(view))


def test_gymnasium_wrapper_draws_the_learners_seat():
    env = RamsGymEnv(variant="mattmar", num_players=4, learner_seat=2, render_mode="rgb_array")
    env.reset(seed=1)
    assert np.array_equal(env.render(), render_view(env.aec.view(2)))
    terminated = False
    while not terminated:
        legal = np.flatnonzero(env.action_masks())
        _, _, terminated, _, _ = env.step(int(legal[0]))
        assert np.array_equal(env.render(), render_view(env.aec.view(2)))
    assert "rgb_array" in RamsGymEnv.metadata["render_modes"] and RamsGymEnv.metadata["render_fps"] > 0


def test_metadata_lists_rgb_array():
    raw = rams_env.raw_env()
    assert "rgb_array" in raw.metadata["render_modes"] and raw.metadata["render_fps"] > 0


def test_record_video_writes_an_episode(tmp_path):
    env = gymnasium.make("rams_env/Rams-v1", variant="russian", num_players=4, render_mode="rgb_array")
    env = gymnasium.wrappers.RecordVideo(
        env, str(tmp_path / "videos"), episode_trigger=lambda _: True, disable_logger=True
    )
    env.reset(seed=0)
    steps, done = 0, False
    while not done:
        legal = np.flatnonzero(env.unwrapped.action_masks())
        _, _, terminated, truncated, _ = env.step(int(legal[-1]))
        steps += 1
        done = terminated or truncated
    env.close()
    videos = list((tmp_path / "videos").glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 0
    reader = imageio_ffmpeg.read_frames(str(videos[0]))
    meta = next(reader)
    assert tuple(meta["size"]) == (960, 720)
    assert sum(1 for _ in reader) == steps + 1  # the frame after reset, then one per step


def test_missing_pillow_names_the_extra(monkeypatch):
    for name in ("PIL", "PIL.Image", "PIL.ImageDraw", "PIL.ImageFont"):
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(ImportError, match=r"rams_env\[render\]"):
        rams_env.env(render_mode="rgb_array")
    rams_env.env(render_mode="ansi")  # the other modes do not need it


def test_import_does_not_load_the_renderer():
    code = "import sys, rams_env; assert not {'rams_env.envs.render_rgb', 'PIL.ImageDraw'} & set(sys.modules)"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_readme_frame_exists():
    from PIL import Image

    with Image.open(ROOT / "docs" / "table.png") as img:
        assert img.size == (960, 720)
    assert "docs/table.png" in (ROOT / "README.md").read_text()


def test_environment_card_snippet_writes_a_video(tmp_path, monkeypatch):
    text = (ROOT / "docs" / "environment.md").read_text(encoding="utf-8")
    start = text.index("## Seeing the table")
    begin = text.index("```python\n", start) + len("```python\n")
    code = text[begin : text.index("```", begin)]
    assert "RecordVideo" in code
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "docs/environment.md rgb_array snippet", "exec"), {"__name__": "readme_snippet"})
    assert (tmp_path / "videos" / "rl-video-episode-0.mp4").stat().st_size > 0
