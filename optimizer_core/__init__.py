"""optimizer_core: design LM programs, then train their prompts in context.

No weights change: an optimizer rewrites each Generator's trainable JSON
(instructions, few-shot examples) to raise a reward. The API follows the
Synalinks training guide, so ``import optimizer_core as synalinks`` runs its
snippets.

Example:
    ```python
    import optimizer_core as synalinks

    class Query(synalinks.DataModel):
        query: str

    class Answer(synalinks.DataModel):
        answer: str

    lm = synalinks.LanguageModel(model="openai/gpt-4o-mini")
    inputs = synalinks.Input(data_model=Query)
    outputs = await synalinks.Generator(data_model=Answer, language_model=lm)(inputs)
    program = synalinks.Program(inputs=inputs, outputs=outputs)
    ```
"""

from pydantic import Field

from optimizer_core import (
    callbacks,
    datasets,
    exceptions,
    language_models,
    metrics,
    modules,
    optimizers,
    rewards,
    sandbox,
    saving,
    score_types,
    stats,
    utils,
)
from optimizer_core.datamodels import DataModel, data_model_from_schema
from optimizer_core.language_models import (
    EmbeddingModel,
    FakeEmbeddingModel,
    FakeLanguageModel,
    LanguageModel,
)
from optimizer_core.metrics import Metric
from optimizer_core.modules import (
    And,
    Branch,
    ChainOfThought,
    Concat,
    Decision,
    Generator,
    Identity,
    InMask,
    Input,
    Module,
    MultiDecision,
    Not,
    Or,
    OutMask,
    SelfCritique,
    SymbolicDataModel,
    Xor,
)
from optimizer_core.optimizers import OMEGA
from optimizer_core.programs import Program
from optimizer_core.reference_names import missing_name_error as _missing_name_error
from optimizer_core.rewards import CosineSimilarity, ExactMatch, LMAsJudge, ProgramAsJudge, Reward
from optimizer_core.score_types import FineScore, Rating, Rating10, Rating20, Score
from optimizer_core.variables import Variable

__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    # A name the reference library has at its top level and this engine does not: the error
    # says which part of the reference it is and what to use here (`reference_names`).
    raise _missing_name_error(name)


__all__ = [
    "OMEGA",
    "And",
    "Branch",
    "ChainOfThought",
    "Concat",
    "CosineSimilarity",
    "DataModel",
    "Decision",
    "EmbeddingModel",
    "ExactMatch",
    "FakeEmbeddingModel",
    "FakeLanguageModel",
    "Field",
    "FineScore",
    "Generator",
    "Identity",
    "InMask",
    "Input",
    "LMAsJudge",
    "LanguageModel",
    "Metric",
    "Module",
    "MultiDecision",
    "Not",
    "Or",
    "OutMask",
    "Program",
    "ProgramAsJudge",
    "Rating",
    "Rating10",
    "Rating20",
    "Reward",
    "Score",
    "SelfCritique",
    "SymbolicDataModel",
    "Variable",
    "Xor",
    "__version__",
    "callbacks",
    "data_model_from_schema",
    "datasets",
    "exceptions",
    "language_models",
    "metrics",
    "modules",
    "optimizers",
    "rewards",
    "sandbox",
    "saving",
    "score_types",
    "stats",
    "utils",
]
