"""Serializers of the runs API."""

from __future__ import annotations

from typing import Any, get_args

from django.db.models import QuerySet
from django.db.models.fields.json import KeyTransform
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from optimizer_core.saving.params import PARAM_TYPES
from optimizer_core.stats import Verdict
from studio.common.fields import JSONField
from studio.datasets.models import Dataset
from studio.programs.models import ProgramVersion
from studio.providers.models import Provider
from studio.runs.config import SUPPLIED_NEEDS
from studio.runs.fork_history import inherited_epochs
from studio.runs.models import Checkpoint, Run, RunEvent
from studio.runs.optimizer_names import optimizer_name
from studio.runs.significance import run_gain


class OwnedPrimaryKeyField(serializers.PrimaryKeyRelatedField):
    """A primary key that resolves only among the requesting user's own rows."""

    def __init__(self, *, owner_path: str, **kwargs: Any) -> None:
        self.owner_path = owner_path
        super().__init__(**kwargs)

    def get_queryset(self) -> Any:
        request = self.context.get("request")
        queryset = super().get_queryset()
        if request is None:
            return queryset.none()
        return queryset.filter(**{self.owner_path: request.user})


class PairedComparisonSerializer(serializers.Serializer[dict[str, Any]]):
    """Two evaluations of the same test rows, compared row by row (`compare_paired`)."""

    n = serializers.IntegerField(help_text="paired test rows")
    mean_before = serializers.FloatField(help_text="mean reward of the first evaluation")
    mean_after = serializers.FloatField(help_text="mean reward of the second evaluation")
    difference = serializers.FloatField(help_text="mean_after - mean_before")
    ci_low = serializers.FloatField(help_text="low end of the 95% interval of the difference")
    ci_high = serializers.FloatField(help_text="high end of the 95% interval of the difference")
    p_value = serializers.FloatField(help_text="two-sided paired permutation test")
    min_detectable_difference = serializers.FloatField(
        help_text="the smallest true change these rows detect 80% of the time (alpha 0.05)"
    )
    verdict = serializers.ChoiceField(choices=list(get_args(Verdict)))
    target = serializers.FloatField(help_text="the gain `rows_needed` is sized for (0.05)")
    rows_needed = serializers.IntegerField(
        help_text="about how many rows detect a true change of `target` (at the observed spread)"
    )
    sentence = serializers.CharField(help_text="the verdict and its figures in one sentence")


