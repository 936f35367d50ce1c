"""Draw docs/table.png, the frame shown in the README: ``python docs/make_table_png.py``."""

from __future__ import annotations

import random
from pathlib import Path

from PIL import Image

import rams_env
from rams_env import Action


def main() -> None:
    env = rams_env.env(variant="mattmar", num_players=5, episode="rams", render_mode="rgb_array")
    env.reset(seed=5)
    rng = random.Random(5)
    raw = env.unwrapped
    # Random play (knocking most of the time) until, after a first trick, a trick's fourth card is due.
    while True:
        view = raw.view(env.agent_selection)
        if view["phase"] == "play" and len(view["trick"]) == 3 and view["completed_tricks"]:
            break
        legal = raw.legal_actions()
        env.step(Action.KNOCK if Action.KNOCK in legal and rng.random() < 0.8 else rng.choice(legal))
    Image.fromarray(env.render()).save(Path(__file__).with_name("table.png"), optimize=True)


if __name__ == "__main__":
    main()
