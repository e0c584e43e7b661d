"""Layout parity (issue 31): moecfg's `check` output over examples/ and every fixture folder under tests/, saved
to one JSON file before a structure move and compared after it. A move changes no output.

    python tools/layout_parity.py save BEFORE.json      # run from the repository root
    python tools/layout_parity.py compare BEFORE.json   # exit 1 and list what differs

Each folder is checked as a whole (text and JSON), and each file in it on its own (JSON); every run keeps its
exit code, stdout and stderr. benchmarks/layout_parity.py is the wider capture (buffer, rules, explain, ...).
"""
from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("examples", "tests/integration/fixtures", "tests/integration/golden", "tests/sources/fixtures",
           "tests/frameworks/fixtures", "tests/fixtures_foreign", "tests/wild/fixtures")


def commands() -> list[list[str]]:
    cmds = []
    for folder in FOLDERS:
        if not (ROOT / folder).is_dir():
            continue
        cmds += [["check", folder], ["check", "--format", "json", folder]]
        files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / folder).rglob("*") if p.is_file())
        cmds += [["check", "--format", "json", f] for f in files]
    return cmds


def _run(args: list[str]) -> dict:
    res = subprocess.run([sys.executable, "-m", "moecfg", *args], cwd=ROOT, capture_output=True, text=True)
    return {"exit": res.returncode, "stdout": res.stdout, "stderr": res.stderr}


def capture() -> dict[str, dict]:
    cmds = commands()
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(_run, cmds))
    return {" ".join(args): res for args, res in zip(cmds, results)}


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("save", "compare"):
        print(__doc__, file=sys.stderr)
        return 2
    now = capture()
    if argv[0] == "save":
        Path(argv[1]).write_text(json.dumps(now, indent=1, sort_keys=True), encoding="utf-8")
        print(f"saved {len(now)} runs to {argv[1]}")
        return 0
    before = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    differ = sorted(k for k in before.keys() | now.keys() if before.get(k) != now.get(k))
    for key in differ:
        print(f"DIFFERS: moecfg {key}")
    print(f"{len(before) - len(differ)} of {len(before)} runs identical")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
