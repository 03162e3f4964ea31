"""What .gitattributes says that ACTIVE.md's Needs attention names follows the
file as it is: a line a pulled commit added is named, and once the person
deletes the line (or the whole file) it is named no more."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from hearth.app.sync.branch import Syncer
from hearth.domain import gitattributes


def test_a_foreign_line_is_named_until_the_person_takes_it_out(tmp_path: Path) -> None:
    """Case: the notes came from a cache keyed by the file's stamp, and a file
    that was gone kept the last notes it had (``* merge=union`` still named
    after the person deleted .gitattributes)."""
    (tmp_path / "state").mkdir()
    syncer = Syncer(tmp_path, tmp_path / "state", lambda: dt.datetime.now(dt.UTC))
    attributes = tmp_path / ".gitattributes"
    attributes.write_text(gitattributes.GITATTRIBUTES + "* merge=union\n")
    (named,) = syncer.attention()
    assert "'* merge=union'" in named and "'union' merge" in named
    attributes.write_text(gitattributes.GITATTRIBUTES)
    assert syncer.attention() == []
    attributes.write_text(gitattributes.GITATTRIBUTES + "*.md filter=lfs\n")
    assert len(syncer.attention()) == 1
    attributes.unlink()
    assert syncer.attention() == []


def test_what_older_hearths_wrote_is_named_with_its_fix() -> None:
    legacy = gitattributes.attention(gitattributes.LEGACY_GITATTRIBUTES)
    assert len(legacy) == 1 and "hearth hooks install" in legacy[0]
    assert gitattributes.attention(gitattributes.GITATTRIBUTES.splitlines()) == []
