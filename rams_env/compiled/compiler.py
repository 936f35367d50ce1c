"""The numba decorator every module of the compiled engine uses, and its cache stamp.

numba's cache (``cache=True``) checks only the file that defines a function, but a compiled
function carries the code of the functions it calls and the values of the globals it reads: a
rule changed in ``rules.py`` or a constant changed in :mod:`rams_env.rules` would leave the cached
``play`` of ``core.py`` stale. So the functions of this package are cached under one
stamp, a hash of this package and of the modules whose constants they read: editing any of them
recompiles the whole engine on the next import.

A call between compiled functions is compiled for the callee's argument types without their literal values
(:class:`Dispatcher`): numba would otherwise compile a function again for each constant a call site passes
(``card_bit(52)``, ``_settle(..., False, True)``), and again every function it calls with that argument.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numba
from numba.core import caching, errors, types
from numba.core.registry import CPUDispatcher

_HERE = Path(__file__).resolve().parent
# The files whose code or constants the compiled functions hold: this package, and the modules it
# reads constants from at import (the rules with the facts the twins share and the episode kinds, the
# observation layout).
SOURCES = (
    _HERE,
    _HERE.parent / "rules",
    _HERE.parent / "obs" / "encoding.py",
)


def stamp_of(sources: tuple[Path, ...]) -> bytes:
    """A hash of the Python files of ``sources`` (folders and files)."""
    digest = hashlib.sha256()
    for source in sources:
        for path in sorted(source.glob("*.py")) if source.is_dir() else [source]:
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.digest()


@functools.cache
def source_stamp() -> bytes:
    """The stamp of every source the compiled code depends on (:data:`SOURCES`, read once a process)."""
    return stamp_of(SOURCES)


class _PackageLocator(caching._CacheLocator):
    """numba's own cache locator for a function of this package, with :func:`source_stamp` as
    the freshness stamp instead of the hash of the function's file alone."""

    _numba_locators = tuple(caching.CacheImpl._locator_classes)

    def __init__(self, inner: caching._CacheLocator) -> None:
        self._inner = inner
        self._py_file = inner._py_file  # numba's warning that a function cannot be cached names it

    def get_cache_path(self) -> str:
        return self._inner.get_cache_path()

    def get_source_stamp(self) -> bytes:
        return source_stamp()

    def get_disambiguator(self) -> str:
        return self._inner.get_disambiguator()

    @classmethod
    def from_function(cls, py_func: object, py_file: str) -> _PackageLocator | None:
        if Path(py_file).resolve().parent != _HERE:
            return None
        for locator_class in cls._numba_locators:
            inner = locator_class.from_function(py_func, py_file)
            if inner is not None:
                return cls(inner)
        return None


if _PackageLocator not in caching.CacheImpl._locator_classes:
    caching.CacheImpl._locator_classes.insert(0, _PackageLocator)


class Dispatcher(CPUDispatcher):
    """numba's dispatcher, typing a call from compiled code with the arguments' types rather than their literal
    values: one compiled version serves every constant (falling back to the literal types where a function
    cannot be typed without them)."""

    def get_call_template(self, args: tuple, kws: dict) -> tuple:
        plain = tuple(types.unliteral(a) for a in args)
        plain_kws = {k: types.unliteral(v) for k, v in kws.items()}
        if plain == tuple(args) and plain_kws == kws:
            return super().get_call_template(args, kws)
        try:
            return super().get_call_template(plain, plain_kws)
        except errors.TypingError:
            return super().get_call_template(args, kws)


# No function here allocates, so the runtime's reference counting is switched off (a step costs
# less without it); none is passed around as a first-class function, so numba builds no C wrapper
# for that; enable_caching (numba's cache=True) keeps the compiled code between processes.
_OPTIONS = {"nopython": True, "nogil": True, "_nrt": False, "boundscheck": None, "no_cfunc_wrapper": True}


def jit(function: Callable[..., Any] | None = None, *, inline: bool = False) -> Any:
    """``function`` compiled by numba (``njit(cache=True, nogil=True)`` without reference counting), its calls
    from compiled code typed without literal values (:class:`Dispatcher`).

    ``@jit(inline=True)``: compiled into each compiled caller instead (numba's ``inline="always"``). numba
    compiles every jitted function on its own, with a copy of everything it calls, so a thin wrapper around a
    large callee costs about as much again as the callee; inlined, it costs a little in each caller instead.
    For such wrappers: numba inlines slowly, so inlining a function with a body of its own saves little compile
    time or none (``python -m benchmarks.compile_time`` measures it)."""
    if function is None:
        return functools.partial(jit, inline=inline)
    options = dict(_OPTIONS, inline="always") if inline else dict(_OPTIONS)
    dispatcher = Dispatcher(py_func=function, locals={}, targetoptions=options)
    dispatcher.enable_caching()
    return dispatcher


def entry_point(function: numba.core.registry.CPUDispatcher, *example_args: object) -> object:
    """``function`` compiled for the types of ``example_args``, callable without numba's type
    dispatch (a cheaper call): only for callers that always pass those exact types."""
    return function.compile(tuple(numba.typeof(a) for a in example_args))


def is_cached(function: object) -> bool:
    """Whether numba's on-disk cache holds compiled code of the jitted ``function`` (False when unsure:
    another numba, no cache). Reads numba's cache index, numba's own business, hence the guard."""
    try:
        return bool(function._cache._cache_file._load_index())  # type: ignore[attr-defined]
    except Exception:
        return False
