"""Checks of the training scripts' options: one error line naming the option and what it accepts.

Every check raises :class:`OptionError` (a ``ValueError``) whose message starts with the option
(``--lr must be a finite number above 0, got nan``). Each script's arguments dataclass runs its
check (:func:`improve_options`, :func:`distill_options`, :func:`fit_equity_options`) in
``__post_init__``, so :func:`training.options.parse` turns the error into ``parser.error`` (the
usage line, the error line, exit status 2) before any collection, network allocation or file write.

Networks are limited to :data:`MAX_PARAMETERS` parameters, counted from the widths before torch
allocates anything; seeds to 0 .. :data:`MAX_SEED`.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

from rams_env.obs.encoding import OBS_SIZE
from rams_env.rules import make_config
from rams_env.rules.actions import NUM_ACTIONS
from rams_env.rules.config import RulesConfig

MAX_PARAMETERS = 50_000_000
"""the largest network a script builds: 50 million float32 parameters, 0.8 GB with their gradients
and Adam's two moments (16 bytes a parameter) before any batch"""

MAX_SEED = 2**32 - 1
"""the largest seed a script takes (scripts derive per-shard seeds from it, which must stay below 2**64)"""


class OptionError(ValueError):
    """A bad option of a training script; the message names the option and what it accepts."""


def flag(name: str) -> str:
    """The command-line spelling of an option: ``held_out`` -> ``--held-out``."""
    return name if name.startswith("--") else "--" + name.replace("_", "-")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def at_least(name: str, value: Any, low: int = 1) -> int:
    """``value``, an integer of at least ``low``."""
    if not _is_int(value) or value < low:
        raise OptionError(f"{flag(name)} must be an integer of at least {low}, got {value!r}")
    return value


def share(name: str, value: Any, below_one: bool = False) -> float:
    """``value``, a finite share from 0 to 1 (below 1 if ``below_one``)."""
    top = "below 1" if below_one else "1"
    ok = _is_number(value) and math.isfinite(value) and 0.0 <= value <= 1.0 and not (below_one and value == 1.0)
    if not ok:
        raise OptionError(f"{flag(name)} must be a share from 0 to {top}, got {value!r}")
    return float(value)


def positive(name: str, value: Any) -> float:
    """``value``, a finite number above 0 (a learning rate, a scale)."""
    if not _is_number(value) or not math.isfinite(value) or value <= 0:
        raise OptionError(f"{flag(name)} must be a finite number above 0, got {value!r}")
    return float(value)


def non_negative(name: str, value: Any) -> float:
    """``value``, a finite number of at least 0 (a weight that 0 turns off)."""
    if not _is_number(value) or not math.isfinite(value) or value < 0:
        raise OptionError(f"{flag(name)} must be a finite number of at least 0, got {value!r}")
    return float(value)


def seed(name: str, value: Any) -> int:
    """``value``, a seed from 0 to :data:`MAX_SEED` (a Python or numpy integer, not a bool)."""
    if not isinstance(value, bool) and hasattr(value, "__index__"):
        value = operator.index(value)
    if not _is_int(value) or not 0 <= value <= MAX_SEED:
        raise OptionError(f"{flag(name)} must be a seed from 0 to {MAX_SEED}, got {value!r}")
    return value


def device(name: str, value: Any) -> str:
    """``value``, a torch device the script trains on: cpu, or cuda where torch finds a CUDA device
    (:func:`training.shards.check_device`, the one home of that check)."""
    from .shards import check_device

    try:
        check_device(value)
    except ValueError as err:
        raise OptionError(str(err).replace("--device", flag(name), 1)) from None
    return value


def hidden(name: str, value: Any) -> tuple[int, ...]:
    """Hidden widths, from ``"256,256"`` or a sequence of ints: each at least 1."""
    try:
        widths = tuple(int(h) for h in value.split(",")) if isinstance(value, str) else tuple(value)
    except (TypeError, ValueError):
        widths = ()
    if not widths or not all(_is_int(w) and w >= 1 for w in widths):
        raise OptionError(f"{flag(name)} must be layer widths of at least 1 joined by commas (256,256), got {value!r}")
    return widths


def network_parameters(obs_size: int, num_actions: int, widths: Sequence[int]) -> int:
    """The parameters of ``PolicyNet(obs_size, num_actions, widths)``: the torso, the policy and value heads."""
    total, width = 0, obs_size
    for h in widths:
        total += width * h + h
        width = h
    return total + width * num_actions + num_actions + width + 1


