from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

from optimizer_core.utils.plotting import plot_history


def test_metrics_filter_picks_the_metrics(tmp_path) -> None:
    history = {"reward": [0.1, 0.5], "val_reward": [0.2, 0.4], "accuracy": [0.3, 0.6]}
    path = plot_history(history, to_folder=tmp_path, to_file="h.png", metrics_filter=["reward"])
    assert path.exists() and path.stat().st_size > 0
