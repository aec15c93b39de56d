"""The training loop behind `Program.compile / fit / evaluate / predict`."""

from __future__ import annotations

import asyncio
import logging
import math
import random
import sys
from collections.abc import Awaitable, Mapping, Sequence
from typing import Any, Literal, Protocol, cast, overload

import numpy as np

from optimizer_core import metrics as metrics_family
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
from optimizer_core.optimizers.optimizer import MAX_PREDICTIONS
from optimizer_core.optimizers.steps import StepJob
from optimizer_core.programs.candidate_scoring import CandidateMinibatch, ResultCache, Row
from optimizer_core.programs.failures import FailureCount, FailureRule
from optimizer_core.programs.results import EvaluatedExample, Evaluation
from optimizer_core.rewards import Reward
from optimizer_core.saving.object_registry import serialize_object
from optimizer_core.variables import Variable

logger = logging.getLogger("optimizer_core")

# Validation rows sent at once at the end of an epoch (the model's own bound still applies).
VALIDATION_CHUNK = 64
# Validation rows each proposal is scored on by default (the reference library's figure).
MINIBATCH_SIZE = 4
# The "epoch" of the starting values in fit's record of the best epoch (see `fit`).
START_EPOCH = -1


class SampleResult:
    """One prediction: its output (or None), the trace of its modules, its reward."""

    __slots__ = ("error", "exception", "output", "reward", "trace")

    def __init__(self, output: DataModel | None, trace: list[JsonDict]) -> None:
        self.output = output
        self.trace = trace
        self.reward = 0.0
        failed = [t for t in trace if t.get("error")]
        self.error: str | None = failed[0]["error"] if failed else None
        self.exception: BaseException | None = failed[0].get("exception") if failed else None


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

    def get_module(self, name: str) -> Module: ...

    def get_variable(self, name: str) -> Variable: ...

    def coerce_inputs(self, row: Any, *, where: str = "input") -> list[DataModel]: ...

    async def __call__(self, inputs: Any, *, training: bool = False) -> Any: ...


