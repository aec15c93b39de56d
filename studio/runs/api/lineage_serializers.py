"""Serializers of a run's candidate lineage (`GET /api/runs/{id}/lineage/`).

What they describe is built by `studio.runs.optimizer_lineage.run_lineage`; they
exist so the schema (and the browser's generated types) says what each field is.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers


@extend_schema_field({"type": "object", "additionalProperties": {}, "nullable": True})
class JSONObjectField(serializers.JSONField):
    """A JSON object (a candidate's trainable value), read only."""


class RowOutcomeSerializer(serializers.Serializer[dict[str, Any]]):
    row = serializers.IntegerField(help_text="the row's position in the training split")
    reward = serializers.FloatField(help_text="the candidate's (mean) reward on the row")
    parent_reward = serializers.FloatField(help_text="the parent's (mean) reward on the row")


class ParentComparisonSerializer(serializers.Serializer[dict[str, Any]]):
    parent = serializers.CharField()
    shared = serializers.IntegerField(help_text="rows both were scored on")
    tied = serializers.IntegerField(help_text="shared rows with equal rewards")
    won = RowOutcomeSerializer(many=True, help_text="shared rows where the candidate did better")
    lost = RowOutcomeSerializer(many=True, help_text="shared rows where it did worse")


class LineageNodeSerializer(serializers.Serializer[dict[str, Any]]):
    id = serializers.CharField(help_text="the candidate's id, `<variable>#<n>`")
    parents = serializers.ListField(child=serializers.CharField(), help_text="two: a crossover")
    operation = serializers.CharField(
        help_text="init, few_shot, mutation, crossover (the optimizer's words); "
        "unknown for a candidate named only as a parent"
    )
    epoch = serializers.IntegerField(allow_null=True)
    step = serializers.IntegerField(allow_null=True)
    reward = serializers.FloatField(allow_null=True, help_text="its mean reward, last known")
    nb_evaluations = serializers.IntegerField()
    score = serializers.FloatField(
        allow_null=True, help_text="its DNS score at the last competition it was in (OMEGA)"
    )
    value = JSONObjectField(allow_null=True, help_text="its trainable fields")
    in_population = serializers.BooleanField(help_text="in the population at the end (survived)")
    best = serializers.BooleanField(help_text="the candidate training ended with")
    dropped_at = serializers.IntegerField(
        allow_null=True, help_text="the epoch whose competition dropped it"
    )
    merged_into = serializers.CharField(
        allow_null=True, help_text="an identical candidate its evaluations were added to"
    )
    rows_scored = serializers.IntegerField(help_text="training rows it has a reward on")
    comparisons = ParentComparisonSerializer(many=True, help_text="against each parent")


class LineageEdgeSerializer(serializers.Serializer[dict[str, Any]]):
    id = serializers.CharField()
    source = serializers.CharField(help_text="the parent")
    target = serializers.CharField(help_text="the child")
    crossover = serializers.BooleanField(help_text="one of a crossover's two parent edges")


class VariableLineageSerializer(serializers.Serializer[dict[str, Any]]):
    name = serializers.CharField()
    best = serializers.CharField(allow_null=True, help_text="the candidate training ended with")
    nodes = LineageNodeSerializer(many=True)
    edges = LineageEdgeSerializer(many=True)


class LineageRowSerializer(serializers.Serializer[dict[str, Any]]):
    index = serializers.IntegerField(help_text="the row's position in the training split")
    input = serializers.CharField(help_text="the input, as JSON text (cut when long)")
    expected = serializers.CharField(help_text="the expected output, as JSON text (cut when long)")


class LineageSerializer(serializers.Serializer[dict[str, Any]]):
    run = serializers.IntegerField()
    optimizer = serializers.CharField(allow_null=True)
    variables = VariableLineageSerializer(many=True)
    rows = LineageRowSerializer(
        many=True, help_text="the rows named by a comparison (at most 500), for their text"
    )
