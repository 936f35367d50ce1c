"""The training scripts' checks of what an option names: rules, a device, a network's size, a model, an agent.

Each field's type and range (a number's bounds, a seed by :func:`rams_env.rules.seeding.check_seed`) is
declared on the field of the script's arguments dataclass and checked by
:func:`rams_env.options.check_fields`; what needs more than a range is checked here. Every check raises
:class:`OptionError` (a ``ValueError``) whose message starts with the option (``--device tpu: ...``).
Each script's dataclass calls these in its ``__post_init__``, so :func:`rams_env.options.parse` turns the
error into ``parser.error`` (the usage line, the error line, exit status 2) before any collection,
network allocation or file write.

Networks are limited to :data:`MAX_PARAMETERS` parameters, counted from the widths before torch
allocates anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rams_env.obs.encoding import OBS_SIZE
from rams_env.options import option_name
from rams_env.rules import make_config
from rams_env.rules.actions import NUM_ACTIONS
from rams_env.rules.config import ConfigError, RulesConfig

MAX_PARAMETERS = 50_000_000
"""the largest network a script builds: 50 million float32 parameters, 0.8 GB with their gradients
and Adam's two moments (16 bytes a parameter) before any batch"""


class OptionError(ValueError):
    """A bad option of a training script; the message names the option and what it accepts."""


def flag(name: str) -> str:
    """The command-line spelling of an option: ``held_out`` -> ``--held-out``."""
    return name if name.startswith("--") else option_name(name)


def device(name: str, value: Any) -> str:
    """``value``, a torch device the script trains on: cpu, or cuda where torch finds a CUDA device
    (:func:`rams_training.shards.check_device`, the one home of that check)."""
    from .shards import check_device

    try:
        check_device(value)
    except ValueError as err:
        raise OptionError(str(err).replace("--device", flag(name), 1)) from None
    return value


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
        option = "--num-players" if isinstance(err, ConfigError) and err.option == "num_players" else "--variant"
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
