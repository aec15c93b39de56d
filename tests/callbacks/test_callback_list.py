from __future__ import annotations

import warnings
from typing import Any

import pytest

from optimizer_core.callbacks import Callback, CallbackList, History, ProgressBar

# Each CallbackList hook, the arguments the trainer passes, and the arguments the callback sees.
HOOK_CALLS: list[tuple[str, tuple[Any, ...]]] = [
    ("on_train_begin", ({"a": 1.0},)),
    ("on_train_end", ({"a": 1.0},)),
    ("on_epoch_begin", (3, {"a": 1.0})),
    ("on_epoch_end", (3, {"reward": 0.5})),
    ("on_train_batch_begin", (7, {"a": 1.0})),
    ("on_train_batch_end", (7, {"reward": 0.25})),
    ("on_test_begin", ({"a": 1.0},)),
    ("on_test_end", ({"reward": 0.5},)),
    ("on_test_batch_begin", (2, {"a": 1.0})),
    ("on_test_batch_end", (2, {"reward": 0.5})),
    ("on_predict_begin", ({"a": 1.0},)),
    ("on_predict_end", ({"failures": 1},)),
    ("on_predict_batch_begin", (4, {"a": 1.0})),
    ("on_predict_batch_end", (4, {"failures": 0})),
    ("on_optimizer_event", ("candidate_proposed", {"reward": 0.7})),
]
HOOK_NAMES = [name for name, _ in HOOK_CALLS]


def make_recorder(kind: str) -> tuple[Callback, list[tuple[str, tuple[Any, ...]]]]:
    """A callback overriding every hook, as plain `def` or as `async def`."""
    calls: list[tuple[str, tuple[Any, ...]]] = []
    namespace: dict[str, Any] = {}
    for name in HOOK_NAMES:
        if kind == "async":

            async def hook(self: Any, *args: Any, _name: str = name) -> None:
                calls.append((_name, args))

        else:

            def hook(self: Any, *args: Any, _name: str = name) -> None:  # type: ignore[misc]
                calls.append((_name, args))

        namespace[name] = hook
    return type(f"Recorder_{kind}", (Callback,), namespace)(), calls


@pytest.mark.parametrize("kind", ["sync", "async"])
@pytest.mark.parametrize(("hook", "args"), HOOK_CALLS, ids=HOOK_NAMES)
async def test_every_hook_reaches_sync_and_async_callbacks(
    kind: str, hook: str, args: tuple[Any, ...]
) -> None:
    callback, calls = make_recorder(kind)
    callbacks = CallbackList([callback], add_history=False)
    await getattr(callbacks, hook)(*args)
    assert calls == [(hook, args)]


async def test_guide_style_async_callback_sees_the_epoch_logs(run_epochs: Any) -> None:
    seen: list[tuple[int, float]] = []

    class MyCallback(Callback):
        async def on_epoch_end(self, epoch: int, logs: Any = None) -> None:
            seen.append((epoch, logs.get("reward")))

    await run_epochs(CallbackList([MyCallback()]), [{"reward": 0.25}, {"reward": 0.75}])
    assert seen == [(0, 0.25), (1, 0.75)]


async def test_missing_logs_arrive_as_an_empty_dict() -> None:
    received: list[Any] = []

    class ReadsLogs(Callback):
        def on_train_begin(self, logs: Any = None) -> None:
            received.append(logs)

        async def on_epoch_begin(self, epoch: int, logs: Any = None) -> None:
            received.append(logs)

    callbacks = CallbackList([ReadsLogs()])
    await callbacks.on_train_begin()
    await callbacks.on_epoch_begin(0, None)
    assert received == [{}, {}]


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_on_batch_hooks_are_called_for_train_batches(kind: str) -> None:
    calls: list[tuple[str, int, dict[str, Any]]] = []
    if kind == "async":

        class Legacy(Callback):
            async def on_batch_begin(self, batch: int, logs: Any = None) -> None:
                calls.append(("begin", batch, logs))

            async def on_batch_end(self, batch: int, logs: Any = None) -> None:
                calls.append(("end", batch, logs))

    else:

        class Legacy(Callback):  # type: ignore[no-redef]
            def on_batch_begin(self, batch: int, logs: Any = None) -> None:
                calls.append(("begin", batch, logs))

            def on_batch_end(self, batch: int, logs: Any = None) -> None:
                calls.append(("end", batch, logs))

    callbacks = CallbackList([Legacy()])
    await callbacks.on_train_batch_begin(0, {})
    await callbacks.on_train_batch_end(0, {"reward": 1.0})
    # The list-level aliases reach the same hooks, once each.
    await callbacks.on_batch_begin(1)
    await callbacks.on_batch_end(1, {"reward": 0.0})
    assert calls == [
        ("begin", 0, {}),
        ("end", 0, {"reward": 1.0}),
        ("begin", 1, {}),
        ("end", 1, {"reward": 0.0}),
    ]


