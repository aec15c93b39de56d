from __future__ import annotations

import logging
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from optimizer_core import utils
from optimizer_core.utils import plotting

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

HISTORY = {
    "reward": [0.40, 0.55, 0.62, 0.70],
    "f1_score": [0.45, 0.58, 0.66, 0.71],
    "val_reward": [0.38, 0.50, 0.55, 0.57],
    "val_f1_score": [0.42, 0.52, 0.60, 0.61],
}
RUNS = [
    {"reward": 0.61, "f1_score": 0.70},
    {"reward": 0.58, "f1_score": 0.73},
    {"reward": 0.64, "f1_score": 0.69},
]


class FakeHistory:
    """What `fit()` returns, as far as plotting cares."""

    def __init__(self, history: dict[str, list[Any]]) -> None:
        self.history = history


def png_size(path: Path) -> tuple[int, int]:
    """Width and height of a PNG, after checking it is one."""
    content = path.read_bytes()
    assert content[:8] == PNG_SIGNATURE, f"{path} is not a PNG"
    assert content[12:16] == b"IHDR"
    width, height = struct.unpack(">II", content[16:24])
    return width, height


def assert_sensible_png(path: Path) -> tuple[int, int]:
    width, height = png_size(path)
    assert 400 <= width <= 4000 and 300 <= height <= 4000, (width, height)
    assert path.stat().st_size > 5_000, "a real plot, not an empty canvas"
    return width, height


def test_public_functions_are_exported() -> None:
    assert set(utils.__all__) >= {
        "plot_history",
        "plot_metrics",
        "plot_metrics_with_mean_and_std",
        "plot_metrics_comparison_with_mean_and_std",
        "json_utils",
    }
    assert utils.plot_history is plotting.plot_history


# -- plot_history ------------------------------------------------------------------------


def test_plot_history_writes_a_png_from_a_history_object(tmp_path: Path) -> None:
    written = plotting.plot_history(FakeHistory(HISTORY), to_folder=tmp_path)

    assert written == tmp_path / "training_history.png"
    assert_sensible_png(written)


def test_plot_history_accepts_a_dict_and_creates_nested_folders(tmp_path: Path) -> None:
    folder = tmp_path / "runs" / "first" / "plots"

    written = plotting.plot_history(HISTORY, to_folder=folder, to_file="curves.png", title="Run 1")

    assert written == folder / "curves.png"
    assert_sensible_png(written)


def test_plot_history_draws_one_panel_per_base_metric(tmp_path: Path) -> None:
    two_metrics = plotting.plot_history(HISTORY, to_folder=tmp_path, to_file="two.png")
    reward_only = plotting.plot_history(
        {"reward": HISTORY["reward"], "val_reward": HISTORY["val_reward"]},
        to_folder=tmp_path,
        to_file="one.png",
    )
    selected = plotting.plot_history(
        HISTORY, to_folder=tmp_path, to_file="selected.png", metrics=["reward"]
    )

    assert png_size(two_metrics)[0] > png_size(reward_only)[0]
    assert png_size(selected) == png_size(reward_only)


def test_plot_history_handles_a_single_epoch_and_gaps(tmp_path: Path) -> None:
    single = plotting.plot_history({"reward": [0.5]}, to_folder=tmp_path, to_file="single.png")
    gaps = plotting.plot_history(
        {"reward": [0.4, 0.5, 0.6], "val_reward": [None, 0.45, None]},
        to_folder=tmp_path,
        to_file="gaps.png",
    )

    assert_sensible_png(single)
    assert_sensible_png(gaps)


@pytest.mark.parametrize("history", [{}, FakeHistory({})])
def test_plot_history_rejects_an_empty_history(tmp_path: Path, history: Any) -> None:
    with pytest.raises(ValueError, match="`history` is empty"):
        plotting.plot_history(history, to_folder=tmp_path)
    assert not list(tmp_path.iterdir())


def test_plot_history_rejects_something_else(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="`history`"):
        plotting.plot_history([0.1, 0.2], to_folder=tmp_path)  # type: ignore[arg-type]


