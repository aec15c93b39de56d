"""Account operations: sign-up, a new account's starter provider, tokens for scripts, the
demo account a newcomer can train with, and the account's library of DataModels."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import IntegrityError, transaction
from rest_framework.authtoken.models import Token

import optimizer_core
from optimizer_core.datasets import support_tickets
from studio.accounts.exceptions import AccountError, DataModelConflict, DataModelError
from studio.accounts.models import SavedDataModel
from studio.common.exceptions import FieldError
from studio.common.schemas import build_data_model
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
DEMO_PROGRAM = "Support ticket topics (demo)"
DEMO_DATASET = "Support tickets (demo)"
DEMO_ROWS = 200
"""The demo dataset's rows: the first of optimizer_core's support tickets (topics balanced)."""
DEMO_TEST_ROWS = 100
"""Rows held out as its test split: enough for a paired verdict to see the gain."""
DEMO_PROGRAM_DESCRIPTION = (
    "Tags an online shop's support messages with one of four topics: refund, delivery, "
    "address or password. Untrained, the bundled model (SmolLM2-135M) does not know "
    'these four words and answers in its own ("Sorry to bother", "Graz, Austria"): '
    "about 0 of the 100 test messages right. Train it on the demo dataset with the "
    "default run (RandomFewShot, 2 epochs; 2 to 4 minutes on a 2-core machine): the "
    "examples it picks show the four words, and after training 4 to 5 in 10 test "
    "messages are tagged right, a significant gain (fewer when it keeps a single "
    "example). OMEGA rewrites the instructions instead, which this small model cannot "
    "do usefully: expect no change from it here."
)
DEMO_PROVIDER = "Bundled local model"
STARTER_PROVIDER = DEMO_PROVIDER
"""The name of the provider a new account starts with (the bundled model)."""


# --------------------------------------------------------------------------- accounts


def bundled_model_installed() -> bool:
    """Whether this machine can serve the bundled model: its GGUF package and llama.cpp's server.

    Checked through package metadata, without importing either (see
    `optimizer_core.local_models.installation`).
    """
    from optimizer_core.local_models import bundled_model_missing

    return bundled_model_missing() is None


def give_starter_provider(user: Any) -> Provider | None:
    """Make the bundled model a new account's default language provider, so it can train at once.

    Nothing is done (None) when ``settings.STUDIO_STARTER_PROVIDER`` is off, when the
    bundled model is not installed here, or when the user already has a language
    provider; safe to call more than once. Every creation path reaches it: `create_account`
    calls it, and a ``post_save`` hook (`studio.accounts.signals`) calls it for users made
    elsewhere (``createsuperuser``, the admin, scripts).
    """
    if not getattr(settings, "STUDIO_STARTER_PROVIDER", True):
        return None
    if Provider.objects.filter(owner=user, kind=Provider.Kind.LANGUAGE).exists():
        return None
    if not bundled_model_installed():
        return None
    return provider_services.create_provider(
        owner=user, name=STARTER_PROVIDER, model=provider_services.LOCAL_MODEL, is_default=True
    )


def create_account(*, username: str, password: str, email: str = "") -> Any:
    """Register a user (sign-up), checking the username and Django's password validators.

    The account starts with the bundled model as its default provider when it is
    installed (`give_starter_provider`).

    Raises:
        AccountError: the username is invalid or taken (path ``username``), or the
            password fails a validator (path ``password``, one error per validator).
    """
    user_model = get_user_model()
    username = user_model.normalize_username(username.strip())
    email = user_model.objects.normalize_email(email.strip()) if email else ""
    problems: list[FieldError] = []
    try:
        user_model._meta.get_field("username").run_validators(username)
    except DjangoValidationError as error:
        problems.extend(FieldError("username", message) for message in error.messages)
    if username and user_model.objects.filter(username__iexact=username).exists():
        problems.append(FieldError("username", "this username is taken"))
    try:
        validate_password(password, user=user_model(username=username, email=email))
    except DjangoValidationError as error:
        problems.extend(FieldError("password", message) for message in error.messages)
    if problems:
        raise AccountError(problems)
    try:
        with transaction.atomic():
            user = user_model.objects.create_user(username, email or "", password)
            give_starter_provider(user)
    except IntegrityError:  # the same name registered between the check and the insert
        raise AccountError("this username is taken", path="username") from None
    return user


_DEMO_PASSWORD_CHECKS: dict[str, bool] = {}


def demo_account_hint() -> dict[str, str] | None:
    """The demo account's credentials, to show on the sign-in page, or None.

    Only where ``settings.STUDIO_SHOW_DEMO_ACCOUNT`` is on (the embedded default, never
    production), and only while the demo user exists, is active and still has the
    documented default password: a password chosen through ``STUDIO_DEMO_PASSWORD``
    or changed since is never shown. The (slow) password check is done once per stored
    hash.
    """
    if not getattr(settings, "STUDIO_SHOW_DEMO_ACCOUNT", False):
        return None
    username = os.environ.get(DEMO_USER_ENV) or DEFAULT_DEMO_USER
    user = get_user_model().objects.filter(username=username, is_active=True).first()
    if user is None or not user.password:
        return None
    if user.password not in _DEMO_PASSWORD_CHECKS:
        if len(_DEMO_PASSWORD_CHECKS) > 16:
            _DEMO_PASSWORD_CHECKS.clear()
        _DEMO_PASSWORD_CHECKS[user.password] = user.check_password(DEFAULT_DEMO_PASSWORD)
    if not _DEMO_PASSWORD_CHECKS[user.password]:
        return None
    return {"username": username, "password": DEFAULT_DEMO_PASSWORD}


def issue_token(user: AbstractBaseUser) -> str:
    """The user's API token (created on first use)."""
    token, _ = Token.objects.get_or_create(user=user)
    return str(token.key)


