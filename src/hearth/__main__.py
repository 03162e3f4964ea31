"""``python -m hearth``: the same CLI (what installed git hooks call)."""

from hearth.launch import main

main()
