"""A training run: the :class:`Trainer` that owns a run folder, its update loop, checkpoints and resume.

One update (:meth:`Trainer.train_update`): collect episodes (training/rollout.py) against the opponents
the run's mix draws (training/mixing.py), learn from them with the run's algorithm (training/algorithms.py:
PPO, DMC or another registered one), snapshot the network into the opponent pool, evaluate, log
(training/logs.py) and checkpoint. Because each update starts from a fresh seeded env and the
checkpoint holds every random generator, a resumed run makes exactly the update the uninterrupted run
would have made. :class:`RunLock` keeps a second run out of the folder while one trains.
"""

from __future__ import annotations

import copy
import dataclasses
import fcntl
import json
import logging
import math
import os
import random
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from rams_env.agents import HeuristicAgent, RandomAgent
from rams_env.agents.neural import PolicyAgent
from rams_env.envs import BatchedRamsEnv, SubprocBatchedRamsEnv
from rams_env.envs.seats import HEURISTIC_SEAT, LEARNER_SEAT, Seat
from rams_env.eval import agent_source, evaluate
from rams_env.policy import (
    CheckpointError,
    RulesMismatchError,
    checkpoint_config,
    load_checkpoint,
    make_checkpoint,
    network_from_checkpoint,
    save_checkpoint,
)
from rams_env.rules.snapshot import as_tuples

from .algorithms import LOSSES, Context, Stage, build_algorithm
from .config import NO_STEP_LIMIT, TrainArgs, second_stage, stage_value
from .cores import ThreadGovernor, free_cores, usable_cores
from .imitation import Teacher, imitate
from .logs import log_line, tensorboard, truncate_csv, write_csv
from .mixing import OpponentMix
from .opponent_pool import OpponentPool
from .rollout import Collector, Episode, Rollout, Table, episode_rows
from .targets import resolve_targets

log = logging.getLogger("rams.train")


def uses_bf16(precision: str, device: torch.device) -> bool:
    """Whether a run with ``precision`` on ``device`` computes its hidden layers in bfloat16.

    ``auto`` takes bf16 where it is fast: a CUDA device that supports it, or a CPU with native bf16
    instructions (AVX-512 BF16 or AMX; emulated bf16 is slower than fp32). docs/performance.md has
    the measurements.
    """
    if precision != "auto":
        return precision == "bf16"
    if device.type == "cuda":
        return torch.cuda.is_bf16_supported()
    return device.type == "cpu" and bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())


def torch_threads(workers: int) -> int:
    """Torch threads beside ``workers`` env processes: the cores that are free now and that they leave
    free, at least 1 (training/cores.py says why busy cores count).

    Torch threads that compete with env processes, or with other work, for the same cores slow both
    (docs/performance.md).
    """
    free = free_cores()
    threads = max(1, free - (workers if workers > 1 else 0))
    log.info("torch threads: %d (%d of %d cores free)", threads, free, usable_cores())
    return threads


