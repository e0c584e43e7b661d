"""Start-up and throughput of `moecfg check`, side by side with check-jsonschema on the same file.

    python benchmarks/bench_check.py [--runs 15] [--files 1000]

Prints, for one file cold (a fresh process each run; median of --runs): moecfg wall time,
check-jsonschema wall time (validating the same file against an equivalent JSON Schema) and their
ratio (target <= 0.5); then one invocation over --files files (target <= 1 s on 2 cores).
check-jsonschema is taken from PATH (pip install check-jsonschema); without it only moecfg is timed.
"""
from __future__ import annotations

import argparse
import json
import os
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


def wall(cmd: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def moecfg_cmd() -> list[str]:
    exe = shutil.which("moecfg")
    return [exe] if exe else [sys.executable, "-m", "moecfg"]


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
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--files", type=int, default=1000)
    args = ap.parse_args()
    moecfg = moecfg_cmd()
    print(f"machine: {os.cpu_count()} cores, python {sys.version.split()[0]}")
    print(f"file: {os.path.relpath(EXAMPLE, ROOT)}")
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
