"""`make run`: train a small program and show before/after, fully offline.

Until the bundled local model lands, the language model is a scripted
OpenAI-compatible server on 127.0.0.1 (`optimizer_core.testing.ScriptedServer`)
answering as a "few-shot student": it answers a country's capital in a full
sentence unless its prompt shows correct examples of the bare-name format.
Everything else is the real path: litellm, structured output, retries,
concurrency, RandomFewShot, callbacks, the progress bar, saving and plots.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

import numpy as np

import optimizer_core as synalinks
from optimizer_core.testing.scripted_server import ScriptedServer
from optimizer_core.testing.students import capitals_task

OUTPUT = Path(os.environ.get("DEMO_OUTPUT", "output/demo"))


class Query(synalinks.DataModel):
    query: str = synalinks.Field(description="The user's question")


class Answer(synalinks.DataModel):
    answer: str = synalinks.Field(description="The answer, as short as possible")


async def main() -> None:
    questions, answers, student = capitals_task()
    x = np.array([Query(**q) for q in questions], dtype="object")
    y = np.array([Answer(**a) for a in answers], dtype="object")
    x_train, y_train, x_test, y_test = x[:28], y[:28], x[28:], y[28:]

    async with ScriptedServer(responder=student.from_request, latency=0.05) as server:
        lm = synalinks.LanguageModel(model="openai/few-shot-student", api_base=server.base_url)
        inputs = synalinks.Input(data_model=Query)
        outputs = await synalinks.Generator(data_model=Answer, language_model=lm)(inputs)
        program = synalinks.Program(
            inputs=inputs, outputs=outputs, name="capitals", description="Name a country's capital"
        )
        program.summary()
        program.compile(
            reward=synalinks.rewards.ExactMatch(in_mask=["answer"]),
            optimizer=synalinks.optimizers.RandomFewShot(nb_max_examples=3, seed=0),
            metrics=[synalinks.metrics.F1Score(in_mask=["answer"])],
        )
        verbose = 1 if sys.stdout.isatty() else 2
        started = time.perf_counter()
        print("\nEvaluating the untrained program (3 runs)...")
        before = [await program.evaluate(x=x_test, y=y_test, verbose=0) for _ in range(3)]
        print("Training with RandomFewShot...")
        history = await program.fit(
            x=x_train,
            y=y_train,
            validation_split=0.25,
            epochs=4,
            batch_size=7,
            verbose=verbose,
            seed=0,
            callbacks=[
                synalinks.callbacks.ProgramCheckpoint(
                    filepath=str(OUTPUT / "best_program.json"), monitor="val_reward", mode="max",
                    save_best_only=True,
                )
            ],
        )  # fmt: skip
        print("Evaluating the trained program (3 runs)...")
        after = [await program.evaluate(x=x_test, y=y_test, verbose=0) for _ in range(3)]
        elapsed = time.perf_counter() - started

        synalinks.utils.plot_history(history, to_folder=str(OUTPUT))
        figure = synalinks.utils.plot_metrics_comparison_with_mean_and_std(
            {"before_training": before, "after_training": after},
            to_folder=str(OUTPUT),
            title="Test reward before and after training",
        )
        program.save(OUTPUT / "trained_program.json")

    def mean_std(results: list[dict[str, float]], key: str) -> str:
        values = np.array([r[key] for r in results])
        return f"{values.mean():.3f} ± {values.std():.3f}"

    usage = lm.usage.snapshot()
    print("\n               before            after")
    for key in ("reward", "f1_score"):
        print(f"  {key:<12} {mean_std(before, key):<17} {mean_std(after, key)}")
    examples = program.trainable_variables[0].get("examples")
    shown = examples[0]["outputs"] if examples else "-"
    print(f"\nLearned {len(examples)} few-shot examples, e.g. {shown}")
    print(
        f"LM calls: {usage['calls']} ({usage['cached_calls']} cached),"
        f" tokens: {usage['total_tokens']}, max in flight: {usage['max_in_flight']},"
        f" wall time: {elapsed:.1f} s"
    )
    print(f"Figures and the trained program: {OUTPUT}/ ({Path(figure).name}, training_history.png)")


if __name__ == "__main__":
    asyncio.run(main())