def network_size(name: str, widths: Sequence[int], limit: int = MAX_PARAMETERS) -> int:
    """The parameter count of a policy network of hidden ``widths``, refused above ``limit``."""
    count = network_parameters(OBS_SIZE, NUM_ACTIONS, widths)
    if count > limit:
        raise OptionError(
            f"{flag(name)} {','.join(map(str, widths))} makes a network of {count:,} parameters; "
            f"the limit is {limit:,} (16 bytes each to train, with Adam)"
        )
    return count


def rules(variant: Any, num_players: Any) -> RulesConfig:
    """The preset ``variant`` at ``num_players``: an unknown preset or player count names its option."""
    try:
        return make_config(variant, num_players)
    except (TypeError, ValueError) as err:
        option = "--num-players" if "player" in str(err) else "--variant"
        raise OptionError(f"{option}: {err}") from None


def model(name: str, value: Any, config: RulesConfig | None = None) -> Any:
    """The checkpoint payload of a zoo name, checkpoint or ensemble member file ``value``, for ``config``."""
    from rams_env.policy.checkpoint import load_checkpoint
    from rams_env.zoo import locate

    try:
        return load_checkpoint(locate(value), expect_config=config)
    except (OSError, ValueError) as err:
        raise OptionError(f"{flag(name)} {value!r}: {err}") from None


def policy(name: str, value: Any, config: RulesConfig | None = None) -> Any:
    """The policy agent (with ``act_batch``) of a zoo name, checkpoint or ensemble manifest ``value``."""
    from rams_env.agents import load_agent
    from rams_env.zoo import locate

    try:
        agent = load_agent(locate(value), expect_config=config)
    except (OSError, ValueError) as err:
        raise OptionError(f"{flag(name)} {value!r}: {err}") from None
    if not callable(getattr(agent, "act_batch", None)):
        raise OptionError(f"{flag(name)} {value!r} is not a policy that acts on batches")
    return agent


def agent_spec(name: str, spec: Any, config: RulesConfig, seed_value: int = 0) -> Any:
    """The agent of an agent spec (as ``rams eval`` takes it), built once for ``config`` so that a bad
    spec or a bad value in it (``search:simulations=-1``) is refused now, not after the first shard."""
    from rams_env.agents.specs import build_agent
    from rams_env.eval import agent_source

    try:
        return build_agent(agent_source(spec, config), seed_value)
    except (OSError, TypeError, ValueError) as err:
        raise OptionError(f"{flag(name)} {spec!r}: {err}") from None


def known(name: str, values: Sequence[str], allowed: Sequence[str]) -> list[str]:
    """``values``, each one of ``allowed``."""
    unknown = sorted(set(values) - set(allowed))
    if unknown:
        raise OptionError(f"{flag(name)}: unknown {', '.join(unknown)}; known: {', '.join(allowed)}")
    return list(values)


# ------------------------------------------------------------------------------- per script
def improve_options(args: Any) -> None:
    """Every option of ``python -m training.improve`` (its ``--base`` and ``--init-from`` are loaded there)."""
    for name in ("ramsar", "shard", "epochs", "threads"):
        at_least(name, getattr(args, name))
    for name in ("explore", "record", "random_start"):
        share(name, getattr(args, name))
    share("held_out", args.held_out, below_one=True)
    positive("lr", args.lr)
    positive("scale", args.scale)
    seed("seed", args.seed)
    device("device", args.device)
    rules(args.variant, args.num_players)
    if args.init_from is None:  # a new network: its size is known before torch allocates it
        network_size("hidden", hidden("hidden", args.hidden))
    else:
        hidden("hidden", args.hidden)


def distill_options(args: Any) -> None:
    """Every option of ``python -m training.distill``: sizes, rates, seed, device, rules, student and expert."""
    for name in ("decisions", "shard", "epochs", "threads"):
        at_least(name, getattr(args, name))
    positive("lr", args.lr)
    non_negative("kl", args.kl)
    seed("seed", args.seed)
    device("device", args.device)
    config = rules(args.variant, args.num_players)
    model("student", args.student, config)
    agent_spec("expert", args.expert, config)


def fit_equity_options(args: Any, keys: Sequence[str]) -> None:
    """Every option of ``python training/fit_equity.py`` (``keys``: the model keys ``--only`` may name)."""
    at_least("train", args.train)
    at_least("test", args.test)
    seed("seed", args.seed)
    non_negative("smooth", args.smooth)
    non_negative("ridge", args.ridge)
    known("only", [k for k in args.only.split(",") if k], keys)
