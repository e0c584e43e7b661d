"""Generate moecfg/frameworks/xllm/flags.json: xLLM's gflags (name, type, default) per release tag.

Reads a local mirror of github:jd-opensource/xllm (no network): every `DEFINE_<type>(name, default, ...)` under
`xllm/` at each release tag and at the mirror's HEAD ("main"), test sources excepted. Up to v0.9.1 the flags live
in xllm/core/common/global_flags.cpp; from v0.10.0 they are split over xllm/core/framework/config/*_config.cpp.

Usage: python tools/gen_xllm_flags.py /work/.mirror/jd-opensource+xllm/repo > moecfg/frameworks/xllm/flags.json
"""
from __future__ import annotations

import json
import re
import subprocess
import sys

TAGS = ("v0.6.0", "v0.6.1", "v0.7.0", "v0.7.1", "v0.7.2", "v0.8.0", "v0.9.0", "v0.9.1", "v0.10.0")
DEFINE = re.compile(r"\bDEFINE_(bool|int32|int64|uint32|uint64|double|string)\(\s*(\w+)\s*,\s*"
                    r"(\"(?:[^\"\\]|\\.)*\"|[^,]+?)\s*,", re.S)


def git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True, text=True).stdout


def flags_at(repo: str, ref: str) -> dict:
    files = [p for p in git(repo, "ls-tree", "-r", "--name-only", ref, "xllm").splitlines()
             if p.endswith((".cpp", ".h", ".cc")) and "/test" not in p and not p.endswith("_test.cpp")]
    out = {}
    for path in files:
        text = git(repo, "show", f"{ref}:{path}")
        if "DEFINE_" not in text:
            continue
        for kind, name, default in DEFINE.findall(text):
            default = default.strip()
            if default.startswith('"'):
                default = json.loads(default)
            out[name] = {"type": kind, "default": default, "file": path}
    return out


def main(repo: str) -> None:
    head = git(repo, "rev-parse", "HEAD").strip()
    releases = {t.lstrip("v"): (git(repo, "rev-parse", f"{t}^{{commit}}").strip(), flags_at(repo, t)) for t in TAGS}
    releases["main"] = (head, flags_at(repo, "HEAD"))
    data = {"framework": "xllm", "generated_by": "tools/gen_xllm_flags.py from jd-opensource/xllm tags and main",
            "releases": {r: {"commit": c, "flags": {n: [f["type"], f["default"]] for n, f in sorted(fl.items())}}
                         for r, (c, fl) in releases.items()}}
    json.dump(data, sys.stdout, indent=None, separators=(",", ":"), sort_keys=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
