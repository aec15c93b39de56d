"""The lists benchmark's child process: seed the throwaway studio, or measure its lists.

``--phase seed`` migrates the database named by DATABASE_URL and creates, for one
user: one run trained through the studio's real path (``services.start_run``, the
Celery task run eagerly, the scripted server) on a dataset with about
``--test-rows`` test rows, then ``--runs`` - 1 more runs carrying that run's
stored results (before/after with every test example, per-row rewards and keys,
trained document, usage), created with ``bulk_create``; ``--datasets`` datasets
(with their version 1) and ``--deployments`` deployments, each deployed from a run
and switched to another through `studio.deployments.services`, so that its current
and previous targets both point at runs; on PostgreSQL it ends with ``VACUUM ANALYZE``,
as autovacuum would soon after. It prints what it stored as JSON.

``--phase measure`` (a fresh process, so that its peak memory is the serving's)
signs the user in with the Django test Client (``force_login``: the whole
middleware, URL, DRF and serializer stack, no socket) and requests each list
``--warmup`` times, then ``--requests`` times timed, and prints per list: p50/p95
milliseconds (wall, and this process's CPU), bytes per page and per row, SQL queries
per request, and the process's peak RSS.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.common import studio  # noqa: E402

LISTS = {
    "runs": "/api/runs/?page=1",
    "datasets": "/api/datasets/",
    "deployments": "/api/deployments/",
}


def seed(args: argparse.Namespace) -> dict[str, Any]:
    from django.db import connection, transaction
    from django.utils import timezone

    from studio.datasets.models import Dataset, DatasetVersion
    from studio.deployments import services as deployments
    from studio.runs import services as runs
    from studio.runs.models import Run

    studio.migrate()
    owner = studio.make_user()
    version = studio.make_program_version(owner)
    provider = studio.make_provider(owner, args.base_url)
    # Rows split by hash: 2 x test rows at a test fraction of 0.5 gives about that many.
    dataset = studio.make_dataset(owner, rows=2 * args.test_rows, test_fraction=0.5)
    started = time.perf_counter()
    template = runs.start_run(
        owner=owner,
        program_version=version,
        dataset=dataset,
        provider=provider,
        compile_config=studio.COMPILE_CONFIG,
        fit_config={"epochs": 1, "batch_size": 32, "seed": 0},
        name="run 1",
    )
    template.refresh_from_db()
    trained_s = time.perf_counter() - started
    if template.state != Run.State.SUCCEEDED:
        raise SystemExit(f"the template run ended {template.state}: {template.error}")

    copied = [
        "program_version_id",
        "dataset_id",
        "dataset_version_id",
        "provider_id",
        "compile_config",
        "fit_config",
        "state",
        "attempts",
        "current_epoch",
        "before",
        "after",
        "before_rewards",
        "after_rewards",
        "test_rows_digest",
        "test_row_keys",
        "trained_document",
        "usage",
        "started_at",
        "finished_at",
    ]
    fields = {name: getattr(template, name) for name in copied}
    started = time.perf_counter()
    with transaction.atomic():
        Run.objects.bulk_create(
            [Run(owner=owner, name=f"run {i}", **fields) for i in range(2, args.runs + 1)],
            batch_size=100,
        )
        first = dataset.versions.get(number=1)
        dataset_fields = {
            field.attname: getattr(dataset, field.attname)
            for field in Dataset._meta.concrete_fields
            if field.attname not in ("id", "name", "created_at")
        }
        more = Dataset.objects.bulk_create(
            [Dataset(**dataset_fields, name=f"tickets {i}") for i in range(2, args.datasets + 1)],
            batch_size=100,
        )
        if not all(d.pk for d in more):  # backends that return no ids
            more = list(Dataset.objects.exclude(pk=dataset.pk))
        version_fields = {
            field.attname: getattr(first, field.attname)
            for field in DatasetVersion._meta.concrete_fields
            if field.attname not in ("id", "dataset_id", "created_at")
        }
        DatasetVersion.objects.bulk_create(
            [DatasetVersion(**version_fields, dataset=d) for d in more], batch_size=100
        )
    seeded_s = time.perf_counter() - started
    started = time.perf_counter()
    run_ids = list(Run.objects.order_by("pk").values_list("pk", flat=True))
    pool = list(Run.objects.filter(pk__in=run_ids[: 2 * args.deployments]).order_by("pk"))
    for i in range(args.deployments):
        deployment = deployments.deploy(owner=owner, name=f"deploy-{i}", run=pool[2 * i])
        deployments.switch(deployment, run=pool[2 * i + 1])
    deployed_s = time.perf_counter() - started
    Run.objects.filter(owner=owner).update(finished_at=timezone.now())
    if connection.vendor == "postgresql":
        # What autovacuum does within a minute of a bulk insert on a live database: without
        # statistics the planner expects 10 runs and sorts all of them, results and all.
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")

    def stored_kb(value: Any) -> float:
        return len(json.dumps(value).encode()) / 1000

    return {
        "runs": Run.objects.count(),
        "datasets": Dataset.objects.count(),
        "deployments": deployments.Deployment.objects.count(),
        "test_rows": len(template.before_rewards or []),
        "stored_kb_per_run": {
            "before": stored_kb(template.before),
            "after": stored_kb(template.after),
            "trained_document": stored_kb(template.trained_document),
            "rewards_and_keys": stored_kb(
                [template.before_rewards, template.after_rewards, template.test_row_keys]
            ),
        },
        "template_run_s": trained_s,
        "bulk_create_s": seeded_s,
        "deploy_s": deployed_s,
    }


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def measure(args: argparse.Namespace) -> dict[str, Any]:
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client(SERVER_NAME="localhost")
    client.force_login(get_user_model().objects.get(username="bench"))
    baseline_mb = studio.peak_rss_mb()
    figures: dict[str, Any] = {}
    for name, url in LISTS.items():
        for _ in range(args.warmup):
            response = client.get(url)
            if response.status_code != 200:
                raise SystemExit(f"GET {url} answered {response.status_code}")
        times, cpu = [], []
        for _ in range(args.requests):
            began, began_cpu = time.perf_counter(), time.process_time()
            response = client.get(url)
            times.append((time.perf_counter() - began) * 1000)
            cpu.append((time.process_time() - began_cpu) * 1000)
        body = response.content
        rows = len(json.loads(body)["results"])
        with CaptureQueriesContext(connection) as queries:
            client.get(url)
        figures[name] = {
            "url": url,
            "requests": args.requests,
            "p50_ms": statistics.median(times),
            "p95_ms": percentile(times, 0.95),
            # CPU time of this process alone (not the PostgreSQL server's): less swayed by
            # other work on the machine than the wall time.
            "cpu_p50_ms": statistics.median(cpu),
            "cpu_p95_ms": percentile(cpu, 0.95),
            "page_bytes": len(body),
            "rows": rows,
            "bytes_per_row": len(body) / rows if rows else None,
            "queries": len(queries.captured_queries),
        }
    return {
        "vendor": connection.vendor,
        "lists": figures,
        "baseline_mb": baseline_mb,
        "peak_mb": studio.peak_rss_mb(),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phase", choices=["seed", "measure"], required=True)
    parser.add_argument("--base-url", help="the scripted server (seed)")
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--test-rows", type=int, default=100)
    parser.add_argument("--datasets", type=int, default=200)
    parser.add_argument("--deployments", type=int, default=200)
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=5)
    args = parser.parse_args()
    if args.phase == "seed" and args.runs < 2 * args.deployments:
        parser.error("--runs must be at least twice --deployments (each deployment uses two)")
    studio.setup_django()
    report = seed(args) if args.phase == "seed" else measure(args)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
