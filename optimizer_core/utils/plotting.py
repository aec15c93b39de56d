"""Plots of training histories and evaluation results, written as image files.

Figures are drawn on matplotlib's Agg canvas directly, never through pyplot, so
plotting needs no display and leaves alone whatever backend a user has chosen.
matplotlib is imported on the first plot, not with the library.

Each function writes one file (PNG unless `to_file` says otherwise), creates
`to_folder` if needed, and returns the path written.
"""

from __future__ import annotations

import logging
import math
import numbers
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

logger = logging.getLogger(__name__)

StrPath = str | os.PathLike[str]
Results = Mapping[str, Any]

DEFAULT_DPI = 120
# Tableau 10: distinct, colour-blind friendly, readable on white.
PALETTE = (
    "#4E79A7",
    "#F28E2B",
    "#59A14F",
    "#E15759",
    "#76B7B2",
    "#EDC948",
    "#B07AA1",
    "#FF9DA7",
    "#9C755F",
    "#BAB0AC",
)
_TEXT_COLOUR = "#333333"
_GRID_COLOUR = "#DDDDDD"
_VALIDATION_PREFIX = "val_"


class SupportsHistory(Protocol):
    """Anything with a ``history`` dict of per-epoch lists, like the result of `fit()`."""

    @property
    def history(self) -> Mapping[str, Any]: ...


def plot_history(
    history: SupportsHistory | Mapping[str, Any],
    *,
    to_folder: StrPath = ".",
    to_file: StrPath = "training_history.png",
    metrics: Sequence[str] | None = None,
    title: str | None = None,
    dpi: int = DEFAULT_DPI,
    metrics_filter: Sequence[str] | None = None,
) -> Path:
    """Plot the per-epoch training curves of a `fit()` run.

    One panel per metric, the training series (``reward``) and its validation
    twin (``val_reward``) on the same axes, against the epoch (from 1).

    Args:
        history: the History returned by `fit()`, or its ``history`` dict
            (metric name -> list of per-epoch values).
        to_folder: the folder to write to, created if missing. Defaults to ``"."``.
        to_file: the file name; its extension picks the format. Defaults to
            ``"training_history.png"``.
        metrics: the base metric names to plot (e.g. ``["reward"]``). Defaults to
            None (all).
        title: the figure's title. Defaults to None (``"Training history"``).
        dpi: resolution of the image. Defaults to 120.
        metrics_filter: the reference's name for `metrics` (used when `metrics`
            is None).

    Returns:
        The path of the file written.

    Raises:
        ValueError: `history` is empty or holds no numeric series, or `metrics`
            names a metric the history lacks.

    Example:
        ```python
        history = await program.fit(x=x_train, y=y_train, epochs=5)
        plot_history(history, to_folder="output")
        ```
    """
    target = _target(to_folder, to_file, dpi)
    series = _history_series(history)
    bases = _select(_base_names(series), metrics if metrics is not None else metrics_filter)

    figure = _new_figure(*_history_figure_size(len(bases)))
    columns = 1 if len(bases) == 1 else 2
    rows = math.ceil(len(bases) / columns)
    axes_grid = figure.subplots(rows, columns, squeeze=False)
    all_axes = list(axes_grid.flat)
    for axes, base in zip(all_axes, bases, strict=False):
        _draw_history_panel(axes, base, series)
    for unused in all_axes[len(bases) :]:
        unused.set_visible(False)
    figure.suptitle(title or "Training history", fontsize=14, color=_TEXT_COLOUR)
    return _save(figure, target, dpi)


