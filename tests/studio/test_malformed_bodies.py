"""Malformed multipart bodies answer as every other 400: JSON, ``{"errors": [{path, message}]}``.

Through Django's test client and through a real daphne (`LiveStack`): Twisted, under
daphne, used to parse form bodies itself and answer the ones it refused with a bare
``HTTP/1.1 400 Bad Request`` (no headers, no body) before Django ran
(`studio.web_server`).
"""

from __future__ import annotations

import http.client
import json
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.studio.deployments.factories import make_version
from tests.studio.realtime.live_stack import LiveStack

MULTIPART = "multipart/form-data; boundary=b0undary"

BODIES: dict[str, tuple[str, bytes]] = {
    "no parts": (MULTIPART, b"--b0undary--\r\n"),
    "a part name that is not ASCII": (
        MULTIPART,
        b'--b0undary\r\nContent-Disposition: form-data; name="\xc3\xa9"\r\n\r\nv\r\n'
        b"--b0undary--\r\n",
    ),
    "no boundary": ("multipart/form-data", b"--b0undary\r\n\r\nv\r\n--b0undary--\r\n"),
    "an unterminated part": (
        MULTIPART,
        b'--b0undary\r\nContent-Disposition: form-data; name="document"\r\n\r\n{"a": ',
    ),
    "garbage": (MULTIPART, b"\x00\xff not multipart at all \r\n\r\n"),
}

ENDPOINTS = [
    "/api/programs/import/",
    "/api/programs/validate/",
    "/api/deployments/capitals/predict/",
    "/api/deployments/capitals/switch/",
]


def check_answer(status: int, content_type: str, body: bytes) -> None:
    assert status == 400, body
    assert content_type.startswith("application/json"), content_type
    errors = json.loads(body)["errors"]
    assert errors and all(set(e) == {"path", "message"} and e["message"] for e in errors), errors


@pytest.mark.django_db
@pytest.mark.parametrize("endpoint", ENDPOINTS)
@pytest.mark.parametrize("case", sorted(BODIES))
def test_the_test_client_gets_a_json_400(api: APIClient, user: Any, endpoint: str, case: str):
    from studio.deployments.services import deploy

    deploy(owner=user, name="capitals", program_version=make_version(user))
    content_type, body = BODIES[case]
    response = api.generic("POST", endpoint, body, content_type=content_type)
    check_answer(response.status_code, response["Content-Type"], response.content)


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_daphne_lets_django_answer_malformed_multipart_bodies(tmp_path):
    stack = LiveStack({}, tmp_path)
    with stack.running(worker=False):
        created = stack.setup_deployment()
        answers = {}
        for endpoint in ENDPOINTS:
            for case, (content_type, body) in BODIES.items():
                connection = http.client.HTTPConnection("127.0.0.1", stack.port, timeout=30)
                connection.request(
                    "POST",
                    endpoint,
                    body,
                    {"Content-Type": content_type, "Authorization": f"Token {created['token']}"},
                )
                response = connection.getresponse()
                answers[endpoint, case] = (
                    response.status,
                    response.getheader("Content-Type") or "",
                    response.read(),
                )
                connection.close()
        logs = stack.logs()
    for (endpoint, case), answer in answers.items():
        try:
            check_answer(*answer)
        except Exception as error:
            raise AssertionError(f"{endpoint}, {case}: {answer}\n{logs}") from error


def test_a_body_refused_before_any_view_is_answered_in_json_with_the_reason(rf, settings):
    from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent
    from django.http.multipartparser import MultiPartParserError

    from studio.common.errors import handler400

    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 2**20
    big = handler400(rf.post("/api/programs/"), RequestDataTooBig("too big"))
    assert big.status_code == 413
    assert "10 MB (10,485,760 bytes)" in json.loads(big.content)["detail"]
    fields = handler400(rf.post("/api/programs/"), TooManyFieldsSent("many"))
    assert fields.status_code == 400
    assert f"{settings.DATA_UPLOAD_MAX_NUMBER_FIELDS:,} form fields" in fields.content.decode()
    broken = handler400(rf.post("/api/programs/"), MultiPartParserError("Invalid boundary"))
    assert json.loads(broken.content) == {
        "detail": "the multipart body does not parse: Invalid boundary"
    }
    assert handler400(rf.post("/admin/"), RequestDataTooBig("x"))["Content-Type"].startswith(
        "text/html"
    )