class RunSerializer(serializers.ModelSerializer):
    program = serializers.IntegerField(source="program_version.program_id", read_only=True)
    # Names beside the ids, for the runs table (what MLflow shows as params).
    program_name = serializers.CharField(source="program_version.program.name", read_only=True)
    version_number = serializers.IntegerField(source="program_version.number", read_only=True)
    dataset_name = serializers.CharField(source="dataset.name", read_only=True)
    dataset_version = serializers.IntegerField(
        source="dataset_version.number",
        read_only=True,
        allow_null=True,
        help_text="the dataset version trained and tested on (null until the worker reads "
        "it, for a run created without one)",
    )
    optimizer = serializers.SerializerMethodField(
        help_text="the optimizer `compile_config` names, as the catalogue names it "
        "(null when it names none)"
    )
    before = serializers.SerializerMethodField(
        help_text="the evaluation before training, its figures only (rows: GET examples/)"
    )
    after = serializers.SerializerMethodField(
        help_text="the evaluation after training, its figures only (rows: GET examples/)"
    )

    gain = serializers.SerializerMethodField(
        help_text="after training against before, row by row on the test split, as the run "
        "stored it when it ended (null before, or without per-row rewards)"
    )

    class Meta:
        model = Run
        fields = [
            "id",
            "name",
            "program",
            "program_name",
            "program_version",
            "version_number",
            "dataset",
            "dataset_name",
            "dataset_version",
            "provider",
            "optimizer",
            "compile_config",
            "fit_config",
            "state",
            "error",
            "cancel_requested",
            "parent",
            "fork_epoch",
            "current_epoch",
            "attempts",
            "before",
            "after",
            "gain",
            "usage",
            "created_at",
            "started_at",
            "finished_at",
            "heartbeat_at",
        ]
        read_only_fields = fields

    def get_optimizer(self, run: Run) -> str | None:
        return optimizer_name(run.compile_config)

    @extend_schema_field(PairedComparisonSerializer(allow_null=True))
    def get_gain(self, run: Run) -> dict[str, Any] | None:
        # The stored verdict only: a list reads no per-row rewards (`Run.HEAVY_FIELDS`).
        return dict(run.gain) if run.gain is not None else None

    @extend_schema_field(serializers.DictField(allow_null=True))
    def get_before(self, run: Run) -> dict[str, Any] | None:
        return _figures(run, "before")

    @extend_schema_field(serializers.DictField(allow_null=True))
    def get_after(self, run: Run) -> dict[str, Any] | None:
        return _figures(run, "after")

    @staticmethod
    def light(queryset: QuerySet[Run]) -> QuerySet[Run]:
        """The rows this serializer shows, read without `Run.HEAVY_FIELDS` (nor
        `RELATED_HEAVY_FIELDS`).

        Each evaluation's figures (`PHASE_FIGURES`) are taken out of its JSON by the
        database, so a page of the list neither reads nor decodes the test rows'
        examples (about 50 kB a phase at 100 test rows) nor the trained document.
        """
        figures = {
            _figure_name(phase, key): KeyTransform(key, phase)
            for phase in ("before", "after")
            for key in PHASE_FIGURES
        }
        return queryset.defer(*Run.HEAVY_FIELDS, *RELATED_HEAVY_FIELDS).annotate(**figures)


#: What the list shows of a run's program version and dataset is their names and numbers:
#: not the program's document and layout, nor an upload's row errors.
RELATED_HEAVY_FIELDS = (
    "program_version__document",
    "program_version__layout",
    "dataset__errors",
    "dataset__dropped_lines",
)

#: What `before` and `after` show of an evaluation: its figures, not its per-row examples
#: (those are paged by GET examples/), so that a list stays light: <= 2 KB a run.
PHASE_FIGURES = ("runs", "summary")


def _figure_name(phase: str, key: str) -> str:
    return f"{phase}_figures_{key}"


def _figures(run: Run, phase: str) -> dict[str, Any] | None:
    """An evaluation's `PHASE_FIGURES` (None before it ran), as `RunSerializer.light`
    annotated them, else from the whole stored evaluation."""
    if _figure_name(phase, PHASE_FIGURES[0]) in vars(run):
        figures = {key: getattr(run, _figure_name(phase, key)) for key in PHASE_FIGURES}
        present = {key: value for key, value in figures.items() if value is not None}
        return present or None
    stored = getattr(run, phase)
    if not isinstance(stored, dict):
        return None
    return {key: stored[key] for key in PHASE_FIGURES if key in stored}


class RunProgressSerializer(serializers.Serializer[dict[str, Any]]):
    epoch = serializers.IntegerField(help_text="epochs completed (`current_epoch`)")
    epochs = serializers.IntegerField(
        allow_null=True, help_text="epochs asked for in fit_config (null when it names none)"
    )
    calls = serializers.IntegerField(allow_null=True, help_text="LM calls so far")
    tokens = serializers.IntegerField(allow_null=True, help_text="tokens (prompt + completion)")
    cost = serializers.FloatField(allow_null=True, help_text="US dollars so far")


class RunStatusSerializer(serializers.Serializer[dict[str, Any]]):
    """A run's light status (`studio.runs.status`)."""

    id = serializers.IntegerField()
    state = serializers.ChoiceField(choices=Run.State.choices)
    progress = RunProgressSerializer()
    updated_at = serializers.DateTimeField(
        help_text="the last time the row changed: created, started, heartbeat or finished"
    )


