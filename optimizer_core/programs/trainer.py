"""The training loop behind `Program.compile / fit / evaluate / predict`.

`Trainer.fit` has the shape of Keras's trainer: it splits off the validation
rows (`epoch_iterator.split_validation`), picks up or starts its loop state
(`fit_state.FitState`), then drives an `epoch_iterator.EpochIterator` epoch by
epoch (`Trainer._fit_epoch`), lets a `best_epoch.BestEpoch` judge each epoch,
records the state before the callbacks see the epoch end, and restores the best
epoch's variables at the end. The optimizer is told what it needs through the
`optimizers.context.TrainingContext` passed to each of its calls.

What the settings of `fit` cost and decide:

- ``minibatch_size`` (default 4, the reference library's figure; None: every
  validation row): the rows each proposal is scored on, drawn afresh each step.
  Training costs about ``rows + steps * minibatch_size + validation rows`` LM
  calls per epoch, so this, not ``batch_size``, sets the price of candidate
  scoring. A proposal is paired with the incumbent on the same rows, scored on
  the first half first and no further when a perfect score on the rest could not
  lift it above the incumbent (`optimizers.steps`); a result already known in
  the fit is not asked for again (`candidate_scoring`).
- ``scoring_temperature`` (default 0.0; None: each module's own): the
  temperature of the calls that decide, a proposal's minibatch and the
  validation passes. At 0 a row's answer is the same every time, so a proposal
  beats the incumbent on its rows on its merit, not on a luckier sample
  (SmolLM2-135M on BANKING77 at the server's 0.8: a rewrite to "1.0.2.1.1.1.2"
  won its 4 rows and cost 0.15 of test reward). Training batches keep the
  modules' own temperature.
- ``validate_start`` (default False, as in the guide; the studio's runs turn it
  on): validate the starting values once before the first epoch, so that they
  compete with the epochs (`best_epoch`): a fit never ends worse on the
  validation rows than it began. It costs one validation pass and tells the
  first proposals' pairing how the starting candidate does on every row.
- ``initial_epoch``: a fit from ``initial_epoch=k`` on a program saved at the end
  of epoch ``k - 1`` continues that run when its data (row counts), batch and
  minibatch sizes, shuffle and seed are the same (`fit_state`): the same batches
  in the same order, the best epoch chosen over the whole run, and a `History`
  holding every epoch since 0. It ends as the uninterrupted run would have.
- A callback may put an interrupted run back in its ``on_train_begin``
  (`BackupAndRestore`, through `Program.resume_from`): the fit then starts at
  the epoch the run had reached instead of ``initial_epoch``, continuing the
  run's state as above when the settings are the same.
- ``failure_rule``: when predictions failing because of the language model stop
  the fit with the model's error (`failures`).

At the end the variables of the best epoch are restored: by ``val_reward`` with
validation rows, else by the training ``reward``. A `Budget` that is spent stops
the fit as ``stop_training`` does, keeping the best epoch's variables (the
starting ones when no epoch ended).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import math
import sys
from collections.abc import Awaitable, Mapping, Sequence
from typing import Any, Literal, Protocol, cast, overload

import numpy as np

from optimizer_core import metrics as metrics_family
from optimizer_core import model_algebra
from optimizer_core import optimizers as optimizers_family
from optimizer_core import rewards as rewards_family
from optimizer_core.callbacks import CallbackList
from optimizer_core.datamodels import DataModel, JsonDict, to_json
from optimizer_core.exceptions import (
    BudgetExhausted,
    DataError,
    ProgramError,
    RewardError,
)
from optimizer_core.language_models.call_overrides import pin_calls
from optimizer_core.metrics import Metric
from optimizer_core.modules.module import OVERRIDES, TRACE, Module
from optimizer_core.optimizers import Optimizer
from optimizer_core.optimizers.context import TrainingContext
from optimizer_core.optimizers.optimizer import MAX_PREDICTIONS
from optimizer_core.optimizers.steps import StepJob
from optimizer_core.programs.best_epoch import START_EPOCH
from optimizer_core.programs.candidate_scoring import CandidateMinibatch, ResultCache
from optimizer_core.programs.epoch_iterator import (
    EpochIterator,
    FitData,
    check_positive_int,
    split_validation,
)
from optimizer_core.programs.failures import FailureCount, FailureRule
from optimizer_core.programs.fit_state import FitState
from optimizer_core.programs.results import EvaluatedExample, Evaluation, TraceStep
from optimizer_core.rewards import Reward
from optimizer_core.saving.object_registry import serialize_object
from optimizer_core.variables import Variable, restore, snapshot

logger = logging.getLogger("optimizer_core")

# Validation rows sent at once at the end of an epoch (the model's own bound still applies).
VALIDATION_CHUNK = 64
# Validation rows each proposal is scored on by default (the reference library's figure).
MINIBATCH_SIZE = 4
# A SampleResult's ``scored`` when it is the output itself.
_SAME: Any = object()


class SampleResult:
    """One prediction: its output, what rewards score, the trace of its modules, its reward.

    ``output`` is what the program returned (a list for several outputs); ``scored``
    what the reward and metrics see: the output, or for several outputs their
    fields merged into one JSON object (`Trainer` docstring). A prediction with
    nothing to score (``scored`` None) has `failed`.
    """

    __slots__ = ("error", "exception", "feedback", "output", "reward", "scored", "trace")

    def __init__(self, output: Any, trace: list[JsonDict], *, scored: Any = _SAME) -> None:
        self.output = output
        self.scored = output if scored is _SAME else scored
        self.trace = trace
        self.reward = 0.0
        #: What the reward said of it beside its score (None: nothing).
        self.feedback: str | None = None
        failed = [t for t in trace if t.get("error")]
        self.error: str | None = failed[0]["error"] if failed else None
        self.exception: BaseException | None = failed[0].get("exception") if failed else None

    @property
    def failed(self) -> bool:
        """Nothing to score: the output is None (every output, for several)."""
        return self.scored is None

    def steps(self) -> list[TraceStep]:
        """The trace as `TraceStep`s (what each module saw and gave, the branches taken)."""
        return [TraceStep.from_record(record) for record in self.trace]


class TrainedModel(Protocol):
    """What `Trainer` needs of the class it is mixed into (`Program` provides it).

    The trainer does not import `Program`, as Keras's trainer does not import
    `Model`: it runs any model with these members.
    """

    @property
    def variables(self) -> list[Variable]: ...

    @property
    def trainable_variables(self) -> list[Variable]: ...

    @property
    def output_data_model(self) -> type[DataModel]: ...

    @property
    def input_data_models(self) -> list[type[DataModel]]: ...

    @property
    def output_data_models(self) -> list[type[DataModel]]: ...

    @property
    def description(self) -> str | None: ...

    def get_module(self, name: str) -> Module: ...

    def get_variable(self, name: str) -> Variable: ...

    def coerce_inputs(self, row: Any, *, where: str = "input") -> list[DataModel]: ...

    async def __call__(self, inputs: Any, *, training: bool = False) -> Any: ...


@dataclasses.dataclass
class _FitRun:
    """What one fit's epochs share.

    Args:
        rows: the fit's rows, each epoch's batches and each step's minibatch.
        optimizer: the compiled optimizer.
        context: what the optimizer's calls are told (the program's description,
            the callbacks' ``on_optimizer_event``).
        trainable: the program's trainable variables.
        callbacks: the fit's callbacks.
        in_a_row: the fit's failed predictions, against its failure rule.
        cache: each (candidate, row) result known in this fit (set once built).
    """

    rows: EpochIterator
    optimizer: Optimizer
    context: TrainingContext
    trainable: list[Variable]
    callbacks: CallbackList
    in_a_row: FailureCount
    cache: ResultCache = dataclasses.field(init=False)


class Trainer:
    """Mixin giving `Program` its Keras-style training API."""

    def __init__(self) -> None:
        self.reward: Reward | None = None
        self.optimizer: Optimizer | None = None
        self.metrics: list[Metric] = []
        self.compiled = False
        self.stop_training = False
        self.last_failures = 0
        #: The loop state of the last fit, as of its last epoch end (saved with the program).
        self.fit_state: FitState | None = None
        #: The epoch a run put back by `resume_from` goes on from (`BackupAndRestore`).
        self._resume_epoch: int | None = None

    # compile --------------------------------------------------------------------------------

    def compile(
        self,
        reward: Any = None,
        optimizer: Any = None,
        metrics: Sequence[Any] | None = None,
    ) -> None:
        """Choose the reward to maximise, the optimizer, and metrics to watch.

        Args:
            reward: a Reward, a name (``"exact_match"``), a saved config or an async function.
            optimizer: an Optimizer, a name (``"random_few_shot"``) or a saved config.
            metrics: metrics to log beside the reward (not optimised).
        """
        self.reward = rewards_family.get(reward) if reward is not None else None
        self.optimizer = optimizers_family.get(optimizer) if optimizer is not None else None
        self.metrics = [metrics_family.get(m) for m in metrics or []]
        self.compiled = True

    def get_compile_config(self) -> JsonDict | None:
        if not self.compiled:
            return None
        return {
            "reward": serialize_object(self.reward) if self.reward is not None else None,
            "optimizer": serialize_object(self.optimizer) if self.optimizer is not None else None,
            "metrics": [serialize_object(m) for m in self.metrics],
        }

    def compile_from_config(self, config: JsonDict) -> None:
        self.compile(
            reward=rewards_family.deserialize(config["reward"]) if config.get("reward") else None,
            optimizer=optimizers_family.deserialize(config["optimizer"])
            if config.get("optimizer")
            else None,
            metrics=[metrics_family.deserialize(m) for m in config.get("metrics") or []],
        )

    def metric_names(self) -> list[str]:
        """Each metric's log name; repeated names get ``_1``, ``_2``."""
        names: list[str] = []
        for metric in self.metrics:
            base = metric.name
            name, n = base, 0
            while name in names or name == "reward":
                n += 1
                name = f"{base}_{n}"
            names.append(name)
        return names

    # fit ------------------------------------------------------------------------------------

    async def fit(
        self,
        x: Any = None,
        y: Any = None,
        *,
        batch_size: int = 32,
        minibatch_size: int | None = MINIBATCH_SIZE,
        scoring_temperature: float | None = 0.0,
        validate_start: bool = False,
        epochs: int = 1,
        verbose: int | str = "auto",
        callbacks: Sequence[Any] | None = None,
        validation_split: float = 0.0,
        validation_data: tuple[Any, Any] | None = None,
        shuffle: bool = True,
        initial_epoch: int = 0,
        seed: int | None = None,
        failure_rule: FailureRule | None = None,
    ) -> Any:
        """Train the program's variables to maximise the reward; return the `History` callback.

        ``history.history`` maps each logged name to its list (see the module docstring).

        Args:
            x: input rows (a NumPy object array or list of DataModels or dicts).
            y: target rows, one per input.
            batch_size: rows per optimisation step (default 32).
            minibatch_size: validation rows each proposal is scored on (default 4; None: all).
            scoring_temperature: the temperature of the calls that decide (default 0.0;
                None: each module's own).
            validate_start: the starting values compete with the epochs (default False).
            epochs: passes over the training rows (default 1).
            verbose: 0 silent, 1 progress bar, 2 one line per epoch; "auto" is 1 in a terminal.
            callbacks: `Callback` instances (async or sync hooks).
            validation_split: fraction in [0, 1) of the rows, taken from the end, held out.
            validation_data: ``(x_val, y_val)``; overrides `validation_split`.
            shuffle: reshuffle the training rows each epoch (default True).
            initial_epoch: epoch to start from (to resume a run: `fit_state.FitState`).
            seed: seed for shuffling and minibatch sampling.
            failure_rule: when failed predictions stop the fit (default `FailureRule()`).
        """
        optimizer = self._optimizer_to_fit()
        _check_fit_settings(scoring_temperature, validate_start, epochs)
        data = self._split_for_fit(x, y, validation_split, validation_data)
        rows = EpochIterator(
            data, batch_size=batch_size, minibatch_size=minibatch_size, shuffle=shuffle, seed=seed
        )
        state = FitState.begin(self.fit_state, initial_epoch, rows.signature)
        state.seed(rows.rng)
        cbs = self._callback_list(callbacks, verbose, epochs=epochs, steps=rows.steps)
        cbs.params.update(initial_epoch=initial_epoch, resumed_epochs=state.past_epochs())
        run = await self._start_fit(optimizer, rows, cbs, scoring_temperature, failure_rule)
        self.stop_training = False
        await cbs.on_train_begin({})
        if self._resume_epoch is not None:
            # A callback (`BackupAndRestore`) put an interrupted run back: go on from
            # its epoch, with the run's own state when this fit's settings are its.
            # Its History holds the epochs this fit runs, as the reference's does.
            initial_epoch, self._resume_epoch = self._resume_epoch, None
            rows.rng.seed(rows.seed)
            state = FitState.begin(self.fit_state, initial_epoch, rows.signature)
            state.seed(rows.rng)
            cbs.params.update(initial_epoch=initial_epoch, resumed_epochs=state.past_epochs())
        else:
            state.replay(cbs.history)  # the run's epochs since 0, as the uninterrupted run's
        start = snapshot(run.trainable)
        logs: JsonDict = {}
        try:
            if validate_start and data.has_validation and not state.best.found:
                state.best.consider(START_EPOCH, await self._validate(run), run.trainable)
            for epoch in range(initial_epoch, epochs):
                logs = await self._fit_epoch(run, epoch)
                state.best.consider(epoch, logs, run.trainable)
                state.end_epoch(epoch, logs, rows.rng)
                self.fit_state = state  # before the callbacks: a checkpoint there saves it
                await cbs.on_epoch_end(epoch, dict(logs))
                if self.stop_training:
                    break
        except BudgetExhausted as error:
            # The budget is spent: stop as `stop_training` does, keeping the best epoch's
            # variables (the starting ones when none ended); no step in flight is kept.
            self.stop_training = True
            logs = {**logs, "budget_exhausted": error.cap}
            if not state.best.found:
                restore(run.trainable, start)
        state.best.restore(run.trainable)
        await cbs.on_train_end(dict(logs))
        return cbs.history

    async def _start_fit(
        self,
        optimizer: Optimizer,
        rows: EpochIterator,
        cbs: CallbackList,
        scoring_temperature: float | None,
        failure_rule: FailureRule | None,
    ) -> _FitRun:
        """What a fit's epochs share, the optimizer built (once) in the fit's context."""
        program = self._self()
        context = TrainingContext(
            description=program.description or "", on_event=cbs.on_optimizer_event
        )
        trainable = program.trainable_variables
        if not optimizer.built:
            await optimizer.build(trainable, context)
        in_a_row = (failure_rule or FailureRule()).count()
        run = _FitRun(rows, optimizer, context, trainable, cbs, in_a_row)
        scoring_models = self._module_language_models()

        async def score_rows(xs: list[Any], ys: list[Any], values: Any) -> list[SampleResult]:
            with pin_calls(scoring_models, temperature=scoring_temperature):
                return await self._run_batch(
                    xs,
                    ys,
                    training=False,
                    in_a_row=run.in_a_row,
                    overrides=values,
                    update_metrics=False,
                )

        # What this fit already knows of each candidate on each row (candidate_scoring.py).
        run.cache = ResultCache(program.variables, score_rows)
        return run

    async def _fit_epoch(self, run: _FitRun, epoch: int) -> JsonDict:
        """One epoch: its batches, each step's job, the validation pass; the epoch's logs.

        Each step's job (propose, score with racing, keep; optimizers/steps.py)
        advances one round of LM calls at a time beside the next batches'
        predictions, every batch with the values it started from: a step costs one
        round of latency, OMEGA's proposal call included. A candidate found at step
        k is used from batch k+2, or k+3 when it raced past its first rows (one
        more when proposals take a round).
        """
        cbs, optimizer, trainable = run.callbacks, run.optimizer, run.trainable
        await cbs.on_epoch_begin(epoch, {})
        await optimizer.on_epoch_begin(epoch, trainable, run.context)
        self._reset_metrics()
        rewards: list[float] = []
        failures = 0
        logs: JsonDict = {}
        jobs: list[StepJob] = []
        for batch in run.rows.epoch():
            await cbs.on_train_batch_begin(batch.step, {})
            values = {v.name: {**v.peek(), **v.get_trainable_json()} for v in trainable}
            used = {v.name: v.get("current_candidate") for v in trainable}
            results, *_ = await _together(
                self._run_batch(
                    batch.x, batch.y, training=True, in_a_row=run.in_a_row, overrides=values
                ),
                *(job.advance() for job in jobs),
            )
            jobs = await _settled(jobs)
            failures += sum(r.failed for r in results)
            self._record_predictions(results, batch.y)
            rewards.append(_mean([r.reward for r in results]))
            minibatch = CandidateMinibatch(run.cache, run.rows.minibatch(batch))
            job = await optimizer.begin_step(
                batch.step + epoch * run.rows.steps,
                trainable,
                batch_reward=rewards[-1],
                evaluate=minibatch,
                batch_candidates=used,
                batch_rows=[(row, r.reward) for row, r in zip(batch.index, results, strict=True)],
                context=run.context,
            )
            jobs.append(job)
            logs = {"reward": _mean(rewards), **self._metric_results()}
            if failures:
                logs["failures"] = failures
            await cbs.on_train_batch_end(batch.step, dict(logs))
            if self.stop_training:
                break
        # No batch left to overlap: the remaining phases, each step whole.
        while jobs:
            await _together(*(job.advance(last=True) for job in jobs))
            jobs = await _settled(jobs)
        if run.rows.data.has_validation:
            logs = {**logs, **await self._validate(run)}
        await optimizer.on_epoch_end(epoch, trainable, run.context)
        return logs

    # evaluate / predict ---------------------------------------------------------------------

    @overload
    async def evaluate(
        self,
        x: Any = ...,
        y: Any = ...,
        *,
        batch_size: int = ...,
        verbose: int | str = ...,
        callbacks: Sequence[Any] | None = ...,
        return_examples: Literal[False] = ...,
        temperature: float | None = ...,
        seed: int | None = ...,
        failure_rule: FailureRule | None = ...,
    ) -> dict[str, float]: ...

    @overload
    async def evaluate(
        self,
        x: Any = ...,
        y: Any = ...,
        *,
        batch_size: int = ...,
        verbose: int | str = ...,
        callbacks: Sequence[Any] | None = ...,
        return_examples: Literal[True],
        temperature: float | None = ...,
        seed: int | None = ...,
        failure_rule: FailureRule | None = ...,
    ) -> Evaluation: ...

    async def evaluate(
        self,
        x: Any = None,
        y: Any = None,
        *,
        batch_size: int = 32,
        verbose: int | str = "auto",
        callbacks: Sequence[Any] | None = None,
        return_examples: bool = False,
        temperature: float | None = None,
        seed: int | None = None,
        failure_rule: FailureRule | None = None,
    ) -> dict[str, float] | Evaluation:
        """Score the program on rows: ``{"reward": mean, <metric>: value, ...}``.

        Failed predictions score 0 and are reported under ``"failures"`` when there are any.

        Args:
            x: input rows.
            y: target rows, one per input.
            batch_size: rows run at once (default 32).
            verbose: 0 silent, 1 progress bar, 2 one line; "auto" is 1 in a terminal.
            callbacks: `Callback` instances (their ``on_test_*`` hooks are called).
            return_examples: return an `Evaluation` (the same figures as ``logs``
                and each row's input, expected output, output, reward, the reward's
                feedback and error, in
                row order) instead of the figures alone (default False).
            temperature: the temperature every module's language model calls with
                during this evaluation, whatever the module's or model's own (default
                None: their own). ``0.0`` gives a repeatable score: run it before and
                after training and the difference is the training's, not sampling noise.
                Neither the modules nor the models are changed (see `pin_calls`).
            seed: a seed those calls carry to providers that take one (default None).
            failure_rule: when predictions failing because of the language model
                stop the evaluation with the model's error (default None:
                `FailureRule()`, 10 in a row; ``FailureRule(whole_batch=True)``
                also stops on one batch whose every row failed; see
                `programs.failures`).

        Example:
            ```python
            result = await program.evaluate(x_test, y_test, return_examples=True)
            result.logs["reward"], result.rewards[0], result.examples[0].error
            before = await program.evaluate(x_test, y_test, temperature=0.0, seed=0)
            ```
        """
        if self.reward is None:
            raise ProgramError("call compile(reward=...) before evaluate()")
        check_positive_int(batch_size, "batch_size")
        given = (
            _rows(x, len(self._self().input_data_models), "x")
            if return_examples and x is not None
            else x
        )
        x_rows, y_rows = self._check_xy(given, y, "x", "y")
        steps = math.ceil(len(x_rows) / batch_size)
        cbs = self._callback_list(callbacks, verbose, epochs=1, steps=steps, history=False)
        await cbs.on_test_begin({})
        results: list[SampleResult] | None = [] if return_examples else None
        in_a_row = (failure_rule or FailureRule()).count()
        with pin_calls(self._module_language_models(), temperature=temperature, seed=seed):
            logs = await self._evaluate_rows(
                x_rows, y_rows, batch_size, in_a_row, cbs, results=results
            )
        await cbs.on_test_end(dict(logs))
        if results is None:
            return logs
        return Evaluation(
            logs=logs,
            examples=[
                EvaluatedExample(
                    input=_row_json(row),
                    expected=_row_json(target),
                    output=_row_json(result.output),
                    reward=result.reward,
                    feedback=result.feedback,
                    error=result.error,
                    trace=result.steps(),
                )
                for row, target, result in zip(given, y_rows, results, strict=True)
            ],
        )

    async def predict(
        self,
        x: Any = None,
        *,
        batch_size: int = 32,
        verbose: int | str = "auto",
        callbacks: Sequence[Any] | None = None,
    ) -> np.ndarray[Any, np.dtype[np.object_]]:
        """Run the program on each row; failed rows give ``None`` (counted in `last_failures`)."""
        check_positive_int(batch_size, "batch_size")
        x_rows = self._check_x(x, "x")
        steps = math.ceil(len(x_rows) / batch_size)
        cbs = self._callback_list(callbacks, verbose, epochs=1, steps=steps, history=False)
        await cbs.on_predict_begin({})
        outputs: list[Any] = []
        failed: list[bool] = []
        for step in range(steps):
            await cbs.on_predict_batch_begin(step, {})
            rows = x_rows[step * batch_size : (step + 1) * batch_size]
            results = await asyncio.gather(*(self._predict_one(r, training=False) for r in rows))
            outputs.extend(r.output for r in results)
            failed.extend(r.failed for r in results)
            failures = sum(failed)
            await cbs.on_predict_batch_end(step, {"failures": failures} if failures else {})
        self.last_failures = sum(failed)
        if self.last_failures:
            logger.warning("%d of %d predictions failed", self.last_failures, len(outputs))
        await cbs.on_predict_end({"failures": self.last_failures} if self.last_failures else {})
        array = np.empty(len(outputs), dtype=object)
        array[:] = outputs
        return array

    # internals ------------------------------------------------------------------------------

    def _optimizer_to_fit(self) -> Optimizer:
        if self.reward is None or self.optimizer is None:
            raise ProgramError(
                "call compile(reward=..., optimizer=...) before fit(); "
                f"reward={self.reward!r}, optimizer={self.optimizer!r}"
            )
        return self.optimizer

    def _split_for_fit(
        self, x: Any, y: Any, validation_split: float, validation_data: Any
    ) -> FitData:
        """The fit's rows, checked, with its validation rows held out (`split_validation`)."""
        x_rows, y_rows = self._check_xy(x, y, "x", "y")
        given: tuple[list[Any], list[Any]] | None = None
        if validation_data is not None:
            if not isinstance(validation_data, tuple | list) or len(validation_data) != 2:
                raise ValueError("`validation_data` must be a tuple (x_val, y_val)")
            x_val, y_val = validation_data
            given = self._check_xy(x_val, y_val, "validation_data[0]", "validation_data[1]")
        return split_validation(
            x_rows, y_rows, validation_split=validation_split, validation_data=given
        )

    def _module_language_models(self) -> list[Any]:
        """The language models the program's modules call (nested programs' included)."""
        found: list[Any] = []
        pending: list[Any] = list(getattr(self, "modules", ()))
        while pending:
            module = pending.pop()
            model = getattr(module, "language_model", None)
            if model is not None and all(model is not seen for seen in found):
                found.append(model)
            pending.extend(getattr(module, "modules", ()))
        return found

    def _self(self) -> TrainedModel:
        # A mixin: the class it is mixed into (Program) provides the model.
        return cast(TrainedModel, self)

    def _callback_list(
        self,
        callbacks: Sequence[Any] | None,
        verbose: int | str,
        *,
        epochs: int,
        steps: int,
        history: bool = True,
    ) -> CallbackList:
        if verbose == "auto":
            level = 1 if sys.stdout.isatty() else 0
        elif verbose in (0, 1, 2):
            level = int(verbose)
        else:
            raise ValueError(f"`verbose` must be 0, 1, 2 or 'auto', got {verbose!r}")
        return CallbackList(
            list(callbacks or []),
            add_history=history,
            add_progbar=level > 0,
            verbose=level,
            program=self,
            epochs=epochs,
            steps=steps,
        )

    def _check_x(self, x: Any, argument: str) -> list[Any]:
        if x is None:
            raise DataError(f"`{argument}` is required")
        program = self._self()
        rows = _rows(x, len(program.input_data_models), argument)
        if not rows:
            raise DataError(f"`{argument}` is empty: there is nothing to run")
        return [program.coerce_inputs(row, where=f"{argument}[{i}]") for i, row in enumerate(rows)]

    def _check_xy(self, x: Any, y: Any, x_name: str, y_name: str) -> tuple[list[Any], list[Any]]:
        """The rows of `x` (coerced) and of `y`, each target checked against its output.

        A program with several inputs takes `x` as rows of tuples or as a tuple of
        arrays, one per input (the reference library's form); with several outputs,
        `y` likewise: each row a tuple of targets, one per output (None: that output
        is not scored).
        """
        x_rows = self._check_x(x, x_name)
        if y is None:
            raise DataError(f"`{y_name}` is required")
        models = self._self().output_data_models
        y_rows = _rows(y, len(models), y_name)
        if len(y_rows) != len(x_rows):
            raise DataError(f"`{x_name}` has {len(x_rows)} rows but `{y_name}` has {len(y_rows)}")
        for i, row in enumerate(y_rows):
            if len(models) == 1:
                _check_target(row, models[0], f"{y_name}[{i}]")
                continue
            if not isinstance(row, list | tuple) or len(row) != len(models):
                raise DataError(
                    f"{y_name}[{i}]: the program has {len(models)} outputs "
                    f"({', '.join(m.__name__ for m in models)}), so a target is a list of "
                    f"{len(models)} (None for an output not scored), got {type(row).__name__}"
                )
            for j, (target, model) in enumerate(zip(row, models, strict=True)):
                _check_target(target, model, f"{y_name}[{i}][{j}]")
        return x_rows, y_rows

    def _scoring_target(self, target: Any) -> Any:
        """What a reward compares a prediction with: the target, or for several outputs
        the targets merged as the outputs are (see `SampleResult.scored`)."""
        models = self._self().output_data_models
        if len(models) == 1:
            return target
        return model_algebra.merged_json(list(target), models) or {}

    async def _predict_one(
        self,
        row: list[DataModel],
        *,
        training: bool,
        overrides: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> SampleResult:
        trace: list[JsonDict] = []
        TRACE.set(trace)  # each sample runs in its own task, so this stays per sample
        if overrides is not None:
            OVERRIDES.set(overrides)
        program = self._self()
        output = await program(row if len(row) > 1 else row[0], training=training)
        models = program.output_data_models
        if len(models) > 1:
            return SampleResult(output, trace, scored=model_algebra.merged_json(output, models))
        if isinstance(output, list):
            output = output[0]
        return SampleResult(output, trace)

    async def _score(
        self, y_true: Any, result: SampleResult, *, update_metrics: bool = True
    ) -> None:
        assert self.reward is not None
        y_true = self._scoring_target(y_true)
        score_with_feedback = getattr(self.reward, "score_with_feedback", None)
        if score_with_feedback is not None:
            value, result.feedback = await score_with_feedback(y_true, result.scored)
        else:
            value = await self.reward(y_true, result.scored)
        if not isinstance(value, int | float) or isinstance(value, bool) or math.isnan(value):
            raise RewardError(
                f"reward {getattr(self.reward, 'name', self.reward)!r} returned "
                f"{type(value).__name__} ({value!r}), expected a number"
            )
        result.reward = float(value)
        if update_metrics:
            for metric in self.metrics:
                await metric.update_state(y_true, result.scored)

    async def _run_batch(
        self,
        xb: list[Any],
        yb: list[Any],
        *,
        training: bool,
        in_a_row: FailureCount,
        overrides: Mapping[str, Mapping[str, Any]] | None = None,
        update_metrics: bool = True,
    ) -> list[SampleResult]:
        """Predict and score rows concurrently; `update_metrics` False keeps them out of metrics.

        `in_a_row` counts the call's failed predictions and stops it as its rule says.
        """
        results = list(
            await asyncio.gather(
                *(self._predict_one(r, training=training, overrides=overrides) for r in xb)
            )
        )
        in_a_row.check(results)
        # Rewards may call a judge model, so they run concurrently too (in row order).
        await asyncio.gather(
            *(
                self._score(y, r, update_metrics=update_metrics)
                for y, r in zip(yb, results, strict=True)
            )
        )
        return results

    def _record_predictions(self, results: list[SampleResult], y_true: list[Any]) -> None:
        program = self._self()
        by_module: dict[str, list[JsonDict]] = {}
        for result, target in zip(results, y_true, strict=True):
            for entry in result.trace:
                if entry.get("outputs") is None:
                    continue
                prediction: JsonDict = {
                    "inputs": entry["inputs"],
                    "outputs": entry["outputs"],
                    "reward": result.reward,
                    # The program's target, so an optimizer can show what was expected.
                    "ground_truth": to_json(self._scoring_target(target)),
                }
                if result.feedback is not None:
                    # What the reward said of the row (OMEGA shows it with the worst rows).
                    prediction["feedback"] = result.feedback
                by_module.setdefault(entry["module"], []).append(prediction)
        trainable = {id(v) for v in program.trainable_variables}
        for module_name, scored in by_module.items():
            # A module's own variables only: a Branch's step is not its decision's.
            own = program.get_module(module_name).own_variables
            for variable in (v for v in own if id(v) in trainable):
                predictions = (variable.get("predictions") or []) + scored
                variable.update({"predictions": predictions[-MAX_PREDICTIONS:]})
                variable.update(
                    {
                        "nb_visit": int(variable.get("nb_visit") or 0) + len(scored),
                        "cumulative_reward": float(variable.get("cumulative_reward") or 0.0)
                        + sum(p["reward"] for p in scored),
                    }
                )

    async def _validate(self, run: _FitRun) -> JsonDict:
        """The validation figures of the values in force (``val_*``), each row noted.

        Through the fit's cache: rows the same values were already scored on (a
        proposal's minibatch, or the last epoch's pass when the epoch kept the same
        values) cost no call. Each row's reward is recorded on the candidates in
        force (`Optimizer.record_validation`), for the next proposals' pairing.
        """
        self._reset_metrics()
        values = run.cache.values_for({})
        rows = run.rows.data.validation_rows()
        chunk = max(run.rows.batch_size, VALIDATION_CHUNK)  # as concurrent as the model allows
        results: list[SampleResult] = []
        for start in range(0, len(rows), chunk):
            results.extend(await run.cache.results(values, rows[start : start + chunk]))
        for (_, _, target), result in zip(rows, results, strict=True):
            for metric in self.metrics:
                await metric.update_state(self._scoring_target(target), result.scored)
        logs: JsonDict = {"reward": _mean([r.reward for r in results]), **self._metric_results()}
        failures = sum(r.failed for r in results)
        if failures:
            logs["failures"] = failures
        rewards = [float(r.reward) for r in results]
        run.optimizer.record_validation(run.trainable, [row[0] for row in rows], rewards)
        return {f"val_{key}": value for key, value in logs.items()}

    def _reset_metrics(self) -> None:
        for metric in self.metrics:
            metric.reset_state()

    def _metric_results(self) -> dict[str, float]:
        results: dict[str, float] = {}
        for name, metric in zip(self.metric_names(), self.metrics, strict=True):
            results.update(metric.log_values(name))
        return results

    async def _evaluate_rows(
        self,
        x_rows: list[Any],
        y_rows: list[Any],
        batch_size: int,
        in_a_row: FailureCount,
        cbs: Any = None,
        *,
        results: list[SampleResult] | None = None,
    ) -> dict[str, float]:
        """The evaluation figures; each row's `SampleResult` is appended to `results` if given."""
        self._reset_metrics()
        rewards: list[float] = []
        failures = 0
        for step in range(math.ceil(len(x_rows) / batch_size)):
            if cbs is not None:
                await cbs.on_test_batch_begin(step, {})
            xb = x_rows[step * batch_size : (step + 1) * batch_size]
            yb = y_rows[step * batch_size : (step + 1) * batch_size]
            batch = await self._run_batch(xb, yb, training=False, in_a_row=in_a_row)
            if results is not None:
                results.extend(batch)
            rewards.extend(r.reward for r in batch)
            failures += sum(r.failed for r in batch)
            if cbs is not None:
                logs: JsonDict = {"reward": _mean(rewards), **self._metric_results()}
                if failures:
                    logs["failures"] = failures
                await cbs.on_test_batch_end(step, logs)
        logs = {"reward": _mean(rewards), **self._metric_results()}
        if failures:
            logs["failures"] = failures
        return logs


async def _together(*awaitables: Awaitable[Any]) -> list[Any]:
    """Await them concurrently; when one fails, cancel the others (no call is left running)."""
    tasks = [asyncio.ensure_future(awaitable) for awaitable in awaitables]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


async def _settled(jobs: list[StepJob]) -> list[StepJob]:
    """Settle each job's last round, in step order; the jobs not done yet."""
    for job in jobs:
        await job.settle()
    return [job for job in jobs if not job.done]


def _rows(value: Any, width: int, argument: str) -> list[Any]:
    """The rows of `value`: its items, or for ``width`` > 1 a tuple of ``width`` arrays
    (one per input or output) zipped into rows."""
    if (
        width > 1
        and isinstance(value, tuple)
        and len(value) == width
        and all(isinstance(column, np.ndarray | list) for column in value)
    ):
        lengths = sorted({len(column) for column in value})
        if len(lengths) > 1:
            raise DataError(f"`{argument}`: its {width} arrays have {lengths} rows; give as many")
        return [tuple(column[i] for column in value) for i in range(lengths[0])]
    return list(value)


def _check_target(target: Any, model: type[DataModel], where: str) -> None:
    try:
        data = to_json(target)
    except TypeError as error:
        raise DataError(f"{where}: {error}") from error
    fields = set(model.model_fields)
    extra = sorted(set(data or {}) - fields)
    if extra:
        raise DataError(
            f"{where} has field(s) {extra} that the program's output DataModel "
            f"{model.__name__} does not have (it has {sorted(fields)})"
        )


def _row_json(row: Any) -> Any:
    """An input row as JSON, as it was given (a list of objects for several inputs)."""
    if isinstance(row, list | tuple):
        return [to_json(item) for item in row]
    return to_json(row)


def _mean(values: Sequence[float]) -> float:
    return float(sum(values) / len(values)) if values else 0.0


def _check_fit_settings(scoring_temperature: Any, validate_start: Any, epochs: Any) -> None:
    """The settings of `fit` that no part of it checks on its own."""
    if scoring_temperature is not None and (
        isinstance(scoring_temperature, bool)
        or not isinstance(scoring_temperature, int | float)
        or not math.isfinite(scoring_temperature)
        or scoring_temperature < 0
    ):
        raise ValueError(
            f"`scoring_temperature` must be None or a number >= 0, got {scoring_temperature!r}"
        )
    if not isinstance(validate_start, bool):
        raise ValueError(f"`validate_start` must be True or False, got {validate_start!r}")
    check_positive_int(epochs, "epochs")


__all__ = ["SampleResult", "Trainer"]