def test_plot_history_skips_non_numeric_series_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    history = {"reward": [0.1, 0.2], "notes": ["good", "better"]}

    with caplog.at_level(logging.WARNING, logger=plotting.__name__):
        written = plotting.plot_history(history, to_folder=tmp_path)

    assert_sensible_png(written)
    assert "'notes'" in caplog.text
    with pytest.raises(ValueError, match="`history` holds no numeric series"):
        plotting.plot_history({"notes": ["good"]}, to_folder=tmp_path)


def test_plot_history_rejects_unknown_metrics(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="`metrics`"):
        plotting.plot_history(HISTORY, to_folder=tmp_path, metrics=["accuracy"])


# -- plot_metrics_with_mean_and_std -----------------------------------------------------


def test_mean_and_std_writes_a_png(tmp_path: Path) -> None:
    written = plotting.plot_metrics_with_mean_and_std(
        RUNS, to_folder=tmp_path / "output", title="Evaluation Results"
    )

    assert written == tmp_path / "output" / "evaluation_metrics_with_mean_and_std.png"
    assert_sensible_png(written)


def test_mean_and_std_rejects_empty_results(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="`results` is empty"):
        plotting.plot_metrics_with_mean_and_std([], to_folder=tmp_path)
    with pytest.raises(ValueError, match="`results` is empty"):
        plotting.plot_metrics_with_mean_and_std([{}, {}], to_folder=tmp_path)


def test_mean_and_std_wants_a_list_of_dicts(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="`results`"):
        plotting.plot_metrics_with_mean_and_std(RUNS[0], to_folder=tmp_path)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"`results\[1\]`"):
        plotting.plot_metrics_with_mean_and_std([RUNS[0], 0.5], to_folder=tmp_path)  # type: ignore[list-item]


def test_mean_and_std_skips_non_numeric_values_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    runs = [{**run, "model": "gpt-4o-mini", "failed": None} for run in RUNS]

    with caplog.at_level(logging.WARNING, logger=plotting.__name__):
        written = plotting.plot_metrics_with_mean_and_std(runs, to_folder=tmp_path)

    assert_sensible_png(written)
    assert "'model'" in caplog.text and "'failed'" in caplog.text
    assert caplog.text.count("'model'") == 1, "one warning per key, not per run"
    with pytest.raises(ValueError, match="`results` holds no numeric metric"):
        plotting.plot_metrics_with_mean_and_std([{"model": "x"}], to_folder=tmp_path)


# -- plot_metrics_comparison_with_mean_and_std ------------------------------------------


def test_comparison_writes_a_png(tmp_path: Path) -> None:
    baseline = [{"reward": value - 0.2, "f1_score": value - 0.1} for value in (0.6, 0.62, 0.58)]

    written = plotting.plot_metrics_comparison_with_mean_and_std(
        {"before_training": baseline, "after_training": RUNS},
        to_folder=tmp_path / "a" / "b",
        title="Training Improvement",
    )

    assert written == tmp_path / "a" / "b" / "metrics_comparison_with_mean_and_std.png"
    assert_sensible_png(written)


def test_comparison_accepts_single_results_and_missing_metrics(tmp_path: Path) -> None:
    written = plotting.plot_metrics_comparison_with_mean_and_std(
        {"before": {"reward": 0.3}, "after": [{"reward": 0.6, "f1_score": 0.5}]},
        to_folder=tmp_path,
    )

    assert_sensible_png(written)


def test_comparison_errors_name_the_argument(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="`comparison` is empty"):
        plotting.plot_metrics_comparison_with_mean_and_std({}, to_folder=tmp_path)
    with pytest.raises(ValueError, match=r"`comparison\['after'\]` is empty"):
        plotting.plot_metrics_comparison_with_mean_and_std(
            {"before": RUNS, "after": []}, to_folder=tmp_path
        )
    with pytest.raises(TypeError, match="`comparison`"):
        plotting.plot_metrics_comparison_with_mean_and_std(RUNS, to_folder=tmp_path)  # type: ignore[arg-type]


# -- plot_metrics ------------------------------------------------------------------------


def test_plot_metrics_writes_a_png(tmp_path: Path) -> None:
    written = plotting.plot_metrics({"reward": 0.6, "f1_score": 0.7}, to_folder=tmp_path)

    assert written == tmp_path / "evaluation_metrics.png"
    assert_sensible_png(written)


