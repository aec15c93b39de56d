"""Each domain error a service raises answers through a real endpoint with its status and body.

Services raise the errors of their app's ``exceptions.py`` (bases in
`studio.common.exceptions`); the one exception handler answers them in DRF's
shape (``{"path": ["message"]}``, ``{"detail": "message"}`` for the whole
request) or, in the actions documenting `FieldErrors`, as ``{"errors": [...]}``.
"""

from __future__ import annotations

import pytest

from studio.common.errors import domain_error_detail
from studio.common.exceptions import Conflict, DomainError, FieldError, NotFound, TooLarge
from studio.providers.exceptions import ProviderError

pytestmark = pytest.mark.django_db


def test_domain_errors_carry_their_status_and_problems():
    assert [e.status for e in (DomainError, NotFound, Conflict, TooLarge)] == [400, 404, 409, 413]
    single = DomainError("must be >= 1, got 0", path="limit")
    assert single.errors == [FieldError("limit", "must be >= 1, got 0")]
    assert str(single) == "must be >= 1, got 0"
    many = DomainError([FieldError("a", "x"), FieldError("", "y")])
    assert str(many) == "a: x; y"
    with pytest.raises(ValueError, match="at least one problem"):
        DomainError([])


def test_drf_shape_groups_messages_by_path():
    assert domain_error_detail(DomainError("gone")) == {"detail": "gone"}
    problems = [FieldError("a", "x"), FieldError("", "y"), FieldError("a", "z")]
    assert domain_error_detail(DomainError(problems)) == {
        "a": ["x", "z"],
        "non_field_errors": ["y"],
    }


def test_provider_error_answers_400_at_its_path(api):
    assert issubclass(ProviderError, DomainError)
    body = {"name": "p", "model": "openai/gpt-4o-mini", "params": {"api_key": "sk-x"}}
    response = api.post("/api/providers/", body, format="json")
    assert response.status_code == 400
    assert list(response.json()) == ["params.api_key"]
    assert "is not a setting of openai providers" in response.json()["params.api_key"][0]
