"""FieldRules: a reward configured without code, one comparison per output field.

Each rule names an output field, how its predicted value is compared with the
ground truth's (`COMPARISONS`) and a weight. A row's score is the weighted mean
of its rules' scores, in [0, 1]; its feedback names every rule that did not
score 1.0, one line each (``answer: expected 'Paris', got 'Lyon'``), which the
optimizer reads beside the score (`optimizer_core.rewards.reward.Scored`).

A rule is a plain JSON object, so a run config or a saved program holds it as
is and the studio checks it field by field::

    {"field": "answer", "comparison": "normalized", "weight": 2}
    {"field": "total", "comparison": "numeric", "tolerance": 0.01, "relative": true}
    {"field": "code", "comparison": "regex", "pattern": "[A-Z]{3}-\\d{4}"}

The comparisons:

- ``exact``: the values are equal as JSON (strings exactly, ``4 == 4.0``, key
  order ignored, ``true`` only equals ``true``);
- ``normalized``: the values' text is equal once lowercased and with runs of
  spaces collapsed (``" New  York"`` equals ``"new york"``);
- ``numeric``: both values read as numbers (a number, or text such as
  ``"42.5"``) differ by at most ``tolerance``: absolute by default, a fraction
  of the expected value with ``relative`` (``0.01``: within 1 %);
- ``regex``: the predicted text matches ``pattern`` whole (the expected value is
  not read);
- ``contains``: the expected text appears in the predicted text (case- and
  space-insensitive);
- ``token_f1``: token-overlap F1 of the two texts, with the F1Score metric's
  tokenizer (`optimizer_core.utils.token_scores`): a partial
  answer scores between 0 and 1;
- ``set_f1``: for list fields, F1 of the two lists taken as sets of
  normalized items (a value that is no list counts as a list of one);
- ``json_equal``: like ``exact``, but a string holding JSON is parsed first, so
  ``'{"a": 1}'`` equals ``'{ "a" : 1 }'`` and ``{"a": 1}``.

A field missing from the prediction scores 0.0 (``answer: missing from the
output``); one missing from the ground truth scores 0.0 too, except for
``regex``, which reads the prediction only.

Why `regex` (the PyPI library) rather than `re`: a pattern is user input, and
a pattern such as ``(a+)+$`` backtracks for ever on some texts. `re` has no
time limit; ``regex`` takes a ``timeout`` per match, so a runaway pattern ends
that rule at 0.0 with ``timed out`` in the feedback after `REGEX_TIMEOUT_S`
instead of hanging a run. Patterns are also capped at `MAX_PATTERN_CHARS` and
compiled when the rule is built, so a bad one is refused with the config.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import regex  # type: ignore[import-untyped]  # no stubs shipped; types-regex not needed

from optimizer_core.datamodels import JsonDict
from optimizer_core.rewards.exact_match import _json_equal
from optimizer_core.rewards.reward import MaskedScorer, Reward, Scored
from optimizer_core.saving.params import Param
from optimizer_core.utils.json_utils import leaf_to_text
from optimizer_core.utils.token_scores import token_scores

__all__ = [
    "COMPARISONS",
    "MAX_PATTERN_CHARS",
    "REGEX_TIMEOUT_S",
    "Comparison",
    "FieldRule",
    "FieldRuleError",
    "FieldRules",
    "FieldRulesScorer",
    "parse_rules",
]

#: The longest regex pattern a rule may hold.
MAX_PATTERN_CHARS = 500
#: How long one regex match may run before the rule scores 0.0 ("timed out").
REGEX_TIMEOUT_S = 0.1
#: The most characters of a value a feedback line quotes.
SHOWN_CHARS = 60
#: The most rules one reward holds.
MAX_RULES = 100

_RULE_KEYS = ("field", "comparison", "weight", "tolerance", "relative", "pattern")


@dataclass(frozen=True)
class Comparison:
    """One way to compare a field: its name, label, description and the rule keys it reads.

    Attributes:
        name: what a rule's ``comparison`` holds (``"numeric"``).
        label: the name for people (``"Number within a tolerance"``).
        description: one line for people.
        options: the rule keys it reads besides field and weight (``("tolerance", "relative")``).
    """

    name: str
    label: str
    description: str
    options: tuple[str, ...] = ()


#: The comparisons, in the order a form offers them.
COMPARISONS: dict[str, Comparison] = {
    c.name: c
    for c in (
        Comparison("exact", "Exact", "the values are equal as JSON; case and spaces count"),
        Comparison(
            "normalized", "Same text, any case or spacing",
            "the texts are equal once lowercased and with runs of spaces collapsed",
        ),
        Comparison(
            "numeric", "Number within a tolerance",
            "both read as numbers and differ by at most the tolerance (absolute, or a "
            "fraction of the expected value when relative)",
            ("tolerance", "relative"),
        ),
        Comparison(
            "regex", "Matches a pattern",
            "the predicted text matches the regular expression whole (the expected value "
            "is not read)",
            ("pattern",),
        ),
        Comparison(
            "contains", "Contains the expected text",
            "the expected text appears in the predicted text, any case or spacing",
        ),
        Comparison(
            "token_f1", "Word overlap (F1)",
            "token-overlap F1 of the two texts: a partial answer scores between 0 and 1",
        ),
        Comparison(
            "set_f1", "List items overlap (F1)",
            "for list fields: F1 of the two lists as sets of items, any case or spacing",
        ),
        Comparison(
            "json_equal", "Same JSON",
            "equal as JSON, a string holding JSON parsed first (key order and spacing "
            "ignored)",
        ),
    )
}  # fmt: skip


class FieldRuleError(ValueError):
    """A rule that cannot be built, naming its index and key (``rules[0].tolerance``).

    Attributes:
        index: the rule's position in the list (None: the list itself is wrong).
        key: the rule's key at fault (None: the rule as a whole).
    """

    def __init__(self, message: str, *, index: int | None = None, key: str | None = None) -> None:
        where = "rules" if index is None else f"rules[{index}]"
        if key is not None:
            where += f".{key}"
        super().__init__(f"{where}: {message}")
        self.reason = message
        self.index = index
        self.key = key


@dataclass(frozen=True)
class FieldRule:
    """One field's checked rule (see the module docstring)."""

    field: str
    comparison: str
    weight: float = 1.0
    tolerance: float = 0.0
    relative: bool = False
    pattern: str | None = None

    def as_json(self) -> JsonDict:
        """The rule as a run config holds it (only the keys its comparison reads)."""
        rule: JsonDict = {"field": self.field, "comparison": self.comparison, "weight": self.weight}
        options = COMPARISONS[self.comparison].options
        if "tolerance" in options:
            rule["tolerance"] = self.tolerance
            rule["relative"] = self.relative
        if "pattern" in options:
            rule["pattern"] = self.pattern
        return rule


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _rule(index: int, raw: Any) -> FieldRule:
    def refuse(message: str, key: str | None = None) -> FieldRuleError:
        return FieldRuleError(message, index=index, key=key)

    if isinstance(raw, FieldRule):
        raw = raw.as_json()
    if not isinstance(raw, Mapping):
        raise refuse(f"must be an object with field, comparison and weight, got {raw!r}")
    unknown = sorted(set(raw) - set(_RULE_KEYS))
    if unknown:
        raise refuse(f"unknown key(s) {unknown}; known: {list(_RULE_KEYS)}")
    field = raw.get("field")
    if not isinstance(field, str) or not field.strip():
        raise refuse(f"must be an output field's name, got {field!r}", "field")
    comparison = raw.get("comparison")
    if comparison not in COMPARISONS:
        raise refuse(f"must be one of {list(COMPARISONS)}, got {comparison!r}", "comparison")
    weight = _number(raw.get("weight", 1.0))
    if weight is None or weight <= 0:
        raise refuse(f"must be a number > 0, got {raw.get('weight')!r}", "weight")
    options = COMPARISONS[comparison].options
    for key in ("tolerance", "relative", "pattern"):
        if key in raw and raw[key] is not None and key not in options:
            raise refuse(f"a {comparison!r} rule takes no {key}", key)
    tolerance = _number(raw.get("tolerance", 0.0) if raw.get("tolerance") is not None else 0.0)
    if tolerance is None or tolerance < 0:
        raise refuse(f"must be a number >= 0, got {raw.get('tolerance')!r}", "tolerance")
    relative = raw.get("relative", False)
    if relative is None:
        relative = False
    if not isinstance(relative, bool):
        raise refuse(f"must be true or false, got {relative!r}", "relative")
    pattern = raw.get("pattern")
    if comparison == "regex":
        if not isinstance(pattern, str) or not pattern:
            raise refuse(f"a regex rule needs a pattern, got {pattern!r}", "pattern")
        if len(pattern) > MAX_PATTERN_CHARS:
            raise refuse(f"at most {MAX_PATTERN_CHARS} characters, got {len(pattern)}", "pattern")
        try:
            _compiled(pattern)
        except regex.error as error:
            raise refuse(f"not a valid regular expression: {error}", "pattern") from None
    return FieldRule(field.strip(), comparison, weight, tolerance, relative, pattern)


