"""Prediction log: list p50/p95 at 1,000,000 rows, and what logging adds to a predict call.

For each database (the embedded SQLite in a temporary folder; PostgreSQL on
127.0.0.1:5432 in a throwaway database), a fresh interpreter migrates, deploys the
scripted capitals program (three targets: deploy, switch, switch), seeds ``--rows``
logged predictions for that one deployment (bulk inserts of 10,000, spread over 29
days, 5 % failed, 2 % reviewed, 50 distinct answers), then times, through Django's
test ``Client`` (the whole view: auth, query, serializer, JSON):

- the list endpoint's first page, a page 90 % deep (by cursor), and each filter
  (target, failed, verdict, a one-day window, the output filter: a common value, a
  value no row has within one day, the same without a time range: the documented scan);
  each with the index the database chose (its EXPLAIN);
- a predict call (one input, answered by a scripted OpenAI-compatible server on
  127.0.0.1) with logging on and off, interleaved in random order, and the median of
  the paired differences with a bootstrap 95 % interval; and `prediction_log.record`
  alone (one row into the seeded table, inside a transaction as predict runs it: the
  commit is the usage update's, there with logging off too).

Targets (issue #24): list p95 < 200 ms at 1,000,000 rows; predict overhead p50 < 2 ms.

    .venv/bin/python bench/prediction_log/run.py [--rows 1000000] [--databases sqlite,postgres]
        [--repeats 30] [--pairs 200]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
PG = os.environ.get("STUDIO_TEST_PG", "postgresql://postgres@127.0.0.1:5432")
LIST_TARGET_MS = 200.0
OVERHEAD_TARGET_MS = 2.0
SEED_CHUNK = 10_000


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def bootstrap_median(values: list[float], *, resamples: int = 2000) -> tuple[float, float]:
    rng = random.Random(0)
    medians = sorted(
        statistics.median(rng.choices(values, k=len(values))) for _ in range(resamples)
    )
    return medians[int(0.025 * resamples)], medians[int(0.975 * resamples)]


# The child: one database -----------------------------------------------------------------------


def _seed(deployment: Any, targets: list[int], rows: int) -> float:
    from datetime import timedelta

    from django.db import transaction
    from django.utils import timezone

    from studio.deployments.models import PredictionLog

    cities = [f"City{i}" for i in range(50)]
    start = timezone.now() - timedelta(days=29)
    step = timedelta(days=29) / max(rows, 1)
    began = time.perf_counter()
    for first in range(0, rows, SEED_CHUNK):
        batch = []
        for i in range(first, min(first + SEED_CHUNK, rows)):
            failed = i % 20 == 0
            batch.append(
                PredictionLog(
                    deployment_id=deployment.pk,
                    target_id=targets[i * len(targets) // rows],
                    source="api" if i % 4 else "batch",
                    inputs={"query": f"What is the capital of country {i}?"},
                    outputs=None if failed else {"answer": cities[i % 50]},
                    failed=failed,
                    error="ServerError: HTTP 500" if failed else "",
                    latency_s=0.2 + (i % 7) / 10,
                    prompt_tokens=60 + i % 13,
                    completion_tokens=5 + i % 5,
                    cost=0.00001,
                    created_at=start + step * i,
                    verdict={1: "wrong", 2: "right"}.get(i % 100),
                )
            )
        with transaction.atomic():
            PredictionLog.objects.bulk_create(batch)
    return time.perf_counter() - began


def _plan(sql: str) -> str:
    from django.db import connection

    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("EXPLAIN QUERY PLAN " + sql)
            return "; ".join(str(row[-1]) for row in cursor.fetchall())
        cursor.execute("EXPLAIN " + sql)
        lines = [row[0] for row in cursor.fetchall()]
        return "; ".join(line.strip() for line in lines if "Scan" in line or "Index" in line)


def _index_of(plan: str) -> str:
    for word in plan.replace(";", " ").split():
        if word.startswith("predlog_"):
            return word
    return "scan" if ("SCAN" in plan or "Seq Scan" in plan) else plan[:40]


def _time_list(client: Any, url: str, repeats: int) -> dict[str, Any]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for _ in range(3):
        assert client.get(url).status_code == 200, client.get(url).content[:300]
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    sql = next(q["sql"] for q in reversed(queries.captured_queries) if "predictionlog" in q["sql"])
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        client.get(url)
        times.append((time.perf_counter() - began) * 1000)
    try:
        index = _index_of(_plan(sql))
    except Exception as error:  # an EXPLAIN this driver cannot replay: say so
        index = f"? ({type(error).__name__})"
    return {
        "p50": percentile(times, 0.5),
        "p95": percentile(times, 0.95),
        "rows": len(response.json()["results"]),
        "index": index,
    }


def _overhead(client: Any, deployment: Any, pairs: int) -> dict[str, Any]:
    from django.db import transaction

    from studio.deployments import prediction_log, services
    from studio.deployments.models import Deployment

    url = f"/api/deployments/{deployment.name}/predict/"
    body = {"input": {"query": "What is the capital of France?"}}

    def call(on: bool) -> float:
        Deployment.objects.filter(pk=deployment.pk).update(log_predictions=on)
        began = time.perf_counter()
        response = client.post(url, body, content_type="application/json")
        elapsed = (time.perf_counter() - began) * 1000
        assert response.status_code == 200, response.content[:300]
        return elapsed

    for _ in range(10):
        call(True), call(False)
    rng = random.Random(1)
    on, off, diffs = [], [], []
    for _ in range(pairs):
        order = [True, False]
        rng.shuffle(order)
        got = {flag: call(flag) for flag in order}
        on.append(got[True])
        off.append(got[False])
        diffs.append(got[True] - got[False])
    low, high = bootstrap_median(diffs)
    deployment.refresh_from_db()
    deployment.log_predictions = True
    prediction = services.Prediction(
        output={"answer": "Paris"}, error=None, latency_s=0.1, prompt_tokens=60
    )
    record = []
    for _ in range(max(pairs, 100)):
        with transaction.atomic():  # as predict runs it: the commit is the usage's too
            began = time.perf_counter()
            prediction_log.record(
                deployment, target_id=deployment.target_id, source="api", rows=[(body, prediction)]
            )
            record.append((time.perf_counter() - began) * 1000)
    from django.db import connection

    trip = []
    with connection.cursor() as cursor:
        for _ in range(100):
            began = time.perf_counter()
            cursor.execute("SELECT 1")
            cursor.fetchall()
            trip.append((time.perf_counter() - began) * 1000)
    return {
        "roundtrip_p50": statistics.median(trip),
        "pairs": pairs,
        "on_p50": statistics.median(on),
        "off_p50": statistics.median(off),
        "diff_p50": statistics.median(diffs),
        "diff_ci": [low, high],
        "record_p50": statistics.median(record),
        "record_p95": percentile(record, 0.95),
    }


def child(rows: int, repeats: int, pairs: int) -> dict[str, Any]:
    import django

    django.setup()
    from datetime import timedelta

    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    from optimizer_core.testing.scripted_server import ScriptedServer
    from optimizer_core.testing.students import capitals_task
    from studio.deployments import prediction_log, services
    from studio.deployments.models import PredictionLog
    from tests.studio.deployments.factories import make_provider, make_run

    call_command("migrate", verbosity=0)
    _, _, student = capitals_task()
    with ScriptedServer(student.from_request) as server:
        settings.STUDIO_ALLOWED_OUTGOING = [f"127.0.0.1:{server.port}"]
        user = get_user_model().objects.create_user("bench", password="bench-only")
        provider = make_provider(user, server.base_url)
        deployment = services.deploy(owner=user, name="bench", run=make_run(user, provider))
        services.switch(deployment, run=make_run(user, provider))
        services.switch(deployment, run=make_run(user, provider))
        targets = sorted(deployment.targets.values_list("pk", flat=True))
        seed_s = _seed(deployment, targets, rows)
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:  # what autovacuum would have done by now
                cursor.execute("ANALYZE deployments_predictionlog")
        client = Client(HTTP_HOST="localhost")
        client.force_login(user)
        base = "/api/deployments/bench/predictions/"
        newest = PredictionLog.objects.filter(deployment=deployment).order_by("-created_at", "-id")
        deep = newest[int(rows * 0.9)]
        day = deep.created_at.replace(microsecond=0)
        window = (
            f"since={(day - timedelta(days=1)).strftime('%Y-%m-%dT%H:%M:%SZ')}"
            f"&until={day.strftime('%Y-%m-%dT%H:%M:%SZ')}"
        )
        cases = {
            "first page": "",
            "90 % deep (cursor)": f"?cursor={prediction_log.encode_cursor(deep)}",
            "target (the middle one)": f"?target={targets[1]}",
            "failed=true": "?failed=true",
            "verdict=wrong": "?verdict=wrong",
            "verdict=none, 90 % deep": f"?verdict=none&cursor={prediction_log.encode_cursor(deep)}",
            "one day (since, until)": f"?{window}",
            "output value, common (2 %)": "?output_field=answer&output_value=City7",
            "output value, none, one day": f"?output_field=answer&output_value=Atlantis&{window}",
            "output value, none, no range": "?output_field=answer&output_value=Atlantis",
        }
        listing = {name: _time_list(client, base + query, repeats) for name, query in cases.items()}
        overhead = _overhead(client, deployment, pairs)
    return {
        "vendor": connection.vendor,
        "rows": PredictionLog.objects.count(),
        "seed_s": seed_s,
        "list": listing,
        "predict": overhead,
    }


# The runner ------------------------------------------------------------------------------------


def _database(name: str, workdir: Path) -> tuple[dict[str, str], Any]:
    if name == "sqlite":
        return {"DATABASE_URL": f"sqlite:///{workdir / 'bench.sqlite3'}"}, lambda: None
    import psycopg

    database = f"studio_bench_predlog_{os.getpid()}"
    with psycopg.connect(f"{PG}/postgres", autocommit=True) as db:
        db.execute(f'DROP DATABASE IF EXISTS "{database}"')
        db.execute(f'CREATE DATABASE "{database}"')

    def cleanup() -> None:
        with psycopg.connect(f"{PG}/postgres", autocommit=True) as db:
            db.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')

    return {"DATABASE_URL": f"{PG}/{database}"}, cleanup


def report(name: str, figures: dict[str, Any]) -> None:
    print(f"\n== {name}: {figures['rows']:,} rows (seeded in {figures['seed_s']:.0f} s)")
    print(f"{'list query':<30} {'p50 ms':>8} {'p95 ms':>8} {'target':>8} {'rows':>5}  index")
    for case, row in figures["list"].items():
        verdict = "ok" if row["p95"] < LIST_TARGET_MS else "OVER"
        print(
            f"{case:<30} {row['p50']:>8.1f} {row['p95']:>8.1f} {'<200 ' + verdict:>8} "
            f"{row['rows']:>5}  {row['index']}"
        )
    p = figures["predict"]
    low, high = p["diff_ci"]
    print(
        f"predict p50: logging on {p['on_p50']:.2f} ms, off {p['off_p50']:.2f} ms; "
        f"paired difference median {p['diff_p50']:+.2f} ms (95 % CI {low:+.2f} to {high:+.2f}, "
        f"n={p['pairs']} pairs; target < {OVERHEAD_TARGET_MS} ms)"
    )
    print(
        "prediction_log.record's INSERT (1 row, in the request's transaction): "
        f"p50 {p['record_p50']:.2f} ms, p95 {p['record_p95']:.2f} ms "
        f"(a SELECT 1 round trip: p50 {p['roundtrip_p50']:.2f} ms)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--databases", default="sqlite,postgres")
    parser.add_argument("--repeats", type=int, default=30, help="timed calls per list query")
    parser.add_argument("--pairs", type=int, default=200, help="interleaved predict pairs")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.rows, args.repeats, args.pairs)))
        return 0
    results: dict[str, Any] = {}
    for name in args.databases.split(","):
        with tempfile.TemporaryDirectory() as folder:
            try:
                env, cleanup = _database(name, Path(folder))
            except Exception as error:  # no server: report it, measure the others
                print(f"{name}: not measured ({type(error).__name__}: {error})")
                continue
            try:
                done = subprocess.run(
                    [sys.executable, __file__, "--child", *_forward(args)],
                    cwd=REPO_ROOT,
                    capture_output=True,
                    text=True,
                    check=False,
                    env={
                        **os.environ,
                        **env,
                        "PYTHONPATH": str(REPO_ROOT),
                        "DJANGO_SETTINGS_MODULE": "studio.settings.test",
                        "STUDIO_VAR_DIR": folder,
                        "STUDIO_LM_CACHE_DIR": str(Path(folder) / "lm_cache"),
                    },
                )
            finally:
                cleanup()
            if done.returncode != 0:
                print(done.stderr[-4000:], file=sys.stderr)
                return 1
            results[name] = json.loads(done.stdout.strip().splitlines()[-1])
            report(name, results[name])
    out = REPO_ROOT / "bench" / "results"
    out.mkdir(exist_ok=True)
    (out / "prediction_log.json").write_text(json.dumps(results, indent=2) + "\n")
    return 0


def _forward(args: argparse.Namespace) -> list[str]:
    return [
        "--rows",
        str(args.rows),
        "--repeats",
        str(args.repeats),
        "--pairs",
        str(args.pairs),
    ]


if __name__ == "__main__":
    sys.exit(main())
