"""Start-up and throughput of `moecfg check`, side by side with yamllint and check-jsonschema on the same file.

    python benchmarks/bench_check.py [--runs 21] [--files 1000] [--venv DIR]

Start-up as a user measures it: a regular (non-editable) install of this checkout and yamllint into a venv
(--venv, created and refreshed by the benchmark: `pip install --force-reinstall --no-deps .`), both run as
their console scripts (`DIR/bin/moecfg check one.yaml`, `DIR/bin/yamllint one.yaml`) on the same 10-line file,
alternated in one loop (so machine load hits both alike) after a warm-up round, --runs each. Printed: median and
min wall time of each, the ratios of medians and of mins (target <= 0.8), the same for CPU time (user + sys of
the child: steadier on a shared machine), then the `-X importtime` top 10 of moecfg's check (self time, min over
5 runs). Then check-jsonschema on the same file (an equivalent JSON Schema; target <= 0.5) and one invocation
over --files files (target <= 0.35x check-jsonschema; check-jsonschema is taken from PATH).
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


ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "GITHUB_ACTIONS")}
# The 10-line file of the start-up comparison: a whole moecfg document (one op, its buffer).
ONE_FILE = ("kind: ascend\nproduct: A3\nbs: 128\nh: 7168\nk: 8\nep_world_size: 32\nmoe_expert_num: 256\n"
            "cann_version: \"9.0\"\nenv:\n  HCCL_BUFFSIZE: 1024\n")


def once(cmd: list[str], cwd: str = ROOT) -> tuple[float, float]:
    """(wall, cpu) seconds of one run; cpu = user + sys of the child."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd, env=ENV)
    _, _, usage = os.wait4(p.pid, 0)
    return time.perf_counter() - t0, usage.ru_utime + usage.ru_stime


def wall(cmd: list[str], runs: int) -> float:
    return statistics.median(once(cmd)[0] for _ in range(runs))


def alternated(cmds: dict[str, list[str]], runs: int, cwd: str = ROOT) -> dict[str, list[tuple[float, float]]]:
    """Each command once per round, in turn, after one warm-up round (writes the byte code caches)."""
    for cmd in cmds.values():
        once(cmd, cwd)
    times = {name: [] for name in cmds}
    for _ in range(runs):
        for name, cmd in cmds.items():
            times[name].append(once(cmd, cwd))
    return times


def install(venv: str) -> str:
    """A venv holding a regular install of this checkout and yamllint; returns its bin folder."""
    bin_dir = os.path.join(venv, "bin")
    pip = [os.path.join(bin_dir, "python"), "-m", "pip", "install", "-q"]
    if not os.path.exists(os.path.join(bin_dir, "python")):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run(pip + [ROOT, "yamllint"], check=True)
    else:
        subprocess.run(pip + ["--force-reinstall", "--no-deps", ROOT], check=True)
    return bin_dir


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


def yamllint_startup(bin_dir: str, runs: int) -> None:
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "one.yaml"), "w", encoding="utf-8") as fh:
            fh.write(ONE_FILE)
        moecfg = [os.path.join(bin_dir, "moecfg"), "check", "one.yaml"]
        times = alternated({"moecfg": moecfg, "yamllint": [os.path.join(bin_dir, "yamllint"), "one.yaml"]}, runs, d)
        for i, what in ((0, "wall"), (1, "cpu ")):
            for name, ts in times.items():
                values = [t[i] for t in ts]
                print(f"{name:8} {what} one.yaml (10 lines): median {statistics.median(values) * 1000:6.1f} ms, "
                      f"min {min(values) * 1000:6.1f} ms ({runs} runs, alternated, console scripts)")
            ours, theirs = [t[i] for t in times["moecfg"]], [t[i] for t in times["yamllint"]]
            print(f"ratio moecfg / yamllint ({what.strip()}): {statistics.median(ours) / statistics.median(theirs):.2f} "
                  f"(medians), {min(ours) / min(theirs):.2f} (mins)  (target <= 0.80)")
        print("moecfg check -X importtime, top 10 (self us, min of 5):")
        python = os.path.join(bin_dir, "python")
        for us, name in importtime_top([python, moecfg[0], "check", os.path.join(d, "one.yaml")]):
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
    ap.add_argument("--venv", default=os.path.join(tempfile.gettempdir(), "moecfg-bench-venv"),
                    help="venv for the regular install of this checkout and yamllint (created when missing)")
    args = ap.parse_args()
    moecfg = moecfg_cmd()
    print(f"machine: {os.cpu_count()} cores, python {sys.version.split()[0]}, load {os.getloadavg()[0]:.1f}")
    yamllint_startup(install(args.venv), args.runs)
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
        print(f"moecfg check, {args.files} files, 1 invocation: {t * 1000:7.1f} ms (median of 3; target <= 1000)")
        if cj:
            files = sorted(os.path.join(d, f) for f in os.listdir(d))
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
                json.dump(equivalent_schema(), fh)
            t2 = wall([cj, "--schemafile", fh.name, *files], 1)
            os.unlink(fh.name)
            print(f"check-jsonschema, {args.files} files:        {t2 * 1000:7.1f} ms (1 run)")


if __name__ == "__main__":
    main()