def parse_rules(rules: Any) -> tuple[FieldRule, ...]:
    """Check a list of rules (JSON objects or `FieldRule`) and return them built.

    Raises:
        FieldRuleError: the first fault, naming the rule's index and key.
    """
    if not isinstance(rules, list | tuple):
        raise FieldRuleError(f"must be a list of rules, got {type(rules).__name__}")
    if not rules:
        raise FieldRuleError("at least one rule is needed")
    if len(rules) > MAX_RULES:
        raise FieldRuleError(f"at most {MAX_RULES} rules, got {len(rules)}")
    return tuple(_rule(index, raw) for index, raw in enumerate(rules))


_PATTERNS: dict[str, Any] = {}


def _compiled(pattern: str) -> Any:
    found = _PATTERNS.get(pattern)
    if found is None:
        found = regex.compile(pattern)
        if len(_PATTERNS) < 1024:
            _PATTERNS[pattern] = found
    return found


# The comparisons ---------------------------------------------------------------------------


def shown(value: Any) -> str:
    """A value as a feedback line quotes it: its JSON (a string in quotes), shortened."""
    text = repr(value) if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"


def _text(value: Any) -> str:
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return leaf_to_text(value)


def _normalized(value: Any) -> str:
    return " ".join(_text(value).lower().split())


