"""Screenshots of the Review page as a new user meets it (issue 41), at 1280 and 390 px.

    .venv/bin/python bench/ui_screens.py --out docs/img --label after
    PYTHONPATH=<old checkout>/src .venv/bin/python bench/ui_screens.py --out docs/img --label before

A fresh home (words only, ``HEARTH_SEMANTIC=off``) gets a MEMORY.md of
twenty entries under a 1,600-character bound, then 13 pending proposals:
several restate what MEMORY.md or USER.md already hold, two say much the
same, one would push MEMORY.md over its bound. Chromium (/usr/bin/chromium)
loads ``/ui/`` at 1280x900 and 390x844 and saves the page's first 1,800 px as
``review-<label>-<width>.png``; prints each page's full height and the size
of the HTML sent (with and without gzip). Asserts nothing.
"""

from __future__ import annotations

import argparse
import gzip
import sys
import tempfile
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.api.conftest import Server, isolated_env, make_home, start_server
from tests.ui.conftest import CHROMIUM, git

MEMORY = [
    "Sam prefers short answers that lead with the conclusion",
    "Sam lives in Lisbon and works from home",
    "Sam's partner is Alex; they have a cat called Miso",
    "Sam is allergic to penicillin",
    "Sam runs on Tuesday and Thursday mornings",
    "Sam's sister Rita lives in Porto",
    "Sam uses a Linux laptop and Neovim",
    "Sam does not drink coffee after noon",
    "Sam is learning Japanese on Duolingo",
    "The team standup is at 09:30 Lisbon time",
    "Sam's manager is Priya",
    "Sam dislikes being called Samuel",
    "Sam wants reminders a day before deadlines",
    "Sam's bike is a grey Brompton",
    "Sam plays five-a-side football on Fridays",
]
PROPOSALS: list[tuple[str, list[str], dict[str, str]]] = [
    ("Lisbon time", ["Sam is on Lisbon time (Europe/Lisbon)"], {}),
    ("Brief replies", ["Sam likes brief replies that lead with the conclusion"], {}),
    ("Penicillin", ["Sam is allergic to penicillin"], {}),
    ("Cat", ["Sam and Alex have a cat named Miso", "Miso eats only wet food"], {}),
    ("Bicycle", ["Sam rides a grey Brompton bike"], {}),
    (
        "Bike again",
        ["Sam's bicycle is a grey Brompton", "Sam cycles to the office twice a week"],
        {},
    ),
    ("Football", ["Sam plays football every Friday evening"], {}),
    ("Trip", ["Sam plans a trip to Kyoto in April"], {}),
    ("Books", ["Sam reads science fiction before bed"], {}),
    ("Dentist", ["Sam's dentist is Dr Ferreira in Alvalade"], {}),
    ("Plants", ["Sam keeps a fig tree on the balcony"], {}),
    ("Languages", ["Sam speaks Portuguese, English and some Japanese"], {}),
    ("Long history", ["Sam's long career history: " + "projects, teams, places; " * 45], {}),
]


def seed(server: Server) -> None:
    for entry in MEMORY:
        reply = server.post("/v1/memory/MEMORY.md/entries", {"entry": entry}, token="write")
        assert reply.status == 200, reply.body
    user = server.get("/v1/files/USER.md", token="read").body["content"]
    user = user.replace("**Name:**", "**Name:** Sam", 1)
    assert server.put("/v1/files/USER.md", {"content": user}, token="write").status == 200
    reply = server.post(
        "/v1/memory/USER.md/entries",
        {"entry": "Time zone: Europe/Lisbon (WET/WEST)"},
        token="write",
    )
    assert reply.status == 200, reply.body
    for title, entries, extra in PROPOSALS:
        body = {"title": title, "entries": entries, "source": "chat", **extra}
        assert server.post("/v1/proposals", body, token="write").status == 200


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="docs/img")
    parser.add_argument("--label", default="after")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        env = {**isolated_env(Path(tmp) / "user"), "HEARTH_SEMANTIC": "off"}
        (Path(tmp) / "user").mkdir()
        root = make_home(Path(tmp) / "home", env)
        settings = root / "hearth.toml"
        text = settings.read_text()
        settings.write_text(text.replace("memory_md = 20000", "memory_md = 1600"))
        git(root, "commit", "-qam", "settings: a small MEMORY.md bound")
        server = start_server(root, env=env)
        try:
            seed(server)
            token = server.tokens["admin"]
            request = urllib.request.Request(
                server.url + "/ui/",
                headers={"Authorization": f"Bearer {token}", "Accept-Encoding": "gzip"},
            )
            with urllib.request.urlopen(request) as reply:
                body = reply.read()
                coding = reply.headers.get("Content-Encoding")
            plain = gzip.decompress(body) if coding == "gzip" else body
            print(f"/ui/: {len(plain):,} bytes of HTML, {len(body):,} sent ({coding or 'plain'})")
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
                for width, height in ((1280, 900), (390, 844)):
                    context = browser.new_context(
                        viewport={"width": width, "height": height},
                        extra_http_headers={"Authorization": f"Bearer {token}"},
                    )
                    page = context.new_page()
                    page.goto(server.url + "/ui/")
                    full = page.evaluate("document.documentElement.scrollHeight")
                    name = out / f"review-{args.label}-{width}.png"
                    page.screenshot(
                        path=str(name),
                        full_page=True,
                        clip={"x": 0, "y": 0, "width": width, "height": min(full, 1800)},
                    )
                    print(f"{width} px: page {full:,} px tall -> {name}")
                    context.close()
                browser.close()
        finally:
            server.stop()


if __name__ == "__main__":
    main()
