"""What letting go of the index's mapped pages every N searches costs a search, and leaves resident.

    .venv/bin/python bench/index_pages.py HOME QUERIES [--every 0,64,32,16] [--turns 2]

HOME is a built home (say ``bench/workload_memory.py --work DIR``'s
``DIR/built-100000``; it is only read), QUERIES a file of one query a line
(``DIR/seed-100000.queries.json`` holds workload.py's, as JSON). For each
``--every`` (0: never), in turn, ``--turns`` times, a fresh process opens
the home as the CLI does (``Reconciler.catch_up``) and asks ``LiveIndex.search``
each query (20 to warm first), the index's pages let go of every N searches
(``heap.now_and_then``, as ``hearth serve`` does every
``SEARCHES_PER_GIVE_BACK``): per search the CPU time of the process (user +
system) p50 and mean, the minor page faults per search, and the resident
pages of the index's files (``/proc/self/smaps``) at the end and the most
after any search. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import textwrap
from pathlib import Path

from homegen import use_git_identity

ONE = textwrap.dedent(
    """
    import json, resource, statistics, sys, time
    from pathlib import Path
    from hearth import heap, wiring

    root, every = Path(sys.argv[1]), int(sys.argv[2])
    queries = json.loads(sys.argv[3])
    reconciler = wiring.open_app(root).reconciler
    reconciler.catch_up()
    live = reconciler.index
    folder = str(live.folder)
    live._searched = heap.now_and_then(every if every else 10**9, folder)

    def index_kb():
        kb, inside = 0, False
        with open("/proc/self/smaps") as maps:
            for line in maps:
                head = line.split(None, 1)[0]
                if not head.endswith(":"):
                    parts = line.split(None, 5)
                    inside = len(parts) > 5 and parts[5].startswith(folder)
                elif inside and head == "Rss:":
                    kb += int(line.split()[1])
        return kb

    for text in queries[:20]:
        live.search(text, limit=10)
    cpu, most = [], 0
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for text in queries[20:]:
        t0 = time.process_time()
        live.search(text, limit=10)
        cpu.append(time.process_time() - t0)
        most = max(most, index_kb())
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
    n = len(cpu)
    print(json.dumps({"p50": 1000 * statistics.median(cpu), "mean": 1000 * sum(cpu) / n,
                      "faults": faults / n, "end": index_kb() / 1024, "most": most / 1024}))
    """
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("home", type=Path)
    parser.add_argument("queries", type=Path)
    parser.add_argument("--every", default="0,64,32,16")
    parser.add_argument("--turns", type=int, default=2)
    args = parser.parse_args()
    env = use_git_identity()
    text = args.queries.read_text()
    queries = json.loads(text) if text.lstrip().startswith("[") else text.splitlines()
    queries = queries[:20] + queries
    print("every  CPU/search p50, mean ms  minor faults/search  index resident MB: end, most")
    for turn in range(args.turns):
        for every in (int(e) for e in args.every.split(",")):
            out = subprocess.run(
                [sys.executable, "-c", ONE, str(args.home), str(every), json.dumps(queries)],
                env=env,
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            f = json.loads(out.splitlines()[-1])
            print(
                f"{every or 'never':>5}  {f['p50']:10.2f} {f['mean']:6.2f}  {f['faults']:19.1f}"
                f"  {f['end']:10.1f} {f['most']:6.1f}   (turn {turn + 1})",
                flush=True,
            )


if __name__ == "__main__":
    main()
