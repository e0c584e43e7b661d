"""`moecfg check .` on real repositories, the way CI runs it: at each folder's root, no settings, default options.

    python benchmarks/wild.py /tmp/wild/vllm-ascend /tmp/wild/lws ...   # one line per repository
    python benchmarks/wild.py --save after.json DIR...                  # also keep the figures
    python benchmarks/wild.py --compare before.json after.json          # exit code and errors, side by side

Per repository: files checked, wall time (and the CPU time of the child: other work on the machine inflates the
wall time, not the CPU time), launches recognised (distinct `launch` objects: file and `launch.index`), op calls derived
(a launch or document that reached an op), exit code, and errors / warnings / infos by code. The repositories are
fetched by hand (see docs/wild.md for the commits measured); nothing here downloads anything.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import time

SEVERITIES = ("error", "warning", "info")


def measure(folder: str, moecfg: list[str]) -> dict:
    """Runs `moecfg check . --format json` in `folder` (as CI does at a repository root) and sums its report."""
    t0, c0 = time.perf_counter(), os.times()
    done = subprocess.run([*moecfg, "check", ".", "--format", "json"], cwd=folder, capture_output=True, text=True,
                          check=False)
    seconds, c1 = time.perf_counter() - t0, os.times()
    cpu = (c1.children_user - c0.children_user) + (c1.children_system - c0.children_system)
    figures = {"repo": os.path.basename(os.path.abspath(folder)), "exit": done.returncode, "seconds": round(seconds, 2),
               "cpu_seconds": round(cpu, 2)}
    try:
        report = json.loads(done.stdout)
    except ValueError:
        figures["crash"] = done.stderr.strip().splitlines()[-1:] or ["no output"]
        return figures
    results = report["results"]
    figures["files"] = report["summary"]["files"]
    figures["launches"] = len({(r["file"], r["launch"].get("index", 0)) for r in results if "launch" in r})
    figures["ops"] = sum(1 for r in results if r.get("op") not in (None, "none"))
    coverage = report.get("coverage") or {}  # issue 30: launches seen but not read, by launcher
    figures["unread"] = coverage.get("launches_unread", 0)
    figures["unread_by_launcher"] = coverage.get("unread_by_launcher", {})
    for severity in SEVERITIES:
        codes = collections.Counter(d["code"] for r in results for d in r["diagnostics"] if d["severity"] == severity)
        figures[severity] = dict(sorted(codes.items()))
    return figures


def _codes(counts: dict) -> str:
    return " ".join(f"{code}x{n}" for code, n in counts.items()) or "-"


def line(f: dict) -> str:
    if "crash" in f:
        return f"{f['repo']:<22} exit {f['exit']}  no report: {f['crash'][0]}"
    head = (f"{f['repo']:<22} exit {f['exit']}  {f['files']:>5} files {f['seconds']:>6.2f} s ({f['cpu_seconds']:.2f} s CPU)  "
            f"{f['launches']:>4} launches {f['ops']:>4} op calls {f.get('unread', 0):>4} not read")
    if f.get("unread_by_launcher"):
        head += "\n    not read  " + " ".join(f"{k}x{n}" for k, n in f["unread_by_launcher"].items())
    return head + "".join(f"\n    {s + 's':<9} {sum(f[s].values()):>4}  {_codes(f[s])}" for s in SEVERITIES)


def compare(before: list[dict], after: list[dict]) -> str:
    old = {f["repo"]: f for f in before}
    rows = ["| repository | exit before | exit after | errors before | errors after | warnings before | warnings after |",
            "|---|---|---|---|---|---|---|"]
    for f in after:
        b = old.get(f["repo"], {})
        rows.append(f"| {f['repo']} | {b.get('exit', '?')} | {f['exit']} | {_total(b, 'error')} | {_total(f, 'error')} "
                    f"| {_total(b, 'warning')} | {_total(f, 'warning')} |")
    return "\n".join(rows)


def _total(f: dict, severity: str):
    return sum(f[severity].values()) if severity in f else "?"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="*")
    ap.add_argument("--save", metavar="FILE", help="write the figures as JSON")
    ap.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"), help="two --save files: a Markdown table")
    ap.add_argument("--moecfg", default=f"{sys.executable} -m moecfg", help="command that runs moecfg")
    args = ap.parse_args(argv)
    if args.compare:
        before, after = (json.load(open(p, encoding="utf-8")) for p in args.compare)
        print(compare(before, after))
        return 0
    figures = []
    for folder in args.folders:
        figures.append(measure(folder, args.moecfg.split()))
        print(line(figures[-1]), flush=True)
    total_files = sum(f.get("files", 0) for f in figures)
    total_seconds = sum(f["seconds"] for f in figures)
    total_cpu = sum(f.get("cpu_seconds", 0) for f in figures)
    print(f"total: {total_files} files in {total_seconds:.1f} s ({total_cpu:.1f} s CPU); "
          f"{sum(f['exit'] == 1 for f in figures)} of {len(figures)} exit 1")
    if args.save:
        with open(args.save, "w", encoding="utf-8") as out:
            json.dump(figures, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
