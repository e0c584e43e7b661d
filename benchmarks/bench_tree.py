"""Throughput on a big repository (issue 21 item 7): a generated 5,000-file tree checked as CI does.

    python benchmarks/bench_tree.py [--files 5000] [--moecfg PATH] [--runs 3]

The tree mixes what real repositories hold: moecfg documents (examples/), launches (shell scripts and Kubernetes
manifests from tests/sources/fixtures), foreign YAML (CI workflows, mkdocs, kustomize patches, Prow labels,
Helm templates), six 1.7 MB CustomResourceDefinitions, and folders nobody deploys (node_modules/, vendor/, a
.gitignored build folder) that must not be walked. It prints the files checked and skipped, the wall time
(median of --runs) and the target: < 10 s on 2 cores. `--moecfg` is the console script to run (default:
`moecfg` next to this Python, i.e. the installed one).
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FIXTURES = os.path.join(ROOT, "tests", "sources", "fixtures")
EXAMPLES = os.path.join(ROOT, "examples")

FOREIGN = {
    "ci.yaml": "name: ci\non: [push, pull_request]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n"
               "      - uses: actions/checkout@v4\n      - run: pytest -q\n",
    "mkdocs.yml": "site_name: docs\nmarkdown_extensions:\n  - pymdownx.emoji:\n"
                  "      emoji_index: !!python/name:material.extensions.emoji.twemoji\n",
    "patch.yaml": "- op: add\n  path: /spec/template/spec/containers/0/args/-\n  value: --verbose\n",
    "labels.yaml": "area:\n  - gateway\nkind:\n  - bug\n  - feature\n",
    "values.yaml": "replicaCount: 2\nimage:\n  repository: nginx\n  tag: stable\nservice:\n  type: ClusterIP\n"
                   "  port: 80\n",
    "role.yaml": "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: {{ .Release.Name }}\n"
                 "rules: []\n",
    "service.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n  - port: 80\n",
}


def crd_text(size: int = 1_700_000) -> str:
    head = ("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: big.example.com\n"
            "spec:\n  group: example.com\n  versions:\n  - name: v1\n    schema:\n      openAPIV3Schema:\n"
            "        properties:\n")
    field = "          f{i}:\n            description: {d}\n            type: string\n"
    parts, n = [head], len(head)
    for i in itertools.count():
        row = field.format(i=i, d="x" * 60)
        parts.append(row)
        n += len(row)
        if n >= size:
            return "".join(parts)


def sources() -> list[tuple[str, str]]:
    """(suffix, text) of every real file the tree copies."""
    out = []
    for folder in (EXAMPLES, os.path.join(EXAMPLES, "launch"), FIXTURES):
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            if os.path.isfile(path) and name.endswith((".yaml", ".yml", ".sh")):
                with open(path, encoding="utf-8") as fh:
                    out.append((os.path.splitext(name)[1], fh.read()))
    out.extend((os.path.splitext(n)[1], t) for n, t in FOREIGN.items())
    return out


def build(root: str, files: int) -> int:
    """The tree under `root`: `files` files checked (plus ignored folders that must not be walked)."""
    pool = sources()
    crd = crd_text()
    for i in range(6):
        _write(os.path.join(root, "config", "crd", f"crd-{i}.yaml"), crd)
    for i in range(files - 6):
        suffix, text = pool[i % len(pool)]
        _write(os.path.join(root, f"area{i % 40}", f"sub{i % 7}", f"file-{i}{suffix}"), text)
    for ignored in ("node_modules/pkg", "vendor/lib", "third_party/x", "build/out"):
        for i in range(200):
            _write(os.path.join(root, ignored, f"f{i}.yaml"), FOREIGN["values.yaml"])
    _write(os.path.join(root, ".gitignore"), "generated/\n")
    for i in range(200):
        _write(os.path.join(root, "generated", f"g{i}.yaml"), FOREIGN["values.yaml"])
    return files


def _write(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def run(moecfg: str, root: str) -> tuple[float, float, dict]:
    """(wall, cpu of moecfg and its worker processes, report)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    p = subprocess.run([moecfg, "check", "--exit-zero", "--format", "json", root], capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"moecfg failed ({p.returncode}): {p.stderr[-500:]}")
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return elapsed, cpu, json.loads(p.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=5000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--moecfg", default=os.path.join(os.path.dirname(sys.executable), "moecfg"))
    args = ap.parse_args()
    moecfg = args.moecfg if os.path.exists(args.moecfg) else shutil.which("moecfg")
    print(f"machine: {os.cpu_count()} cores, python {sys.version.split()[0]}; moecfg: {moecfg}")
    with tempfile.TemporaryDirectory() as root:
        expected = build(root, args.files)
        times, cpus, report = [], [], {}
        for _ in range(args.runs):
            t, cpu, report = run(moecfg, root)
            times.append(t)
            cpus.append(cpu)
        summary = report["summary"]
        skipped = report.get("skipped", [])
        print(f"tree: {expected} files to check (6 CRDs of 1.7 MB) + 1000 in node_modules/, vendor/, third_party/, "
              "build/ and a .gitignored folder")
        print(f"checked {summary['files']} files ({summary['documents']} results), skipped {len(skipped)} documents; "
              f"{summary['errors']} errors, {summary['warnings']} warnings, {summary['infos']} infos")
        crd = [s for s in skipped if "CustomResourceDefinition" in s["reason"]]
        print(f"CRDs skipped unparsed: {len(crd)} of 6")
        print(f"wall: median {statistics.median(times):.2f} s, min {min(times):.2f} s over {args.runs} runs "
              f"(target < 10 s on 2 cores); load average {os.getloadavg()[0]:.1f}")
        print(f"cpu (moecfg and its workers): median {statistics.median(cpus):.2f} s; on {os.cpu_count()} idle cores "
              f"about {statistics.median(cpus) / min(os.cpu_count() or 1, 8):.2f} s of wall")
        if summary["files"] != expected:
            sys.exit(f"expected {expected} files checked, got {summary['files']}: ignored folders were walked?")


if __name__ == "__main__":
    main()