class Trainer:
    """Mixin giving `Program` its Keras-style training API."""

    def __init__(self) -> None:
        self.reward: Reward | None = None
        self.optimizer: Optimizer | None = None
        self.metrics: list[Metric] = []
        self.compiled = False
        self.stop_training = False
        self.last_failures = 0

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
        """Train the program's variables to maximise the reward.

        Args:
            x: input rows (a NumPy object array or list of DataModels or dicts).
            y: target rows, one per input.
            batch_size: rows per optimisation step (default 32).
            minibatch_size: validation rows each proposed candidate is scored on
                (default 4, as in the reference library; None: every validation row),
                drawn afresh each step. What training costs in LM calls is about
                ``rows + steps * minibatch_size + validation rows`` per epoch, so
                this, not `batch_size`, sets the price of candidate scoring. A
                candidate is compared with the incumbent on the same rows where the
                incumbent's results are known, scored on the first half first, and
                no further when a perfect score on the rest could not lift it above
                the incumbent (pairing and racing: `optimizers.steps`); a result
                already known in this fit (the same values on the same row) is not
                asked for again (`programs.candidate_scoring`).
            scoring_temperature: the temperature of the calls that decide: a proposal's
                minibatch and the validation passes (default 0.0; None: each module's
                own). At 0 a row's answer is the same every time, so a proposal beats
                the incumbent on its rows because it is better there, not because it
                drew luckier samples (SmolLM2-135M on BANKING77 at the server's 0.8: a
                rewrite to "1.0.2.1.1.1.2" won its 4 rows and cost 0.15 of test
                reward). The training batches keep the modules' temperature.
            validate_start: validate the starting values once before the first epoch
                (default False), so that they compete with the epochs: an epoch is then
                kept only if it beats them on the validation rows, and a fit never ends
                worse there than it began. It costs one validation pass (one call per
                validation row and LM module) and tells the first proposals' pairing how
                the starting candidate does on every validation row. Off by default, as
                in the guide; the studio's runs turn it on.
            epochs: passes over the training rows (default 1).
            verbose: 0 silent, 1 progress bar, 2 one line per epoch; "auto" is 1 in a terminal.
            callbacks: `Callback` instances (async or sync hooks).
            validation_split: fraction in [0, 1) of the rows, taken from the end, held out
                for validation (15 rows at 0.2 give 12 training and 3 validation rows).
            validation_data: ``(x_val, y_val)``; overrides `validation_split`.
            shuffle: reshuffle the training rows each epoch.
            initial_epoch: epoch to start from (to resume a run).
            seed: seed for shuffling and minibatch sampling.
            failure_rule: when predictions failing because of the language model
                stop the fit with the model's error (default None: `FailureRule()`,
                10 in a row; see `programs.failures`).

        Returns:
            The `History` callback; ``history.history`` maps each logged name to a list.

        At the end the variables of the best epoch are restored: by ``val_reward``
        with validation rows, else by training ``reward``. With ``validate_start`` and
        validation rows the starting values compete too (recorded as epoch -1): an
        epoch that does not beat them there is not kept.

        A resumed run ends as it would have without the interruption. Each epoch
        end records in the optimizer's state (so in `Program.to_json` and every
        checkpoint) what the loop itself carries from epoch to epoch: its random
        generator (shuffle order, validation minibatches), the best epoch so far
        with its score and values, and every epoch's logs. A `fit` from
        ``initial_epoch=k`` on a program saved at the end of epoch ``k - 1`` picks
        them up when it runs on the same data (row counts), batch size, shuffle and
        seed: the same batches in the same order, the best epoch chosen over the
        whole run, and a `History` holding every epoch since 0.
        """
        program = self._self()
        if self.reward is None or self.optimizer is None:
            raise ProgramError(
                "call compile(reward=..., optimizer=...) before fit(); "
                f"reward={self.reward!r}, optimizer={self.optimizer!r}"
            )
        _check_positive_int(batch_size, "batch_size")
        if minibatch_size is not None:
            _check_positive_int(minibatch_size, "minibatch_size")
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
        _check_positive_int(epochs, "epochs")
        if not isinstance(validation_split, int | float) or not 0.0 <= validation_split < 1.0:
            raise ValueError(f"`validation_split` must be in [0, 1), got {validation_split!r}")
        x_rows, y_rows = self._check_xy(x, y, "x", "y")
        if validation_data is not None:
            if not isinstance(validation_data, tuple | list) or len(validation_data) != 2:
                raise ValueError("`validation_data` must be a tuple (x_val, y_val)")
            x_val, y_val = self._check_xy(
                *validation_data, "validation_data[0]", "validation_data[1]"
            )
            x_train, y_train = x_rows, y_rows
        elif validation_split > 0:
            split_at = int(len(x_rows) * (1.0 - validation_split))
            if split_at == 0:
                raise DataError(
                    f"`validation_split`={validation_split} leaves no training rows "
                    f"out of {len(x_rows)}"
                )
            x_train, y_train = x_rows[:split_at], y_rows[:split_at]
            x_val, y_val = x_rows[split_at:], y_rows[split_at:]
        else:
            x_train, y_train, x_val, y_val = x_rows, y_rows, [], []

        rng = random.Random(seed)
        steps = math.ceil(len(x_train) / batch_size)
        cbs = self._callback_list(callbacks, verbose, epochs=epochs, steps=steps)
        optimizer = self.optimizer
        optimizer.event_sink = cbs.on_optimizer_event
        optimizer.program = program
        trainable = program.trainable_variables
        if not optimizer.built:
            await optimizer.build(trainable)
        # What this fit already knows of each candidate on each row (candidate_scoring.py).
        scoring_models = self._module_language_models()

        in_a_row = (failure_rule or FailureRule()).count()

        async def score_rows(xs: list[Any], ys: list[Any], values: Any) -> list[SampleResult]:
            with pin_calls(scoring_models, temperature=scoring_temperature):
                return await self._run_batch(
                    xs,
                    ys,
                    training=False,
                    in_a_row=in_a_row,
                    overrides=values,
                    update_metrics=False,
                )

        cache = ResultCache(program.variables, score_rows)
        self.stop_training = False
        has_val = len(x_val) > 0
        best_score = -math.inf
        best_epoch: int | None = None
        best_snapshot: dict[str, JsonDict] | None = None
        past_epochs: list[JsonDict] = []
        train_logs: JsonDict = {}
        epoch_logs: JsonDict = {}
        signature: JsonDict = {
            "seed": seed,
            "shuffle": bool(shuffle),
            "batch_size": batch_size,
            "minibatch_size": minibatch_size,
            "train_rows": len(x_train),
            "validation_rows": len(x_val),
        }
        carried = _carried_fit_state(optimizer.fit_state, initial_epoch, signature)
        if carried is not None:
            version, internal, gauss = carried["rng"]
            rng.setstate((version, tuple(internal), gauss))
            past_epochs = [dict(entry) for entry in carried.get("epochs") or []]
            best = carried.get("best")
            if best is not None:
                best_epoch = int(best["epoch"])
                score = best.get("score")
                best_score = -math.inf if score is None else float(score)
                # None: the best epoch is the one the checkpoint was saved after.
                best_snapshot = best.get("variables") or _snapshot(trainable)
        cbs.params["initial_epoch"] = initial_epoch
        cbs.params["resumed_epochs"] = [dict(entry) for entry in past_epochs]

        await cbs.on_train_begin({})
        if cbs.history is not None:
            # The run's record since epoch 0, as the uninterrupted run's would be.
            for entry in past_epochs:
                cbs.history.on_epoch_end(int(entry["epoch"]), dict(entry["logs"]))
        # Restored when a `Budget` stops the fit before any epoch ends.
        start_snapshot = _snapshot(trainable)
        budget_error: BudgetExhausted | None = None
        try:
            if validate_start and has_val and best_snapshot is None:
                # The starting values compete with the epochs: an epoch is kept only if it
                # beats them on the validation rows, so a fit never ends worse than it
                # started there. The pass also tells the first proposals' pairing how the
                # starting candidate does on every validation row.
                start_logs, start_rows, start_rewards = await self._validate(
                    cache, x_val, y_val, len(x_train), max(batch_size, VALIDATION_CHUNK)
                )
                optimizer.record_validation(trainable, start_rows, start_rewards)
                best_score = float(start_logs["reward"])
                best_epoch = START_EPOCH
                best_snapshot = start_snapshot
            for epoch in range(initial_epoch, epochs):
                await cbs.on_epoch_begin(epoch, {})
                await optimizer.on_epoch_begin(epoch, trainable)
                self._reset_metrics()
                order = list(range(len(x_train)))
                if shuffle:
                    rng.shuffle(order)
                batch_rewards: list[float] = []
                failures = 0
                # Each step's job (propose, score with racing, keep; optimizers/steps.py)
                # advances one round of LM calls at a time beside the next batches'
                # predictions, every batch with the values it started from: a step
                # costs one round of latency, OMEGA's proposal call included. A
                # candidate found at step k is used from batch k+2, or k+3 when it
                # raced past its first rows (one more when proposals take a round).
                jobs: list[StepJob] = []
                for step in range(steps):
                    await cbs.on_train_batch_begin(step, {})
                    index = order[step * batch_size : (step + 1) * batch_size]
                    xb = [x_train[i] for i in index]
                    yb = [y_train[i] for i in index]
                    values = {v.name: {**v.peek(), **v.get_trainable_json()} for v in trainable}
                    used = {v.name: v.get("current_candidate") for v in trainable}
                    results, *_ = await _together(
                        self._run_batch(xb, yb, training=True, in_a_row=in_a_row, overrides=values),
                        *(job.advance() for job in jobs),
                    )
                    jobs = await _settled(jobs)
                    failures += sum(r.output is None for r in results)
                    self._record_predictions(results, yb)
                    batch_reward = _mean([r.reward for r in results])
                    batch_rewards.append(batch_reward)
                    # Rows are named by their position: training rows, then validation rows.
                    if has_val:
                        pool: list[Row] = [
                            (len(x_train) + i, x_val[i], y_val[i]) for i in range(len(x_val))
                        ]
                    else:
                        # Without validation rows, score candidates on rows outside the batch.
                        in_batch = set(index)
                        rest = [i for i in order if i not in in_batch] or index
                        pool = [(i, x_train[i], y_train[i]) for i in rest]
                    size = len(pool) if minibatch_size is None else min(minibatch_size, len(pool))
                    job = await optimizer.begin_step(
                        step + epoch * steps,
                        trainable,
                        batch_reward=batch_reward,
                        evaluate=CandidateMinibatch(cache, rng.sample(pool, size)),
                        batch_candidates=used,
                        batch_rows=[(row, r.reward) for row, r in zip(index, results, strict=True)],
                    )
                    jobs.append(job)
                    train_logs = {"reward": _mean(batch_rewards), **self._metric_results()}
                    if failures:
                        train_logs["failures"] = failures
                    await cbs.on_train_batch_end(step, dict(train_logs))
                    if self.stop_training:
                        break
                # No batch left to overlap: the remaining phases, each step whole.
                while jobs:
                    await _together(*(job.advance(last=True) for job in jobs))
                    jobs = await _settled(jobs)
                epoch_logs = dict(train_logs)
                if has_val:
                    # One pass, as concurrent as the model allows.
                    val_chunk = max(batch_size, VALIDATION_CHUNK)
                    val_logs, val_rows, val_rewards = await self._validate(
                        cache, x_val, y_val, len(x_train), val_chunk
                    )
                    epoch_logs.update({f"val_{k}": v for k, v in val_logs.items()})
                    optimizer.record_validation(trainable, val_rows, val_rewards)
                await optimizer.on_epoch_end(epoch, trainable)
                score = epoch_logs.get("val_reward" if has_val else "reward", -math.inf)
                if best_snapshot is None or score > best_score:
                    best_score = score
                    best_epoch = epoch
                    best_snapshot = _snapshot(trainable)
                past_epochs.append({"epoch": epoch, "logs": dict(epoch_logs)})
                # Before the callbacks, so a checkpoint saved there carries it.
                optimizer.fit_state = {
                    "next_epoch": epoch + 1,
                    "signature": signature,
                    "rng": _rng_state(rng),
                    "best": {
                        "epoch": best_epoch,
                        "score": best_score if math.isfinite(best_score) else None,
                        "variables": None if best_epoch == epoch else best_snapshot,
                    },
                    "epochs": [dict(entry) for entry in past_epochs],
                }
                await cbs.on_epoch_end(epoch, dict(epoch_logs))
                if self.stop_training:
                    break
        except BudgetExhausted as error:
            # The run's budget is spent: stop like `stop_training`, keeping the best epoch's
            # variables (the starting ones when no epoch ended); no step in flight is kept.
            budget_error = error
            self.stop_training = True
            if best_snapshot is None:
                best_snapshot = start_snapshot
        finally:
            optimizer.event_sink = None
        if budget_error is not None:
            epoch_logs = {**epoch_logs, "budget_exhausted": budget_error.cap}
        if best_snapshot is not None:
            for variable in trainable:
                snapshot = best_snapshot.get(variable.name)
                if snapshot is None:
                    continue
                variable.assign(snapshot)
                variable.update({"current_candidate": snapshot.get("current_candidate")})
        await cbs.on_train_end(dict(epoch_logs))
        return cbs.history

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
                and each row's input, expected output, output, reward and error, in
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
        _check_positive_int(batch_size, "batch_size")
        given = list(x) if return_examples and x is not None else x
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
                    expected=to_json(target),
                    output=to_json(result.output),
                    reward=result.reward,
                    error=result.error,
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
        _check_positive_int(batch_size, "batch_size")
        x_rows = self._check_x(x, "x")
        steps = math.ceil(len(x_rows) / batch_size)
        cbs = self._callback_list(callbacks, verbose, epochs=1, steps=steps, history=False)
        await cbs.on_predict_begin({})
        outputs: list[Any] = []
        for step in range(steps):
            await cbs.on_predict_batch_begin(step, {})
            rows = x_rows[step * batch_size : (step + 1) * batch_size]
            results = await asyncio.gather(*(self._predict_one(r, training=False) for r in rows))
            outputs.extend(r.output for r in results)
            failures = sum(o is None for o in outputs)
            await cbs.on_predict_batch_end(step, {"failures": failures} if failures else {})
        self.last_failures = sum(o is None for o in outputs)
        if self.last_failures:
            logger.warning("%d of %d predictions failed", self.last_failures, len(outputs))
        await cbs.on_predict_end({"failures": self.last_failures} if self.last_failures else {})
        array = np.empty(len(outputs), dtype=object)
        array[:] = outputs
        return array

    # internals ------------------------------------------------------------------------------

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
        rows = list(x)
        if not rows:
            raise DataError(f"`{argument}` is empty: there is nothing to run")
        program = self._self()
        return [program.coerce_inputs(row, where=f"{argument}[{i}]") for i, row in enumerate(rows)]

    def _check_xy(self, x: Any, y: Any, x_name: str, y_name: str) -> tuple[list[Any], list[Any]]:
        x_rows = self._check_x(x, x_name)
        if y is None:
            raise DataError(f"`{y_name}` is required")
        y_rows = list(y)
        if len(y_rows) != len(x_rows):
            raise DataError(f"`{x_name}` has {len(x_rows)} rows but `{y_name}` has {len(y_rows)}")
        fields = set(self._self().output_data_model.model_fields)
        for i, row in enumerate(y_rows):
            try:
                data = to_json(row)
            except TypeError as error:
                raise DataError(f"{y_name}[{i}]: {error}") from error
            extra = sorted(set(data or {}) - fields)
            if extra:
                raise DataError(
                    f"{y_name}[{i}] has field(s) {extra} that the program's output DataModel "
                    f"{self._self().output_data_model.__name__} does not have "
                    f"(it has {sorted(fields)})"
                )
        return x_rows, y_rows

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
        if isinstance(output, list):
            output = output[0]
        return SampleResult(output, trace)

    async def _score(
        self, y_true: Any, result: SampleResult, *, update_metrics: bool = True
    ) -> None:
        assert self.reward is not None
        value = await self.reward(y_true, result.output)
        if not isinstance(value, int | float) or isinstance(value, bool) or math.isnan(value):
            raise RewardError(
                f"reward {getattr(self.reward, 'name', self.reward)!r} returned "
                f"{type(value).__name__} ({value!r}), expected a number"
            )
        result.reward = float(value)
        if update_metrics:
            for metric in self.metrics:
                await metric.update_state(y_true, result.output)

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
                by_module.setdefault(entry["module"], []).append(
                    {
                        "inputs": entry["inputs"],
                        "outputs": entry["outputs"],
                        "reward": result.reward,
                        # The program's target, so an optimizer can show what was expected.
                        "ground_truth": to_json(target),
                    }
                )
        for module_name, scored in by_module.items():
            for variable in program.get_module(module_name).trainable_variables:
                predictions = (variable.get("predictions") or []) + scored
                variable.update({"predictions": predictions[-MAX_PREDICTIONS:]})
                variable.update(
                    {
                        "nb_visit": int(variable.get("nb_visit") or 0) + len(scored),
                        "cumulative_reward": float(variable.get("cumulative_reward") or 0.0)
                        + sum(p["reward"] for p in scored),
                    }
                )

    async def _validate(
        self, cache: ResultCache, x_val: list[Any], y_val: list[Any], first_row: int, chunk: int
    ) -> tuple[dict[str, float], list[int], list[float]]:
        """The epoch-end validation figures of the values in force, each row and its reward.

        Through the fit's cache: rows the same values were already scored on (a
        proposal's minibatch, or the last epoch's pass when the epoch kept the same
        values) cost no call.
        """
        self._reset_metrics()
        values = cache.values_for({})
        rows: list[Row] = [(first_row + i, x_val[i], y_val[i]) for i in range(len(x_val))]
        results: list[SampleResult] = []
        for start in range(0, len(rows), chunk):
            results.extend(await cache.results(values, rows[start : start + chunk]))
        for (_, _, target), result in zip(rows, results, strict=True):
            for metric in self.metrics:
                await metric.update_state(target, result.output)
        logs = {"reward": _mean([r.reward for r in results]), **self._metric_results()}
        failures = sum(r.output is None for r in results)
        if failures:
            logs["failures"] = failures
        return logs, [row[0] for row in rows], [float(r.reward) for r in results]

    def _reset_metrics(self) -> None:
        for metric in self.metrics:
            metric.reset_state()

    def _metric_results(self) -> dict[str, float]:
        return {
            name: float(metric.result())
            for name, metric in zip(self.metric_names(), self.metrics, strict=True)
        }

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
            failures += sum(r.output is None for r in batch)
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