def demo_document(language_model: optimizer_core.LanguageModel) -> dict[str, Any]:
    """The demo program, Input(SupportMessage) -> Generator(SupportTopic), as a document."""

    async def build() -> optimizer_core.Program:
        inputs = optimizer_core.Input(data_model=support_tickets.SupportMessage)
        outputs = await optimizer_core.Generator(
            data_model=support_tickets.SupportTopic, language_model=language_model
        )(inputs)
        return optimizer_core.Program(
            inputs=inputs,
            outputs=outputs,
            name="support_topics",
            description=DEMO_PROGRAM_DESCRIPTION,
        )

    document = asyncio.run(build()).to_json()
    for entry in document["program"]["modules"]:
        data_model = entry["module"]["config"].get("data_model")
        if isinstance(data_model, dict):  # rebuilt from its schema, as a browser-made one is
            data_model["class"] = ""
    return document


def demo_csv() -> bytes:
    """The demo dataset as a CSV file (columns message, topic): `DEMO_ROWS` support tickets."""
    rows = support_tickets.read_rows()[:DEMO_ROWS]
    return support_tickets.to_csv(rows).encode("utf-8")


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
                description=DEMO_PROGRAM_DESCRIPTION,
                document=demo_document(language_model),
                layout={},
                message="demo",
            )
        dataset = Dataset.objects.filter(owner=user, name=DEMO_DATASET).first()
        if dataset is None:
            dataset = dataset_services.create_dataset_from_upload(
                owner=user,
                name=DEMO_DATASET,
                description=(
                    f"{DEMO_ROWS} customer messages to an online shop, each tagged refund, "
                    f"delivery, address or password ({DEMO_TEST_ROWS} held out as the test "
                    "split). Synthetic, from optimizer_core.datasets.support_tickets."
                ),
                uploaded_file=SimpleUploadedFile("support_tickets.csv", demo_csv()),
                input_schema=support_tickets.SupportMessage.get_schema(),
                output_schema=support_tickets.SupportTopic.get_schema(),
                test_fraction=DEMO_TEST_ROWS / DEMO_ROWS,
                split_seed=0,
                queue_validation=False,
            )
    # Small and made by us: validate now so the demo is ready without a worker.
    if dataset.status != Dataset.Status.VALID:
        dataset = dataset_services.validate_dataset(dataset)
    return DemoAccount(
        user=user, created=created, program=program, dataset=dataset, provider=provider
    )


# --------------------------------------------------------------------------- DataModel library


def check_data_model_schema(schema: Any, *, argument: str = "schema") -> dict[str, Any]:
    """Check that a library entry's schema is one the engine can build a DataModel from.

    The same check as dataset schemas (`studio.common.schemas.build_data_model`).

    Raises:
        DataModelError: not an object schema, nested too deeply, or not buildable
            (path ``schema``, or the culprit's path within it).
    """
    build_data_model(schema, argument=argument, name="LibraryModel", error=DataModelError)
    return schema


def _save_data_model(model: SavedDataModel) -> SavedDataModel:
    try:
        with transaction.atomic():
            model.save()
    except IntegrityError:
        raise DataModelConflict(
            f"a data model named {model.name!r} already exists", path="name"
        ) from None
    return model


def create_data_model(
    *, owner: Any, name: str, schema: Any, class_path: str = ""
) -> SavedDataModel:
    """Add a DataModel to the owner's library.

    Raises:
        DataModelError: the schema is unusable.
        DataModelConflict: the owner already has a model of this name.
    """
    checked = check_data_model_schema(schema)
    return _save_data_model(
        SavedDataModel(owner=owner, name=name, schema=checked, class_path=class_path)
    )


def update_data_model(
    model: SavedDataModel,
    *,
    name: str | None = None,
    schema: Any = None,
    class_path: str | None = None,
) -> SavedDataModel:
    """Rename a library DataModel or change its schema.

    Raises:
        DataModelError: the schema is unusable.
        DataModelConflict: another model of the owner has the new name.
    """
    if schema is not None:
        model.schema = check_data_model_schema(schema)
    if name is not None:
        model.name = name
    if class_path is not None:
        model.class_path = class_path
    return _save_data_model(model)
