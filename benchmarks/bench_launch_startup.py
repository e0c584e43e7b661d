"""Start-up of `moecfg check` on a two-line launch script, beside yamllint on one YAML file (issue 31: <= 0.8x).

    python benchmarks/bench_launch_startup.py [--runs 21] [--venv DIR] [--baseline REF]

Console scripts of regular installs (bench_check.install: this checkout and yamllint in --venv), alternated in
one loop after a warm-up round, so machine load hits every command alike: `yamllint one.yaml` (bench_check's
10-line document), `moecfg check launch.sh` (two lines: an export and a `vllm serve` with expert parallelism),
and `moecfg check one.yaml`. With --baseline REF, the tree of git REF (git archive) is installed in a second venv
and its `moecfg check launch.sh` runs in the same loop (a paired before/after). Printed: median and min of wall
and CPU time (user + sys of the child), the ratios to yamllint, and the `-X importtime` top 15 of the launch check.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_check import ONE_FILE, ROOT, alternated, importtime_top, install  # noqa: E402

LAUNCH = ("export HCCL_BUFFSIZE=1024\n"
          "vllm serve /models/DeepSeek-V3 --tensor-parallel-size 8 --enable-expert-parallel\n")


def baseline_venv(ref: str, venv: str) -> str:
    """A venv holding a regular install of git `ref` of this repository (its tree exported, never checked out)."""
    src = tempfile.mkdtemp(prefix="moecfg-baseline-")
    archive = subprocess.run(["git", "archive", ref], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", src], input=archive, check=True)
    if not os.path.exists(os.path.join(venv, "bin", "python")):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    subprocess.run([os.path.join(venv, "bin", "python"), "-m", "pip", "install", "-q", src], check=True)
    subprocess.run([os.path.join(venv, "bin", "python"), "-m", "pip", "install", "-q", "--force-reinstall", "--no-deps",
                    src], check=True)
    return os.path.join(venv, "bin")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--venv", default=os.path.join(tempfile.gettempdir(), "moecfg-bench-venv"))
    ap.add_argument("--baseline", metavar="REF", help="also run git REF's moecfg in the same loop (paired)")
    args = ap.parse_args()
    print(f"machine: {os.cpu_count()} cores, python {sys.version.split()[0]}, load {os.getloadavg()[0]:.1f}")
    bin_dir = install(args.venv)
    with tempfile.TemporaryDirectory() as d:
        for name, text in (("one.yaml", ONE_FILE), ("launch.sh", LAUNCH)):
            with open(os.path.join(d, name), "w", encoding="utf-8") as fh:
                fh.write(text)
        cmds = {"yamllint one.yaml": [os.path.join(bin_dir, "yamllint"), "one.yaml"],
                "moecfg launch.sh": [os.path.join(bin_dir, "moecfg"), "check", "launch.sh"],
                "moecfg one.yaml": [os.path.join(bin_dir, "moecfg"), "check", "one.yaml"]}
        if args.baseline:
            base = baseline_venv(args.baseline, args.venv + "-baseline")
            cmds[f"{args.baseline} launch.sh"] = [os.path.join(base, "moecfg"), "check", "launch.sh"]
        times = alternated(cmds, args.runs, d)
        ref = times["yamllint one.yaml"]
        for i, what in ((0, "wall"), (1, "cpu")):
            for name, ts in times.items():
                values = [t[i] for t in ts]
                ratio = statistics.median(values) / statistics.median([t[i] for t in ref])
                print(f"{name:24} {what:4} median {statistics.median(values) * 1000:6.1f} ms, min "
                      f"{min(values) * 1000:6.1f} ms, {ratio:.2f}x yamllint (medians; "
                      f"{min(values) / min(t[i] for t in ref):.2f}x of the mins)")
        print(f"({args.runs} runs each, alternated, console scripts; load at the end {os.getloadavg()[0]:.1f})")
        print("moecfg check launch.sh -X importtime, top 15 (self us, min of 5):")
        for us, name in importtime_top([os.path.join(bin_dir, "python"), cmds["moecfg launch.sh"][0], "check",
                                        os.path.join(d, "launch.sh")], n=15):
            print(f"  {us:7d}  {name}")


if __name__ == "__main__":
    main()
