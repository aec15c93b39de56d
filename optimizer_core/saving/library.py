"""The library's own serialisable objects, registered once on the first lookup.

Each family registers its built-in classes with `register_library_objects`
where its table is defined (`modules`, `optimizers`, `callbacks`, and the
`Family` of rewards and metrics; `Program` in its module). Importing the
package here runs those registrations; the language-model classes are listed
here. Nothing a document says is imported: the set of loadable names is fixed
by this code.
"""

from __future__ import annotations


def register_library() -> None:
    """Import optimizer_core's families (each registers its table) and the model classes."""
    import optimizer_core  # noqa: F401  (the families register themselves on import)
    from optimizer_core.language_models import (
        EmbeddingModel,
        FakeEmbeddingModel,
        FakeLanguageModel,
        LanguageModel,
    )
    from optimizer_core.saving.object_registry import register_library_objects

    register_library_objects(LanguageModel, EmbeddingModel, FakeLanguageModel, FakeEmbeddingModel)