async def test_list_level_batch_alias_calls_train_batch_hook_once() -> None:
    calls: list[str] = []

    class Modern(Callback):
        def on_train_batch_end(self, batch: int, logs: Any = None) -> None:
            calls.append("train_batch_end")

        def on_batch_end(self, batch: int, logs: Any = None) -> None:
            calls.append("batch_end")

    await CallbackList([Modern()]).on_batch_end(0, {})
    assert calls == ["train_batch_end"]


async def test_overrides_may_call_super_with_or_without_await() -> None:
    class AwaitsSuper(Callback):
        async def on_epoch_end(self, epoch: int, logs: Any = None) -> None:
            await super().on_epoch_end(epoch, logs)
            await super().on_batch_end(0, logs)

    class CallsSuper(Callback):
        def on_epoch_end(self, epoch: int, logs: Any = None) -> None:
            super().on_epoch_end(epoch, logs)

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a "coroutine was never awaited" warning would fail here
        await CallbackList([AwaitsSuper(), CallsSuper()]).on_epoch_end(0, {})


async def test_callbacks_run_in_order() -> None:
    order: list[str] = []

    class Named(Callback):
        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

        async def on_epoch_end(self, epoch: int, logs: Any = None) -> None:
            order.append(self.name)

    await CallbackList([Named("first"), Named("second"), Named("third")]).on_epoch_end(0, {})
    assert order == ["first", "second", "third"]


async def test_exception_in_a_callback_propagates_and_stops_the_dispatch() -> None:
    reached: list[str] = []

    class Broken(Callback):
        async def on_epoch_end(self, epoch: int, logs: Any = None) -> None:
            raise RuntimeError("callback failed")

    class After(Callback):
        def on_epoch_end(self, epoch: int, logs: Any = None) -> None:
            reached.append("after")

    callbacks = CallbackList([Broken(), After()])
    with pytest.raises(RuntimeError, match="callback failed"):
        await callbacks.on_epoch_end(0, {"reward": 0.5})
    assert reached == []


async def test_exception_in_a_sync_batch_hook_propagates() -> None:
    class Broken(Callback):
        def on_batch_end(self, batch: int, logs: Any = None) -> None:
            raise ValueError(f"bad batch {batch}")

    with pytest.raises(ValueError, match="bad batch 3"):
        await CallbackList([Broken()]).on_train_batch_end(3, {})


def test_program_and_params_reach_every_callback() -> None:
    first, second = Callback(), Callback()
    program = object()
    callbacks = CallbackList([first, second], program=program, epochs=5, steps=12, verbose=2)
    for callback in callbacks:
        assert callback.program is program
        assert callback.params == {"verbose": 2, "epochs": 5, "steps": 12}

    other = object()
    callbacks.set_program(other)
    callbacks.set_params({"epochs": 1, "steps": 3, "verbose": 0})
    late = Callback()
    callbacks.append(late)
    for callback in (first, second, late):
        assert callback.program is other
        assert callback.params == {"epochs": 1, "steps": 3, "verbose": 0}


def test_history_is_added_last_and_progress_bar_first() -> None:
    user = Callback()
    callbacks = CallbackList([user], add_progbar=True, verbose=1)
    assert isinstance(callbacks.callbacks[0], ProgressBar)
    assert callbacks.callbacks[0].verbose == 1
    assert callbacks.callbacks[1] is user
    assert callbacks.history is callbacks.callbacks[-1]
    assert isinstance(callbacks.history, History)


def test_given_history_and_progress_bar_are_reused_not_duplicated() -> None:
    history, bar = History(), ProgressBar(verbose=2)
    callbacks = CallbackList([history, bar], add_progbar=True, verbose=1)
    assert callbacks.callbacks == [history, bar]
    assert callbacks.history is history


def test_no_history_or_bar_unless_asked() -> None:
    callbacks = CallbackList(add_history=False)
    assert callbacks.history is None
    assert len(callbacks) == 0
    assert not any(isinstance(cb, ProgressBar) for cb in CallbackList(add_progbar=True, verbose=0))


def test_non_callback_is_rejected_naming_the_argument() -> None:
    with pytest.raises(TypeError, match="`callbacks`"):
        CallbackList([print])  # type: ignore[list-item]


def test_invalid_verbose_is_rejected_naming_the_argument() -> None:
    with pytest.raises(ValueError, match="`verbose`"):
        CallbackList(verbose=3)
