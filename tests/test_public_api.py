"""The public surface is what `optimizer_core.__all__` lists, and the guide's names resolve."""

from __future__ import annotations

import subprocess
import sys
import types

import optimizer_core

GUIDE_NAMES = [
    "DataModel", "Input", "Generator", "ChainOfThought", "Program", "LanguageModel",
    "EmbeddingModel", "rewards.ExactMatch", "rewards.CosineSimilarity", "rewards.LMAsJudge",
    "rewards.ProgramAsJudge", "rewards.MeanRewardWrapper", "rewards.RewardFunctionWrapper",
    "metrics.F1Score", "metrics.Precision", "metrics.Recall", "metrics.MeanMetricWrapper",
    "optimizers.RandomFewShot", "optimizers.OMEGA", "callbacks.Callback",
    "callbacks.ProgramCheckpoint", "saving.register_synalinks_serializable",
    "utils.plot_history", "utils.plot_metrics_with_mean_and_std",
    "utils.plot_metrics_comparison_with_mean_and_std", "datasets.gsm8k.load_data",
    "Program.load",
]  # fmt: skip


def test_all_lists_exactly_the_public_names() -> None:
    public = {name for name in vars(optimizer_core) if not name.startswith("_")} | {"__version__"}
    assert set(optimizer_core.__all__) <= public
    # Submodules become attributes once imported anywhere; every other public name is listed.
    unlisted = {
        name
        for name in public - set(optimizer_core.__all__)
        if not isinstance(getattr(optimizer_core, name), types.ModuleType)
    }
    assert not unlisted


def test_every_name_the_guide_uses_resolves() -> None:
    for dotted in GUIDE_NAMES:
        target = optimizer_core
        for part in dotted.split("."):
            target = getattr(target, part)
        assert target is not None, dotted


def test_importing_the_library_does_not_import_litellm() -> None:
    """litellm takes seconds to import: it loads on the first model call, not before."""
    code = "import sys, optimizer_core; print('litellm' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
