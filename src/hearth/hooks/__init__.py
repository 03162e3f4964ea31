"""Git hooks: what they run, how they are installed, and the shims themselves.

- ``shims/``: the shell git runs (``pre-commit``, and ``post`` for the four
  post hooks), installed by :mod:`hearth.hooks.install` (which also names
  the daily-note merge driver).
- :mod:`hearth.hooks.staged` and :mod:`hearth.hooks.precommit`: the check of
  the staged files, lean (no server needed, nothing heavy imported); a running
  server answers the same check over ``POST /v1/hooks/pre-commit``.
- :mod:`hearth.hooks.run` (``hearth hook NAME``) and
  :mod:`hearth.hooks.background` (the post hooks' detached pass).

Nothing is imported here: the pre-commit hook's start-up is its cost.
"""
