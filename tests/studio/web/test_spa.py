"""The built browser app is served by Django: its files, and index.html for page paths."""

from __future__ import annotations

import pytest


@pytest.fixture
def built_frontend(tmp_path, settings):
    (tmp_path / "assets").mkdir()
    (tmp_path / "index.html").write_text("<!doctype html><div id=root></div>")
    settings.FRONTEND_DIST = tmp_path
    return tmp_path


def test_page_paths_get_the_index(client, built_frontend) -> None:
    for path in ("/", "/runs/12", "/compare"):
        response = client.get(path)
        assert response.status_code == 200
        assert b"<div id=root>" in b"".join(response.streaming_content)
        assert response["Cache-Control"] == "no-cache"


def test_api_paths_are_not_swallowed_by_the_app(client, built_frontend) -> None:
    assert client.get("/api/nope/").status_code == 404
    assert client.get("/api/schema/").status_code == 200


def test_an_unbuilt_frontend_says_how_to_build_it(client, settings, tmp_path) -> None:
    settings.FRONTEND_DIST = tmp_path / "missing"
    response = client.get("/")
    assert response.status_code == 503
    assert b"make frontend" in response.content
