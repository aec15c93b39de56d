"""Account operations: tokens for scripts, and the demo account a newcomer can train with."""

from __future__ import annotations

import asyncio
import csv
import io
import os
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from rest_framework.authtoken.models import Token

import optimizer_core
from optimizer_core.testing.students import capitals_task
from studio.datasets import services as dataset_services
from studio.datasets.models import Dataset
from studio.programs import services as program_services
from studio.programs.models import Program
from studio.providers import services as provider_services
from studio.providers.models import Provider

DEMO_USER_ENV = "STUDIO_DEMO_USER"
DEMO_PASSWORD_ENV = "STUDIO_DEMO_PASSWORD"
DEFAULT_DEMO_USER = "demo"
DEFAULT_DEMO_PASSWORD = "demo-password-change-me"
DEMO_PROGRAM = "Capitals (demo)"
DEMO_DATASET = "Capitals (demo)"
DEMO_PROVIDER = "Bundled local model"


def issue_token(user: AbstractBaseUser) -> str:
    """The user's API token (created on first use)."""
    token, _ = Token.objects.get_or_create(user=user)
    return str(token.key)


class _Query(optimizer_core.DataModel):
    query: str = optimizer_core.Field(description="The user's question")


class _Answer(optimizer_core.DataModel):
    answer: str = optimizer_core.Field(description="The answer")


def demo_document(language_model: optimizer_core.LanguageModel) -> dict[str, Any]:
    """The demo program, Input(Query) -> Generator(Answer), as a document."""

    async def build() -> optimizer_core.Program:
        inputs = optimizer_core.Input(data_model=_Query)
        outputs = await optimizer_core.Generator(data_model=_Answer, language_model=language_model)(
            inputs
        )
        return optimizer_core.Program(
            inputs=inputs,
            outputs=outputs,
            name="capitals",
            description="Answer a country's capital as a bare name.",
        )

    document = asyncio.run(build()).to_json()
    for entry in document["program"]["modules"]:
        data_model = entry["module"]["config"].get("data_model")
        if isinstance(data_model, dict):  # classes of this module are not a public path
            data_model["class"] = ""
    return document


def capitals_csv() -> bytes:
    """The capitals task as a CSV file (columns query, answer)."""
    questions, answers, _ = capitals_task()
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["query", "answer"])
    for question, answer in zip(questions, answers, strict=True):
        writer.writerow([question["query"], answer["answer"]])
    return buffer.getvalue().encode("utf-8")


@dataclass(frozen=True)
class DemoAccount:
    user: Any
    created: bool
    program: Program
    dataset: Dataset
    provider: Provider


def ensure_demo(*, username: str | None = None, password: str | None = None) -> DemoAccount:
    """Create (or complete) the demo user with a provider, a program and a dataset.

    Idempotent: what exists is kept; only what is missing is created. The
    password is (re)set each time, so the documented one always works.
    """
    username = username or os.environ.get(DEMO_USER_ENV) or DEFAULT_DEMO_USER
    password = password or os.environ.get(DEMO_PASSWORD_ENV) or DEFAULT_DEMO_PASSWORD
    user_model = get_user_model()
    with transaction.atomic():
        user, created = user_model.objects.get_or_create(username=username)
        user.set_password(password)
        user.save()
        provider = provider_services.default_provider(user)
        if provider is None:
            provider = Provider.objects.filter(owner=user, name=DEMO_PROVIDER).first()
        if provider is None:
            provider = provider_services.create_provider(
                owner=user,
                name=DEMO_PROVIDER,
                model=provider_services.LOCAL_MODEL,
                is_default=True,
            )
        program = Program.objects.filter(owner=user, name=DEMO_PROGRAM).first()
        if program is None:
            # Only named in the document: a run calls its provider's model instead.
            language_model = optimizer_core.LanguageModel(provider.model)
            program = program_services.create_program(
                owner=user,
                name=DEMO_PROGRAM,
                description="Answer a country's capital as a bare name; "
                "train it on the demo dataset.",
                document=demo_document(language_model),
                layout={},
                message="demo",
            )
        dataset = Dataset.objects.filter(owner=user, name=DEMO_DATASET).first()
        if dataset is None:
            dataset = dataset_services.create_dataset_from_upload(
                owner=user,
                name=DEMO_DATASET,
                description="40 countries and their capitals (optimizer_core's capitals task).",
                uploaded_file=SimpleUploadedFile("capitals.csv", capitals_csv()),
                input_schema=_Query.get_schema(),
                output_schema=_Answer.get_schema(),
                test_fraction=0.25,
                split_seed=0,
                queue_validation=False,
            )
    # Small and made by us: validate now so the demo is ready without a worker.
    if dataset.status != Dataset.Status.VALID:
        dataset = dataset_services.validate_dataset(dataset)
    return DemoAccount(
        user=user, created=created, program=program, dataset=dataset, provider=provider
    )
