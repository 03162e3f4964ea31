"""The modules one served write crosses, counted call by call.

    .venv/bin/python bench/write_trace.py [--semantic] [--trail]

A test home (``wiring.initialize`` in a temporary folder, a few files) is
served in this process (``wiring.open_service``, ``api.app.create_app``,
uvicorn on a loopback port, in a thread), and one ``POST /v1/daily`` with a
write token is sent to it over real HTTP after a warm-up write. From the
moment the request is sent until its answer is read, a profile hook
(``sys.setprofile`` / ``threading.setprofile``, so the server's event loop,
its thread pool and the write-ahead thread are all seen) records every
Python call into a function of hearth's, in the threads that serve the
request and in the write-ahead thread (``hearth-index-ahead``); hearth's
other threads (the watcher seeing the file, the reconcile worker's pass that
renders ACTIVE.md, the status board's snapshot) are not the write's.

Prints the hearth modules and packages the write's calls entered, how many
times the trail changes package (a call whose caller is in another of
hearth's packages), and with ``--trail`` the first call into each module in
the order they happened (the trail a reader follows from the route to the
commit and the index).

Semantic ranking is off unless ``--semantic`` (the model's modules would
count, and a model must be at hand). Runs with another checkout's sources by
``PYTHONPATH=../other/src .venv/bin/python bench/write_trace.py``, to count
before and after a change. Figures, not assertions.
"""

from __future__ import annotations

import argparse
import datetime as dt
import http.client
import json
import os
import socket
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

os.environ.setdefault("GIT_AUTHOR_NAME", "bench")
os.environ.setdefault("GIT_AUTHOR_EMAIL", "bench@example.invalid")
os.environ.setdefault("GIT_COMMITTER_NAME", "bench")
os.environ.setdefault("GIT_COMMITTER_EMAIL", "bench@example.invalid")


def _module(frame: FrameType) -> str:
    return str(frame.f_globals.get("__name__", ""))


def _package(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 2 else module


class Trace:
    """The calls into hearth's functions while ``on``."""

    def __init__(self) -> None:
        self.on = False
        self.lock = threading.Lock()
        self.first: dict[str, tuple[int, str]] = {}
        self.calls: Counter[str] = Counter()
        self.crossings = 0
        self.order = 0

    def __call__(self, frame: FrameType, event: str, _arg: Any) -> None:
        if not self.on or event != "call":
            return
        module = _module(frame)
        if not module.startswith("hearth"):
            return
        name = threading.current_thread().name
        if name.startswith("hearth-") and name != "hearth-index-ahead":
            return  # the watcher, the worker, the status board: not the write's
        caller = frame.f_back
        with self.lock:
            self.calls[module] += 1
            if module not in self.first:
                self.order += 1
                self.first[module] = (self.order, frame.f_code.co_qualname)
            if caller is not None:
                above = _module(caller)
                if above.startswith("hearth") and _package(above) != _package(module):
                    self.crossings += 1


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _post(port: int, token: str, text: str) -> dict[str, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    body = json.dumps({"text": text})
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    conn.request("POST", "/v1/daily", body=body, headers=headers)
    reply = conn.getresponse()
    data = json.loads(reply.read())
    conn.close()
    if reply.status != 200:
        raise SystemExit(f"the write failed: {reply.status} {data}")
    return dict(data)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--semantic", action="store_true", help="semantic ranking on")
    parser.add_argument("--trail", action="store_true", help="print the trail, module by module")
    args = parser.parse_args()
    if not args.semantic:
        os.environ["HEARTH_SEMANTIC"] = "off"

    import uvicorn

    from hearth import wiring
    from hearth.api.app import create_app

    trace = Trace()
    threading.setprofile(trace)
    sys.setprofile(trace)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "home"
        wiring.initialize(root)
        (root / "memory" / "topics").mkdir(parents=True, exist_ok=True)
        token, _info = wiring.token_store(root).create("bench", "write", dt.datetime.now(dt.UTC))
        service = wiring.open_service(root)
        port = _free_port()
        config = uvicorn.Config(
            create_app(service, url=f"http://127.0.0.1:{port}"),
            host="127.0.0.1",
            port=port,
            log_level="warning",
            lifespan="on",
        )
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 60
        while not service.ready.is_set():
            if time.monotonic() > deadline:
                raise SystemExit("the server did not start")
            time.sleep(0.05)
        _post(port, token, "a warm-up entry")  # first-use imports and caches
        service.settle_active()
        trace.on = True
        answer = _post(port, token, "the heron came back to the weir")
        trace.on = False
        service.settle_active()
        server.should_exit = True
        thread.join(30)
    sys.setprofile(None)
    threading.setprofile(None)

    modules = sorted(trace.first)
    packages = sorted({_package(m) for m in modules})
    print(f"one served POST /v1/daily (semantic {'on' if args.semantic else 'off'}):")
    print(f"  committed {str(answer.get('commit', ''))[:12]} {answer.get('path')}")
    print(f"  hearth modules entered: {len(modules)}")
    print(f"  hearth packages entered: {len(packages)} ({', '.join(packages)})")
    print(f"  calls from one of hearth's packages into another: {trace.crossings}")
    print(f"  calls into hearth's functions: {sum(trace.calls.values())}")
    if args.trail:
        print("  the trail (first call into each module, in order):")
        for module, (order, name) in sorted(trace.first.items(), key=lambda kv: kv[1][0]):
            print(f"    {order:3d} {module}.{name}  ({trace.calls[module]} calls)")


if __name__ == "__main__":
    main()