def _snapshot(trainable: Sequence[Any]) -> dict[str, JsonDict]:
    """What `fit` restores of its best epoch: the trainable values and the candidate in use."""
    return {
        v.name: {**v.get_trainable_json(), "current_candidate": v.get("current_candidate")}
        for v in trainable
    }


def _rng_state(rng: random.Random) -> list[Any]:
    version, internal, gauss = rng.getstate()
    return [version, list(internal), gauss]


def _carried_fit_state(
    state: JsonDict | None, initial_epoch: int, signature: JsonDict
) -> JsonDict | None:
    """The interrupted run's loop state when this `fit` continues it, else None.

    It continues it when it starts at the epoch after the one the state was
    saved at, on the same number of rows with the same batch size, shuffle and
    seed; any other `fit` (a fresh start, a fork on other data) is its own run.
    """
    if not state or initial_epoch <= 0 or state.get("next_epoch") != initial_epoch:
        return None
    if state.get("signature") != signature or not state.get("rng"):
        logger.info(
            "fit(initial_epoch=%d) does not continue the saved run (it used %s, this fit %s); "
            "starting a new record of the best epoch and history",
            initial_epoch,
            state.get("signature"),
            signature,
        )
        return None
    return state


def _row_json(row: Any) -> Any:
    """An input row as JSON, as it was given (a list of objects for several inputs)."""
    if isinstance(row, list | tuple):
        return [to_json(item) for item in row]
    return to_json(row)


def _mean(values: Sequence[float]) -> float:
    return float(sum(values) / len(values)) if values else 0.0


def _check_positive_int(value: Any, argument: str) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"`{argument}` must be a positive integer, got {value!r}")


__all__ = ["SampleResult", "Trainer"]
