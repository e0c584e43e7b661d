"""Every rule that carries an automatic fix (tag `autofix`): its failing case gets a fix in the JSON report,
`check --diff` shows it and writes nothing, `check --fix` changes only the edited lines, and a second check no
longer reports the rule (issue 37)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from moecfg.cli.group import cli
from moecfg.core.registry import all_rules
from moecfg.render.rule_docs import all_docs

DOCS = {d.code: d for d in all_docs()}
A3 = "product: A3\ncann_version: 9.0.1\n"
GPU = "framework_versions:\n  sglang: {}\ndevice: H100\n"
SGL = ("#!/bin/bash\nexport SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=64\n"
       "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 16 --dp 16 --enable-dp-attention \\\n"
       "  --moe-a2a-backend deepep --deepep-mode low_latency --disaggregation-mode decode \\\n"
       "  --cuda-graph-max-bs {graph} --max-running-requests 1024 \\\n"
       "  --speculative-algorithm EAGLE --speculative-num-draft-tokens 2 --nnodes 2 --node-rank 0\n")
MINDIE = ('{"BackendConfig": {"npuDeviceIds": [[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]],\n'
          ' "ModelDeployConfig": {"ModelConfig": [{"modelName": "DeepSeek-V3", "worldSize": 16, "backendType": "atb",'
          ' "dp": 1, "tp": 16, "moe_tp": 1, "moe_ep": 16,\n'
          '  "models": {"deepseekv2": {"parallel_options": {"hccl_moe_ep_buffer": 256}}}}]},\n'
          ' "ScheduleConfig": {"maxBatchSize": 16, "maxPrefillTokens": 4096}}}\n')

K3 = ('{"model_type": "deepseek_v3", "hidden_size": 7168, "n_routed_experts": 384, "num_experts_per_tok": 16, '
      '"moe_intermediate_size": 2048, "n_shared_experts": 1, "num_hidden_layers": 13}\n')
# vllm-ascend#17202 (tests/frameworks/test_vllm_ascend_megamoe_recv.py): 512 tokens per rank x min(16, 384 / 16)
# = 8192 rows > mega_moe_max_tokens 6144, a value inside the --additional-config JSON
KIMI = ("vllm serve moonshotai/Kimi-K3-W4A8 --quantization ascend --enable-expert-parallel -tp 16 \\\n"
        "  --max-num-batched-tokens 8192 --kv-transfer-config '{\"kv_role\": \"kv_producer\"}' \\\n"
        "  --additional-config '{\"enable_fused_mc2\": 1, \"mega_moe_max_tokens\": 6144}'\n")
KIMI_SETTINGS = ('product: A3\ncann_version: 9.2.0\nframework_versions:\n  vllm-ascend: "0.27"\n'
                 'models:\n  "*": k3.json\n')

# code -> (files, the file the fix edits, the fix's human form); the op rules' cases are their docs' failing examples
CASES = {
    "MC501": ({"a.yaml": DOCS["MC501"].fail_example}, "a.yaml", "env.HCCL_BUFFSIZE: "),
    "MC502": ({"a.yaml": DOCS["MC502"].fail_example}, "a.yaml", "hccl_buffer_size.tp: "),
    "MC503": ({"a.yaml": DOCS["MC503"].fail_example}, "a.yaml", "env.HCCL_BUFFSIZE: "),
    "MC880": ({"a.yaml": DOCS["MC880"].fail_example}, "a.yaml", "env.HCCL_BUFFSIZE: "),
    "MC650": ({"a.yaml": DOCS["MC650"].fail_example}, "a.yaml", "num_nvl_bytes: "),
    "MC651": ({"a.yaml": DOCS["MC651"].fail_example}, "a.yaml", "num_rdma_bytes: "),
    "MC882": ({"a.yaml": DOCS["MC882"].fail_example}, "a.yaml", "max_output_size: "),
    "MC898": ({"a.yaml": DOCS["MC898"].fail_example}, "a.yaml", "env.HCCL_BUFFSIZE: "),
    "MC955": ({"s.sh": KIMI, "k3.json": K3, ".moecfg.yaml": KIMI_SETTINGS}, "s.sh", '"mega_moe_max_tokens": 8192'),
    "MC975": ({"s.sh": SGL.format(graph=64), ".moecfg.yaml": GPU.format("0.5.4")}, "s.sh",
              "export SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=128"),
    # the CUDA graphs fit (32 x 2 = 64 tokens); 1024 running requests // dp 16 x 2 = 128 do not
    "MC976": ({"s.sh": SGL.format(graph=32), ".moecfg.yaml": GPU.format("0.5.4")}, "s.sh",
              "export SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=128"),
    "MC978": ({"s.sh": "SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK=128 python -m sglang.launch_server "
                       "--model-path deepseek-ai/DeepSeek-V3 --moe-a2a-backend deepep_v2 --tp 8 "
                       "--chunked-prefill-size 8192\n", ".moecfg.yaml": GPU.format("0.5.23")}, "s.sh",
              "SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK=1024"),
    "MC996": ({"conf/config.json": MINDIE, "conf/mindie_env.json": '{"mindie_common_env": {"HCCL_BUFFSIZE": 2048}}\n',
               ".moecfg.yaml": A3}, "conf/config.json", '"hccl_moe_ep_buffer": 2048'),
}


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(text.encode())
    if ".moecfg.yaml" not in files:
        (root / ".moecfg.yaml").write_text(A3)


def run(*args: str):
    return CliRunner().invoke(cli, ["check", *args])


def diagnostics(root: Path) -> list[dict]:
    got = run("--format", "json", str(root))
    return [d | {"file": r["file"]} for r in json.loads(got.stdout)["results"] for d in r["diagnostics"]]


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_every_rule_with_a_fix_has_a_case():
    assert {r.code for r in all_rules() if "autofix" in r.tags} == set(CASES)


@pytest.mark.parametrize("code", sorted(CASES))
def test_fix_in_json_then_diff_then_fix_then_clean(tmp_path, code):
    files, edited, human = CASES[code]
    write(tmp_path, files)
    [hit] = [d for d in diagnostics(tmp_path) if d["code"] == code]
    fix = hit["fix"]
    assert fix["applicability"] == "safe" and fix["message"].startswith(human)
    [edit] = fix["edits"]
    before = snapshot(tmp_path)
    lines = before[edited].decode().splitlines()
    assert lines[edit["line"] - 1][edit["column"] - 1:edit["end_column"] - 1] == edit["original"]

    diff = run("--diff", str(tmp_path))
    assert diff.exit_code == 1 and f"+{lines[edit['line'] - 1][:edit['column'] - 1]}{edit['replacement']}" in diff.stdout
    assert snapshot(tmp_path) == before  # --diff writes nothing

    fixed = run("--fix", str(tmp_path))
    assert fixed.exit_code in (0, 1), fixed.output
    after = snapshot(tmp_path)
    assert set(after) == set(before)  # no temporary file left behind
    new_lines = after[edited].decode().splitlines()
    changed = [i + 1 for i, (a, b) in enumerate(zip(lines, new_lines)) if a != b]
    assert changed == [edit["line"]] and len(new_lines) == len(lines)
    assert new_lines[edit["line"] - 1] == (lines[edit["line"] - 1][:edit["column"] - 1] + edit["replacement"]
                                           + lines[edit["line"] - 1][edit["end_column"] - 1:])
    assert {k: v for k, v in after.items() if k != edited} == {k: v for k, v in before.items() if k != edited}
    assert code not in [d["code"] for d in diagnostics(tmp_path)]


def test_only_autofix_rules_carry_fixes_in_every_failing_example(tmp_path):
    """Every rule doc's failing document, checked: a fix appears only on a rule tagged autofix (the enumeration
    above is complete), and each fix's edit replaces exactly the text it names."""
    from moecfg.checking.engine import check_text

    tagged = {r.code for r in all_rules() if "autofix" in r.tags}
    seen = set()
    for code, doc in sorted(DOCS.items()):
        if not doc.fail_example:
            continue
        lines = doc.fail_example.split("\n")
        for r in check_text(doc.fail_example, f"{code}.yaml").results:
            for d in r.diagnostics:
                if d.fix is None:
                    continue
                assert d.code in tagged, f"{code}'s example: {d.code} has a fix but no autofix tag"
                for e in d.fix.edits:
                    assert lines[e.line - 1][e.column - 1:e.end_column - 1] == e.original
                seen.add(d.code)
    assert {"MC501", "MC502", "MC503", "MC650", "MC651", "MC880", "MC882", "MC898"} <= seen
