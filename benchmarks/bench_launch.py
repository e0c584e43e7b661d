"""Throughput of `moecfg check` over a folder of launch artifacts, beside the YAML-only case.

    python benchmarks/bench_launch.py [--files 1000] [--runs 3]

Generates, in a temporary directory, a folder of --files files mixing the launch artifacts users keep in a
`deploy/` folder (vllm-ascend shell scripts with exports and continuations, Kubernetes Deployments and
LeaderWorkerSets whose `bash -c` block scalars start `vllm serve`, docker-compose files, YAML configs with a
`server_cmd:`, and ordinary manifests that are skipped), and a second folder of as many moecfg YAML documents
(the `examples/` documents, copied). Runs `moecfg check` on each (a fresh process; median of --runs) and
prints wall time and files/s for both.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

SCRIPT = """#!/bin/bash
# decode node {i}
export HCCL_BUFFSIZE={buf}
export HCCL_OP_EXPANSION_MODE=AIV
SEQS={seqs}
vllm serve /models/DeepSeek-R1-W8A8 \\
  --data-parallel-size 4 --tensor-parallel-size 4 --enable-expert-parallel \\
  --max-num-seqs $SEQS --max-num-batched-tokens 4096 --quantization ascend \\
  --speculative-config '{{"num_speculative_tokens": 3, "method": "mtp"}}'
"""

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: dsr1-{i}}}
spec:
  template:
    spec:
      nodeSelector: {{accelerator: huawei-Ascend910_9391}}
      containers:
        - name: decode
          image: quay.io/ascend/vllm-ascend:v0.13.0
          env:
            - {{name: HCCL_BUFFSIZE, value: "{buf}"}}
            - name: POD_IP
              valueFrom: {{fieldRef: {{fieldPath: status.podIP}}}}
          command: ["/bin/bash", "-c"]
          args:
            - |
              export SEQS={seqs}
              exec vllm serve /models/DeepSeek-R1-W8A8 --host $(POD_IP) \\
                --data-parallel-size 4 --tensor-parallel-size 4 --enable-expert-parallel \\
                --max-num-seqs $SEQS --quantization ascend
          resources: {{limits: {{huawei.com/ascend-1980: 16}}}}
---
apiVersion: v1
kind: Service
metadata: {{name: dsr1-{i}}}
spec: {{ports: [{{port: 8000}}]}}
"""

COMPOSE = """services:
  vllm:
    image: quay.io/ascend/vllm-ascend:v0.11.0
    environment: [HCCL_BUFFSIZE={buf}]
    command: vllm serve /models/DeepSeek-R1-W8A8 --data-parallel-size 2 --tensor-parallel-size 8 --enable-expert-parallel --max-num-seqs {seqs} --quantization ascend
"""

NIGHTLY = """env_common: &env_common
  HCCL_BUFFSIZE: {buf}
deployment:
  - envs:
      <<: *env_common
    server_cmd: >
      vllm serve vllm-ascend/DeepSeek-R1-0528-W8A8
          --data-parallel-size 2 --tensor-parallel-size 8 --enable-expert-parallel
          --max-num-seqs {seqs} --quantization ascend
"""

ORDINARY = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: web-{i}}}
spec:
  template:
    spec:
      containers: [{{name: web, image: "nginx:1.27"}}]
"""

KINDS = [("sh", SCRIPT), ("yaml", DEPLOYMENT), ("yaml", COMPOSE), ("yaml", NIGHTLY), ("yaml", ORDINARY)]


def make_launch_folder(path: str, files: int) -> None:
    for i in range(files):
        ext, template = KINDS[i % len(KINDS)]
        text = template.format(i=i, buf=512 + 64 * (i % 8), seqs=8 * (1 + i % 4))
        with open(os.path.join(path, f"f{i:05d}.{ext}"), "w", encoding="utf-8") as fh:
            fh.write(text)
    with open(os.path.join(path, ".moecfg.yaml"), "w", encoding="utf-8") as fh:
        fh.write("product: A3\ncann_version: 9.0.1\nframework_versions: {vllm-ascend: 0.13.0}\n")


def make_yaml_folder(path: str, files: int) -> None:
    examples = sorted(f for f in os.listdir(os.path.join(ROOT, "examples")) if f.endswith(".yaml"))
    for i in range(files):
        shutil.copy(os.path.join(ROOT, "examples", examples[i % len(examples)]), os.path.join(path, f"f{i:05d}.yaml"))


def timed(path: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "moecfg", "check", "--format", "json", path], cwd=ROOT,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        launch, plain = os.path.join(tmp, "deploy"), os.path.join(tmp, "yaml")
        os.mkdir(launch)
        os.mkdir(plain)
        make_launch_folder(launch, args.files)
        make_yaml_folder(plain, args.files)
        for label, path in (("launch artifacts", launch), ("moecfg YAML only", plain)):
            t = timed(path, args.runs)
            print(f"{label:18s} {args.files} files  {t:6.2f} s  {args.files / t:7.0f} files/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
