"""Generate moecfg/frameworks/vllm_ascend/image_cann.json: the CANN release each released vllm-ascend image is built
on, read from the `FROM quay.io/ascend/cann:<release>-...` line of every release tag's Dockerfiles.

Reads `git show <tag>:<Dockerfile>` from a vllm-ascend mirror (default: the fetch mirror under /work/.mirror); a tag
whose Dockerfiles disagree (the A2 and A3 images built on different releases) is left out: the tag alone cannot say.
Only tags from v0.7 on (the first with a CANN base image) are read. The table is committed: nothing is downloaded
when moecfg runs.

    python tools/gen_vllm_ascend_image_cann.py [MIRROR_GIT_DIR]
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "moecfg" / "frameworks" / "vllm_ascend" / "image_cann.json"
MIRROR = "/work/.mirror/vllm-project+vllm-ascend/repo"
DOCKERFILES = ("Dockerfile", "Dockerfile.a3", "Dockerfile.openEuler", "Dockerfile.a3.openEuler")
FROM = re.compile(r"^FROM\s+\S*/cann:(\d+\.\d+\.(?:\d+|rc\d+))-", re.M)
TAG = re.compile(r"^v(\d+)\.(\d+)\.\d+(?:\.post\d+|rc\d+)?$")


def git(mirror: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", mirror, *args], capture_output=True, text=True, check=False).stdout


def table(mirror: str) -> dict:
    out = {}
    for tag in git(mirror, "tag").split():
        m = TAG.match(tag)
        if not m or (int(m.group(1)), int(m.group(2))) < (0, 7):
            continue
        commit = git(mirror, "rev-parse", f"{tag}^{{commit}}").strip()
        seen = {}
        for name in DOCKERFILES:
            found = FROM.search(git(mirror, "show", f"{commit}:{name}"))
            if found:
                seen[name] = found.group(1)
        if seen and len(set(seen.values())) == 1:
            out[tag.lstrip("v")] = {"cann": next(iter(seen.values())), "commit": commit[:7],
                                    "dockerfiles": sorted(seen)}
    from packaging.version import Version

    return dict(sorted(out.items(), key=lambda kv: Version(kv[0])))


def main() -> None:
    mirror = sys.argv[1] if len(sys.argv) > 1 else MIRROR
    rows = table(mirror)
    if not rows:
        sys.exit(f"no release tag with a CANN base image in {mirror}")
    body = {"source": "vllm-project/vllm-ascend release tags, FROM quay.io/ascend/cann:<release> of "
                      + ", ".join(DOCKERFILES) + " (tools/gen_vllm_ascend_image_cann.py)",
            "images": rows}
    OUT.write_text(json.dumps(body, indent=1) + "\n")
    print(f"wrote {OUT.relative_to(ROOT)}: {len(rows)} tags")


if __name__ == "__main__":
    main()
