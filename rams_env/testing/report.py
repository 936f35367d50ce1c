"""What :func:`~rams_env.testing.check_env` found: each check by name, passed, failed (with what was seen) or
skipped (with why), and the error it raises when a check failed."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

CHECKS: tuple[str, ...] = (
    "protocol",
    "seeding",
    "bad_seed",
    "reference_play",
    "action_mask",
    "reward_sum",
    "terminated_truncated",
    "autoreset",
    "observation",
    "deepcopy",
    "pickle",
)  # every check by name (rams_env.testing's docstring says what each checks)


def select_checks(checks: Iterable[str] | str | None) -> frozenset[str]:
    """The checks named (None: all of :data:`CHECKS`); ``ValueError`` naming an unknown one and the known ones."""
    if checks is None:
        return frozenset(CHECKS)
    names = [checks] if isinstance(checks, str) else list(checks)
    unknown = [name for name in names if name not in CHECKS]
    if unknown:
        raise ValueError(f"check_env: unknown check(s) {unknown}; the checks are {list(CHECKS)}")
    return frozenset(names)


class EnvCheckError(AssertionError):
    """An env failed conformance checks; :attr:`failures` maps each failed check's name to what was seen."""

    def __init__(self, face: str, failures: dict[str, str]) -> None:
        self.face, self.failures = face, dict(failures)
        lines = "\n".join(f"  - {name}: {seen}" for name, seen in failures.items())
        super().__init__(f"{face}: {len(failures)} check(s) failed:\n{lines}")


@dataclass
class CheckReport:
    """The checks run on one env (``face`` says which face it was checked as); only the ``checks`` selected
    are recorded (passed, failed or skipped)."""

    face: str
    passed: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    checks: frozenset[str] = field(default=frozenset(CHECKS), repr=False)

    def wants(self, *names: str) -> bool:
        """Whether any of ``names`` is selected (the work of checks not selected is left out)."""
        return any(name in self.checks for name in names)

    def fail(self, name: str, seen: str) -> None:
        """Record a failure of check ``name`` (its first failure is kept; the others are counted)."""
        if name not in self.checks:
            return
        if name in self.failed:
            first, _, count = self.failed[name].partition(" [+")
            more = int(count.split()[0]) + 1 if count else 1
            self.failed[name] = f"{first} [+{more} more]"
        else:
            self.failed[name] = seen
        if name in self.passed:
            self.passed.remove(name)

    def expect(self, condition: bool, name: str, seen: str) -> bool:
        """Record a failure of ``name`` unless ``condition``; returns ``condition``."""
        if not condition:
            self.fail(name, seen)
        return bool(condition)

    def skip(self, name: str, why: str) -> None:
        """Check ``name`` does not apply to this env, or cannot run; ``why`` says which."""
        if name not in self.checks:
            return
        self.skipped[name] = why
        if name in self.passed:
            self.passed.remove(name)

    def ran(self, *names: str) -> None:
        """Checks that ran: those without a failure count as passed."""
        for name in names:
            if name in self.checks and not (name in self.failed or name in self.passed or name in self.skipped):
                self.passed.append(name)

    @contextmanager
    def check(self, name: str) -> Iterator[None]:
        """Run a block as check ``name``: an exception in it is a failure naming the exception."""
        try:
            yield
        except Exception as err:
            self.fail(name, f"raised {type(err).__name__}: {err}")
        else:
            self.ran(name)

    def raise_if_failed(self) -> None:
        """Raise :class:`EnvCheckError` listing every failed check."""
        if self.failed:
            raise EnvCheckError(self.face, self.failed)
