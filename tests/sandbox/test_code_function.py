"""`CodeFunction` as a reward's function: scores, feedback, errors, batching, saving, training."""

from __future__ import annotations

import asyncio
import copy
import json
import pickle

import pytest

import optimizer_core as synalinks
from optimizer_core.exceptions import SerializationError, UserCodeError
from optimizer_core.sandbox import CodeFunction, SandboxLimits
from optimizer_core.saving.document_check import check_names
from optimizer_core.saving.object_registry import FUNCTION, deserialize_object
from tests.support import build_program, capitals

pytestmark = pytest.mark.usefixtures("sandbox_runtime")

WITHIN_ONE_PERCENT = """
import math

def reward(y_true, y_pred):
    expected, got = float(y_true["answer"]), float(y_pred["answer"])
    if math.isclose(got, expected, rel_tol=0.01):
        return 1.0
    print("checked", got)
    return 0.0, f"expected {expected}, got {got}"
"""


@pytest.fixture
async def within():
    function = CodeFunction(WITHIN_ONE_PERCENT, name="within_one_percent")
    yield function
    await function.close()


# Construction and saving (no sandbox needed) ---------------------------------------------


def test_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match="`source`"):
        CodeFunction("   ")
    with pytest.raises(ValueError, match="at most 100000"):
        CodeFunction("x = 1\n" * 20_000)
    with pytest.raises(ValueError, match="`entry`"):
        CodeFunction("def f(a, b): return 1", entry="not a name")
    with pytest.raises(ValueError, match="`cpu_time_s` must be between"):
        CodeFunction("def reward(a, b): return 1", limits={"cpu_time_s": 600})
    with pytest.raises(TypeError, match="unknown sandbox limit"):
        CodeFunction("def reward(a, b): return 1", limits={"network": True})
    with pytest.raises(ValueError, match="`wall_time_s`"):
        SandboxLimits(cpu_time_s=5, wall_time_s=1)
    with pytest.raises(ValueError, match="`memory_mb` must be between"):
        SandboxLimits(memory_mb=1 << 20)


def test_a_code_reward_saves_its_source_and_comes_back_in_safe_mode() -> None:
    reward = synalinks.rewards.MeanRewardWrapper(
        fn=CodeFunction(WITHIN_ONE_PERCENT, name="within", limits={"cpu_time_s": 1.0}),
        in_mask=["answer"],
    )
    saved = json.loads(json.dumps(synalinks.rewards.serialize(reward)))
    check_names(saved)  # what the studio runs on every document before building it
    rebuilt = synalinks.rewards.get(saved)
    assert isinstance(rebuilt, synalinks.rewards.MeanRewardWrapper)
    assert rebuilt.name == "within"
    assert isinstance(rebuilt.fn, CodeFunction)
    assert rebuilt.fn.source == WITHIN_ONE_PERCENT
    assert rebuilt.fn.limits == SandboxLimits(cpu_time_s=1.0)
    assert synalinks.rewards.serialize(rebuilt) == saved
    metric = synalinks.metrics.MeanMetricWrapper(
        fn=CodeFunction("def metric(a, b): return 1", entry="metric")
    )
    again = synalinks.metrics.get(json.loads(json.dumps(synalinks.metrics.serialize(metric))))
    assert again.fn.entry == "metric"


def test_a_saved_code_function_is_still_data_where_a_class_is_expected() -> None:
    saved = synalinks.saving.serialize_object(CodeFunction("def reward(a, b): return 1"))
    # A function slot takes it; a reward slot takes only rewards (it is wrapped by `get`).
    assert isinstance(deserialize_object(saved, slot=FUNCTION), CodeFunction)
    with pytest.raises(SerializationError, match="cannot go here"):
        synalinks.optimizers.get(saved)
    bad = {**saved, "config": {**saved["config"], "limits": {"memory_mb": 10**6}}}
    with pytest.raises(SerializationError, match="memory_mb"):
        deserialize_object(bad, slot=FUNCTION)


async def test_copies_share_the_code_but_no_process(within) -> None:
    await within.score({"answer": "1"}, {"answer": "1"})
    for clone in (copy.copy(within), copy.deepcopy(within), pickle.loads(pickle.dumps(within))):
        assert clone.get_config() == within.get_config()
        assert clone._worker is None


# Scoring -------------------------------------------------------------------------------------


