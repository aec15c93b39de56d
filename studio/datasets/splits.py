"""The train / test split of a dataset's rows: deterministic from the row count and a seed."""

from __future__ import annotations

import random


def split_indices(count: int, *, test_fraction: float, seed: int) -> tuple[list[int], list[int]]:
    """Deterministic train / test row indices (each list in file order).

    ``round(count * test_fraction)`` rows, drawn with `random.Random(seed)`, go
    to the test split; the same arguments always give the same split.
    """
    test_size = min(count, max(0, round(count * test_fraction)))
    order = list(range(count))
    random.Random(seed).shuffle(order)
    test = sorted(order[:test_size])
    test_set = set(test)
    train = [i for i in range(count) if i not in test_set]
    return train, test
