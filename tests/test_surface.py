"""The public surface stays readable: each package's ``__all__`` names what users call, at most 100 in all
(issue 62), and every name listed exists."""

from __future__ import annotations

import importlib
import pkgutil

import rams_env

LIMIT = 100


def packages() -> list[str]:
    names = ["rams_env"]
    for info in pkgutil.walk_packages(rams_env.__path__, "rams_env."):
        if info.ispkg and not info.name.startswith("rams_env.integrations."):  # the library adapters load libraries
            names.append(info.name)
    return [*names, "rams_env.integrations.openspiel"]


def test_the_public_names_are_few_and_all_exist():
    total = 0
    for name in packages():
        module = importlib.import_module(name)
        listed = getattr(module, "__all__", [])
        for item in listed:
            assert hasattr(module, item), f"{name}.__all__ names {item!r}, which it does not have"
        total += len(listed)
    assert total <= LIMIT, f"{total} public names in the packages' __all__, more than {LIMIT}"
