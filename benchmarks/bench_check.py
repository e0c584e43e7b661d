"""Start-up and throughput of `moecfg check`, side by side with yamllint and check-jsonschema on the same file.

    python benchmarks/bench_check.py [--runs 21] [--files 1000]

One file cold (a fresh process each run): `moecfg check FILE` and `yamllint FILE` alternated in one run (so
machine load hits both alike), median and min of --runs each, and their ratio (target <= 0.8); then the
`-X importtime` top 10 of moecfg's check (self time, min over 5 runs). Both run as `python -m ...` with byte
code caching on, as from a regular install (PYTHONDONTWRITEBYTECODE is dropped for the children). Then
check-jsonschema on the same file (an equivalent JSON Schema; target <= 0.5) and one invocation over --files
files (target <= 0.35x check-jsonschema). yamllint: pip install yamllint; check-jsonschema: taken from PATH.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
EXAMPLE = os.path.join(ROOT, "examples", "deepseek-v3-a3-ep32.yaml")

_JSON_TYPES = {"int": "integer", "env_int": "integer", "bool": "boolean", "str": "string", "float": "number",
               "version": ["string", "number"]}


def equivalent_schema() -> dict:
    """A JSON Schema of `kind: ascend` documents with the same keys, types and enums as moecfg's table."""
    sys.path.insert(0, ROOT)
    from moecfg.backends.ascend.fields import FIELDS

    def prop(f):
        if f.type == "enum":
            return {"enum": list(f.choices) + [a for a, _ in f.aliases]}
        if f.type == "mapping":
            return {"type": "object", "properties": {s.name: prop(s) for s in f.fields}}
        return {"type": _JSON_TYPES[f.type]}

    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
            "properties": {f.name: prop(f) for f in FIELDS}, "required": [f.name for f in FIELDS if f.required],
            "additionalProperties": False}


ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def once(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, cwd=ROOT, env=ENV)
    return time.perf_counter() - t0


def wall(cmd: list[str], runs: int) -> float:
    return statistics.median(once(cmd) for _ in range(runs))


def alternated(cmds: dict[str, list[str]], runs: int) -> dict[str, list[float]]:
    """Each command once per round, in turn, after one warm-up round (writes the byte code caches)."""
    for cmd in cmds.values():
        once(cmd)
    times = {name: [] for name in cmds}
    for _ in range(runs):
        for name, cmd in cmds.items():
            times[name].append(once(cmd))
    return times


def importtime_top(cmd: list[str], n: int = 10, runs: int = 5) -> list[tuple[int, str]]:
    """The n modules with the largest self import time (us), min over runs."""
    best: dict[str, int] = {}
    for _ in range(runs):
        p = subprocess.run([cmd[0], "-X", "importtime", *cmd[1:]], capture_output=True, text=True, cwd=ROOT,
                           env=ENV)
        for line in p.stderr.splitlines():
            m = re.match(r"import time:\s+(\d+) \|\s+\d+ \|\s*(\S+)", line)
            if m:
                best[m.group(2)] = min(best.get(m.group(2), 1 << 60), int(m.group(1)))
    return sorted(((us, name) for name, us in best.items()), reverse=True)[:n]


def moecfg_cmd() -> list[str]:
    return [sys.executable, "-m", "moecfg"]


def yamllint_startup(moecfg: list[str], runs: int) -> None:
    try:
        import yamllint  # noqa: F401
    except ImportError:
        print("yamllint not installed: pip install yamllint to compare")
        return
    times = alternated({"moecfg": moecfg + ["check", EXAMPLE], "yamllint": [sys.executable, "-m", "yamllint", EXAMPLE]},
                       runs)
    for name, ts in times.items():
        print(f"{name:8} 1 file cold:  median {statistics.median(ts) * 1000:6.1f} ms, min {min(ts) * 1000:6.1f} ms "
              f"({runs} runs, alternated)")
    ratio = statistics.median(times["moecfg"]) / statistics.median(times["yamllint"])
    ratio_min = min(times["moecfg"]) / min(times["yamllint"])
    print(f"ratio moecfg / yamllint: {ratio:.2f} (medians), {ratio_min:.2f} (mins)  (target <= 0.80)")
    print("moecfg check -X importtime, top 10 (self us, min of 5):")
    for us, name in importtime_top(moecfg + ["check", EXAMPLE]):
        print(f"  {us:7d}  {name}")


def many_files(directory: str, n: int) -> None:
    with open(EXAMPLE, encoding="utf-8") as fh:
        base = fh.read()
    for i in range(n):
        bs = 1 + i % 128
        text = base.replace("bs: 96", f"bs: {bs}")
        with open(os.path.join(directory, f"deploy-{i:04d}.yaml"), "w", encoding="utf-8") as fh:
            fh.write(text)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--files", type=int, default=1000)
    args = ap.parse_args()
    moecfg = moecfg_cmd()
    print(f"machine: {os.cpu_count()} cores, python {sys.version.split()[0]}")
    print(f"file: {os.path.relpath(EXAMPLE, ROOT)}")
    yamllint_startup(moecfg, args.runs)
    ours = wall(moecfg + ["check", EXAMPLE], args.runs)
    print(f"moecfg check, 1 file cold:           {ours * 1000:7.1f} ms (median of {args.runs})")
    cj = shutil.which("check-jsonschema")
    if cj:
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
            json.dump(equivalent_schema(), fh)
        theirs = wall([cj, "--schemafile", fh.name, EXAMPLE], args.runs)
        os.unlink(fh.name)
        print(f"check-jsonschema, same file cold:    {theirs * 1000:7.1f} ms (median of {args.runs})")
        print(f"ratio moecfg / check-jsonschema:     {ours / theirs:7.2f}  (target <= 0.50)")
    else:
        print("check-jsonschema not on PATH: pip install check-jsonschema to compare")
    with tempfile.TemporaryDirectory() as d:
        many_files(d, args.files)
        t = wall(moecfg + ["check", d], 3)
        print(f"moecfg check, {args.files} files, 1 process: {t * 1000:7.1f} ms (median of 3; target <= 1000)")
        if cj:
            files = sorted(os.path.join(d, f) for f in os.listdir(d))
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
                json.dump(equivalent_schema(), fh)
            t2 = wall([cj, "--schemafile", fh.name, *files], 1)
            os.unlink(fh.name)
            print(f"check-jsonschema, {args.files} files:        {t2 * 1000:7.1f} ms (1 run)")


if __name__ == "__main__":
    main()
