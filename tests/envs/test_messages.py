"""Messages a newcomer meets: an illegal action lists the legal ones by name and id; rgb_array without
Pillow names ``rams_env[render]``, and without moviepy still draws (only RecordVideo needs it); the files
the README's examples write are ignored by git."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

import rams_env
from rams_env.rules import Action, Game, IllegalActionError, make_config

ROOT = Path(__file__).resolve().parents[2]


def test_an_illegal_action_lists_the_legal_ones_by_name_and_id() -> None:
    game = Game(make_config("mattmar", 4), seed=0)
    legal = game.legal_actions()
    assert Action.BID_BETTER in legal
    with pytest.raises(IllegalActionError) as caught:
        game.apply(0)
    message = str(caught.value)
    assert "BID_BETTER (54)" in message
    assert message.endswith("legal: " + ", ".join(f"{Action(a).name} ({a})" for a in legal))


def test_the_env_says_the_same(capsys: pytest.CaptureFixture) -> None:
    env = rams_env.env(illegal_action="raise")
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match=r"legal: BID_BETTER \(54\), BID_SWING \(55\)"):
        env.step(0)


def test_rgb_array_without_moviepy_draws_and_passes_gymnasiums_check_env(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Pillow draws a frame; moviepy is only Gymnasium's RecordVideo's (it raises its own error without it)."""
    monkeypatch.setitem(sys.modules, "moviepy", None)  # import moviepy now fails, as when it is not installed
    env = gymnasium.make("rams_env/Rams-v1", variant="mattmar", num_players=4, render_mode="rgb_array")
    env.reset(seed=0)
    assert env.render().shape == (720, 960, 3)
    check_env(gymnasium.make("rams_env/Rams-v1").unwrapped)  # makes an env with each declared render mode
    videos = str(tmp_path / "videos")
    with pytest.raises(gymnasium.error.DependencyNotInstalled, match=r"(?i)moviepy is not installed"):
        gymnasium.wrappers.RecordVideo(env, videos, episode_trigger=lambda episode: True, disable_logger=True)


def test_rgb_array_without_pillow_names_the_render_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "PIL", None)  # import PIL now fails, as when Pillow is not installed
    with pytest.raises(ImportError, match=r'needs Pillow: pip install "rams_env\[render\]"'):
        gymnasium.make("rams_env/Rams-v1", variant="mattmar", num_players=4, render_mode="rgb_array")


def test_the_files_the_examples_write_are_ignored_by_git() -> None:
    written = ["videos/rl-video-episode-0.mp4", "runs/quick-mattmar/args.json", "h.json", "h.png", "deal.json",
               "games/rams-mattmar.json", "screenshots/serve-play.png", "rams_env_rules.json"]  # fmt: skip
    found = subprocess.run(
        ["git", "check-ignore", "--no-index", *written], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert sorted(found.stdout.split()) == sorted(written)