class RunLock:
    """An exclusive lock on a run folder while a :class:`Trainer` uses it.

    ``flock`` on ``<run_dir>/.lock``: the operating system drops it when the holding process ends,
    however it ends, so a lock file left by a killed run never blocks the next one.
    """

    def __init__(self, folder: Path) -> None:
        self.path = Path(folder) / ".lock"
        self._file = self.path.open("a+")
        try:
            fcntl.flock(self._file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._file.seek(0)
            holder = self._file.read().strip() or "another process"
            self._file.close()
            raise FileExistsError(
                f"{folder} is in use by a training run that is still going ({holder}); "
                "wait for it to end or pick another run_dir"
            ) from None
        self._file.seek(0)
        self._file.truncate()
        self._file.write(f"pid {os.getpid()}")
        self._file.flush()

    def release(self) -> None:
        """Give the folder back (idempotent)."""
        if not self._file.closed:
            fcntl.flock(self._file, fcntl.LOCK_UN)
            self._file.close()


class Trainer:
    """A self-play run in ``args.run_dir`` (new, or resumed from its latest checkpoint), learning with the
    algorithm ``args.algorithm`` names (training/algorithms.py).

    ``args`` is the whole of the run's arguments, saved with it; each part of the run is handed the group it
    reads: the collector ``args.game``, the algorithm ``args.learn``, the mix ``args.opponents``.
    """

    def __init__(self, args: TrainArgs) -> None:
        self.args = args
        self.config = args.game.spec().config
        default_scale = 1.0 if args.reward == "win" else 2.0 / self.config.start_score
        self.reward_scale = default_scale if args.reward_scale is None else args.reward_scale
        self.run_dir = Path(args.run_dir)
        self.targets = resolve_targets(args.target, self.config) if args.target else ()  # before any work
        if args.imitation_teacher == "target" and self.targets[0].kind == "random":
            raise ValueError(f"imitation_teacher target: {args.target!r} plays at random, which is no play to imitate")
        if not args.compiled_heuristic or args.heuristic_processes != 1:
            warnings.warn(
                "compiled_heuristic and heuristic_processes are deprecated: the heuristic's seats are "
                "rams_env.Seat('heuristic'), played inside the env's step (compiled_heuristic false: an outside "
                "Seat.of(HeuristicAgent(config)) in this process)",
                DeprecationWarning,
                stacklevel=2,
            )
        self._set_up_device()
        self.torch_gen = torch.Generator().manual_seed(args.seed)
        self.algorithm = build_algorithm(args.learn, Context(args.seed, self.device, self.bf16, self.torch_gen))
        self.net, self.critic = self.algorithm.net, self.algorithm.critic
        self.rollout = Rollout(hidden=self.critic is not None)
        self.pool = OpponentPool(self.run_dir / "pool", args.pool_size, self.config, self.device)
        self.steps = self.updates = self.episodes = 0
        self.imitated = 0  # decisions of the imitation warm start done (training/imitation.py)
        self.train_seconds = 0.0  # of imitation, collection and learning so far (evaluations left out)
        self.best_score = -math.inf
        self.history: list[dict[str, Any]] = []
        self._pool_refs: dict[str, list[str]] = {}  # checkpoint file -> the pool snapshots it names
        self.rng = random.Random(args.seed)
        self.mix = OpponentMix(args.opponents, self.pool, self.rng, self.targets, policy=self.algorithm.act)
        self.collector = self._make_collector()
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self._lock = RunLock(self.run_dir)
        self.tables: list[Table] = []
        try:
            self._open_run()
            self._open_tables()
        except BaseException:
            self.close()
            raise

    def _set_up_device(self) -> None:
        """The device, its precision and the torch threads (and the governor that adjusts them)."""
        args = self.args
        self.device = torch.device(args.device)
        self.bf16 = uses_bf16(args.precision, self.device)
        torch.set_num_threads(args.threads or torch_threads(args.workers))
        # automatic threads follow the load (training/cores.py); env worker processes keep theirs
        self.governor = ThreadGovernor(torch.get_num_threads()) if not args.threads and args.workers == 1 else None

    @property
    def optimizer(self) -> torch.optim.Optimizer:
        """The algorithm's optimizer."""
        return self.algorithm.optimizer

    def _make_collector(self) -> Collector:
        """The collector that plays the updates' episodes with this run's network, pool and generator."""
        return Collector(
            game=self.args.game,
            seed=self.args.seed,
            net=self.net,
            policy=self.algorithm.act,
            critic_values=self._critic_values if self.critic is not None else None,
            rollout=self.rollout,
            mix=self.mix,
            gae=self.algorithm.gae,
            reward_scale=self.reward_scale,
            start_score=self.config.start_score,
        )

    def _open_run(self) -> None:
        """Resume the run in ``run_dir``, or start a new one there (warm-started from ``init_from``); save the args."""
        args = self.args
        if args.resume:
            self._resume()
        elif any((self.run_dir / name).exists() for name in ("latest.pt", "args.json", "progress.csv")):
            raise FileExistsError(
                f"{self.run_dir} already holds a run; pass --resume to continue it or pick a new run_dir"
            )
        elif args.init_from:
            self._warm_start(args.init_from)
        (self.run_dir / "args.json").write_text(json.dumps(dataclasses.asdict(args), indent=2) + "\n")

    def _open_tables(self) -> None:
        """One table per size: its rules, its batched env (in process or in worker processes) and who plays the
        draws' heuristic seats: the env's compiled heuristic where any are drawn, made with seats to play them."""
        args = self.args
        inside = args.compiled_heuristic and self.mix.heuristic
        for n in args.sizes:
            spec = args.game.spec(n)
            heuristic = HEURISTIC_SEAT if inside else Seat.of(HeuristicAgent(spec.config))
            env_kwargs: dict[str, Any] = dict(spec=spec)
            if inside:
                env_kwargs["seats"] = [LEARNER_SEAT] * n
            if args.workers > 1:
                env: Any = SubprocBatchedRamsEnv(args.num_games, workers=args.workers, **env_kwargs)
            else:
                env = BatchedRamsEnv(args.num_games, **env_kwargs)
            self.tables.append(Table(spec.config, env, heuristic))

    @property
    def table(self) -> Table:
        """The table size the next update plays (they take turns, update by update)."""
        return self.tables[self.updates % len(self.tables)]

    @property
    def env(self) -> Any:
        """The batched env of the next update."""
        return self.table.env

    @property
    def heuristic(self) -> Seat:
        """Who plays the heuristic seats of the next update (:attr:`Table.heuristic`)."""
        return self.table.heuristic

    @property
    def versus(self) -> bool:
        """Deprecated: ``trainer.table.inside``, whether the env plays the heuristic seats inside its step."""
        warnings.warn("Trainer.versus is now Trainer.table.inside", DeprecationWarning, stacklevel=2)
        return self.table.inside

    def close(self) -> None:
        """Close the envs and give the run folder back (``run`` does this when it ends)."""
        for table in self.tables:
            table.env.close()
        self._lock.release()

    # ---------------------------------------------------------------- checkpoints
    def _payload(self) -> dict[str, Any]:
        state = self.algorithm.state_dict()  # the optimizer's (and the privileged critic's)
        return make_checkpoint(
            self.net,
            self.config,
            optimizer=state.pop("optimizer"),
            counters={
                "steps": self.steps,
                "updates": self.updates,
                "episodes": self.episodes,
                "imitated": self.imitated,
                "train_seconds": self.train_seconds,
            },
            best_score=self.best_score,
            rng={"torch": self.torch_gen.get_state(), "python": self.rng.getstate()},
            pool=self.pool.references(),
            args={k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(self.args).items()},
            history=self.history,
            **state,
            **({"table_sizes": list(self.args.sizes)} if self.args.table_sizes else {}),
        )

    def save(self, best: bool = False) -> Path:
        """Write the rolling checkpoint of this update (and ``latest.pt``, ``best.pt``) atomically."""
        payload = self._payload()
        path = self.run_dir / f"checkpoint_{self.updates:06d}.pt"
        written = [path, self.run_dir / "latest.pt"] + ([self.run_dir / "best.pt"] if best else [])
        for target in written:
            save_checkpoint(target, payload)
            self._pool_refs[target.name] = list(payload["pool"])
        rolling = sorted(self.run_dir.glob("checkpoint_*.pt"))
        for old in rolling[: -self.args.keep_last]:
            old.unlink()
            self._pool_refs.pop(old.name, None)
        self.pool.prune({name for names in self._pool_refs.values() for name in names})
        return path

    def _resume(self) -> None:
        """Continue from the newest intact checkpoint, saying what was skipped; clear a killed run's debris."""
        for debris in self.run_dir.glob(".*.tmp"):
            debris.unlink()
            log.info("removed %s (left by an interrupted write)", debris.name)
        candidates = [self.run_dir / "latest.pt", *sorted(self.run_dir.glob("checkpoint_*.pt"), reverse=True)]
        if not any(c.exists() for c in candidates) and not (self.run_dir / "progress.csv").exists():
            log.info("%s: the run stopped before its first checkpoint; starting it again", self.run_dir)
            return
        payload, path = None, None
        for candidate in candidates:
            if not candidate.exists():
                continue
            try:
                payload, path = load_checkpoint(candidate, expect_config=self.config), candidate
                break
            except RulesMismatchError:
                raise
            except CheckpointError as err:
                log.warning("skipped %s: %s", candidate.name, err)
        if payload is None or path is None:
            raise CheckpointError(f"{self.run_dir}: no intact checkpoint to resume from")
        missing = [k for k in ("optimizer", "counters", "rng", "pool") if k not in payload]
        if missing:
            raise CheckpointError(
                f"{path} is a policy checkpoint without training state ({', '.join(missing)} missing): "
                "it cannot resume a run; start a new run with --init-from to use its weights"
            )
        saved = payload.get("args", {})
        for key in ("hidden",):
            if list(saved.get(key, [])) != list(getattr(self.args, key)):
                raise CheckpointError(
                    f"{path}: the run was trained with {key}={saved.get(key)}, not {getattr(self.args, key)}"
                )
        self.net.load_state_dict(network_from_checkpoint(payload, str(path)).state_dict())
        self.algorithm.load_state_dict(payload, str(path))
        counters = payload["counters"]
        self.steps, self.updates, self.episodes = counters["steps"], counters["updates"], counters["episodes"]
        self.imitated = counters.get("imitated", 0)
        self.train_seconds = counters.get("train_seconds", 0.0)
        self._apply_lr()  # the saved state holds the old rate; the arguments rule
        self.best_score = payload.get("best_score", -math.inf)
        self.torch_gen.set_state(payload["rng"]["torch"])
        self.rng.setstate(as_tuples(payload["rng"]["python"]))
        self.pool.restore(payload["pool"])
        self.history = list(payload.get("history", []))
        self._keep_pool_refs(payload, path)
        truncate_csv(self.run_dir / "progress.csv", self.updates)
        log.info("resumed %s at update %d, %d steps", path, self.updates, self.steps)

    def _keep_pool_refs(self, payload: dict[str, Any], path: Path) -> None:
        """Note the pool snapshots each kept checkpoint names (``payload`` is ``path``'s), to outlive pruning."""
        for kept in [*self.run_dir.glob("checkpoint_*.pt"), self.run_dir / "best.pt", path]:
            if kept.exists():
                try:
                    refs = payload["pool"] if kept == path else load_checkpoint(kept, expect_config=self.config)["pool"]
                except (CheckpointError, KeyError) as err:
                    log.warning("ignored %s when keeping pool snapshots: %s", kept.name, err)
                    continue
                self._pool_refs[kept.name] = list(refs)

    def _warm_start(self, path: str) -> None:
        payload = load_checkpoint(path, migrate=True)
        if list(payload["network"].get("hidden", [])) != list(self.args.hidden):
            raise CheckpointError(
                f"{path}: init_from has hidden={payload['network'].get('hidden')}, "
                f"the run has hidden={list(self.args.hidden)}"
            )
        self.net.load_state_dict(network_from_checkpoint(payload, path).state_dict())
        log.info("weights from %s (trained for %s)", path, checkpoint_config(payload, path).variant)

    def imitate(self) -> None:
        """The imitation warm start (``args.imitation`` decisions), then a checkpoint at update 0, so that
        a resumed run does not imitate again."""
        args = self.args
        result = imitate(
            self.net,
            self.config,
            episode=args.episode,
            reward=args.reward,
            reward_scale=self.reward_scale,
            decisions=args.imitation,
            seed=args.seed,
            lr=args.imitation_lr,
            vf_coef=args.vf_coef,
            device=self.device,
            bf16=self.bf16,
            progress=args.progress,
            teacher=self.teacher(),
            smoothing=args.imitation_smoothing,
        )
        self.imitated = result.decisions
        self.train_seconds += result.seconds
        (self.run_dir / "imitation.json").write_text(json.dumps(dataclasses.asdict(result), indent=2) + "\n")
        self.save()

    def teacher(self) -> Teacher | None:
        """Whose play the imitation learns: None for the compiled heuristic, else the target's actions."""
        if self.args.imitation_teacher != "target" or self.targets[0].kind == "heuristic":
            return None
        return self.targets[0].actions

    # ---------------------------------------------------------------- stages (training/config.py, "Stages")
    @property
    def late(self) -> bool:
        """Whether the run is in its second stage (``heuristic_after`` learner decisions done)."""
        return second_stage(self.args, self.steps)

    def stage_value(self, name: str) -> Any:
        """``name``'s value in the current stage: ``late_<name>`` in the second stage when it is set."""
        return stage_value(self.args, self.steps, name)

    def _apply_lr(self) -> None:
        """Give the optimizer the current stage's learning rate, saying when it changes."""
        lr = self.stage_value("lr")
        for group in self.optimizer.param_groups:
            if group["lr"] != lr:
                log.info("learning rate %g (it was %g)", lr, group["lr"])
                group["lr"] = lr

    # ---------------------------------------------------------------- acting and learning
    def _critic_values(self, obs: np.ndarray, hidden: np.ndarray) -> np.ndarray:
        """The privileged critic's values of observations ``obs`` with the other hands ``hidden``."""
        assert self.critic is not None
        with torch.no_grad():
            obs_t, hidden_t = torch.from_numpy(obs).to(self.device), torch.from_numpy(hidden).to(self.device)
            return self.critic(obs_t, hidden_t, bf16_torso=self.bf16).cpu().numpy()

    def collect(self) -> tuple[list[Episode], dict[str, float]]:
        """Play one update's episodes: the learner's decisions of each (rows of ``rollout``), with GAE done."""
        points_weight = self.stage_value("points_weight")
        episodes, stats, finished = self.collector.collect(self.table, self.updates, self.steps, points_weight)
        self.episodes += finished
        return episodes, stats

    def update(self, rows: np.ndarray) -> dict[str, float]:
        """Learn from ``rows`` of the latest ``collect``'s rollout with the run's algorithm; the mean losses."""
        rollout = self.rollout
        rows = np.asarray(rows, np.int64)
        if len(rows) and (rows.min() < 0 or rows.max() >= rollout.size):
            raise ValueError(f"update() takes rows of the latest collect(), 0 to {rollout.size - 1}")
        self._apply_lr()
        stage = Stage(ent_coef=self.stage_value("ent_coef"), warming=self.updates < self.args.critic_warmup)
        losses = self.algorithm.update(rollout, rows, stage)
        unknown, missing = sorted(set(losses) - set(LOSSES)), sorted({"value_loss", "entropy"} - set(losses))
        if unknown or missing:
            raise ValueError(
                f"algorithm {self.args.algorithm}'s update reported {sorted(losses)}: it reports {', '.join(LOSSES)} "
                f"(value_loss and entropy at least; unknown {unknown}, missing {missing})"
            )
        return losses

    # ---------------------------------------------------------------- evaluation
    def agent(self) -> PolicyAgent:
        """The current policy as a greedy agent on the CPU (a copy: training goes on)."""
        net = copy.deepcopy(self.net).to("cpu").eval()
        return PolicyAgent(net, self.config, greedy=True)

    def baselines(self) -> list[tuple[str, Any]]:
        """The baselines of the run's evaluations: its (first) target, or random and the heuristic."""
        if self.targets:
            return [("target", self.targets[0].agent)]
        return [("random", RandomAgent), ("heuristic", agent_source("heuristic", self.config))]

    def evaluate(self, decks: int | None = None) -> dict[str, float]:
        """Duplicate evaluation of the current policy against the :meth:`baselines`.

        Whole-game episodes (rams, match) report the win share (fair share 1/n) with its Wilson
        interval; one-deal episodes the advantage in points. Baselines are seeded per game, so the
        same weights give the same numbers every time.
        """
        args = self.args
        decks = decks or args.eval_decks
        result = {}
        policy = self.agent()
        for name, baseline in self.baselines():
            ev = evaluate(
                {"policy": policy},
                baseline,
                self.config,
                decks=decks,
                seed=args.eval_seed,
                episode=args.episode,
                baseline_name=name,
                progress=args.progress,
            )
            report = ev.agents[0]
            result[f"adv_vs_{name}"] = report.advantage
            result[f"adv_vs_{name}_lo"], result[f"adv_vs_{name}_hi"] = report.advantage_ci
            if report.win_rate is not None:
                result[f"win_vs_{name}"] = report.win_rate
                result[f"win_vs_{name}_lo"], result[f"win_vs_{name}_hi"] = report.win_rate_ci
        return result

    def selection_score(self, ev: dict[str, float]) -> float:
        """What ``best.pt`` maximises: the win share against the target (else the heuristics) for whole
        games, else the advantage."""
        against = "target" if self.targets else "heuristic"
        return ev.get(f"win_vs_{against}", ev[f"adv_vs_{against}"])

    @property
    def out_of_time(self) -> bool:
        """Whether the run has spent its ``max_minutes`` of training (never without a limit)."""
        return bool(self.args.max_minutes) and self.train_seconds >= 60.0 * self.args.max_minutes

    @property
    def finished(self) -> bool:
        """Whether the run is done: ``total_steps`` reached or its minutes spent."""
        return self.steps >= self.args.total_steps or self.out_of_time

    # ---------------------------------------------------------------- the run
    def train_update(self) -> dict[str, Any]:
        """One update of the run: collect, PPO epochs, counters, pool snapshot, evaluation, progress, checkpoint.

        Returns the progress row, also appended to ``history`` and ``progress.csv``. :meth:`run` repeats
        it until ``total_steps``; tests call it to make exactly the updates a run makes.
        """
        args = self.args
        started = time.perf_counter()
        if self.governor is not None and (threads := self.governor.adjust()) is not None:
            torch.set_num_threads(threads)
            log.info("torch threads: %d (the load changed)", threads)
        episodes, collect_stats = self.collect()
        rows = episode_rows(episodes)
        collected = time.perf_counter()
        losses = self.update(rows)
        self.updates += 1
        self.steps += len(rows)
        elapsed = time.perf_counter() - started
        self.train_seconds += elapsed
        row: dict[str, Any] = {
            "update": self.updates,
            "steps": self.steps,
            "episodes": self.episodes,
            "samples": len(rows),
            "train_s": self.train_seconds,
            "steps_per_s": len(rows) / elapsed,
            "env_steps_per_s": collect_stats["env_steps"] / (collected - started),
            "mean_return": collect_stats["mean_return"],
            **losses,
        }
        if args.snapshot_every and not self.targets and self.updates % args.snapshot_every == 0:
            self.pool.add(self.net, self.updates)
        best = False
        final = self.finished
        if (args.eval_every and self.updates % args.eval_every == 0) or final:
            ev = self.evaluate()
            row.update(ev)
            score = self.selection_score(ev)
            if score > self.best_score:
                self.best_score, best = score, True
        self.history.append(row)
        write_csv(self.run_dir / "progress.csv", row)
        if best or final or self.updates % args.checkpoint_every == 0:
            self.save(best=best)
        return row

    @property
    def _by_time(self) -> bool:
        """Whether the run's budget is its minutes alone (its progress counts seconds, not steps)."""
        return bool(self.args.max_minutes) and self.args.total_steps == NO_STEP_LIMIT

    def _progress_bar(self) -> tqdm:
        """The run's bar: seconds of training where ``max_minutes`` is the only budget (``total_steps`` is
        ``NO_STEP_LIMIT``), else steps."""
        args = self.args
        by_time = self._by_time
        total = round(60 * args.max_minutes) if by_time else args.total_steps
        done = self.train_seconds if by_time else self.steps
        unit = "s" if by_time else "step"
        return tqdm(
            total=total, initial=min(round(done), total), unit=unit, disable=not args.progress, dynamic_ncols=True
        )

    def run(self) -> Path:
        """Train until ``total_steps`` (or ``max_minutes``); returns the path of the best checkpoint (or the latest)."""
        args = self.args
        if args.imitation and not self.imitated and self.updates == 0:
            self.imitate()
        writer = tensorboard(self.run_dir, self.steps)
        bar = self._progress_bar()
        try:
            while not self.finished:
                row = self.train_update()
                for key, value in row.items():
                    if key != "update":
                        writer.add_scalar(key, value, self.steps)
                done = self.train_seconds if self._by_time else self.steps
                bar.update(max(0, min(round(done), bar.total) - bar.n))
                log.info(log_line(row))
        finally:
            bar.close()
            writer.close()
            self.close()
        best_path = self.run_dir / "best.pt"
        return best_path if best_path.exists() else self.run_dir / "latest.pt"
