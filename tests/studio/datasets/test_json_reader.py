"""The streamed JSON-array reader: same rows as json.loads, whatever the chunk boundaries."""

from __future__ import annotations

import json

import pytest

from studio.datasets import readers

ROWS = [
    {"query": "é" * 5 + "\n", "answer": 12345.678, "tags": ["a", "b"]},
    {"query": "second", "answer": -1e10},
    {"query": "third", "answer": 7},
]


def _read(tmp_path, content: bytes):
    path = tmp_path / "rows.json"
    path.write_bytes(content)
    return list(readers._iter_json(path))


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 64, 1 << 20])
@pytest.mark.parametrize("indent", [None, 2])
def test_items_match_json_loads(tmp_path, monkeypatch, chunk, indent):
    monkeypatch.setattr(readers._JsonArrayReader, "CHUNK", chunk)
    content = json.dumps(ROWS, indent=indent, ensure_ascii=False).encode()
    found = _read(tmp_path, b"\xef\xbb\xbf" + content)  # with a BOM
    assert [payload for _, payload, _, _ in found] == ROWS
    assert [line for line, _, _, _ in found] == [1, 2, 3]


@pytest.mark.parametrize("chunk", [1, 5, 1 << 20])
def test_top_level_numbers_are_not_cut_at_chunk_boundaries(tmp_path, monkeypatch, chunk):
    monkeypatch.setattr(readers._JsonArrayReader, "CHUNK", chunk)
    found = _read(tmp_path, b"[123456789, 42]")
    assert [errors[0].message for _, _, errors, _ in found] == [
        "item 1 is not an object",
        "item 2 is not an object",
    ]


@pytest.mark.parametrize("chunk", [1, 4, 1 << 20])
def test_errors_carry_file_lines(tmp_path, monkeypatch, chunk):
    monkeypatch.setattr(readers._JsonArrayReader, "CHUNK", chunk)
    bad_utf8 = _read(tmp_path, b'[\n{"query": "a"},\n{"query": "\xff"}]')
    assert bad_utf8[-1][2][0].line == 3
    assert "UTF-8" in bad_utf8[-1][2][0].message
    missing_comma = _read(tmp_path, b'[{"query": "a"}\n\n{"query": "b"}]')
    assert missing_comma[-1][2][0].line == 3
    assert "expected ','" in missing_comma[-1][2][0].message
    trailing = _read(tmp_path, b'[{"query": "a"}] x')
    assert "extra data" in trailing[-1][2][0].message
    truncated = _read(tmp_path, b'[{"query": "a"},\n{"query": ')
    assert truncated[-1][2][0].line == 2
    assert _read(tmp_path, b"  [ ]  ") == []
