"""A program's prompts as plain text: what each Generator sends, for use outside the studio.

The messages are built by the engine's own `Generator.format_messages` (nothing
here rebuilds a prompt): the system message holds the instructions, the
schemas the Generator shows and its few-shot examples; the user message is the
input's JSON, replaced here by `INPUT_PLACEHOLDER`. Put the input's JSON where
the placeholder is and the messages are exactly those the engine sends (with
``response_format`` asking for the output schema).
"""

from __future__ import annotations

from typing import Any

from optimizer_core import model_algebra
from optimizer_core.datamodels import DataModel, JsonDict
from optimizer_core.language_models.language_model import output_schema
from optimizer_core.modules.generator import Generator
from studio.programs.documents import load_program

INPUT_PLACEHOLDER = "{{input}}"

_SNIPPET = """\
import asyncio
import json

import optimizer_core

# program.json: the document this export came with ("document").
with open("program.json", encoding="utf-8") as file:
    program = optimizer_core.Program.from_json(json.load(file))
program.set_language_model(optimizer_core.LanguageModel(model="openai/gpt-4o-mini"))
print(asyncio.run(program({example})))
"""


def _input_schema(program: Any, generator: Generator) -> JsonDict | None:
    """The schema of what the Generator is shown, when it shows it and it is known."""
    if not generator.use_inputs_schema:
        return None
    for node in program._order:
        if node.module is generator:
            models = [symbol.data_model for symbol in node.inbound]
            schema: JsonDict = model_algebra.concat_models(models, base=DataModel).get_schema()
            return schema
    return None  # a Generator held by another module (a Branch's): its input varies


def plain_text(messages: list[dict[str, str]]) -> str:
    """The messages one after another, each under its role in capitals."""
    return "\n\n".join(f"### {m['role'].upper()}\n{m['content']}" for m in messages)


def export_prompts(document: JsonDict) -> JsonDict:
    """Every Generator's messages, as JSON and as plain text, and a snippet loading it all.

    Raises:
        DocumentInvalid: the document does not load.
    """
    program = load_program(document)
    generators = []
    for module in program.all_modules:
        if not isinstance(module, Generator):
            continue
        messages = module.format_messages({}, _input_schema(program, module))
        messages[-1] = {"role": "user", "content": INPUT_PLACEHOLDER}
        generators.append(
            {
                "name": module.name,
                "messages": messages,
                "text": plain_text(messages),
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {
                        "name": output_schema(module.output_model).name,
                        "schema": output_schema(module.output_model).copy(),
                    },
                },
                "temperature": module.temperature,
            }
        )
    example = (
        {name: "..." for name in program.inputs[0].data_model.model_fields}
        if program.inputs
        else {}
    )
    return {
        "input_placeholder": INPUT_PLACEHOLDER,
        "generators": generators,
        "python": _SNIPPET.format(example=repr(example)),
        "document": document,
    }