def plot_metrics(
    results: Results,
    *,
    to_folder: StrPath = ".",
    to_file: StrPath = "evaluation_metrics.png",
    title: str = "Evaluation Results",
    metrics: Sequence[str] | None = None,
    show_values: bool = True,
    dpi: int = DEFAULT_DPI,
) -> Path:
    """Plot the metrics of one evaluation as bars, each with its value written (`show_values`).

    Args:
        results: metric name -> value, as returned by `evaluate()`.
        to_folder: the folder to write to, created if missing. Defaults to ``"."``.
        to_file: the file name. Defaults to ``"evaluation_metrics.png"``.
        title: the figure's title. Defaults to ``"Evaluation Results"``.
        metrics: the metric names to plot. Defaults to None (all numeric ones).
        show_values: write each bar's value above it (``0.613``, with ``± 0.025``
            below when there is a standard deviation). Defaults to True.
        dpi: resolution of the image. Defaults to 120.

    Returns:
        The path of the file written.

    Example:
        ```python
        plot_metrics(await program.evaluate(x=x_test, y=y_test), to_folder="output")
        ```
    """
    target = _target(to_folder, to_file, dpi)
    if not isinstance(results, Mapping):
        raise TypeError(
            f"`results` must be a dict of metric values, got {type(results).__name__}; "
            "for several runs use plot_metrics_with_mean_and_std"
        )
    values = _collect([results], "results")
    names = _select(list(values), metrics)
    bars = _Bars(label=None, means=[values[name][0] for name in names], stds=None)
    figure = _bar_chart(names, [bars], title=title, subtitle=None, show_values=show_values)
    return _save(figure, target, dpi)


def plot_metrics_with_mean_and_std(
    results: Sequence[Results],
    *,
    to_folder: StrPath = ".",
    to_file: StrPath = "evaluation_metrics_with_mean_and_std.png",
    title: str = "Evaluation Results",
    metrics: Sequence[str] | None = None,
    show_values: bool = True,
    dpi: int = DEFAULT_DPI,
) -> Path:
    """Plot the mean and standard deviation of each metric over several evaluations.

    The standard deviation is the sample one (``ddof=1``), 0 for a single run.

    Args:
        results: one dict per `evaluate()` run (metric name -> value).
        to_folder: the folder to write to, created if missing. Defaults to ``"."``.
        to_file: the file name. Defaults to
            ``"evaluation_metrics_with_mean_and_std.png"``.
        title: the figure's title. Defaults to ``"Evaluation Results"``.
        metrics: the metric names to plot. Defaults to None (all numeric ones).
        show_values: write each bar's value above it (``0.613``, with ``± 0.025``
            below when there is a standard deviation). Defaults to True.
        dpi: resolution of the image. Defaults to 120.

    Returns:
        The path of the file written.

    Raises:
        ValueError: `results` is empty or holds no numeric metric.

    Example:
        ```python
        results = [await program.evaluate(x=x_test, y=y_test) for _ in range(5)]
        plot_metrics_with_mean_and_std(results, to_folder="output")
        ```
    """
    target = _target(to_folder, to_file, dpi)
    runs = _runs(results, "results")
    values = _collect(runs, "results")
    names = _select(list(values), metrics)
    bars = _Bars(
        label=None,
        means=[_mean(values[name]) for name in names],
        stds=[_std(values[name]) for name in names] if len(runs) > 1 else None,
    )
    figure = _bar_chart(
        names, [bars], title=title, subtitle=_runs_subtitle([len(runs)]), show_values=show_values
    )
    return _save(figure, target, dpi)


