"""Vector packs: what travels on refs/hearth/vectors, and what is refused."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hearth.errors import BadPack
from hearth.index.search_index import embedding_order
from hearth.index.vector_packs import MAGIC, make_pack, pack_name, read_pack, shipped
from tests.conftest import examples

MODEL, DIMS = "test-model", 4


def _rows(count: int) -> np.ndarray:
    rng = np.random.default_rng(count)
    rows = rng.standard_normal((count, DIMS)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def _digests(count: int) -> list[str]:
    return [f"{i:032x}" for i in range(count)]


def test_a_pack_reads_back_the_rows_every_machine_holds() -> None:
    rows = _rows(5)
    name, data = make_pack(MODEL, DIMS, _digests(5), shipped(rows))
    pack = read_pack(name, data, MODEL, DIMS)
    assert pack is not None and pack.digests == _digests(5)
    assert np.array_equal(pack.rows, shipped(rows))  # the same bits
    assert np.array_equal(shipped(pack.rows), pack.rows)  # rounding again changes nothing
    assert np.abs(pack.rows - rows).max() < 1e-3


def test_a_pack_of_another_model_is_not_read() -> None:
    name, data = make_pack("other-model", DIMS, _digests(2), _rows(2))
    assert read_pack(name, data, MODEL, DIMS) is None


def _with_header(header: dict[str, object], body: bytes) -> tuple[str, bytes]:
    data = MAGIC + json.dumps(header).encode() + b"\n" + body
    return pack_name(data), data


def _bad_packs() -> dict[str, tuple[str, bytes]]:
    good_name, good = make_pack(MODEL, DIMS, _digests(2), _rows(2))
    header = {"model": MODEL, "dims": DIMS, "dtype": "float16", "count": 2}
    body = good[good.index(b"\n", len(MAGIC)) + 1 :]
    nan = np.full((1, DIMS), np.nan, dtype="<f2").tobytes()
    long_row = np.full((1, DIMS), 2.0, dtype="<f2").tobytes()
    return {
        "name is not the hash": (pack_name(b"other"), good),
        "not a pack": (pack_name(b"junk"), b"junk"),
        "extra header field": _with_header({**header, "extra": 1}, body),
        "wrong dims": _with_header({**header, "dims": DIMS + 1}, body),
        "float32 claimed": _with_header({**header, "dtype": "float32"}, body),
        "count too big": _with_header({**header, "count": 3}, body),
        "count zero": _with_header({**header, "count": 0}, b""),
        "count not an integer": _with_header({**header, "count": True}, body),
        "truncated": (pack_name(good[:-1]), good[:-1]),
        "not finite": _with_header({**header, "count": 1}, b"\0" * 16 + nan),
        "not unit length": _with_header({**header, "count": 1}, b"\0" * 16 + long_row),
        "model not a string": _with_header({**header, "model": 7}, body),
    } | {"good": (good_name, good)}


@pytest.mark.parametrize("case", [c for c in _bad_packs() if c != "good"])
def test_a_bad_pack_is_refused(case: str) -> None:
    name, data = _bad_packs()[case]
    with pytest.raises(BadPack):
        read_pack(name, data, MODEL, DIMS)


@settings(max_examples=examples(200), deadline=None)
@given(st.binary(max_size=400), st.integers(min_value=0, max_value=200))
def test_any_bytes_are_a_pack_or_refused(noise: bytes, cut: int) -> None:
    _name, good = make_pack(MODEL, DIMS, _digests(2), _rows(2))
    for data in (noise, MAGIC + noise, good[:cut] + noise):
        try:
            pack = read_pack(pack_name(data), data, MODEL, DIMS)
        except BadPack:
            continue
        assert pack is None or len(pack.digests) == pack.rows.shape[0]


def test_the_first_build_embeds_persona_then_newest_then_undated() -> None:
    listed = [
        ("topic", ""),
        ("daily", "2025-01-02"),
        ("persona", ""),
        ("daily", "2026-11-22"),
        ("loop", "2026-03-01"),
    ]
    ordered = sorted(listed, key=lambda item: embedding_order(*item))
    assert ordered == [
        ("persona", ""),
        ("daily", "2026-11-22"),
        ("loop", "2026-03-01"),
        ("daily", "2025-01-02"),
        ("topic", ""),
    ]
