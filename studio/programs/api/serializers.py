"""Program and version representations."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from studio.common.errors import FieldErrorSerializer
from studio.common.fields import JSONField
from studio.programs.models import Program, ProgramVersion


class ProgramSerializer(serializers.ModelSerializer[Program]):
    latest_version = serializers.SerializerMethodField()
    version_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Program
        fields = [
            "id",
            "name",
            "description",
            "latest_version",
            "version_count",
            "created_at",
            "updated_at",
        ]
        read_only_fields = ["id", "created_at", "updated_at"]

    def get_latest_version(self, program: Program) -> int | None:
        latest = getattr(program, "latest_number", None)
        if latest is None:
            version = program.latest_version
            latest = version.number if version else None
        return latest


class ProgramCreateSerializer(serializers.Serializer[dict[str, Any]]):
    name = serializers.CharField(max_length=200)
    description = serializers.CharField(required=False, allow_blank=True, default="")
    document = JSONField(help_text="optimizer_core.Program.to_json()")
    layout = JSONField(required=False, default=dict, help_text="editor node positions")
    message = serializers.CharField(required=False, allow_blank=True, default="", max_length=500)


class ProgramUpdateSerializer(serializers.Serializer[dict[str, Any]]):
    name = serializers.CharField(max_length=200, required=False)
    description = serializers.CharField(required=False, allow_blank=True)


class ProgramVersionSerializer(serializers.ModelSerializer[ProgramVersion]):
    program = serializers.PrimaryKeyRelatedField(read_only=True)

    class Meta:
        model = ProgramVersion
        fields = ["id", "program", "number", "document", "layout", "message", "created_at"]
        read_only_fields = fields


class ProgramVersionSummarySerializer(serializers.ModelSerializer[ProgramVersion]):
    class Meta:
        model = ProgramVersion
        fields = ["id", "number", "message", "created_at"]
        read_only_fields = fields


class VersionCreateSerializer(serializers.Serializer[dict[str, Any]]):
    document = JSONField(help_text="optimizer_core.Program.to_json()")
    layout = JSONField(required=False, default=dict)
    message = serializers.CharField(required=False, allow_blank=True, default="", max_length=500)


class DocumentSerializer(serializers.Serializer[dict[str, Any]]):
    document = JSONField(help_text="optimizer_core.Program.to_json()")


class ValidationResultSerializer(serializers.Serializer[dict[str, Any]]):
    valid = serializers.BooleanField()
    errors = FieldErrorSerializer(many=True)


class DiffChangeSerializer(serializers.Serializer[dict[str, Any]]):
    path = serializers.CharField()
    op = serializers.ChoiceField(choices=["changed", "added", "removed"])
    old = serializers.JSONField(allow_null=True)
    new = serializers.JSONField(allow_null=True)


class DiffSummarySerializer(serializers.Serializer[dict[str, Any]]):
    modules_added = serializers.ListField(child=serializers.CharField())
    modules_removed = serializers.ListField(child=serializers.CharField())
    modules_changed = serializers.ListField(child=serializers.CharField())
    instructions_changed = serializers.ListField(child=serializers.CharField())
    examples_changed = serializers.ListField(child=serializers.CharField())


class DiffSerializer(serializers.Serializer[dict[str, Any]]):
    from_ = serializers.IntegerField()
    to = serializers.IntegerField()
    summary = DiffSummarySerializer()
    changes = DiffChangeSerializer(many=True)

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        fields = super().get_fields()
        fields["from"] = fields.pop("from_")
        return fields


class ImportSerializer(serializers.Serializer[dict[str, Any]]):
    file = serializers.FileField(required=False, help_text="an exported .json document")
    name = serializers.CharField(required=False, allow_blank=True, default="", max_length=200)
    description = serializers.CharField(required=False, allow_blank=True, default="")
    document = JSONField(required=False)
    layout = JSONField(required=False)


class TryRequestSerializer(serializers.Serializer[dict[str, Any]]):
    input = JSONField(help_text="the input JSON (a list for several inputs)")
    version = serializers.IntegerField(
        required=False, min_value=1, help_text="a version number (default: the latest)"
    )
    document = JSONField(
        required=False, help_text="an unsaved program document (wins over `version`)"
    )
    provider = serializers.IntegerField(
        required=False, help_text="a language provider id (default: your default provider)"
    )


class TraceEntrySerializer(serializers.Serializer[dict[str, Any]]):
    """One module call of a run (`optimizer_core.programs.TraceStep`)."""

    module = serializers.CharField()
    inputs = serializers.JSONField(
        allow_null=True, help_text="what the module got (a Generator: what its model was shown)"
    )
    outputs = serializers.JSONField(
        allow_null=True,
        help_text="what it gave; a list, one slot per label, for a Branch (null where not taken)",
    )
    error = serializers.CharField(allow_null=True)
    parent = serializers.CharField(
        allow_null=True,
        help_text="the module that called it (a Branch for its decision and branches)",
    )
    skipped = serializers.BooleanField(
        help_text="it did not run: an input was null (a branch not taken, an upstream failure)"
    )
    taken = serializers.ListField(
        child=serializers.CharField(),
        allow_null=True,
        help_text="a Branch's labels whose branch ran",
    )


class TryResultSerializer(serializers.Serializer[dict[str, Any]]):
    output = serializers.JSONField(allow_null=True)
    trace = TraceEntrySerializer(many=True)
    latency_s = serializers.FloatField()
    usage = serializers.DictField()


class TemplateSerializer(serializers.Serializer[dict[str, Any]]):
    """A starting shape of the "new program" dialog (`studio.programs.templates`)."""

    name = serializers.CharField(help_text="the template's identifier")
    label = serializers.CharField()
    description = serializers.CharField()
    dataset = serializers.CharField(
        allow_null=True, help_text="the built-in data set it fits (/api/datasets/catalogue/)"
    )
    document = JSONField(help_text="the program document, ready to create a program with")
    layout = JSONField(help_text="where the editor draws each module")
