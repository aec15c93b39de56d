"""Who judges a run: the provider an LM judge calls, the program a program judge runs.

A run's reward or metric entry that needs a language model (``lm_as_judge``)
or a program (``program_as_judge``) may name, beside its ``params``:

- ``"provider"``: the id of one of the owner's language providers, the judge's
  own (default: the run's provider);
- ``"program"``: the id of one of the owner's program versions (the judge; a
  version, as a run's ``program_version`` is), whose output must have a
  ``reward`` field. It runs on the entry's provider.

`studio.runs.config` asks a `Judges` for these while it builds the entry, and
stores the entry with both ids filled in, so the run records which provider
and which program version judged it, even when the entry left the provider out.

An evaluation (`studio.evaluations`) resolves its reward through the same
`Judges`, its baseline's provider standing for the run's.

Why one object that the web process and the worker both use, rather than two
paths: the checks (owned, a language provider the outgoing-request policy
lets us call, a program whose output has ``reward``) must be the same when a
run is started and when it trains. The web process builds stand-in models
(nothing is called while validating); the worker (``live=True``) builds each
provider's real model once, and `fetch` reads every row the config names up
front, since the worker builds the program inside its event loop, where the
database is not reached.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from studio.runs import resources
from studio.runs.exceptions import RunConfigError

if TYPE_CHECKING:
    from studio.programs.models import ProgramVersion
    from studio.providers.models import Provider

__all__ = ["Judges", "output_fields"]

#: The output field a judge program must have.
REWARD_FIELD = "reward"


def output_fields(program: Any) -> list[str]:
    """The output field names of a built program, over all its outputs, in order."""
    outputs = program.outputs if isinstance(program.outputs, list | tuple) else [program.outputs]
    names: list[str] = []
    for output in outputs:
        schema = output.get_schema() if callable(getattr(output, "get_schema", None)) else {}
        for name in (schema or {}).get("properties", {}):
            if name not in names:
                names.append(name)
    return names


def _id(value: Any, path: str, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise RunConfigError(f"must be the id of one of your {what}, got {value!r}", path=path)
    return value


class Judges:
    """Resolves the providers and programs a run's judges name, for one owner.

    Args:
        owner: the run's owner (a judge is one of their providers or programs).
        provider: the run's provider (the judge's by default).
        language_model: the run's model, reused when the judge's provider is the run's
            (its cache, budget and usage are the run's). None while validating.
        run_output_fields: the output fields of the run's program (what field rules may
            name); None: not checked.
        live: build real models (the worker) rather than stand-ins (validation).
    """

    def __init__(
        self,
        *,
        owner: Any,
        provider: Provider | None,
        language_model: Any = None,
        run_output_fields: list[str] | None = None,
        live: bool = False,
    ) -> None:
        self.owner = owner
        self.run_provider = provider
        self.run_language_model = language_model
        self.run_output_fields = run_output_fields
        self.live = live
        self._providers: dict[int, Provider] = {}
        self._versions: dict[int, ProgramVersion] = {}
        #: The judges' own models (not the run's), by provider id: the worker meters them.
        self.models: dict[int, Any] = {}

    # Providers ---------------------------------------------------------------------------------

    def provider(self, value: Any, path: str) -> Provider:
        """The entry's provider (None: the run's), owned and usable, else refused at ``path``."""
        if value is None:
            if self.run_provider is None:
                raise RunConfigError("the run has no provider to judge with", path=path)
            return self.run_provider
        key = _id(value, path, "providers")
        if self.run_provider is not None and key == self.run_provider.pk:
            return self.run_provider
        found = self._providers.get(key)
        if found is None:
            from studio.providers.models import Provider

            found = Provider.objects.filter(pk=key, owner=self.owner).first()
            if found is None:
                raise RunConfigError(f"you have no provider {key}", path=path)
            resources.usable_provider(found, RunConfigError, path=path)
            self._providers[key] = found
        return found

    def language_model(self, provider: Provider) -> Any:
        """The model a judge on ``provider`` calls (a stand-in unless `live`)."""
        run = self.run_provider
        if run is not None and provider.pk == run.pk and self.run_language_model is not None:
            return self.run_language_model
        if not self.live:
            from optimizer_core.language_models import FakeLanguageModel

            return FakeLanguageModel()  # stands in while validating only
        model = self.models.get(provider.pk)
        if model is None:
            model = self.models[provider.pk] = resources.build_language_model(provider)
        return model

    # Programs ----------------------------------------------------------------------------------

    def version(self, value: Any, path: str) -> ProgramVersion:
        """The judge's program version, owned, else refused at ``path``."""
        if value is None:
            raise RunConfigError(
                "choose the judge: the id of one of your program versions", path=path
            )
        key = _id(value, path, "program versions")
        found = self._versions.get(key)
        if found is None:
            from studio.programs.models import ProgramVersion

            found = (
                ProgramVersion.objects.select_related("program")
                .filter(pk=key, program__owner=self.owner)
                .first()
            )
            if found is None:
                raise RunConfigError(f"you have no program version {key}", path=path)
            self._versions[key] = found
        return found

    def program(self, version: ProgramVersion, language_model: Any, path: str) -> Any:
        """The judge program of ``version``, on ``language_model``; refused at ``path`` when
        its document does not load or its output has no ``reward`` field."""
        from studio.programs.documents import DocumentInvalid, load_program

        label = f"program {version.program.name!r} v{version.number}"
        try:
            program = load_program(version.document)
        except DocumentInvalid as error:
            raise RunConfigError(f"{label} does not load: {error}", path=path) from None
        fields = output_fields(program)
        if REWARD_FIELD not in fields:
            raise RunConfigError(
                f"{label} cannot judge: its output needs a {REWARD_FIELD!r} field (a number "
                f"in [0, 1]); its output fields are {fields}",
                path=path,
            )
        program.set_language_model(language_model)
        return program

    # The worker --------------------------------------------------------------------------------

    def provider_that_raised(self, error: BaseException) -> Provider | None:
        """The judge provider (not the run's) whose model raised ``error``; None when the
        run's model did, or when it cannot be told apart.

        The error a run ends with is a model's final error or wraps one (its ``__cause__``
        chain, as `FailureCount` raises it); each model records its failed calls with that
        error's text (`Usage.records`). Rows fail concurrently, so the model's
        ``last_error`` may be another row's: the text is what identifies the model.
        """
        texts: set[str] = set()
        seen: BaseException | None = error
        while seen is not None and len(texts) < 16:
            texts.add(str(seen))
            seen = seen.__cause__ or seen.__context__

        def failed(model: Any) -> bool:
            usage = getattr(model, "usage", None)
            records = getattr(usage, "records", None) or []
            return any(not record.ok and record.error in texts for record in records)

        if self.run_language_model is not None and failed(self.run_language_model):
            return None
        found = [key for key, model in self.models.items() if failed(model)]
        return self._providers.get(found[0]) if len(found) == 1 else None

    def fetch(self, compile_config: Any) -> None:
        """Read every provider and program version a (stored) compile config names."""
        if not isinstance(compile_config, dict):
            return
        metrics = compile_config.get("metrics")
        entries = [compile_config.get("reward"), *(metrics if isinstance(metrics, list) else [])]
        for index, entry in enumerate(entries):
            if not isinstance(entry, dict):
                continue
            where = (
                "compile_config.reward" if index == 0 else f"compile_config.metrics[{index - 1}]"
            )
            if entry.get("provider") is not None:
                self.language_model(self.provider(entry["provider"], f"{where}.provider"))
            if entry.get("program") is not None:
                self.version(entry["program"], f"{where}.program")
