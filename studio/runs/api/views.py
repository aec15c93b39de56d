"""HTTP layer of runs: thin views over `studio.runs.services`."""

from __future__ import annotations

from typing import Any

import django_filters
from django import forms
from django.db.models import QuerySet
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import mixins, renderers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from studio.common.exceptions import Conflict, DomainError, NotFound
from studio.common.renderers import CSVRenderer
from studio.datasets.models import Dataset
from studio.programs.models import ProgramVersion
from studio.programs.prompts import export_prompts
from studio.providers.models import Provider
from studio.runs import history, services
from studio.runs.api.lineage_serializers import LineageSerializer
from studio.runs.api.serializers import (
    RUN_VARIABLES_SCHEMA,
    CatalogueSerializer,
    CheckpointSerializer,
    CompareSerializer,
    ForkSerializer,
    RunCreateSerializer,
    RunDetailSerializer,
    RunEventPageSerializer,
    RunEventSerializer,
    RunExamplePageSerializer,
    RunSerializer,
    RunStatusSerializer,
    ThroughputSerializer,
)
from studio.runs.catalogue import run_catalogue
from studio.runs.compare import compare_runs
from studio.runs.examples import examples
from studio.runs.models import Run
from studio.runs.optimizer_lineage import run_lineage
from studio.runs.optimizer_names import (
    catalogue_optimizer,
    catalogue_optimizers,
    with_optimizer,
)
from studio.runs.status import STATUS_IDS_MAX, run_statuses
from studio.runs.throughput import provider_throughput
from studio.runs.variables import run_variables

EVENTS_PAGE_DEFAULT = 500
EVENTS_PAGE_MAX = 5000
COMPARE_MAX = 8
EXAMPLES_PAGE_DEFAULT = 50
EXAMPLES_PAGE_MAX = 500


class IdFilter(django_filters.NumberFilter):
    """A row id: an integer in the database's range (``1e30`` is a 400, not an overflow)."""

    field_class = forms.IntegerField

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", 2**63 - 1)
        super().__init__(**kwargs)


def _owned(model: Any, owner_path: str = "owner") -> Any:
    """The choices of a filter: the requesting user's rows only.

    Another user's id then answers exactly as a missing one (400, not a valid choice).
    """

    def queryset(request: Request | None) -> QuerySet[Any]:
        if request is None or not request.user.is_authenticated:
            return model.objects.none()
        return model.objects.filter(**{owner_path: request.user})

    return queryset


class RunFilter(django_filters.FilterSet):
    program = IdFilter(field_name="program_version__program_id")
    parent = IdFilter(field_name="parent_id")
    program_version = django_filters.ModelChoiceFilter(
        queryset=_owned(ProgramVersion, "program__owner")
    )
    dataset = django_filters.ModelChoiceFilter(queryset=_owned(Dataset))
    provider = django_filters.ModelChoiceFilter(queryset=_owned(Provider))
    created_after = django_filters.IsoDateTimeFilter(field_name="created_at", lookup_expr="gte")
    created_before = django_filters.IsoDateTimeFilter(field_name="created_at", lookup_expr="lt")
    optimizer = django_filters.CharFilter(
        method="filter_optimizer",
        max_length=200,
        help_text="the optimizer named in compile_config, in any spelling the engine takes",
    )

    class Meta:
        model = Run
        fields = ["state", "program_version", "dataset", "provider", "program", "parent"]

    def filter_optimizer(self, queryset: QuerySet[Run], name: str, value: str) -> QuerySet[Run]:
        return with_optimizer(queryset, value)


def _optimizer_param(request: Request) -> str | None:
    """The catalogue name of the optimizer `?optimizer=` names; None when absent."""
    raw = request.query_params.get("optimizer")
    if raw in (None, ""):
        return None
    name = catalogue_optimizer(raw) if len(raw) <= 200 else None
    if name is None:
        known = ", ".join(catalogue_optimizers())
        raise DomainError(f"unknown optimizer {raw[:200]!r}: one of {known}", path="optimizer")
    return name


