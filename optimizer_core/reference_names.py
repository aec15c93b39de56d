"""The reference library's top-level names that optimizer_core does not have, and what to use.

Code ported from synalinks 0.10.14 with only the import changed reaches for names
this engine leaves out on purpose: agents and tools, knowledge bases, the
reference's own code sandboxes, its catalogue of ready-made judges, file dataset
loaders, multimodal and chat types, tracing and global configuration. Asking
``optimizer_core`` for one of them raises an `AttributeError` that says which
part of the reference it belongs to and what to write here instead (see
`missing_name_error`), rather than Python's bare "has no attribute".

Why a table rather than stubs that raise when called: a stub would make
``hasattr(optimizer_core, "KnowledgeBase")`` true and let an import succeed, so
the porting error would surface later and farther from its cause. The table is
also what ``docs/reference-compatibility.md`` lists under "Not here".
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Absent:
    """A part of the reference this engine does not have: its names and the alternative."""

    part: str
    names: tuple[str, ...]
    instead: str


ABSENT: tuple[Absent, ...] = (
    Absent(
        "agents and tool calling",
        (
            "Action", "CypherAgent", "DeepAgent", "FunctionCallingAgent", "MultiServerMCPClient",
            "RLM", "SQLAgent", "Text2Cypher", "Text2SQL", "Tool", "ToolCall", "ToolCallFunction",
            "ToolCalling", "VectorRAGAgent", "is_tool_call",
        ),
        "build the steps as a Program of Generators, Decisions and Branches; a tool's result "
        "comes in as an input field",
    ),
    Absent(
        "knowledge bases and retrieval",
        (
            "EmbeddedEntity", "EmbeddingRequest", "Embeddings", "Entities", "Entity",
            "KnowledgeBase", "KnowledgeGraph", "KnowledgeGraphs", "RRFReranker", "RegexSearch",
            "Relation", "Relations", "default_knowledge_base", "is_embedded", "is_embedding",
            "is_embeddings", "is_entities", "is_entity", "is_relation", "is_relations",
            "knowledge_bases",
        ),
        "retrieve outside the program and pass the passages as an input field; "
        "EmbeddingModel embeds text for CosineSimilarity and OMEGA",
    ),
    Absent(
        "the reference's code sandboxes",
        (
            "CommandExitException", "CommandResult", "EntryInfo", "Execution", "ExecutionError",
            "ExecutionResult", "FileType", "MirageSandbox", "NotFoundException", "Sandbox",
            "SandboxException", "TimeoutException", "WriteInfo", "sandboxes",
        ),
        "optimizer_core.sandbox runs code rewards and metrics isolated (no network, no files, "
        "CPU and wall limits)",
    ),
    Absent(
        "ready-made judges and agent metrics",
        (
            "AgentAsJudge", "AgentLoopDetection", "AnswerRelevancy", "BatchMetric", "BatchReward",
            "Bias", "ComposableReward", "ContextualRecall", "DeepAgentAsJudge", "Faithfulness",
            "GapK", "GoalAccuracy", "Hallucination", "KnowledgeRetention", "LMOperationalMetric",
            "Misuse", "NonAdvice", "PIILeakage", "PassAtK", "PassHatK", "PlanAdherence",
            "PlanQuality", "PromptAlignment", "RLMAsJudge", "RoleAdherence", "RoleViolation",
            "RubricsAsJudge", "StepEfficiency", "Summarization", "TaskCompletion",
            "ToolCorrectness", "ToolPermission", "ToolUse", "TopicAdherence", "Toxicity",
            "TurnFaithfulness", "TurnRelevancy",
        ),
        "rewards.LMAsJudge(criteria=...) or rewards.ProgramAsJudge with your own criteria, or a "
        "function in rewards.MeanRewardWrapper / metrics.MeanMetricWrapper",
    ),
    Absent(
        "file dataset loaders",
        (
            "CSVDataset", "Dataset", "JSONDataset", "JSONLDataset", "MLflowDataset",
            "MarkdownDataset", "ParquetDataset", "TextDataset",
        ),
        "load the rows into numpy arrays of DataModels (see datasets.gsm8k.load_data), or "
        "upload the file as a dataset in the studio",
    ),
    Absent(
        "multimodal, chat and document types",
        (
            "Audio", "AudioInput", "ChatMessage", "ChatMessages", "ChatRole", "GenericIO",
            "GenericInputs", "GenericOutputs", "GenericResult", "Image", "ImageInput",
            "Instructions", "JsonDataModel", "MarkdownDocument", "MarkdownSection", "Prediction",
            "Result", "Stamp", "TextDocument", "Trainable", "is_chat_message", "is_chat_messages",
            "is_instructions", "is_prediction", "is_stamped", "is_trainable",
        ),
        "declare the fields as a DataModel (text only); a Generator's trainable state is its "
        "Variable",
    ),
    Absent(
        "graph building blocks of the reference's functional API",
        ("Concatenate", "Function", "Lambda", "Logs", "Operation", "Sequential"),
        "Program(inputs=..., outputs=...) over modules; Concat joins two DataModels",
    ),
    Absent(
        "tracing and global configuration",
        (
            "StatelessScope", "SymbolicScope", "api_base", "backend", "clear_session", "config",
            "decision_models", "default_decision_model", "default_language_model",
            "enable_logging", "enable_observability", "get_seed", "hooks", "initializers",
            "Initializer", "name_scope", "ops", "record_traces", "set_api_base", "set_seed",
            "synalinks_home", "trace_context", "tree", "tuners", "version",
        ),
        "pass the language model to each module (Program.set_language_model sets it for all), "
        "seeds to fit(seed=) and the optimizers, and read calls and usage from callbacks",
    ),
)  # fmt: skip

_BY_NAME: dict[str, Absent] = {name: absent for absent in ABSENT for name in absent.names}


def missing_name_error(name: str) -> AttributeError:
    """The error for ``optimizer_core.<name>``: the reference's part and the alternative."""
    absent = _BY_NAME.get(name)
    if absent is None:
        return AttributeError(f"module 'optimizer_core' has no attribute {name!r}")
    return AttributeError(
        f"module 'optimizer_core' has no attribute {name!r}: it is part of the reference "
        f"library's {absent.part}, which optimizer_core leaves out; instead, {absent.instead} "
        "(docs/reference-compatibility.md, 'Not here')"
    )
