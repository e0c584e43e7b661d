"""Issue 21 item 6: every message names a value the user can set, in the user's own terms."""
from __future__ import annotations

import re

from wildkit import FIXTURES, findings

from moecfg.backends import Options
from moecfg.checking.launch import lint_launch_file
from moecfg.frameworks import LaunchContext
from moecfg.sources.readers import read_shell


def launch_results(name: str, ctx: LaunchContext):
    return lint_launch_file(read_shell((FIXTURES / name).read_text(encoding="utf-8")), name, ctx, Options())


def test_no_fix_says_lower_to_zero():
    messages = [m for _, _, _, m in findings("sglang-gpu-cap-zero-mtp.sh")]
    assert messages and not [m for m in messages if re.search(r"\bto 0\b", m)]


def test_sglang_findings_name_the_sglang_knob():
    (cap,) = [m for code, _, _, m in findings("sglang-gpu-cap-zero-mtp.sh") if code == "MC601"]
    assert "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK" in cap


def test_a_flag_the_launch_does_not_contain_is_a_default():
    text = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --moe-a2a-backend deepep --tp-size 8\n"
    (r, *_) = lint_launch_file(read_shell(text), "run.sh", LaunchContext(), Options())
    assert r.derivation["num_ranks"].startswith("8 <- --tp-size 8:")
    assert "(--ep-num-redundant-experts 0 (default))" in r.derivation["num_experts"]
    text = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --moe-a2a-backend deepep --device npu\n"
    ctx = LaunchContext(product="A3", product_source="--product")
    (r, *_) = lint_launch_file(read_shell(text), "run.sh", ctx, Options())
    assert r.derivation["ep_world_size"].startswith("1 <- --tp-size 1 (default):")


def test_unset_model_path_takes_the_settings_star_entry():
    ctx = LaunchContext(product="A3", product_source="--product", models=(("*", "deepseek-v3"),))
    results = launch_results("sglang-ascend-decode-model-unset.sh", ctx)
    assert results[0].arguments["h"] == 7168 and results[0].arguments["bs"] == 78
    assert not [d for r in results for d in r.diagnostics if d.code == "MC042"]


def test_unset_model_path_is_never_printed_as_none():
    ctx = LaunchContext(product="A3", product_source="--product")
    messages = [d.message for r in launch_results("sglang-ascend-decode-model-unset.sh", ctx) for d in r.diagnostics]
    (asked,) = [m for m in messages if "model" in m and "not known" in m]
    # nothing names the model (issue 30: no preset the evidence does not support): a placeholder to fill in
    assert "None" not in asked and re.search(r"`models: \{['\"]\*['\"]: <preset or path/to/config\.json>\}`", asked)


def test_a_json_flag_filled_in_by_a_template_or_kubernetes_is_unknown_not_invalid():
    got = [(code, line) for code, _, line, m in findings("llm-d-benchmark-kv-config-templated.yaml")
           if code in ("MC021", "MC023") and "--kv-transfer-config" in m]
    assert got == [("MC023", 7), ("MC023", 12)]


def test_a_kubernetes_variable_in_a_shell_script_is_literal_text():
    text = "vllm serve m --kv-transfer-config '{\"kv_role\":$(ROLE)}'\n"
    codes = [d.code for r in lint_launch_file(read_shell(text), "run.sh", LaunchContext(), Options())
             for d in r.diagnostics]
    assert "MC021" in codes


def test_each_sglang_knob_is_named_once_and_never_inside_another():
    text = ("export SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=1\n"
            "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --dp-size 8 --tp-size 8 "
            "--enable-dp-attention --max-running-requests 256 --moe-a2a-backend deepep "
            "--speculative-algorithm EAGLE --speculative-num-draft-tokens 2\n")
    for d in (d for r in lint_launch_file(read_shell(text), "run.sh", LaunchContext(), Options()) for d in r.diagnostics):
        assert d.message.count("(--deepep-config normal_dispatch.num_sms)") <= 1
        assert "num_sms (--deepep-config" not in d.message or "num_nvl_bytes (" not in d.message, d.message


def test_a_cap_that_fits_no_request_never_asks_to_lower_to_zero():
    # T = 1 token per rank, 2 tokens per request, DP attention (1 attention-TP rank): no request fits
    def mc976(requests: int) -> str:
        text = ("export SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=1\n"
                "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --dp-size 8 "
                f"--enable-dp-attention --max-running-requests {requests} --moe-a2a-backend deepep "
                "--speculative-algorithm EAGLE --speculative-num-draft-tokens 2\n")
        (m,) = [d.message for r in lint_launch_file(read_shell(text), "run.sh", LaunchContext(), Options())
                for d in r.diagnostics if d.code == "MC976"]
        assert not re.search(r"\bto 0\b", m), m
        return m

    assert mc976(256).endswith("set SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK >= 64")  # 32 requests x 2
    # 1024 requests x 2 = 2048 > 1024: raise the cap to DeepEP's limit and fit 512 requests per rank x 8
    assert "to 1024 and lower --max-running-requests to 4096" in mc976(8192)


def test_a_placeholder_inside_a_json_flag_is_unknown_not_invalid():
    # vllm-project/recipes@8959cf6 moonshotai/Kimi-K2.5.md:268
    text = ("vllm serve moonshotai/Kimi-K2.5 --tensor-parallel-size 8 \\\n"
            "    --speculative-config '{\"model\": <eagle3_model_name>, \"method\": \"eagle3\"}'\n")
    notes = [(d.code, d.message) for r in lint_launch_file(read_shell(text), "run.sh", LaunchContext(), Options())
             for d in r.diagnostics if "--speculative-config" in d.message]
    assert [c for c, _ in notes] == ["MC023"] and "<eagle3_model_name>" in notes[0][1]


def test_a_placeholder_in_a_json_flag_of_a_markdown_block_is_unknown_not_invalid():
    got = [(code, line) for code, _, line, m in findings("recipes-kimi-json-placeholder.md") if code in ("MC021", "MC023")]
    assert got == [("MC023", 7)]