def _int_param(request: Request, name: str, default: int, *, low: int, high: int) -> int:
    raw = request.query_params.get(name)
    if raw in (None, ""):
        return default
    try:
        value = int(raw)
    except ValueError:
        raise DomainError(f"must be an integer, got {raw!r}", path=name) from None
    if not low <= value <= high:
        raise DomainError(f"must be in [{low}, {high}], got {value}", path=name)
    return value


def _ids_param(request: Request, *, most: int) -> list[int]:
    """The run ids of ``?ids=1,2,3``: 1 to `most` positive integers, or a 400 naming ``ids``."""
    raw = request.query_params.get("ids", "")
    if not raw.strip():
        raise DomainError("required: comma-separated run ids, e.g. 1,2,3", path="ids")
    parts = [part.strip() for part in raw.split(",")]
    if len(parts) > most:
        raise DomainError(f"at most {most} run ids, got {len(parts)}", path="ids")
    for part in parts:
        if not (part.isascii() and part.isdigit() and 1 <= int(part) <= 2**63 - 1):
            raise DomainError(f"comma-separated run ids, got {part[:40]!r}", path="ids")
    return [int(part) for part in parts]


class RunViewSet(
    mixins.CreateModelMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet,
):
    """Training runs of the signed-in user: start, follow, cancel, fork, compare."""

    filterset_class = RunFilter
    ordering_fields = ["created_at", "started_at", "finished_at", "state", "name"]
    ordering = ["-created_at"]
    search_fields = ["name"]

    def get_queryset(self) -> QuerySet[Run]:
        if getattr(self, "swagger_fake_view", False):  # schema generation
            return Run.objects.none()
        # Another user's run is simply not found (404), never forbidden.
        runs = Run.objects.filter(owner=self.request.user).select_related(
            "program_version__program", "dataset", "dataset_version"
        )
        return RunSerializer.light(runs) if self.action == "list" else runs

    def get_serializer_class(self) -> Any:
        if self.action == "create":
            return RunCreateSerializer
        if self.action == "retrieve":
            return RunDetailSerializer
        return RunSerializer

    @extend_schema(operation_id="runs_list")
    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().list(request, *args, **kwargs)

    @extend_schema(operation_id="runs_retrieve")
    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().retrieve(request, *args, **kwargs)

    @extend_schema(
        operation_id="runs_create", request=RunCreateSerializer, responses={201: RunSerializer}
    )
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        serializer = RunCreateSerializer(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        run = services.start_run(
            owner=request.user,
            program_version=data["program_version"],
            dataset=data["dataset"],
            dataset_version=data.get("dataset_version"),
            provider=data["provider"],
            compile_config=data["compile_config"],
            fit_config=data.get("fit_config") or {},
            name=data.get("name", ""),
        )
        return Response(RunSerializer(run).data, status=status.HTTP_201_CREATED)

    @extend_schema(operation_id="runs_cancel", request=None, responses={200: RunSerializer})
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, pk: str | None = None) -> Response:
        run = services.cancel_run(self.get_object())
        return Response(RunSerializer(run).data)

    @extend_schema(operation_id="runs_fork", request=ForkSerializer, responses={201: RunSerializer})
    @action(detail=True, methods=["post"])
    def fork(self, request: Request, pk: str | None = None) -> Response:
        run = self.get_object()
        serializer = ForkSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        fork = services.fork_run(
            run=run,
            epoch=data["epoch"],
            owner=request.user,
            fit_config=data.get("fit_config"),
            compile_config=data.get("compile_config"),
            name=data.get("name", ""),
        )
        return Response(RunSerializer(fork).data, status=status.HTTP_201_CREATED)

    @extend_schema(operation_id="runs_prompt", responses={200: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None)
    def prompt(self, request: Request, pk: str | None = None) -> Response:
        """The trained program's Generators: their messages as the engine sends them."""
        run = self.get_object()
        if run.state != Run.State.SUCCEEDED or not run.trained_document:
            raise Conflict(
                f"run {run.pk} is {run.state}: only a succeeded run has a trained prompt"
            )
        return Response(export_prompts(run.trained_document))

    @extend_schema(
        operation_id="runs_events",
        parameters=[
            OpenApiParameter("after", OpenApiTypes.INT, description="last seq already seen"),
            OpenApiParameter("limit", OpenApiTypes.INT, description=f"at most {EVENTS_PAGE_MAX}"),
            OpenApiParameter("kind", OpenApiTypes.STR, description="only events of this kind"),
        ],
        responses={200: RunEventPageSerializer},
    )
    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None)
    def events(self, request: Request, pk: str | None = None) -> Response:
        run = self.get_object()
        after = _int_param(request, "after", 0, low=0, high=2**31)
        limit = _int_param(request, "limit", EVENTS_PAGE_DEFAULT, low=1, high=EVENTS_PAGE_MAX)
        events = run.events.filter(seq__gt=after).order_by("seq")
        if request.query_params.get("kind"):
            events = events.filter(kind=request.query_params["kind"])
        page = list(events[: limit + 1])
        has_more = len(page) > limit
        page = page[:limit]
        return Response(
            {
                "events": RunEventSerializer(page, many=True).data,
                "last_seq": page[-1].seq if page else after,
                "has_more": has_more,
            }
        )

    @extend_schema(
        operation_id="runs_examples",
        parameters=[
            OpenApiParameter("page", OpenApiTypes.INT, description="1-based"),
            OpenApiParameter(
                "page_size", OpenApiTypes.INT, description=f"at most {EXAMPLES_PAGE_MAX}"
            ),
        ],
        responses={200: RunExamplePageSerializer},
        description="The run's test rows after training, each with its rewards before and "
        "after, a page at a time (the list and the detail carry figures only).",
    )
    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None)
    def examples(self, request: Request, pk: str | None = None) -> Response:
        run = self.get_object()
        page = _int_param(request, "page", 1, low=1, high=2**31)
        size = _int_param(
            request, "page_size", EXAMPLES_PAGE_DEFAULT, low=1, high=EXAMPLES_PAGE_MAX
        )
        rows = examples(run)
        start = (page - 1) * size
        return Response(
            {
                "count": len(rows),
                "page": page,
                "page_size": size,
                "results": rows[start : start + size],
            }
        )

    @extend_schema(
        operation_id="runs_variables",
        responses={200: RUN_VARIABLES_SCHEMA},
        description="Each trainable variable (one per Generator, Decision or branch module) "
        "as {name: {before, after}}: its trainable fields (instructions, examples) in the "
        "document the run started from and in the trained one (after: null until training "
        "ends).",
    )
    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None)
    def variables(self, request: Request, pk: str | None = None) -> Response:
        return Response(run_variables(self.get_object()))

    @extend_schema(
        operation_id="runs_checkpoints",
        parameters=[
            OpenApiParameter(
                "document", OpenApiTypes.BOOL, description="include each program document"
            )
        ],
        responses={200: CheckpointSerializer(many=True)},
    )
    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None)
    def checkpoints(self, request: Request, pk: str | None = None) -> Response:
        run = self.get_object()
        data = CheckpointSerializer(run.checkpoints.order_by("epoch"), many=True).data
        if request.query_params.get("document", "").lower() not in ("1", "true", "yes"):
            for item in data:
                item.pop("document", None)
        return Response(data)

    @extend_schema(
        operation_id="runs_history_csv",
        responses={(200, "text/csv"): OpenApiResponse(OpenApiTypes.STR)},
        description="The run's epochs as a CSV file (an attachment): a header `epoch` and "
        "every figure its epochs logged, sorted (reward, val_reward, each metric...), then "
        "a row per epoch (0-based), as the engine's CSVLogger writes it; a figure an epoch "
        "did not log holds NA. Before the first epoch, the header alone.",
    )
    @action(
        detail=True,
        methods=["get"],
        url_path="history/csv",
        url_name="history-csv",
        filter_backends=[],
        pagination_class=None,
        renderer_classes=[renderers.JSONRenderer, CSVRenderer],
    )
    def history_csv(self, request: Request, pk: str | None = None) -> HttpResponse:
        run = self.get_object()
        response = HttpResponse(history.history_csv(run), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="run-{run.pk}-history.csv"'
        return response

    @extend_schema(operation_id="runs_lineage", responses={200: LineageSerializer})
    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None)
    def lineage(self, request: Request, pk: str | None = None) -> Response:
        """How the optimizer got there: each variable's candidates, parents and rows."""
        return Response(LineageSerializer(run_lineage(self.get_object())).data)

    @extend_schema(
        operation_id="runs_compare",
        parameters=[
            OpenApiParameter("ids", OpenApiTypes.STR, required=True, description="e.g. 1,2")
        ],
        responses={200: CompareSerializer},
    )
    @action(detail=False, methods=["get"], filter_backends=[], pagination_class=None)
    def compare(self, request: Request) -> Response:
        raw = request.query_params.get("ids", "")
        try:
            ids = [int(part) for part in raw.split(",") if part.strip()]
        except ValueError:
            raise DomainError(f"comma-separated run ids, got {raw!r}", path="ids") from None
        if not 1 <= len(ids) <= COMPARE_MAX:
            raise DomainError(f"give 1 to {COMPARE_MAX} run ids", path="ids")
        runs = {run.pk: run for run in self.get_queryset().filter(pk__in=ids)}
        missing = [i for i in ids if i not in runs]
        if missing:
            raise NotFound(f"runs not found: {missing}")
        return Response(compare_runs([runs[i] for i in ids]))

    @extend_schema(
        operation_id="runs_status",
        parameters=[
            OpenApiParameter(
                "ids",
                OpenApiTypes.STR,
                required=True,
                description=f"comma-separated run ids, at most {STATUS_IDS_MAX}, e.g. 1,2,3",
            )
        ],
        responses={200: RunStatusSerializer(many=True)},
        description="What moves while runs train, for the ids asked about: state, epoch, "
        "LM calls, tokens and cost so far, and when the row last changed. Small (no "
        "evaluations, no verdict, no examples): what the runs table polls while a run is "
        "active. Another user's id, or one naming no run, is left out.",
    )
    @action(
        detail=False, methods=["get"], url_path="status", filter_backends=[], pagination_class=None
    )
    def statuses(self, request: Request) -> Response:
        ids = _ids_param(request, most=STATUS_IDS_MAX)
        return Response(RunStatusSerializer(run_statuses(request.user, ids), many=True).data)

    @extend_schema(
        operation_id="runs_throughput",
        parameters=[
            OpenApiParameter(
                "provider", OpenApiTypes.INT, required=True, description="one of your providers"
            ),
            OpenApiParameter(
                "program",
                OpenApiTypes.INT,
                description="the program to train: its runs give tokens per call first",
            ),
            OpenApiParameter(
                "optimizer",
                OpenApiTypes.STR,
                description="the optimizer to train with, a catalogue name (any spelling the "
                "engine takes): its runs give calls per second and tokens per call first",
            ),
        ],
        responses={200: ThroughputSerializer},
        description="What your recent finished runs on a provider measured: calls per second "
        "of wall time, tokens per call, cost per token (medians over the last 5), from runs "
        "with the same optimizer (and program) first. The run form turns its call estimate "
        "into a duration, tokens and a cost with them.",
    )
    @action(detail=False, methods=["get"], filter_backends=[], pagination_class=None)
    def throughput(self, request: Request) -> Response:
        if not request.query_params.get("provider"):
            raise DomainError("required: the provider's id", path="provider")
        provider_id = _int_param(request, "provider", 0, low=1, high=2**63 - 1)
        provider = Provider.objects.filter(owner=request.user, pk=provider_id).first()
        if provider is None:
            raise NotFound(f"provider {provider_id} not found")
        program = request.query_params.get("program")
        program_id = _int_param(request, "program", 0, low=1, high=2**63 - 1) if program else None
        figures = provider_throughput(
            owner=request.user,
            provider=provider,
            program_id=program_id,
            optimizer=_optimizer_param(request),
        )
        return Response(ThroughputSerializer(figures).data)


class CatalogueView(APIView):
    """What run setup offers: the engine's rewards, metrics and optimizers, and the fit settings.

    Each entry carries its needs and its settings (type, default, range or
    choices), so the run form is built from it alone.
    """

    @extend_schema(operation_id="catalogue", responses=CatalogueSerializer)
    def get(self, request: Request) -> Response:
        return Response(CatalogueSerializer(run_catalogue()).data)
