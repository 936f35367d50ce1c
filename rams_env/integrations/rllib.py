"""RLlib (new API stack): Rams as a turn-based ``MultiAgentEnv`` and a PPO RLModule that masks illegal actions.

``ppo_config()`` puts them together: multi-agent PPO with one policy shared by every seat. ``init_ray``
starts or joins Ray (``RAY_ADDRESS`` honoured), ``build_algo`` refuses a configuration the cluster
has too few free CPUs for (RLlib would wait for them forever), and ``load_rllib_agent`` turns a
checkpoint saved with ``algo.save_to_path`` into an agent for the evaluation harness and ``rams eval``.
Needs the ``rams_env[rllib]`` extra (Ray with RLlib's dependencies).
"""

from __future__ import annotations

import inspect
import json
import logging
import os
import pickle
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import ray
import torch
from ray.rllib.algorithms.algorithm import Algorithm
from ray.rllib.algorithms.algorithm_config import AlgorithmConfig
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module import MultiRLModuleSpec, RLModuleSpec
from ray.rllib.core.rl_module.apis import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from torch import nn

from .. import jsoncheck
from ..envs.aec import RamsEnv
from ..envs.gym_vector import RamsVectorEnv
from ..obs.encoding import OBS_SIZE
from ..policy import CheckpointError, RulesMismatchError, rules_mismatch
from ..policy.checkpoint import first_layer_for_this_encoder
from ..rules import NUM_ACTIONS, IllegalActionError, RulesConfig
from ..rules.config import OPTION_NAMES
from ..rules.spec import EnvSpec, make_spec

SHARED_POLICY = "shared"
SINGLE_AGENT_POLICY = "default_policy"  # RLlib's DEFAULT_MODULE_ID: the one module of a single-agent algorithm
DEFAULT_HIDDEN = (128, 128)
# The module's hidden activation by name (model_config["activation"]): "relu" is the project's PolicyNet,
# which warm_start copies in; "tanh", RLlib's own default for MLPs, stays the default so old checkpoints load.
ACTIVATIONS: dict[str, type[nn.Module]] = {"tanh": nn.Tanh, "relu": nn.ReLU}
DEFAULT_ACTIVATION = "tanh"
# Logit of an illegal action: exp() of it is exactly 0, and it stays finite so that PPO's KL and entropy do too.
MASKED_LOGIT = -1e9