class RunExamplePageSerializer(serializers.Serializer[dict[str, Any]]):
    count = serializers.IntegerField(help_text="test rows stored after training")
    page = serializers.IntegerField()
    page_size = serializers.IntegerField()
    results = serializers.ListField(
        child=serializers.DictField(),
        help_text="the last evaluation after training: {input, expected, output, reward, "
        "feedback, error, trace, before_reward, after_reward, before_feedback}, in row order; "
        "trace lists what each module got "
        "and gave on the row ({module, inputs, outputs, error, parent, skipped, taken}, a "
        "Branch's labels taken); before_reward and after_reward are the row's rewards before "
        "and after training (means over repeats; null if not stored); feedback and "
        "before_feedback are what the reward said of the row's output after and before "
        "training (null when it said nothing)",
    )


def _variable_side(description: str) -> dict[str, Any]:
    return {
        "type": "object",
        "additionalProperties": {},
        "nullable": True,
        "description": description,
    }


#: GET runs/{id}/variables/ (`studio.runs.variables`): ``{name: {before, after}}``. A raw
#: schema, as a map keyed by the variables' names has no serializer of its own.
RUN_VARIABLES_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": {
        "type": "object",
        "properties": {
            "before": _variable_side(
                "its trainable JSON in the document the run started from (a fork's initial "
                "document, else the program version's): {instructions, examples, ...}; null "
                "for a variable only the trained program has"
            ),
            "after": _variable_side(
                "its trainable JSON in the trained document; null until training ends"
            ),
        },
        "required": ["before", "after"],
    },
}


class InheritedEpochSerializer(serializers.Serializer):
    epoch = serializers.IntegerField(help_text="0-based, as in `epoch` events")
    run = serializers.IntegerField(help_text="the ancestor that trained this epoch")
    logs = serializers.DictField(help_text="the epoch's logs (its checkpoint's)")


class RunDetailSerializer(RunSerializer):
    inherited_epochs = serializers.SerializerMethodField(
        help_text="a fork's history: the epochs its ancestors trained before the fork point"
    )
    gain = serializers.SerializerMethodField(
        help_text="the run after training against its own before, row by row on the test "
        "split; null until both evaluations stored their per-row rewards"
    )

    class Meta(RunSerializer.Meta):
        fields = [*RunSerializer.Meta.fields, "trained_document", "inherited_epochs"]
        read_only_fields = fields

    @extend_schema_field(InheritedEpochSerializer(many=True))
    def get_inherited_epochs(self, run: Run) -> list[dict[str, Any]]:
        return inherited_epochs(run)

    @extend_schema_field(PairedComparisonSerializer(allow_null=True))
    def get_gain(self, run: Run) -> dict[str, Any] | None:
        return run_gain(run)


class RunCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    program_version = OwnedPrimaryKeyField(
        queryset=ProgramVersion.objects.select_related("program"), owner_path="program__owner"
    )
    dataset = OwnedPrimaryKeyField(queryset=Dataset.objects.all(), owner_path="owner")
    dataset_version = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=1,
        help_text="the dataset's version number to train and test on (default: its latest)",
    )
    provider = OwnedPrimaryKeyField(queryset=Provider.objects.all(), owner_path="owner")
    compile_config = JSONField(
        help_text='{"reward": {"name", "params"}, "optimizer": {...}, "metrics": [...]}'
    )
    fit_config = JSONField(
        required=False,
        default=dict,
        help_text="epochs, batch_size, validation_split, seed, shuffle, evaluation_temperature, "
        "evaluations, the caps, cache, early_stopping ({patience, min_delta, monitor, "
        "restore_best_variables} or null: off)",
    )


class ForkSerializer(serializers.Serializer):
    epoch = serializers.IntegerField(min_value=0)
    name = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    fit_config = JSONField(required=False, default=None, allow_null=True)
    compile_config = JSONField(required=False, default=None, allow_null=True)


class RunEventSerializer(serializers.ModelSerializer):
    class Meta:
        model = RunEvent
        fields = ["seq", "kind", "payload", "created_at"]
        read_only_fields = fields


