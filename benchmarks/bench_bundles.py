"""A repository of Kubernetes release bundles that hold no launch (issue 31: 1,000 files, 50 MB, under 10 s).

    python benchmarks/bench_bundles.py [--files 1000] [--mb 50] [--runs 1] [--moecfg CMD ...]
    python benchmarks/bench_bundles.py --dir FOLDER [--moecfg CMD ...]   # an existing folder instead

Generates, in a temporary directory, --files files: bundles `install/v<N>/operator.yaml` (a CRD with a deep
openAPI schema, the operator's controller Deployment, RBAC, a Service, ConfigMaps; no launch word, no
accelerator), repeated until they hold --mb MB, and small files beside them (ConfigMaps, build scripts, a README,
a Deployment running a web server). Runs `moecfg check DIR` (each --moecfg command line, alternated; the default
is this interpreter's `-m moecfg`) and prints wall time, CPU time of the process tree, and the time to the first
line of output (streamed text output: the first results appear before the tree is done).
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

CRD_HEAD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets{v}.example.com
spec:
  group: example.com
  names: {{kind: Widget{v}, plural: widgets{v}}}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
"""
CRD_FIELD = """          field{i}:
            description: The number of replicas of component {i}; the controller scales it within its limits.
            type: object
            properties:
              size: {{type: integer, minimum: 0, maximum: 100}}
              image: {{type: string}}
"""
REST = """---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: widget-controller, namespace: widget-system}}
spec:
  template:
    spec:
      serviceAccountName: widget-controller
      containers:
      - name: manager
        image: example.com/widget/manager:v{v}
        command: [/manager]
        args: [--leader-elect, --health-probe-bind-address=:8081]
        resources: {{limits: {{cpu: 500m, memory: 256Mi}}}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {{name: widget-manager}}
rules:
- apiGroups: [example.com]
  resources: [widgets{v}]
  verbs: [get, list, watch, update]
---
apiVersion: v1
kind: Service
metadata: {{name: widget-metrics}}
spec: {{ports: [{{port: 8443}}]}}
"""
SMALL = {
    "configmap.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{i}}}\ndata: {{level: info}}\n",
    "build.sh": "#!/bin/bash\nset -e\nmake -C src{i} all\n",
    "README.md": "# Component {i}\n\n```bash\nmake install\n```\n",
    "web.yaml": ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web{i}}}\nspec:\n  template:\n    spec:\n"
                 "      containers:\n      - {{name: web, image: nginx, command: [nginx, -g, 'daemon off;']}}\n"),
}


def generate(root: str, files: int, mb: int) -> tuple[int, int]:
    """(bundles, bytes written)."""
    one = CRD_HEAD.format(v=0) + "".join(CRD_FIELD.format(i=i) for i in range(1200)) + REST.format(v=0)
    bundles = max(1, min(files // 2, (mb << 20) // len(one)))
    written = 0
    for v in range(bundles):
        text = CRD_HEAD.format(v=v) + "".join(CRD_FIELD.format(i=i) for i in range(1200)) + REST.format(v=v)
        os.makedirs(os.path.join(root, "install", f"v{v}"), exist_ok=True)
        with open(os.path.join(root, "install", f"v{v}", "operator.yaml"), "w", encoding="utf-8") as fh:
            fh.write(text)
        written += len(text)
    names = list(SMALL)
    for i in range(files - bundles):
        name = names[i % len(names)]
        folder = os.path.join(root, "components", f"c{i // len(names)}")
        os.makedirs(folder, exist_ok=True)
        text = SMALL[name].format(i=i)
        with open(os.path.join(folder, name), "w", encoding="utf-8") as fh:
            fh.write(text)
        written += len(text)
    return bundles, written


def run(cmd: list[str], root: str) -> tuple[float, float, float, int]:
    """(wall, CPU of the process tree, time to the first output line, exit code)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd + ["check", root], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    first = None
    for _line in p.stdout:
        if first is None:
            first = time.perf_counter() - t0
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    return wall, usage.ru_utime + usage.ru_stime, first if first is not None else wall, os.waitstatus_to_exitcode(status)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--mb", type=int, default=50)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--moecfg", action="append", metavar="CMD",
                    help="a moecfg command line (repeat to compare, e.g. a baseline venv's bin/moecfg)")
    ap.add_argument("--dir", help="check this existing folder instead of a generated one")
    args = ap.parse_args()
    cmds = [c.split() for c in (args.moecfg or [f"{sys.executable} -m moecfg"])]
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as root:
        if args.dir:
            root = args.dir
            print(f"tree: {root}")
        else:
            bundles, size = generate(root, args.files, args.mb)
            print(f"tree: {args.files} files, {bundles} bundles, {size / 1e6:.1f} MB")
        times: dict[int, list] = {i: [] for i in range(len(cmds))}
        for _ in range(args.runs):
            for i, cmd in enumerate(cmds):
                times[i].append(run(cmd, root))
        for i, cmd in enumerate(cmds):
            ts = times[i]
            print(f"{' '.join(cmd)}: wall {statistics.median(t[0] for t in ts):.2f} s, CPU "
                  f"{statistics.median(t[1] for t in ts):.2f} s, first line after "
                  f"{statistics.median(t[2] for t in ts):.2f} s, exit {ts[0][3]} (median of {args.runs})")
    print(f"load at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