class RamsMultiAgentEnv(MultiAgentEnv):
    """Rams for RLlib's ``MultiAgentEnv``: only the seat to act gets an observation.

    ``config`` holds the keywords of :func:`rams_env.env` (``variant``, ``num_players``, ``episode``...).
    Every step reports that step's reward of every seat (RLlib credits each to the seat's last
    action); when the episode ends every seat gets its final observation. A game that is over at
    ``reset()`` (russian: going out on jacks at the deal) is skipped, as nobody had a decision.

    An illegal action ends the episode by default (``illegal_action="terminate"``, as the Gymnasium
    wrapper and PettingZoo's classic games do): the offender gets ``illegal_reward`` (default -1),
    the others 0, and its info names the action. RLlib's env checker steps with an unmasked action
    sampled from the action space, so it passes on this env as it is. ``{"illegal_action": "raise"}``
    raises ``IllegalActionError`` instead, its message naming this setting.
    """

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        self.aec = RamsEnv(**{"illegal_action": "terminate", **dict(config or {})})
        self.possible_agents = list(self.aec.possible_agents)
        self.agents = list(self.possible_agents)
        self.observation_spaces = {a: self.aec.observation_space(a) for a in self.possible_agents}
        self.action_spaces = {a: self.aec.action_space(a) for a in self.possible_agents}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed, options=options)  # RLlib's (Gymnasium's) seed check, then the AEC env's
        self.aec.reset(seed=seed, options=options)
        while self.aec.terminations[self.aec.agent_selection]:
            self.aec.reset()
        agent = self.aec.agent_selection
        return {agent: self.aec.observe(agent)}, {agent: dict(self.aec.infos[agent])}

    def step(self, action_dict: Mapping[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        aec = self.aec
        agent = aec.agent_selection
        if agent not in action_dict:
            raise ValueError(f"{agent} is to act, but the actions are for {sorted(action_dict)}")
        try:
            aec.step(int(action_dict[agent]))
        except IllegalActionError as err:  # only under illegal_action="raise"
            raise IllegalActionError(
                f"{err} (RamsMultiAgentEnv raises on an illegal action under env_config "
                '{"illegal_action": "raise"}; the default, "terminate", ends the episode with illegal_reward)'
            ) from None
        rewards = {a: float(aec.rewards[a]) for a in self.possible_agents}
        if all(aec.terminations.values()):
            everyone = self.possible_agents
            observations = {a: aec.observe(a) for a in everyone}
            infos = {a: dict(aec.infos[a]) for a in everyone}
            terminateds = {**dict.fromkeys(everyone, True), "__all__": True}
            return observations, rewards, terminateds, {"__all__": False}, infos
        nxt = aec.agent_selection
        return {nxt: aec.observe(nxt)}, rewards, {"__all__": False}, {"__all__": False}, {nxt: dict(aec.infos[nxt])}

    def render(self) -> str | None:
        return self.aec.render()


class MaskedPPOModule(TorchRLModule, ValueFunctionAPI):
    """Actor-critic MLP on ``obs["observation"]``; the logits of actions outside ``obs["action_mask"]`` are masked.

    ``model_config``: ``{"hidden": [widths of the shared hidden layers], "activation": "tanh" or "relu"}``.
    """

    def setup(self) -> None:
        space = self.observation_space
        if not isinstance(space, gymnasium.spaces.Dict) or set(space.spaces) != {"observation", "action_mask"}:
            raise ValueError(f'MaskedPPOModule needs a Dict space with "observation" and "action_mask", got {space}')
        hidden = tuple(int(h) for h in dict(self.model_config or {}).get("hidden", DEFAULT_HIDDEN))
        if not hidden or min(hidden) < 1:
            raise ValueError(f"model_config['hidden'] must be positive layer widths, got {hidden}")
        self.activation = activation_name(dict(self.model_config or {}).get("activation", DEFAULT_ACTIVATION))
        layers: list[nn.Module] = []
        width = int(np.prod(space["observation"].shape))
        for h in hidden:
            layers += [nn.Linear(width, h), ACTIVATIONS[self.activation]()]
            width = h
        self.torso = nn.Sequential(*layers)
        self.pi = nn.Linear(width, int(self.action_space.n))
        self.vf = nn.Linear(width, 1)

    def _masked_logits(self, obs: Mapping[str, torch.Tensor], features: torch.Tensor) -> torch.Tensor:
        return self.pi(features).masked_fill(obs["action_mask"] == 0, MASKED_LOGIT)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        return {Columns.ACTION_DIST_INPUTS: self._masked_logits(obs, self.torso(obs["observation"]))}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        features = self.torso(obs["observation"])
        # The value head reuses these features in compute_values (PPO's learner passes them back).
        return {Columns.ACTION_DIST_INPUTS: self._masked_logits(obs, features), Columns.EMBEDDINGS: features}

    def compute_values(self, batch: dict[str, Any], embeddings: torch.Tensor | None = None) -> torch.Tensor:
        if embeddings is None:
            embeddings = self.torso(batch[Columns.OBS]["observation"])
        return self.vf(embeddings).squeeze(-1)


def activation_name(name: Any) -> str:
    """``name`` if it is one of ``ACTIVATIONS``; ``ValueError`` naming the choices otherwise."""
    if not isinstance(name, str) or name not in ACTIVATIONS:  # a list from a crafted file is unhashable
        shown = repr(name) if isinstance(name, str) else jsoncheck.short(name)
        raise ValueError(f"model_config['activation'] must be one of {sorted(ACTIVATIONS)}, got {shown}")
    return str(name)


def shared_policy(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """Policy mapping: every seat plays the one shared policy."""
    return SHARED_POLICY


def masked_module_spec(hidden: Sequence[int] = DEFAULT_HIDDEN, activation: str = DEFAULT_ACTIVATION) -> RLModuleSpec:
    """The spec of a :class:`MaskedPPOModule` of ``hidden`` widths and ``activation`` (checked here)."""
    model_config = {"hidden": [int(h) for h in hidden], "activation": activation_name(activation)}
    return RLModuleSpec(module_class=MaskedPPOModule, model_config=model_config)


def ppo_config(
    env_config: Mapping[str, Any] | None = None,
    hidden: Sequence[int] = DEFAULT_HIDDEN,
    activation: str = DEFAULT_ACTIVATION,
) -> PPOConfig:
    """Multi-agent PPO on Rams with one masked policy shared by every seat; chain further RLlib settings on it.

    ``env_config`` holds the keywords of :func:`rams_env.env`; bad ones raise ``ValueError`` here,
    before Ray starts anything. ``activation="relu"`` builds the module that :func:`warm_start` fills.
    """
    env_config = dict(env_config or {})
    RamsEnv(**env_config)  # validate now rather than inside a remote env runner
    module = masked_module_spec(hidden, activation)
    # RLlib's env check passes (an illegal action ends the episode), but it resets every env runner's env
    # with seed 42, so that all of them would then play the same deals: it is switched off.
    return (
        PPOConfig()
        .environment(RamsMultiAgentEnv, env_config=env_config, disable_env_checking=True)
        .multi_agent(policies={SHARED_POLICY}, policy_mapping_fn=shared_policy)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={SHARED_POLICY: module}))
    )


class RLlibAgent:
    """A trained RLlib module as a Rams agent: ``act(observation)`` takes the most likely legal action.

    ``config`` (optional) records the rules it was trained for; ``load_rllib_agent`` sets it, and with
    it ``variant`` and ``num_players`` as a checkpoint agent has them.
    """

    def __init__(self, module: TorchRLModule, config: RulesConfig | None = None) -> None:
        self.module = module
        self.config = config
        if config is not None:
            self.variant, self.num_players = config.variant, config.num_players

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Plain data to another process (rams eval --workers): the layer widths, the weights, the rules.
        state = {k: v.detach().cpu().numpy() for k, v in self.module.state_dict().items()}
        rules = None if self.config is None else self.config.to_dict()
        activation = getattr(self.module, "activation", DEFAULT_ACTIVATION)
        return _rebuild_agent, (_hidden_of(state, "agent"), state, rules, activation)

    def act(self, observation: Mapping[str, np.ndarray]) -> int:
        """The greedy action for ``{"observation": ..., "action_mask": ...}``."""
        mask = np.asarray(observation["action_mask"])
        if not mask.any():
            raise ValueError("the action mask allows no action: this agent is not to act")
        obs = {
            "observation": torch.as_tensor(np.asarray(observation["observation"], np.float32)).unsqueeze(0),
            "action_mask": torch.as_tensor(mask).unsqueeze(0),
        }
        logits = self.module.forward_inference({Columns.OBS: obs})[Columns.ACTION_DIST_INPUTS]
        return int(torch.argmax(logits[0]))


# ---------------------------------------------------------------------------- Ray and the cluster
def init_ray(address: str | None = None, num_cpus: int | None = None, **kwargs: Any) -> str:
    """Join a Ray cluster, or start a private local instance; says which.

    ``address`` (``"auto"`` or ``HEAD:PORT``), else the ``RAY_ADDRESS`` environment variable, names a
    cluster to join; then ``num_cpus`` is not passed on (Ray refuses it for an existing cluster, whose
    nodes declare their own CPUs). With neither, a new local instance with ``num_cpus`` CPUs starts
    (``address="local"``), so a cluster that ``ray start`` runs on this machine is left alone instead
    of being joined with ``num_cpus``. Other keywords go to ``ray.init``.
    """
    target = address or os.environ.get("RAY_ADDRESS") or None
    if target:
        ray.init(address=target, **kwargs)
        return f"joined the Ray cluster at {target} ({_cpus(ray.cluster_resources())} CPUs)"
    kwargs.setdefault("include_dashboard", False)
    ray.init(address="local", num_cpus=num_cpus, **kwargs)
    return f"started a local Ray instance ({_cpus(ray.cluster_resources())} CPUs)"


def _cpus(resources: Mapping[str, float]) -> str:
    return f"{resources.get('CPU', 0):g}"


def resources_needed(config: AlgorithmConfig) -> dict[str, float]:
    """CPUs and GPUs that ``config``'s remote env runners and learners reserve in the Ray cluster."""
    runners, learners = int(config.num_env_runners or 0), int(config.num_learners or 0)
    gpus_per_learner = float(config.num_gpus_per_learner or 0)
    cpus_per_learner = config.num_cpus_per_learner
    if cpus_per_learner == "auto":
        cpus_per_learner = 0 if gpus_per_learner else 1
    return {
        "CPU": runners * float(config.num_cpus_per_env_runner) + learners * float(cpus_per_learner),
        "GPU": runners * float(config.num_gpus_per_env_runner or 0) + learners * gpus_per_learner,
    }


def check_cluster_resources(config: AlgorithmConfig) -> None:
    """``RuntimeError`` when the Ray cluster has fewer free CPUs or GPUs than ``config`` reserves.

    RLlib itself would wait silently in ``build_algo()`` for resources that never come.
    """
    need, free, total = resources_needed(config), ray.available_resources(), ray.cluster_resources()
    for kind in ("CPU", "GPU"):
        if need[kind] > free.get(kind, 0.0) + 1e-9:
            per_runner = float(config.num_cpus_per_env_runner if kind == "CPU" else config.num_gpus_per_env_runner or 0)
            room = int(free.get(kind, 0.0) // per_runner) if per_runner else 0
            raise RuntimeError(
                f"{config.num_env_runners} env runners and {config.num_learners} learners need {need[kind]:g} "
                f"{kind}s, but the Ray cluster has {free.get(kind, 0.0):g} free (of {total.get(kind, 0.0):g}); "
                f"RLlib would wait for them forever. Ask for at most {room} env runners, or add nodes."
            )


def build_algo(config: AlgorithmConfig) -> Algorithm:
    """``config.build_algo()`` once ``check_cluster_resources`` has found room for it."""
    check_cluster_resources(config)
    return config.build_algo()


def warm_start(algo: Algorithm, net: nn.Module, policy: str = SHARED_POLICY) -> None:
    """Copy a project ``PolicyNet``'s weights into module ``policy`` of a built algorithm: its torso, its
    policy head as ``pi`` and its value head as ``vf``, in the learner and every env runner.

    The module must have been built by ``ppo_config(..., hidden=H, activation="relu")`` for the net's
    widths ``H``; it then plays exactly as the net (a checkpoint, a zoo model, the imitation of the
    heuristic), and PPO goes on from there. ``ValueError`` names what does not match.
    """
    module = algo.get_module(policy)
    if not isinstance(module, MaskedPPOModule):
        raise ValueError(f"warm_start: module {policy!r} is a {type(module).__name__}, not a MaskedPPOModule")
    if module.activation != "relu":
        raise ValueError(
            f'warm_start: module {policy!r} uses {module.activation}, a PolicyNet ReLU: build it with activation="relu"'
        )
    weights = net.state_dict()
    state = {k: v for k, v in weights.items() if k.startswith("torso.")}
    for head, target in (("policy_head", "pi"), ("value_head", "vf")):
        state[f"{target}.weight"], state[f"{target}.bias"] = weights[f"{head}.weight"], weights[f"{head}.bias"]
    theirs = {k: tuple(v.shape) for k, v in module.state_dict().items()}
    ours = {k: tuple(v.shape) for k, v in state.items()}
    if ours != theirs:
        raise ValueError(f"warm_start: the net's layers {ours} differ from module {policy!r}'s {theirs}")
    arrays = {k: v.detach().cpu().numpy() for k, v in state.items()}
    algo.learner_group.set_weights({policy: arrays})
    algo.env_runner_group.sync_weights(from_worker_or_learner_group=algo.learner_group, inference_only=True)


# ---------------------------------------------------------------------------- checkpoints as agents
RULES_FILE = "rams_env_rules.json"
_MODULE_STATE = "module_state.pkl"
# The only globals a module state file may name: the pickle of a dict of numpy arrays, as RLlib writes it.
_STATE_GLOBALS = {
    ("collections", "OrderedDict"),
    ("numpy", "dtype"),
    ("numpy", "ndarray"),
    ("numpy._core.numeric", "_frombuffer"),
    ("numpy.core.numeric", "_frombuffer"),
    ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "_reconstruct"),
}


class _StateUnpickler(pickle.Unpickler):
    """Reads a state dict of numpy arrays; refuses any other global, so no code from the file runs."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _STATE_GLOBALS:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"refused global {module}.{name}")


class _Stub:
    """Stands in for any class named in a pickle that is only read for plain data (nothing of it runs)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args, self.kwargs, self.state = args, kwargs, None

    def __setstate__(self, state: Any) -> None:
        self.state = state

    def __setitem__(self, key: Any, value: Any) -> None:
        self.kwargs[key] = value

    def append(self, value: Any) -> None:
        self.args += (value,)

    def extend(self, values: Any) -> None:
        self.args += tuple(values)


_PLAIN_GLOBALS = {("builtins", "set"), ("builtins", "frozenset"), ("collections", "OrderedDict")}


class _PlainUnpickler(pickle.Unpickler):
    """Reads a pickle's plain data; every class it names becomes a ``_Stub`` subclass of that name."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _PLAIN_GLOBALS:
            return super().find_class(module, name)
        return type(name, (_Stub,), {"qualified": f"{module}.{name}"})


def _read_pickle(path: Path, unpickler: type[pickle.Unpickler], where: str) -> Any:
    try:
        with path.open("rb") as f:
            return unpickler(f).load()
    except OSError as err:
        raise CheckpointError(f"{where!r}: cannot read {path.name}: {err.strerror or err}") from None
    except Exception as err:  # a damaged or hostile pickle fails in many ways
        raise CheckpointError(f"{where!r}: {path.name} is damaged or holds more than weights ({err})") from None


def _find_dict(value: Any, key: str, depth: int = 0) -> dict[str, Any] | None:
    """The first dict under ``key`` (``"env_config"``, ``"model_config"``) in plain data read by ``_PlainUnpickler``."""
    if depth > 20:
        return None
    if isinstance(value, _Stub):
        value = (value.args, value.kwargs, value.state)
    if isinstance(value, dict):
        if isinstance(value.get(key), dict):
            return value[key]
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        for item in value:
            found = _find_dict(item, key, depth + 1)
            if found is not None:
                return found
    return None


# The named keywords of the envs whose keywords an env_config holds: RamsEnv's (ppo_config, selfplay_ppo_config)
# and RamsVectorEnv's (vector_ppo_config: observation_mode, opponents...). Every other key is a rule option.
_ENV_KEYWORDS = {
    name
    for env in (RamsEnv, RamsVectorEnv)
    for name, parameter in inspect.signature(env.__init__).parameters.items()
    if parameter.kind is not inspect.Parameter.VAR_KEYWORD
} - {"self"}


def rules_of_env_config(env_config: Mapping[str, Any]) -> RulesConfig:
    """The rules of the env of ``env_config`` (keywords of ``RamsEnv`` or ``RamsVectorEnv``); ``ValueError`` for
    bad ones, naming a key that is neither such a keyword nor a rule option."""
    return spec_of_env_config(env_config).config


def spec_of_env_config(env_config: Mapping[str, Any]) -> EnvSpec:
    """The :class:`~rams_env.rules.spec.EnvSpec` of ``env_config`` (what ``rams_env.make(..., "rllib")`` writes
    there: the spec's ``to_dict()``, and face keywords), resolved by the one resolver."""
    options = {k: v for k, v in env_config.items() if k not in _ENV_KEYWORDS}
    unknown = sorted(set(options) - set(OPTION_NAMES), key=repr)
    if unknown:
        raise ValueError(
            f"env_config key(s) {unknown}: neither a keyword of RamsEnv or RamsVectorEnv nor a rule option "
            f"(keywords: {sorted(_ENV_KEYWORDS)}; rule options: {list(OPTION_NAMES)})"
        )
    keys = ("variant", "num_players", "episode", "reward", "illegal_action", "illegal_reward", "config")
    fields = {k: env_config[k] for k in keys if k in env_config}
    return make_spec(**fields, spec=env_config.get("spec"), **options)


def _hidden_of(state: Mapping[str, Any], where: str) -> list[int]:
    """The hidden widths of a ``MaskedPPOModule`` state, checked name by name and shape by shape."""
    obs_size = OBS_SIZE
    layers = sorted(int(k.split(".")[1]) for k in state if k.startswith("torso.") and k.endswith(".weight"))
    hidden, width, expected = [], obs_size, {}
    for k, layer in enumerate(layers):
        weight = state[f"torso.{layer}.weight"]
        if layer != 2 * k or getattr(weight, "ndim", 0) != 2:
            raise CheckpointError(f"{where!r}: the module's layers are not those of MaskedPPOModule")
        h = int(weight.shape[0])
        expected |= {f"torso.{layer}.weight": (h, width), f"torso.{layer}.bias": (h,)}
        hidden.append(h)
        width = h
    num_actions = NUM_ACTIONS
    expected |= {"pi.weight": (num_actions, width), "pi.bias": (num_actions,), "vf.weight": (1, width), "vf.bias": (1,)}
    if not hidden or set(state) != set(expected):
        raise CheckpointError(
            f"{where!r}: the module's weights are not those of a MaskedPPOModule "
            f"(found {sorted(state)[:6]}, expected {sorted(expected)[:6]})"
        )
    for name, shape in expected.items():
        array = state[name]
        if not isinstance(array, np.ndarray) or array.dtype.kind != "f" or tuple(array.shape) != shape:
            got = getattr(array, "shape", type(array).__name__)
            raise CheckpointError(f"{where!r}: the module's {name} is {got}, a MaskedPPOModule needs {shape} floats")
        if not np.isfinite(array).all():
            raise CheckpointError(f"{where!r}: the module's {name} holds NaN or infinite values")
    return hidden


def _module_from_state(
    hidden: Sequence[int], state: Mapping[str, np.ndarray], activation: str = DEFAULT_ACTIVATION
) -> MaskedPPOModule:
    env = RamsMultiAgentEnv({})
    # RLModule's constructor logs a deprecation of its own internal RLModuleConfig: not ours to act on.
    quiet = logging.getLogger("ray._common.deprecation")
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        module = MaskedPPOModule(
            observation_space=env.observation_spaces["player_0"],
            action_space=env.action_spaces["player_0"],
            model_config={"hidden": [int(h) for h in hidden], "activation": activation},
        )
    finally:
        quiet.setLevel(level)
    module.load_state_dict({k: torch.from_numpy(np.array(v, dtype=np.float32)) for k, v in state.items()})
    return module.eval()


def _rebuild_agent(
    hidden: Sequence[int],
    state: Mapping[str, np.ndarray],
    rules: Mapping[str, Any] | None,
    activation: str = DEFAULT_ACTIVATION,
) -> RLlibAgent:
    return RLlibAgent(_module_from_state(hidden, state, activation), None if rules is None else RulesConfig(**rules))


def is_rllib_checkpoint(path: str | os.PathLike[str]) -> bool:
    """True for a folder written by RLlib's ``save_to_path`` (an algorithm checkpoint)."""
    return (Path(path) / "rllib_checkpoint.json").is_file()


def load_rllib_agent(
    path: str | os.PathLike[str], expect_config: RulesConfig | None = None, policy: str | None = None
) -> RLlibAgent:
    """The greedy agent of the ``policy`` module of an RLlib algorithm checkpoint (``algo.save_to_path``).

    ``policy=None`` reads the module that this package's configs train: ``"shared"`` (:func:`ppo_config`'s
    self-play) where the checkpoint has it, else ``"default_policy"`` (RLlib's single-agent module, as
    :func:`~rams_env.integrations.rllib_vector.vector_ppo_config` trains it).

    Nothing from the checkpoint is executed: the module's weights are read by an unpickler that
    admits only numpy arrays, and the rules by one that turns every class into an inert stand-in to
    find the ``env_config`` (or from ``rams_env_rules.json`` in the folder, which the example
    writes). The module must be this file's ``MaskedPPOModule``; ``CheckpointError`` says what is
    wrong otherwise, or when the checkpoint was trained for rules other than ``expect_config``.
    """
    where, root = str(path), Path(path)
    if not is_rllib_checkpoint(root):
        raise CheckpointError(f"{where!r} is not an RLlib checkpoint folder (no rllib_checkpoint.json)")
    if policy is None:
        modules = root / "learner_group" / "learner" / "rl_module"
        policy = SHARED_POLICY if (modules / SHARED_POLICY).is_dir() else SINGLE_AGENT_POLICY
    module_dir = root / "learner_group" / "learner" / "rl_module" / policy
    if not (module_dir / _MODULE_STATE).is_file():
        found = sorted(p.parent.name for p in (root / "learner_group").glob(f"learner/rl_module/*/{_MODULE_STATE}"))
        raise CheckpointError(
            f"{where!r} holds no module {policy!r} saved as {_MODULE_STATE} (modules found: {found or 'none'}; "
            "checkpoints saved with msgpack are not read)"
        )
    described = _read_pickle(module_dir / "class_and_ctor_args.pkl", _PlainUnpickler, where)
    module_class = described.get("class") if isinstance(described, dict) else None
    if getattr(module_class, "qualified", None) != f"{__name__}.MaskedPPOModule":
        name = getattr(module_class, "qualified", type(module_class).__name__)
        raise CheckpointError(f"{where!r}: module {policy!r} is a {name}, not rams_env's MaskedPPOModule")
    state = _read_pickle(module_dir / _MODULE_STATE, _StateUnpickler, where)
    if not isinstance(state, dict):
        raise CheckpointError(f"{where!r}: module {policy!r} holds no state dict")
    if isinstance(state.get("torso.0.weight"), np.ndarray):  # a module of an older encoder: migrated or refused
        state = {**state, "torso.0.weight": first_layer_for_this_encoder(state["torso.0.weight"], where)}
    hidden = _hidden_of(state, where)
    model_config = _find_dict(described, "model_config") or {}
    try:
        activation = activation_name(model_config.get("activation", DEFAULT_ACTIVATION))
    except ValueError as err:
        raise CheckpointError(f"{where!r}: module {policy!r}: {err}") from None
    config = _checkpoint_rules(root, where)
    if expect_config is not None and config != expect_config:
        raise RulesMismatchError(rules_mismatch(where, config, expect_config))
    return RLlibAgent(_module_from_state(hidden, state, activation), config)


def _checkpoint_rules(root: Path, where: str) -> RulesConfig:
    rules_file = root / RULES_FILE
    try:
        if rules_file.is_file():
            rules = jsoncheck.read(rules_file, max_bytes=64 * 1024)  # a flat object of options
            if not isinstance(rules, dict):
                raise CheckpointError(f"{where!r}: {RULES_FILE} must be a JSON object of rule options")
            return RulesConfig(**rules)
        env_config = _find_dict(_read_pickle(root / "class_and_ctor_args.pkl", _PlainUnpickler, where), "env_config")
        if env_config is None:
            raise CheckpointError(f"{where!r}: no env_config found in the algorithm's configuration")
        return rules_of_env_config(env_config)
    except (TypeError, ValueError) as err:
        if isinstance(err, CheckpointError):
            raise
        raise CheckpointError(f"{where!r} records invalid rules: {err}") from None


def save_rules(path: str | os.PathLike[str], env_config: Mapping[str, Any]) -> Path:
    """Write the rules of ``env_config`` as ``rams_env_rules.json`` into a checkpoint folder."""
    target = Path(path) / RULES_FILE
    target.write_text(json.dumps(rules_of_env_config(env_config).to_dict(), indent=1) + "\n", encoding="utf-8")
    return target
