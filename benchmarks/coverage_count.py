"""Issue 30's measure: files of a repository holding an expert-parallel launch (an EP flag beside a launch word,
found by grep, not by moecfg) vs the files moecfg read or listed as unread. Library code (`.py` outside tests/,
examples/, scripts/, recipes/) is not a launch. The misses it prints are then inspected by hand (docs/wild.md).

    cd /tmp/wild/slime && moecfg check . --format json > /tmp/wild/slime.json
    REPORT=/tmp/wild/slime.json python benchmarks/coverage_count.py slime 20   # the tree is /tmp/wild/slime
"""
import json
import os
import re
import sys
EP = re.compile(r"expert[-_]model[-_]parallel[-_]size|--ep[-_]size\b|enable[-_]expert[-_]parallel|moe[-_]a2a[-_]backend|"
                r"expert[-_]parallel[-_]size|\bep_size\b|--ep\s+\d|--expert[-_]tensor[-_]parallel|enable_ep_moe|--ep[-_]size|--enable-ep\b|expert-parallel")
LAUNCH = re.compile(r"torchrun|python[0-9.]*\s+(?:-m\s+)?\S|\bserve\b|api_server|megatron\s+(?:sft|pt|rlhf)|swift\s+(?:sft|rlhf|pt)"
                    r"|ray\s+job\s+submit|execute_train\(|trtllm-serve|srun|main_ppo|run_recipe")
name = sys.argv[1]
root = f"/tmp/wild/{name}"
d = json.load(open(os.environ.get("REPORT", f"/tmp/wild/{name}.json")))
states = {f["file"].removeprefix("./"): f["state"] for f in d["files"]}
unread_files = {u["file"].removeprefix("./") for u in d["unread"]}
ep_files = []
for dp, dn, fn in os.walk(root):
    dn[:] = [x for x in dn if not x.startswith(".") and x not in ("node_modules", "third_party", "build", "dist")]
    for f in fn:
        if not f.endswith((".sh", ".bash", ".yaml", ".yml", ".py", ".md", ".rst")):
            continue
        p = os.path.join(dp, f)
        rel = os.path.relpath(p, root)
        if f.endswith(".py") and not re.search(r"(^|/)(tests?|examples?|scripts?|recipes?)/", rel):
            continue
        t = open(p, errors="replace").read()
        if EP.search(t) and LAUNCH.search(t):
            ep_files.append(rel)
covered = [f for f in ep_files if states.get(f) == "read" or f in unread_files]
missed = [f for f in ep_files if f not in covered]
print(f"{name}: EP launch files {len(ep_files)}, read {sum(states.get(f) == 'read' for f in ep_files)}, "
      f"read-or-listed {len(covered)}, missed {len(missed)}")
for f in missed[:int(sys.argv[2]) if len(sys.argv) > 2 else 15]:
    print("  missed", f, states.get(f))