class RunEventPageSerializer(serializers.Serializer):
    events = RunEventSerializer(many=True)
    last_seq = serializers.IntegerField(help_text="seq of the last event returned (or `after`)")
    has_more = serializers.BooleanField()


class CheckpointSerializer(serializers.ModelSerializer):
    # Only with ``?document=true``: optional in the schema (not read-only, which
    # the schema generator would make required); this serializer only ever writes out.
    document = serializers.JSONField(
        required=False, help_text="Program.to_json() after this epoch (with ?document=true)"
    )

    class Meta:
        model = Checkpoint
        fields = ["epoch", "logs", "created_at", "document"]
        read_only_fields = fields


class TestVersionsSerializer(serializers.Serializer[dict[str, Any]]):
    baseline = serializers.IntegerField(
        allow_null=True, help_text="the baseline's dataset version number"
    )
    run = serializers.IntegerField(allow_null=True, help_text="this run's dataset version number")


class VersusSerializer(serializers.Serializer[dict[str, Any]]):
    """A run after training against the first run of the comparison (the baseline)."""

    baseline = serializers.IntegerField(help_text="the first run's id")
    paired = serializers.BooleanField(
        help_text="the runs were compared row by row on the test rows both evaluated "
        "(same dataset; at least 2 rows in common)"
    )
    reason = serializers.CharField(allow_blank=True, help_text="why they are not paired")
    note = serializers.CharField(
        allow_blank=True,
        help_text="when the runs' test versions differ (or their rows only overlap): "
        "what was paired",
    )
    rows = serializers.IntegerField(help_text="test rows paired (0 when not paired)")
    test_versions = TestVersionsSerializer(help_text="each run's dataset version")
    comparison = PairedComparisonSerializer(
        allow_null=True, help_text="row by row, baseline first; null when not paired"
    )
    difference = serializers.FloatField(
        allow_null=True,
        help_text="difference of the mean rewards after training (unpaired: no interval)",
    )


class CompareRunSerializer(serializers.Serializer[dict[str, Any]]):
    id = serializers.IntegerField()
    name = serializers.CharField(allow_blank=True)
    state = serializers.CharField()
    dataset = serializers.IntegerField()
    dataset_version = serializers.IntegerField(
        allow_null=True, help_text="the dataset version number trained and tested on"
    )
    curves = serializers.DictField(help_text='{"epoch": [...], <figure>: [...]}')
    before = serializers.DictField(allow_null=True, help_text="{figure: {mean, std}}")
    after = serializers.DictField(allow_null=True, help_text="{figure: {mean, std}}")
    example_count = serializers.IntegerField(
        help_text="test rows stored after training; the rows: GET /api/runs/{id}/examples/, "
        "a page at a time"
    )
    gain = PairedComparisonSerializer(
        allow_null=True, help_text="after against its own before, row by row"
    )
    versus = VersusSerializer(
        allow_null=True, help_text="against the first run; null for the first run itself"
    )


class CompareSerializer(serializers.Serializer):
    runs = CompareRunSerializer(many=True)
    variables = serializers.DictField()


class CatalogueParamSerializer(serializers.Serializer[dict[str, Any]]):
    """One user setting of a catalogue entry (or of the fit settings)."""

    name = serializers.CharField(help_text="the key in `params` (or `fit_config`)")
    label = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    type = serializers.ChoiceField(
        choices=PARAM_TYPES,
        help_text="`fields`: a list of the dataset's output field names (a mask); "
        "`field_rules`: a list of rules, {field, comparison, weight, tolerance, relative, "
        "pattern} (see the catalogue's `comparisons`)",
    )
    default = JSONField(allow_null=True, help_text="the value used when the key is left out")
    nullable = serializers.BooleanField(help_text="whether null is allowed")
    required = serializers.BooleanField()
    minimum = serializers.FloatField(allow_null=True)
    maximum = serializers.FloatField(allow_null=True)
    exclusive_minimum = serializers.BooleanField(help_text="`minimum` itself is refused")
    exclusive_maximum = serializers.BooleanField(help_text="`maximum` itself is refused")
    choices = serializers.ListField(
        child=serializers.CharField(), allow_null=True, help_text="the allowed values of a str"
    )