def plot_metrics_comparison_with_mean_and_std(
    comparison: Mapping[str, Sequence[Results] | Results],
    *,
    to_folder: StrPath = ".",
    to_file: StrPath = "metrics_comparison_with_mean_and_std.png",
    title: str = "Metrics Comparison",
    metrics: Sequence[str] | None = None,
    show_values: bool = True,
    dpi: int = DEFAULT_DPI,
) -> Path:
    """Compare programs (or a program before and after training) metric by metric.

    Grouped bars: one group per metric, one colour per entry of `comparison`,
    each bar the mean over that entry's runs with a standard-deviation error bar.

    Args:
        comparison: name -> list of `evaluate()` results (a single result dict
            is taken as one run), e.g. ``{"before_training": [...],
            "after_training": [...]}``.
        to_folder: the folder to write to, created if missing. Defaults to ``"."``.
        to_file: the file name. Defaults to
            ``"metrics_comparison_with_mean_and_std.png"``.
        title: the figure's title. Defaults to ``"Metrics Comparison"``.
        metrics: the metric names to plot. Defaults to None (all numeric ones).
        show_values: write each bar's value above it (``0.613``, with ``± 0.025``
            below when there is a standard deviation). Defaults to True.
        dpi: resolution of the image. Defaults to 120.

    Returns:
        The path of the file written.

    Raises:
        ValueError: `comparison`, or one of its entries, is empty.

    Example:
        ```python
        plot_metrics_comparison_with_mean_and_std(
            {"before_training": baseline_results, "after_training": trained_results},
            to_folder="output",
            title="Training Improvement",
        )
        ```
    """
    target = _target(to_folder, to_file, dpi)
    if not isinstance(comparison, Mapping):
        raise TypeError(
            f"`comparison` must be a dict of name -> list of results, "
            f"got {type(comparison).__name__}"
        )
    if not comparison:
        raise ValueError("`comparison` is empty: give at least one name -> list of results")
    collected: dict[str, dict[str, list[float]]] = {}
    run_counts: list[int] = []
    for name, entry in comparison.items():
        argument = f"comparison[{name!r}]"
        runs = [entry] if isinstance(entry, Mapping) else _runs(entry, argument)
        collected[str(name)] = _collect(runs, argument, require_numeric=False)
        run_counts.append(len(runs))
    all_names: list[str] = []
    for values in collected.values():
        all_names.extend(name for name in values if name not in all_names)
    if not all_names:
        raise ValueError("`comparison` holds no numeric metric")
    names = _select(all_names, metrics)

    groups = [
        _Bars(
            label=label,
            means=[_mean(values[name]) if name in values else math.nan for name in names],
            stds=[_std(values[name]) if name in values else math.nan for name in names]
            if run_count > 1
            else None,
        )
        for (label, values), run_count in zip(collected.items(), run_counts, strict=True)
    ]
    figure = _bar_chart(
        names,
        groups,
        title=title,
        subtitle=_runs_subtitle(run_counts),
        show_values=show_values,
    )
    return _save(figure, target, dpi)


# -- data --------------------------------------------------------------------------------


def _number(value: Any) -> float | None:
    """The value as a finite float, or None when it is not a number."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _history_series(history: SupportsHistory | Mapping[str, Any]) -> dict[str, list[float]]:
    raw = history if isinstance(history, Mapping) else getattr(history, "history", None)
    if not isinstance(raw, Mapping):
        raise TypeError(
            "`history` must be a History (with a `history` dict) or a dict of "
            f"metric name -> list of values, got {type(history).__name__}"
        )
    if not raw:
        raise ValueError("`history` is empty: there is nothing to plot (did `fit()` run?)")
    series: dict[str, list[float]] = {}
    for key, values in raw.items():
        points = list(values) if _is_sequence(values) else [values]
        if not all(_is_point(point) for point in points):
            logger.warning("plot_history: skipping %r, its values are not all numbers", key)
            continue
        if points:
            # None (an epoch without this figure) becomes a gap in the line.
            series[str(key)] = [math.nan if point is None else float(point) for point in points]
    if not series:
        raise ValueError(f"`history` holds no numeric series (keys: {list(raw)})")
    return series


def _is_point(value: Any) -> bool:
    return value is None or (isinstance(value, numbers.Real) and not isinstance(value, bool))


def _is_sequence(value: Any) -> bool:
    return (
        hasattr(value, "__len__")
        and hasattr(value, "__iter__")
        and not isinstance(value, str | bytes | Mapping)
    )


def _base_names(series: Mapping[str, list[float]]) -> list[str]:
    bases: list[str] = []
    for key in series:
        base = key.removeprefix(_VALIDATION_PREFIX) or key
        if base not in bases:
            bases.append(base)
    return bases


def _runs(results: Any, argument: str) -> list[Results]:
    if isinstance(results, Mapping) or not _is_sequence(results):
        raise TypeError(
            f"`{argument}` must be a list of result dicts (one per evaluation), "
            f"got {type(results).__name__}"
        )
    runs = list(results)
    if not runs:
        raise ValueError(f"`{argument}` is empty: give at least one evaluation's results")
    for index, run in enumerate(runs):
        if not isinstance(run, Mapping):
            raise TypeError(
                f"`{argument}[{index}]` must be a dict of metric values, got {type(run).__name__}"
            )
    return runs


def _collect(
    runs: Sequence[Results], argument: str, *, require_numeric: bool = True
) -> dict[str, list[float]]:
    """Metric name -> its numeric values over the runs, in first-seen order."""
    values: dict[str, list[float]] = {}
    skipped: set[str] = set()
    for run in runs:
        for key, value in run.items():
            number = _number(value)
            if number is None:
                if key not in skipped:
                    logger.warning(
                        "skipping %r in `%s`: %r is not a finite number", key, argument, value
                    )
                    skipped.add(key)
                continue
            values.setdefault(str(key), []).append(number)
    if not runs or all(not run for run in runs):
        raise ValueError(f"`{argument}` is empty: there is no metric to plot")
    if require_numeric and not values:
        raise ValueError(f"`{argument}` holds no numeric metric (keys: {sorted(skipped)})")
    return values


def _select(available: list[str], wanted: Sequence[str] | None) -> list[str]:
    if wanted is None:
        return available
    if isinstance(wanted, str):
        raise TypeError(f"`metrics` must be a list of metric names, got the string {wanted!r}")
    unknown = [name for name in wanted if name not in available]
    if unknown or not wanted:
        raise ValueError(f"`metrics` must name some of {available}, got {list(wanted)}")
    return list(dict.fromkeys(wanted))


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values)


def _std(values: Sequence[float]) -> float:
    if len(values) < 2:
        return 0.0
    mean = _mean(values)
    return math.sqrt(math.fsum((value - mean) ** 2 for value in values) / (len(values) - 1))


def _runs_subtitle(run_counts: Sequence[int]) -> str | None:
    counts = sorted(set(run_counts))
    if counts == [1]:
        return None
    runs = str(counts[0]) if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
    return f"mean ± standard deviation over {runs} runs"


# -- drawing -----------------------------------------------------------------------------


def _target(to_folder: StrPath, to_file: StrPath, dpi: int) -> Path:
    """Validate the output arguments before any drawing and return the file path."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if isinstance(dpi, bool) or not isinstance(dpi, int) or dpi < 10:
        raise ValueError(f"`dpi` must be an int >= 10, got {dpi!r}")
    name = os.fspath(to_file)
    if not name or name.endswith(("/", os.sep)):
        raise ValueError(f"`to_file` must be a file name, got {name!r}")
    path = Path(to_folder) / name
    if not path.suffix:
        path = path.with_suffix(".png")
    formats = FigureCanvasAgg.get_supported_filetypes()
    if path.suffix[1:].lower() not in formats:
        raise ValueError(
            f"`to_file` must end with one of {sorted('.' + f for f in formats)}, got {name!r}"
        )
    return path


