"""CosineSimilarity: semantic closeness of prediction and ground truth, field by field."""

from __future__ import annotations

from typing import Any

import numpy as np

from optimizer_core import language_models
from optimizer_core.datamodels import JsonDict
from optimizer_core.rewards.reward import Reward
from optimizer_core.saving.object_registry import serialize_object
from optimizer_core.utils.json_utils import flatten_json, leaf_to_text

__all__ = ["CosineSimilarity"]


def _cosine_reward(left: np.ndarray[Any, Any], right: np.ndarray[Any, Any]) -> float:
    norms = float(np.linalg.norm(left) * np.linalg.norm(right))
    cosine = float(np.dot(left, right)) / norms if norms > 0.0 else 0.0
    return min(max((cosine + 1.0) / 2.0, 0.0), 1.0)


class CosineSimilarity(Reward):
    """Mean over the ground truth's fields of ``(cos + 1) / 2`` of the two embeddings.

    Both samples are masked and flattened (``a.b``, ``a[0]``). For every leaf of
    the ground truth, the string forms of the gold and predicted values are
    embedded and scored ``(cos + 1) / 2``, which maps cosine similarity from
    [-1, 1] to [0, 1]. The reward is the mean over the gold leaves. Further:

    - a leaf missing from the prediction scores 0.0;
    - identical strings score 1.0 without being embedded;
    - an empty string against a non-empty one scores 0.0 (there is nothing to
      embed, and most providers refuse empty input);
    - a ground truth with no leaves scores 1.0 if the prediction has none
      either, else 0.0.

    All the texts of one call are embedded in a single batch request.

    Args:
        embedding_model: the embedding model (``await em(texts) -> vectors``). Required.
        name: the name it is logged under (default ``"cosine_similarity"``).
        in_mask: compare only these fields (default None: all of them).
        out_mask: leave these fields out (default None).
        in_mask_pattern: a regex; the fields whose name matches are kept too (default None).
        out_mask_pattern: a regex; the fields whose name matches are dropped too (default None).

    Example:
        ```python
        reward = CosineSimilarity(embedding_model=em, in_mask=["answer"])
        await reward(Answer(answer="Paris"), Answer(answer="paris, France"))
        ```
    """

    needs = frozenset({"embedding_model"})

    def __init__(
        self,
        *,
        embedding_model: language_models.EmbeddingModel | None = None,
        name: str | None = None,
        in_mask: list[str] | None = None,
        out_mask: list[str] | None = None,
        in_mask_pattern: str | None = None,
        out_mask_pattern: str | None = None,
    ) -> None:
        if embedding_model is None:
            raise ValueError("`embedding_model` is required, got None")
        if not callable(embedding_model):
            raise TypeError(
                "`embedding_model` must be an embedding model (an async callable), "
                f"got {type(embedding_model).__name__}"
            )
        super().__init__(
            name=name,
            in_mask=in_mask,
            out_mask=out_mask,
            in_mask_pattern=in_mask_pattern,
            out_mask_pattern=out_mask_pattern,
        )
        self.embedding_model = embedding_model

    async def call(self, y_true: JsonDict | None, y_pred: JsonDict | None) -> float:
        gold = flatten_json(y_true or {})
        predicted = flatten_json(y_pred or {})
        if not gold:
            return 1.0 if not predicted else 0.0
        scores: list[float] = []
        pending: list[tuple[str, str]] = []
        for path, gold_value in gold.items():
            if path not in predicted:
                scores.append(0.0)
                continue
            gold_text = leaf_to_text(gold_value)
            predicted_text = leaf_to_text(predicted[path])
            if gold_text == predicted_text:
                scores.append(1.0)
            elif not gold_text.strip() or not predicted_text.strip():
                scores.append(0.0)
            else:
                pending.append((gold_text, predicted_text))
        if pending:
            texts = list(dict.fromkeys(text for pair in pending for text in pair))
            vectors = await self.embedding_model(texts)
            if len(vectors) != len(texts):
                raise ValueError(
                    f"reward {self.name!r}: the embedding model returned {len(vectors)} "
                    f"vectors for {len(texts)} texts"
                )
            by_text = {
                text: np.asarray(vector, dtype=float)
                for text, vector in zip(texts, vectors, strict=True)
            }
            scores.extend(_cosine_reward(by_text[g], by_text[p]) for g, p in pending)
        return sum(scores) / len(scores)

    def get_config(self) -> dict[str, Any]:
        return {"embedding_model": serialize_object(self.embedding_model), **super().get_config()}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> CosineSimilarity:
        config = dict(config)
        model: Any = config.pop("embedding_model", None)
        if isinstance(model, dict):
            model = language_models.deserialize(model)
        return cls(embedding_model=model, **config)
