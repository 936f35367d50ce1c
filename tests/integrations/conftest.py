"""Fixtures shared by the library-integration tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture
def seeded_torch() -> Iterator[None]:
    """TorchRL samples from torch's default generator: seed a fork of it; one thread suits the small MLP."""
    import torch  # here, so that collecting the integration tests does not import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    with torch.random.fork_rng():
        torch.manual_seed(0)
        yield
    torch.set_num_threads(threads)