def _new_figure(width: float, height: float) -> Figure:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), layout="constrained", facecolor="white")
    FigureCanvasAgg(figure)
    return figure


def _save(figure: Figure, path: Path, dpi: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=dpi, facecolor="white")
    return path


def _style(axes: Axes) -> None:
    for side in ("top", "right"):
        axes.spines[side].set_visible(False)
    for side in ("left", "bottom"):
        axes.spines[side].set_color("#999999")
    axes.set_axisbelow(True)
    axes.tick_params(colors=_TEXT_COLOUR, labelsize=9)
    axes.grid(True, axis="y", color=_GRID_COLOUR, linewidth=0.8)


def _history_figure_size(panels: int) -> tuple[float, float]:
    if panels == 1:
        return 8.0, 4.8
    rows = math.ceil(panels / 2)
    return 11.0, 0.6 + 3.8 * rows


def _draw_history_panel(axes: Axes, base: str, series: Mapping[str, list[float]]) -> None:
    from matplotlib.ticker import MaxNLocator

    _style(axes)
    axes.grid(True, axis="x", color=_GRID_COLOUR, linewidth=0.8)
    lines = (
        (base, "training", PALETTE[0], "-", "o"),
        (_VALIDATION_PREFIX + base, "validation", PALETTE[1], "--", "s"),
    )
    plotted: list[float] = []
    epoch_count = 0
    for key, label, colour, line_style, marker in lines:
        values = series.get(key)
        if not values:
            continue
        epochs = list(range(1, len(values) + 1))
        epoch_count = max(epoch_count, len(values))
        axes.plot(
            epochs,
            values,
            label=f"{label} ({key})",
            color=colour,
            linestyle=line_style,
            linewidth=2,
            marker=marker if len(values) <= 30 else None,
            markersize=5,
        )
        plotted.extend(value for value in values if math.isfinite(value))
    axes.set_title(base, fontsize=12, color=_TEXT_COLOUR, loc="left")
    axes.set_xlabel("epoch", fontsize=10, color=_TEXT_COLOUR)
    if epoch_count <= 12:
        axes.set_xticks(range(1, epoch_count + 1))
    else:
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    if plotted and min(plotted) >= 0.0 and max(plotted) <= 1.0:
        axes.set_ylim(-0.03, 1.03)
    if epoch_count == 1:
        axes.set_xlim(0.5, 1.5)
    axes.legend(frameon=False, fontsize=9, loc="best")