async def test_scores_feedback_and_prints(within) -> None:
    right = await within.score({"answer": "100"}, {"answer": "100.5"})
    assert (right.score, right.feedback, right.error, right.output) == (1.0, None, None, "")
    wrong = await within.score({"answer": "100"}, {"answer": "98"})
    assert wrong.score == 0.0 and wrong.error is None
    assert wrong.feedback == "expected 100.0, got 98.0"
    assert wrong.output == "checked 98.0\n"
    assert await within({"answer": "2"}, {"answer": "2"}) == 1.0


async def test_a_failing_row_scores_zero_and_says_why(within) -> None:
    [good, bad] = await asyncio.gather(
        within.score({"answer": "3"}, {"answer": "3"}),
        within.score({"answer": "3"}, {"answer": "three"}),
    )
    assert good.score == 1.0
    assert bad.score == 0.0
    assert bad.error == "ValueError: could not convert string to float: 'three' (line 5)"
    assert within.errors[-1] == bad.error
    assert (within.rows_scored, within.rows_failed) == (2, 1)


async def test_async_functions_tuples_and_checked_results() -> None:
    source = """
async def helper(x):
    return x

async def reward(y_true, y_pred):
    kind = y_pred["kind"]
    if kind == "tuple":
        return (await helper(0.25), "a quarter")
    if kind == "big":
        return 7
    if kind == "text":
        return "1.0"
    if kind == "nan":
        return float("nan")
    if kind == "sleep":
        import asyncio
        await asyncio.sleep(0.1)
    return True if kind == "bool" else 1
"""
    function = CodeFunction(source)
    try:
        results = await function.score_rows(
            [(None, {"kind": kind}) for kind in ("tuple", "big", "text", "nan", "sleep", "one")]
        )
    finally:
        await function.close()
    assert (results[0].score, results[0].feedback) == (0.25, "a quarter")
    assert results[1].error == "ValueError: returned 7.0, expected a number in [0, 1]"
    assert results[2].error == "TypeError: returned str ('1.0'), expected a number"
    assert results[3].error == "ValueError: returned nan, expected a finite number"
    assert "needs an event loop" in results[4].error
    assert results[5].score == 1.0


async def test_code_that_cannot_load_is_refused_with_its_reason() -> None:
    cases = {
        "def reward(a, b) return 1": "SyntaxError: expected ':' (line 1)",
        "def score(a, b):\n    return 1\n": "defines no function `reward` (it defines: score)",
        "import json\nraise RuntimeError('at import')\n": "RuntimeError: at import (line 2)",
        "import numpy\n": "ModuleNotFoundError: No module named 'numpy' (line 1)",
    }
    for source, reason in cases.items():
        function = CodeFunction(source, name="broken")
        assert reason in (await function.check() or ""), source
        with pytest.raises(UserCodeError, match="the code of 'broken' cannot run"):
            await function({"a": 1}, {"a": 1})
        await function.close()
    looping = CodeFunction("while True:\n    pass\n", limits={"cpu_time_s": 0.3, "wall_time_s": 1})
    assert "loading the code failed: timed out after" in (await looping.check() or "")
    await looping.close()


async def test_the_standard_library_is_there(within) -> None:
    source = """
import collections, datetime, decimal, difflib, fractions, functools, hashlib, itertools
import json, math, random, re, statistics, string, textwrap, unicodedata, zlib

def reward(y_true, y_pred):
    words = re.findall(r"\\w+", y_pred["answer"].lower())
    overlap = difflib.SequenceMatcher(None, y_true["answer"], y_pred["answer"]).ratio()
    return round(statistics.mean([overlap, len(words) / 10]), 3), json.dumps(sorted(words))
"""
    function = CodeFunction(source)
    try:
        result = await function.score({"answer": "Paris"}, {"answer": "Paris, France"})
    finally:
        await function.close()
    assert result.error is None
    assert result.feedback == '["france", "paris"]'
    assert result.score == round((0.5555555555555556 + 0.2) / 2, 3)


# Batching and failures -----------------------------------------------------------------------


async def test_concurrent_calls_go_to_the_sandbox_as_one_batch(within) -> None:
    rows = [({"answer": str(i)}, {"answer": str(i)}) for i in range(50)]
    scores = await asyncio.gather(*(within(a, b) for a, b in rows))
    assert scores == [1.0] * 50
    assert within._worker.batches == 1
    within.max_batch = 20
    await asyncio.gather(*(within(a, b) for a, b in rows))
    assert within._worker.batches == 1 + 3


