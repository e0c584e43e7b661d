"""`moecfg check .` on real repositories, the way CI runs it: at each folder's root, no settings, default options.

    python benchmarks/wild.py /tmp/wild/vllm-ascend /tmp/wild/lws ...   # one line per repository
    python benchmarks/wild.py --save after.json DIR...                  # also keep the figures
    python benchmarks/wild.py --compare before.json after.json          # exit code and errors, side by side
    python benchmarks/wild.py --markdown --save md.json DIR...          # also read documentation (--markdown)
    python benchmarks/wild.py --table before.json after.json            # the coverage table of docs/wild.md

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
import re
import subprocess
import sys
import time

SEVERITIES = ("error", "warning", "info")
# "EP launch files by grep": a shell, YAML or documentation file that sets an expert-parallel flag or key (the
# bare word `deepep` in prose does not count); the by-hand count of docs/wild.md, round of 2026-11-28
EP_SUFFIXES = (".sh", ".bash", ".yaml", ".yml", ".md", ".mdx", ".rst", ".toml")  # .toml: prime-rl configs
DOC_SUFFIXES = (".md", ".mdx", ".rst")  # documentation: read with --markdown; the rest are launch files
EP_FLAG = re.compile(r"--ep-size|--ep_size|\bep_size *[:=]|--expert-parallel-size|--expert[-_]model[-_]parallel[-_]size"
                     r"|expert_model_parallel_size *[:=]|--enable[-_]expert[-_]parallel|enable_expert_parallel *[:=]"
                     r"|--moe[-_]a2a[-_]backend|moe_a2a_backend *[:=]|--enable-deepep-moe|--ep[ =][0-9$]|--ep-num\b"
                     r"|expert_parallel_size *[:=]|\bEP_SIZE=|--enable[-_]ep[-_]moe|\bEP=[0-9$]|\bep: *[0-9$]"
                     r"|^ *expert: *true|^ *ep *= *[0-9]", re.M)  # `ep = 8`: prime-rl's [trainer.model] (TOML)


def ep_files(folder: str) -> list[str]:
    """The files of the tree (git's view: tracked and untracked, .gitignore respected) that set expert parallelism."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=folder, capture_output=True,
                            check=False).stdout.decode("utf-8", "replace").split("\0")
    out = []
    for name in listed:
        if name.lower().endswith(EP_SUFFIXES):
            try:
                with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as f:
                    if EP_FLAG.search(f.read(2_000_000)):
                        out.append(name)
            except OSError:
                continue
    return sorted(out)


def _ep_states(folder: str, report: dict) -> dict:
    """EP launch files by state: read (or checked), listed as unread, or neither (skipped or not walked)."""
    states = {f["file"].removeprefix("./"): f["state"] for f in report.get("files", [])}
    unread = {u["file"].removeprefix("./") for u in report.get("unread", [])}
    counts, missed = collections.Counter(), []
    surfaces: dict[str, collections.Counter] = {"docs": collections.Counter(), "files": collections.Counter()}
    for name in ep_files(folder):
        state = states.get(name, "not walked")
        state = "read" if state == "checked" else "unread" if name in unread and state != "read" else state
        counts[state] += 1
        surfaces["docs" if name.lower().endswith(DOC_SUFFIXES) else "files"][state] += 1
        if state not in ("read", "unread"):
            missed.append(name)
    return {"ep_files": sum(counts.values()), "ep_states": dict(counts), "ep_missed": missed,
            "ep_by_surface": {k: dict(v) for k, v in surfaces.items()}}


def measure(folder: str, moecfg: list[str], markdown: bool = False, ep: bool = False) -> dict:
    """Runs `moecfg check . --format json` in `folder` (as CI does at a repository root) and sums its report;
    `markdown` adds --markdown, `ep` counts the EP launch files by grep and what became of them."""
    t0, c0 = time.perf_counter(), os.times()
    done = subprocess.run([*moecfg, "check", ".", "--format", "json", *(["--markdown"] if markdown else [])],
                          cwd=folder, capture_output=True, text=True, check=False)
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
    if ep:
        figures.update(_ep_states(folder, report))
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
    if "ep_files" in f:
        head += (f"\n    EP files  {f['ep_files']}: " + " ".join(f"{k} {n}" for k, n in sorted(f["ep_states"].items())))
        for surface, got in f.get("ep_by_surface", {}).items():
            if got:
                head += f"\n      {surface:5}   " + " ".join(f"{k} {n}" for k, n in sorted(got.items()))
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


def table(before: list[dict], after: list[dict]) -> str:
    """Coverage before / after per repository: files, launches read, launches listed as not read, EP launch files
    (by grep) read or listed, errors / warnings."""
    old = {f["repo"]: f for f in before}
    rows = ["| repository | files | launches read | not read (listed) | EP files (grep) | EP read | EP listed "
            "| errors | warnings |", "|---|---|---|---|---|---|---|---|---|"]
    for f in after:
        b = old.get(f["repo"], {})

        def pair(key, get=lambda x, k: x.get(k, "?")):
            was, now = get(b, key), get(f, key)
            return f"{now}" if was == now else f"{was} -> {now}"
        ep = lambda x, k: x.get("ep_states", {}).get(k, 0) if "ep_states" in x else "?"  # noqa: E731
        rows.append(f"| {f['repo']} | {pair('files')} | {pair('launches')} | {pair('unread')} | {f.get('ep_files', '?')} "
                    f"| {pair('read', ep)} | {pair('unread', ep)} | {pair('error', _total)} "
                    f"| {pair('warning', _total)} |")
    return "\n".join(rows)


def _total(f: dict, severity: str):
    return sum(f[severity].values()) if severity in f else "?"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="*")
    ap.add_argument("--save", metavar="FILE", help="write the figures as JSON")
    ap.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"), help="two --save files: a Markdown table")
    ap.add_argument("--table", nargs=2, metavar=("BEFORE", "AFTER"), help="two --save files: the coverage table")
    ap.add_argument("--markdown", action="store_true", help="run `moecfg check . --markdown` (documentation read)")
    ap.add_argument("--no-ep", action="store_true", help="do not count the EP launch files by grep")
    ap.add_argument("--moecfg", default=f"{sys.executable} -m moecfg", help="command that runs moecfg")
    args = ap.parse_args(argv)
    if args.compare or args.table:
        before, after = (json.load(open(p, encoding="utf-8")) for p in (args.compare or args.table))
        print(compare(before, after) if args.compare else table(before, after))
        return 0
    figures = []
    for folder in args.folders:
        figures.append(measure(folder, args.moecfg.split(), args.markdown, not args.no_ep))
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