class CatalogueEntrySerializer(serializers.Serializer[dict[str, Any]]):
    """A reward, metric or optimizer a run can use."""

    name = serializers.CharField(help_text="what `compile_config` names it by")
    label = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    needs = serializers.ListField(
        child=serializers.ChoiceField(choices=SUPPLIED_NEEDS),
        help_text="what the studio supplies to it: the run's provider (or the entry's own "
        "`provider`), the owner's embedding model, a judge program (the entry's `program`: "
        "a program version id)",
    )
    params = CatalogueParamSerializer(many=True)


class CatalogueComparisonSerializer(serializers.Serializer[dict[str, Any]]):
    """One comparison a field rule may use."""

    name = serializers.CharField(help_text="a rule's `comparison`")
    label = serializers.CharField()
    description = serializers.CharField()
    options = serializers.ListField(
        child=serializers.ChoiceField(choices=["tolerance", "relative", "pattern"]),
        help_text="the rule keys it reads besides field and weight",
    )


class CatalogueScoreTypeSerializer(serializers.Serializer[dict[str, Any]]):
    """A scale an LM judge grades on (its `score_type`)."""

    name = serializers.CharField(help_text="the value of `score_type`")
    label = serializers.CharField()
    levels = serializers.ListField(
        child=serializers.FloatField(), help_text="the grades, lowest first (brought to 0-1)"
    )


class CatalogueSerializer(serializers.Serializer[dict[str, Any]]):
    """What run setup offers, from the engine's registry."""

    rewards = CatalogueEntrySerializer(many=True)
    metrics = CatalogueEntrySerializer(many=True)
    optimizers = CatalogueEntrySerializer(many=True)
    fit = CatalogueParamSerializer(many=True, help_text="the settings of `fit_config`")
    comparisons = CatalogueComparisonSerializer(
        many=True, help_text="what a field rule may compare with"
    )
    score_types = CatalogueScoreTypeSerializer(many=True, help_text="an LM judge's scales")


class ThroughputSerializer(serializers.Serializer[dict[str, Any]]):
    """What the user's recent finished runs on a provider measured (`studio.runs.throughput`)."""

    provider = serializers.IntegerField()
    local = serializers.BooleanField(help_text="the bundled offline model")
    optimizer = serializers.CharField(
        allow_null=True, help_text="the catalogue name of the optimizer asked about; null if none"
    )
    runs = serializers.IntegerField(help_text="finished runs calls_per_second is the median of")
    calls_per_second = serializers.FloatField(
        allow_null=True,
        help_text="LM calls per second of a run's wall time, median over the last finished runs "
        "(at most 5) with the optimizer on this provider, else with any; null without one",
    )
    pace_from = serializers.ChoiceField(
        choices=["optimizer", "provider"],
        allow_null=True,
        help_text="whose runs calls_per_second comes from: the optimizer's on this provider, or "
        "any on it; null without one",
    )
    tokens_per_call = serializers.FloatField(
        allow_null=True,
        help_text="tokens (prompt + completion) per call, median over the last runs of the same "
        "program with the optimizer on this provider, else of the program, else of the "
        "optimizer, else of any run on it; null without one",
    )
    tokens_from = serializers.ChoiceField(
        choices=["program_optimizer", "program", "optimizer", "provider"],
        allow_null=True,
        help_text="whose runs tokens_per_call comes from",
    )
    tokens_runs = serializers.IntegerField(help_text="runs tokens_per_call is the median of")
    cost_per_token = serializers.FloatField(
        allow_null=True,
        help_text="US dollars per token as litellm priced the provider's last runs; 0 for the "
        "bundled model; null when unknown (no run, or runs litellm could not price)",
    )
    prices = serializers.ChoiceField(
        choices=["priced", "free", "unknown"],
        help_text="priced: cost_per_token measured; free: the bundled model; unknown: no price",
    )
    cost_runs = serializers.IntegerField(help_text="runs cost_per_token is the median of")