async def test_a_batch_that_fails_on_every_row_stops_the_caller(within) -> None:
    rows = [({"answer": "1"}, {"answer": "x"})] * 4
    with pytest.raises(UserCodeError) as raised:
        await asyncio.gather(*(within(a, b) for a, b in rows))
    assert str(raised.value) == (
        "the code of 'within_one_percent' failed on every row of a batch of 4: "
        "ValueError: could not convert string to float: 'x' (line 5)"
    )
    # One failing row alone is a row error; the tenth in a row is a broken function.
    for _ in range(5):
        assert await within({"answer": "1"}, {"answer": "x"}) == 0.0
    with pytest.raises(UserCodeError, match="failed on 10 rows in a row"):
        await within({"answer": "1"}, {"answer": "x"})
    assert await within({"answer": "1"}, {"answer": "1"}) == 1.0


async def test_a_function_that_always_times_out_fails_fast() -> None:
    function = CodeFunction(
        "def reward(a, b):\n    while True:\n        pass\n",
        name="spinner",
        limits={"cpu_time_s": 0.2, "wall_time_s": 0.5},
    )
    rows = [({"a": i}, {"a": i}) for i in range(12)]
    try:
        with pytest.raises(UserCodeError, match="failed on every row of a batch of 12: timed out"):
            await asyncio.gather(*(function(a, b) for a, b in rows))
        # Three restarts, then the rest of the batch is not run at all.
        assert len(function._worker.pids) == 4
        assert function.errors[-1].startswith("not run: the code failed this way on 4 rows")
    finally:
        await function.close()


async def test_a_new_event_loop_gets_a_new_process() -> None:
    function = CodeFunction("def reward(a, b):\n    return 1\n")

    async def one() -> tuple[float, int]:
        score = await function({"x": 1}, {"x": 1})
        return score, function._worker.pids[-1]

    first = await asyncio.to_thread(asyncio.run, one())
    second = await one()
    assert first[0] == second[0] == 1.0
    assert first[1] != second[1]
    await function.close()


async def test_a_code_reward_trains_and_a_broken_one_stops_the_run() -> None:
    x, y, student = capitals(8)
    program = await build_program(synalinks.FakeLanguageModel(responder=student))
    same = CodeFunction(
        "def reward(y_true, y_pred):\n    return float(y_true['answer'] == y_pred['answer'])\n",
        name="same_answer",
    )
    program.compile(
        reward=synalinks.rewards.MeanRewardWrapper(fn=same), optimizer="random_few_shot"
    )
    history = await program.fit(x=x, y=y, epochs=1, batch_size=4, verbose=0)
    assert 0.0 <= history.history["reward"][0] <= 1.0
    assert same.rows_scored >= 8 and same.rows_failed == 0
    await same.close()

    broken = CodeFunction("def reward(y_true, y_pred):\n    return y_pred['missing']\n")
    program.compile(
        reward=synalinks.rewards.MeanRewardWrapper(fn=broken), optimizer="random_few_shot"
    )
    with pytest.raises(
        UserCodeError, match=r"failed on every row of a batch of 4: KeyError: 'missing' \(line 2\)"
    ):
        await asyncio.wait_for(program.fit(x=x, y=y, epochs=1, batch_size=4, verbose=0), 120)
    await broken.close()


async def test_functions_never_share_a_process_or_its_state() -> None:
    # Module state a user's code keeps: every row it saw. Another function, even with the
    # very same code (another user, another run), must start from nothing.
    source = """
seen = []

def reward(y_true, y_pred):
    seen.append(y_pred["secret"])
    return 1.0, ",".join(seen)
"""
    mine, theirs = CodeFunction(source), CodeFunction(source)
    try:
        await mine.score_rows([(None, {"secret": "alice-1"}), (None, {"secret": "alice-2"})])
        [result] = await theirs.score_rows([(None, {"secret": "bob-1"})])
        assert result.feedback == "bob-1"
        assert set(mine._worker.pids).isdisjoint(theirs._worker.pids)
        # Within one function the module runs once per process, like an imported module.
        [again] = await mine.score_rows([(None, {"secret": "alice-3"})])
        assert again.feedback == "alice-1,alice-2,alice-3"
    finally:
        await mine.close()
        await theirs.close()