@dataclass
class _Bars:
    label: str | None
    means: list[float]
    stds: list[float] | None


def _bar_chart(
    names: list[str],
    groups: list[_Bars],
    *,
    title: str,
    subtitle: str | None,
    show_values: bool = True,
) -> Figure:
    """Bars per metric; one colour per metric for one group, one per group otherwise.

    With `show_values` each bar's value is written above it, to 3 decimals as
    the reference library writes them, its standard deviation on a line of its
    own (grouped bars stay readable without turning the labels).
    """
    group_count = len(groups)
    slot = 0.8 / group_count
    width = max(6.0, 1.1 + len(names) * (0.9 + 0.55 * group_count))
    figure = _new_figure(min(width, 18.0), 5.2)
    axes = figure.subplots()
    _style(axes)

    tops: list[float] = []
    bottoms: list[float] = [0.0]
    for index, group in enumerate(groups):
        offset = (index - (group_count - 1) / 2) * slot
        positions = [position + offset for position in range(len(names))]
        if group_count == 1:
            colours = [PALETTE[i % len(PALETTE)] for i in range(len(names))]
        else:
            colours = [PALETTE[index % len(PALETTE)]] * len(names)
        stds = group.stds
        axes.bar(
            positions,
            group.means,
            width=0.6 if group_count == 1 else slot * 0.9,
            color=colours,
            label=group.label,
            yerr=stds,
            capsize=5 if group_count <= 3 else 3,
            error_kw={"ecolor": "#444444", "elinewidth": 1.2},
            zorder=2,
        )
        for position, mean, std in zip(
            positions, group.means, stds or [0.0] * len(names), strict=True
        ):
            if math.isnan(mean):
                continue
            reach = mean + std if mean >= 0 else mean - std
            tops.append(max(reach, 0.0))
            bottoms.append(min(reach, 0.0))
            if not show_values:
                continue
            text = f"{mean:.3f}" if stds is None else f"{mean:.3f}\n± {std:.3f}"
            axes.annotate(
                text,
                (position, reach),
                xytext=(0, 3 if mean >= 0 else -3),
                textcoords="offset points",
                ha="center",
                va="bottom" if mean >= 0 else "top",
                fontsize=9 if group_count <= 3 else 7,
                color=_TEXT_COLOUR,
                linespacing=1.1,
            )

    # Scores in [0, 1] keep a fixed 0..1 scale (runs compare at a glance); the headroom
    # above 1 holds the value labels and shows no tick of its own.
    top = max(max(tops, default=0.0), 1.0 if max(tops, default=0.0) <= 1.0 else 0.0)
    bottom = min(bottoms)
    headroom = 0.18 if any(group.stds is not None for group in groups) else 0.12
    if not show_values:
        headroom = 0.05
    axes.set_ylim(bottom * (1 + 2 * headroom) if bottom < 0 else 0.0, top * (1 + headroom))
    axes.set_xticks(range(len(names)))
    long_labels = len(names) > 6 or max(len(name) for name in names) > 14
    axes.set_xticklabels(
        names,
        rotation=25 if long_labels else 0,
        ha="right" if long_labels else "center",
        rotation_mode="anchor",
        fontsize=10,
    )
    if bottom < 0:
        axes.axhline(0.0, color="#999999", linewidth=0.8)
    if group_count > 1:
        axes.legend(
            loc="lower center",
            bbox_to_anchor=(0.5, 1.0),
            ncols=min(group_count, 4),
            frameon=False,
            fontsize=10,
        )
    elif subtitle:
        axes.set_title(subtitle, fontsize=10, color="#666666")
    if group_count > 1 and subtitle:
        axes.set_xlabel(subtitle, fontsize=9, color="#666666", labelpad=8)
    figure.suptitle(title, fontsize=14, color=_TEXT_COLOUR)
    return figure
