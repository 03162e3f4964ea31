"""A worker process of ``prepare.Readers``: ``python -m hearth.reconcile.reader_worker``.

A module of its own so that the outcomes it pickles are named
``hearth.reconcile.prepare.Outcome`` (run as ``-m ...prepare`` they would be
``__main__.Outcome``, which the pass cannot load).
"""

from __future__ import annotations

import sys

from hearth.reconcile.prepare import serve

if __name__ == "__main__":
    serve(sys.stdin.buffer, sys.stdout.buffer)