def test_plot_metrics_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="`results` is empty"):
        plotting.plot_metrics({}, to_folder=tmp_path)
    with pytest.raises(TypeError, match="plot_metrics_with_mean_and_std"):
        plotting.plot_metrics(RUNS, to_folder=tmp_path)  # type: ignore[arg-type]


# -- show_values -------------------------------------------------------------------------


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The figures the plot functions draw, caught as they are saved."""
    figures: list[Any] = []
    save = plotting._save

    def keep(figure: Any, path: Path, dpi: int) -> Path:
        figures.append(figure)
        return save(figure, path, dpi)

    monkeypatch.setattr(plotting, "_save", keep)
    return figures


def bar_labels(figure: Any) -> list[str]:
    return [text.get_text() for axes in figure.axes for text in axes.texts]


BEFORE = [{"reward": 0.2, "f1_score": 0.3}, {"reward": 0.3, "f1_score": 0.35}]
PLOTS = {
    "plot_metrics": (
        lambda **kw: plotting.plot_metrics({"reward": 0.6125, "f1_score": 0.7}, **kw),
        ["0.613", "0.700"],
    ),
    "plot_metrics_with_mean_and_std": (
        lambda **kw: plotting.plot_metrics_with_mean_and_std(RUNS, **kw),
        ["0.610\n± 0.030", "0.707\n± 0.021"],
    ),
    "plot_metrics_comparison_with_mean_and_std": (
        lambda **kw: plotting.plot_metrics_comparison_with_mean_and_std(
            {"before": BEFORE, "after": RUNS}, **kw
        ),
        ["0.250\n± 0.071", "0.325\n± 0.035", "0.610\n± 0.030", "0.707\n± 0.021"],
    ),
}


@pytest.mark.parametrize("name", list(PLOTS))
def test_show_values_writes_each_bars_value_above_it(
    name: str, tmp_path: Path, drawn: list[Any]
) -> None:
    plot, labels = PLOTS[name]

    plot(to_folder=tmp_path, show_values=True)
    plot(to_folder=tmp_path, show_values=False)

    with_values, without = drawn
    assert bar_labels(with_values) == labels
    assert bar_labels(without) == []


def test_values_are_shown_by_default(tmp_path: Path, drawn: list[Any]) -> None:
    plotting.plot_metrics({"reward": 0.5}, to_folder=tmp_path)

    assert bar_labels(drawn[0]) == ["0.500"]


# -- output arguments --------------------------------------------------------------------


def test_dpi_scales_the_image(tmp_path: Path) -> None:
    small = plotting.plot_metrics(RUNS[0], to_folder=tmp_path, to_file="small.png", dpi=60)
    large = plotting.plot_metrics(RUNS[0], to_folder=tmp_path, to_file="large.png", dpi=120)

    assert png_size(large)[0] == pytest.approx(2 * png_size(small)[0], abs=2)


def test_a_file_name_without_extension_becomes_a_png(tmp_path: Path) -> None:
    written = plotting.plot_metrics(RUNS[0], to_folder=tmp_path, to_file="scores")

    assert written == tmp_path / "scores.png"
    png_size(written)


def test_other_image_formats_follow_the_extension(tmp_path: Path) -> None:
    written = plotting.plot_history(HISTORY, to_folder=tmp_path, to_file="history.svg")

    assert written.read_text().lstrip().startswith("<?xml")


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ({"to_file": "history.txt"}, "`to_file`"),
        ({"to_file": ""}, "`to_file`"),
        ({"dpi": 0}, "`dpi`"),
    ],
)
def test_bad_output_arguments_are_named(
    tmp_path: Path, arguments: dict[str, Any], named: str
) -> None:
    with pytest.raises(ValueError, match=named):
        plotting.plot_history(HISTORY, to_folder=tmp_path, **arguments)


def test_importing_the_library_leaves_matplotlib_and_its_backend_alone() -> None:
    # matplotlib is imported on the first plot, and never through pyplot.
    script = (
        "import sys, optimizer_core.utils as u\n"
        "assert 'matplotlib' not in sys.modules\n"
        "import tempfile\n"
        "u.plot_metrics({'reward': 0.5}, to_folder=tempfile.mkdtemp())\n"
        "assert 'matplotlib.pyplot' not in sys.modules\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert completed.returncode == 0, completed.stderr
