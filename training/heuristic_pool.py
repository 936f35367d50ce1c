"""``HeuristicAgent`` decisions for many games at once, shared between processes.

Training against heuristic opponents played by ``HeuristicAgent`` (pure Python) spends most of its time
in the agent (docs/performance.md), so on a machine with a free core a second process playing half of
each step's heuristic decisions nearly halves that part of a run. The pool's first share is played in the
calling process while helper processes play the others.

Each process has its own agent and random generator, seeded by :meth:`HeuristicPool.seed`, and each
step's decisions are split between them by position. So the decisions depend on the number of
processes, and are exactly reproducible for a given number; with one process there is no helper and
nothing changes against a plain ``HeuristicAgent``.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
from multiprocessing.connection import Connection
from typing import Any

import numpy as np

from rams_env.agents import HeuristicAgent
from rams_env.rules import RulesConfig


def _helper(pipe: Connection, config: RulesConfig) -> None:
    """A helper process: seeds its agent and plays the decisions it is sent until told to stop."""
    agent = HeuristicAgent(config)
    while True:
        command, payload = pipe.recv()
        if command == "close":
            return
        try:
            if command == "seed":
                agent.rng.seed(payload)
                reply: Any = None
            else:
                obs, masks = payload
                reply = [agent.act({"observation": o, "action_mask": m}) for o, m in zip(obs, masks, strict=True)]
        except Exception as error:  # reported to the trainer, which raises it
            pipe.send(("error", f"{type(error).__name__}: {error}"))
        else:
            pipe.send(("ok", reply))


class HeuristicPool:
    """``processes`` HeuristicAgents for ``config``: this process's (``agent``) and ``processes - 1`` helpers."""

    def __init__(self, config: RulesConfig, processes: int = 1) -> None:
        if not isinstance(processes, int) or processes < 1:
            raise ValueError(f"processes must be an int >= 1, got {processes!r}")
        self.agent = HeuristicAgent(config)
        self.processes = processes
        self.closed = False
        self._pipes: list[Connection] = []
        self._helpers: list[Any] = []
        context = mp.get_context("spawn")  # no fork of a process that holds torch threads
        for _ in range(processes - 1):
            parent, child = context.Pipe()
            helper = context.Process(target=_helper, args=(child, config), daemon=True)
            helper.start()
            child.close()
            self._pipes.append(parent)
            self._helpers.append(helper)

    def seed(self, seeds: list[int]) -> None:
        """Seed process ``k``'s generator with ``seeds[k]`` (one seed per process)."""
        self._check_open()
        if len(seeds) != self.processes:
            raise ValueError(f"seed needs {self.processes} seeds, one per process, got {len(seeds)}")
        self.agent.rng.seed(seeds[0])
        for pipe, seed in zip(self._pipes, seeds[1:], strict=True):
            self._send(pipe, ("seed", seed))
        self._replies(list(range(len(self._pipes))))

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The agents' actions for the rows of ``observations`` and ``masks``."""
        self._check_open()
        shares = np.array_split(np.arange(len(observations)), self.processes)
        busy = []
        for k, (pipe, share) in enumerate(zip(self._pipes, shares[1:], strict=True)):
            if len(share):
                self._send(pipe, ("act", (observations[share], masks[share])))
                busy.append(k)
        actions = np.empty(len(observations), np.int64)
        failed: Exception | None = None
        try:
            for row in shares[0]:
                actions[row] = self.agent.act({"observation": observations[row], "action_mask": masks[row]})
        except Exception as error:  # the helpers' replies are still read, so that the next call starts clean
            failed = error
        try:
            replies = self._replies(busy)
        except RuntimeError:
            if failed is None:
                raise
        if failed is not None:  # this process's share comes first
            raise failed
        for k, reply in zip(busy, replies, strict=True):
            actions[shares[k + 1]] = reply
        return actions

    def _check_open(self) -> None:
        if self.closed:
            raise RuntimeError("this HeuristicPool is closed")

    def _send(self, pipe: Connection, message: tuple[str, Any]) -> None:
        try:
            pipe.send(message)
        except (BrokenPipeError, ConnectionError, OSError):
            raise self._dead() from None

    def _replies(self, indices: list[int]) -> list[Any]:
        replies, error = [], None
        for k in indices:
            try:
                status, payload = self._pipes[k].recv()
            except (EOFError, OSError):
                raise self._dead() from None
            if status == "error":
                error = error or payload
            replies.append(payload)
        if error:
            raise RuntimeError(f"a heuristic helper process failed: {error}")
        return replies

    def _dead(self) -> RuntimeError:
        helpers = self._helpers
        self.close()  # joins them
        codes = [helper.exitcode for helper in helpers]
        return RuntimeError(f"a heuristic helper process died (exit codes {codes})")

    def close(self) -> None:
        """Stop the helpers (idempotent)."""
        self.closed = True
        for pipe in self._pipes:
            with contextlib.suppress(BrokenPipeError, ConnectionError, OSError):
                pipe.send(("close", None))
            pipe.close()
        for helper in self._helpers:
            helper.join(timeout=5)
            if helper.is_alive():
                helper.kill()
        self._pipes, self._helpers = [], []