def _as_number(value: Any) -> float | None:
    number = _number(value)
    if number is not None:
        return number
    if isinstance(value, str):
        try:
            parsed = float(value.strip().replace(",", ""))
        except ValueError:
            return None
        return parsed if math.isfinite(parsed) else None
    return None


def _parsed_json(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _items(value: Any) -> set[str]:
    values = value if isinstance(value, list) else [value]
    return {_normalized(item) for item in values if item is not None}


def _tolerance_text(rule: FieldRule) -> str:
    if rule.relative:
        return f"{rule.tolerance * 100:g}%"
    return f"{rule.tolerance:g}"


Outcome = tuple[float, str | None]


def _exact(rule: FieldRule, expected: Any, predicted: Any) -> Outcome:
    if _json_equal(expected, predicted):
        return 1.0, None
    return 0.0, f"expected {shown(expected)}, got {shown(predicted)}"


def _normalized_equal(rule: FieldRule, expected: Any, predicted: Any) -> Outcome:
    if _normalized(expected) == _normalized(predicted):
        return 1.0, None
    return 0.0, f"expected {shown(expected)}, got {shown(predicted)}"


def _numeric(rule: FieldRule, expected: Any, predicted: Any) -> Outcome:
    gold, guess = _as_number(expected), _as_number(predicted)
    if gold is None:
        return 0.0, f"the expected value {shown(expected)} is not a number"
    if guess is None:
        return 0.0, f"{shown(predicted)} is not a number"
    allowed = rule.tolerance * abs(gold) if rule.relative else rule.tolerance
    if abs(guess - gold) <= allowed + 1e-12 * max(1.0, abs(gold)):
        return 1.0, None
    return 0.0, f"{guess:g} is not within {_tolerance_text(rule)} of {gold:g}"


def _regex(rule: FieldRule, expected: Any, predicted: Any) -> Outcome:
    assert rule.pattern is not None  # parse_rules requires one
    try:
        matched = _compiled(rule.pattern).fullmatch(_text(predicted), timeout=REGEX_TIMEOUT_S)
    except TimeoutError:
        return 0.0, f"the pattern timed out after {REGEX_TIMEOUT_S:g} s on {shown(predicted)}"
    if matched:
        return 1.0, None
    return 0.0, f"{shown(predicted)} does not match the pattern {shown(rule.pattern)}"


def _contains(rule: FieldRule, expected: Any, predicted: Any) -> Outcome:
    if _normalized(expected) in _normalized(predicted):
        return 1.0, None
    return 0.0, f"{shown(predicted)} does not contain {shown(expected)}"


def _token_f1(rule: FieldRule, expected: Any, predicted: Any) -> Outcome:
    f1 = token_scores(_text(expected), _text(predicted))[2]
    if f1 >= 1.0:
        return 1.0, None
    return f1, f"word overlap F1 {f1:.2f}: expected {shown(expected)}, got {shown(predicted)}"


def _set_f1(rule: FieldRule, expected: Any, predicted: Any) -> Outcome:
    gold, guess = _items(expected), _items(predicted)
    if not gold and not guess:
        return 1.0, None
    common = len(gold & guess)
    f1 = 0.0 if common == 0 else 2 * common / (len(gold) + len(guess))
    if f1 >= 1.0:
        return 1.0, None
    parts = []
    missing, extra = sorted(gold - guess), sorted(guess - gold)
    if missing:
        parts.append(f"missing {shown(missing)}")
    if extra:
        parts.append(f"unexpected {shown(extra)}")
    return f1, f"items F1 {f1:.2f}: " + ", ".join(parts)


def _json_equal_rule(rule: FieldRule, expected: Any, predicted: Any) -> Outcome:
    if _json_equal(_parsed_json(expected), _parsed_json(predicted)):
        return 1.0, None
    return 0.0, f"expected {shown(expected)}, got {shown(predicted)}"


_COMPARE: dict[str, Callable[[FieldRule, Any, Any], Outcome]] = {
    "exact": _exact,
    "normalized": _normalized_equal,
    "numeric": _numeric,
    "regex": _regex,
    "contains": _contains,
    "token_f1": _token_f1,
    "set_f1": _set_f1,
    "json_equal": _json_equal_rule,
}
assert set(_COMPARE) == set(COMPARISONS)


def score_rule(rule: FieldRule, y_true: JsonDict | None, y_pred: JsonDict) -> Outcome:
    """One rule's score in [0, 1] on one row, and its feedback (None when it scored 1.0)."""
    if rule.field not in y_pred:
        return 0.0, "missing from the output"
    predicted = y_pred[rule.field]
    if rule.comparison != "regex" and (y_true is None or rule.field not in y_true):
        return 0.0, "the row has no expected value"
    expected = None if y_true is None else y_true.get(rule.field)
    return _COMPARE[rule.comparison](rule, expected, predicted)


class FieldRulesScorer(MaskedScorer):
    """What `FieldRules` (a reward) and `FieldRulesMetric` (a metric) share: the rules.

    Args:
        rules: one rule per output field (see the module docstring). Required.
        name: the name it is logged under (default: the class name in snake_case).
    """

    needs: ClassVar[frozenset[str]] = frozenset()
    user_params: ClassVar[tuple[Param, ...]] = (
        Param(
            "rules",
            "one rule per output field: a comparison (exact, normalized, numeric, regex, "
            "contains, token_f1, set_f1, json_equal) and a weight; the score is their "
            "weighted mean",
            label="Field rules",
            type="field_rules",
            nullable=False,
        ),
        # A rule names its field: masks would only hide fields from the rules.
        Param("in_mask", offered=False),
        Param("out_mask", offered=False),
        Param("in_mask_pattern", offered=False),
        Param("out_mask_pattern", offered=False),
    )

    def __init__(
        self,
        *,
        rules: list[JsonDict],
        name: str | None = None,
        in_mask: list[str] | None = None,
        out_mask: list[str] | None = None,
        in_mask_pattern: str | None = None,
        out_mask_pattern: str | None = None,
    ) -> None:
        super().__init__(
            name=name,
            in_mask=in_mask,
            out_mask=out_mask,
            in_mask_pattern=in_mask_pattern,
            out_mask_pattern=out_mask_pattern,
        )
        self.rules = parse_rules(rules)

    @property
    def fields(self) -> list[str]:
        """The output fields the rules read, in rule order."""
        return list(dict.fromkeys(rule.field for rule in self.rules))

    async def call(self, y_true: JsonDict | None, y_pred: JsonDict | None) -> Scored:
        if y_pred is None:
            return Scored(0.0, "no prediction")
        total = sum(rule.weight for rule in self.rules)
        score = 0.0
        lines = []
        for rule in self.rules:
            value, feedback = score_rule(rule, y_true, y_pred)
            score += rule.weight * value
            if feedback is not None:
                lines.append(f"{rule.field}: {feedback}")
        return Scored(min(max(score / total, 0.0), 1.0), "\n".join(lines) or None)

    def get_config(self) -> dict[str, Any]:
        return {"rules": [rule.as_json() for rule in self.rules], **super().get_config()}


class FieldRules(FieldRulesScorer, Reward):
    """A reward of rules you configure: one comparison and weight per output field.

    Each rule compares one output field of the prediction with the ground truth's
    (exact, any case or spacing, a number within a tolerance, a regex, contains,
    word-overlap F1, list-items F1, JSON equality); the reward is the weighted
    mean of the rules' scores, and its feedback names each field that fell short
    (``answer: expected 'Paris', got 'Lyon'``). See
    `optimizer_core.rewards.field_rules` for each comparison.

    Args:
        rules: the rules, each ``{"field", "comparison", "weight"}`` plus
            ``"tolerance"`` / ``"relative"`` (numeric) or ``"pattern"`` (regex). Required.
        name: the name it is logged under (default ``"field_rules"``).

    Raises:
        FieldRuleError: a bad rule, naming its index and key (``rules[1].tolerance``).

    Example:
        ```python
        reward = FieldRules(rules=[
            {"field": "answer", "comparison": "normalized", "weight": 2},
            {"field": "total", "comparison": "numeric", "tolerance": 0.01, "relative": True},
        ])
        await reward.score_with_feedback(y_true, y_pred)
        # Scored(value=0.667, feedback="total: 41 is not within 1% of 42")
        ```
    """

    kind = "reward"
