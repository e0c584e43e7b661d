"""Byte-for-byte parity of moecfg's output across a refactor (issue 19: the one-op-one-folder move).

    python benchmarks/layout_parity.py capture DIR    # run every command below, one file per command in DIR
    python benchmarks/layout_parity.py compare A B    # exit 1 and list the commands whose output differs

Commands: `check` (text and JSON) on every file of examples/ and every fixture file under tests/ (each file
on its own), `buffer` on every example deployment, `explain-launch` on the launch examples, `rules` (text,
JSON, each rule set's limits, the oldest-to-latest diff), `schema`, `explain` for every rule code, and the
generated docs/rules.md. Each capture holds the exit code, stdout and stderr. Run from the repository root.
"""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE_DIRS = ("tests/integration/fixtures", "tests/integration/golden", "tests/sources/fixtures")


def _files(top: str) -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for p in (ROOT / top).rglob("*") if p.is_file())


def commands() -> list[list[str]]:
    examples = _files("examples")
    fixtures = [f for d in FIXTURE_DIRS for f in _files(d)]
    cmds = []
    for path in examples + fixtures:
        cmds += [["check", path], ["check", "--format", "json", path]]
    cmds += [["buffer", p] for p in examples if "/launch/" not in p]
    cmds += [["explain-launch", "--product", "a3", p] for p in examples if "/launch/" in p]
    cmds += [["rules"], ["rules", "--format", "json"], ["rules", "--diff", "8.5", "latest"], ["schema"]]
    cmds += [["rules", "--ruleset", name] for name in _rulesets()]
    cmds += [["explain", code] for code in _codes()]
    return cmds


def _moecfg(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "moecfg", *args], cwd=ROOT, capture_output=True, text=True)


def _rulesets() -> list[str]:
    # the public names of the rule sets (contract); `rules --ruleset` prints each one's limits
    return ["8.5", "9.0", "9.1", "9.1.0", "9.1.0-beta.1", "9.1.0-beta.2", "9.1.0-beta.3", "latest",
            "master-2026-07-24"]


def _codes() -> list[str]:
    return [r["code"] for r in json.loads(_moecfg(["rules", "--format", "json"]).stdout)]


def _rule_docs() -> str:
    return subprocess.run([sys.executable, "-c", "from moecfg.render.rule_docs import all_docs, rules_markdown; "
                           "print(rules_markdown(all_docs()))"],
                          cwd=ROOT, capture_output=True, text=True).stdout


def _name(args: list[str]) -> str:
    text = " ".join(args)
    return hashlib.sha1(text.encode()).hexdigest()[:16] + ".txt"


def capture(out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    cmds = commands()
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(_moecfg, cmds))
    index = {}
    for args, res in zip(cmds, results):
        name = _name(args)
        index[name] = args
        (out_dir / name).write_text(f"$ moecfg {' '.join(args)}\nexit {res.returncode}\n--- stdout\n{res.stdout}"
                                    f"--- stderr\n{res.stderr}")
    (out_dir / "docs-rules.md").write_text(_rule_docs())
    index["docs-rules.md"] = ["python -m moecfg.render.rule_docs"]
    (out_dir / "index.json").write_text(json.dumps(index, indent=1, sort_keys=True))
    print(f"captured {len(cmds)} commands + docs/rules.md into {out_dir}")


def compare(a: Path, b: Path) -> int:
    index_a = json.loads((a / "index.json").read_text())
    index_b = json.loads((b / "index.json").read_text())
    differ = [n for n in sorted(index_a) if n not in index_b or (a / n).read_bytes() != (b / n).read_bytes()]
    extra = sorted(set(index_b) - set(index_a))
    total_bytes = sum((a / n).stat().st_size for n in index_a)
    for n in differ:
        print(f"DIFFERS: moecfg {' '.join(index_a[n])}")
    for n in extra:
        print(f"ONLY IN {b}: moecfg {' '.join(index_b[n])}")
    print(f"{len(index_a) - len(differ)} of {len(index_a)} outputs identical ({total_bytes} bytes compared)")
    return 1 if differ or extra else 0


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "capture":
        capture(Path(argv[1]))
        return 0
    if len(argv) == 3 and argv[0] == "compare":
        return compare(Path(argv[1]), Path(argv[2]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
