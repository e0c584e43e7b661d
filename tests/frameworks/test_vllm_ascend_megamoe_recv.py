"""MegaMoE receive capacity per vllm-ascend release (MC955 error / MC953 warning) with vllm-ascend#17202's numbers.

#17202: Kimi-K3 W4A8, A3, TP16 = EP16, top-16, --max-num-batched-tokens 8192, PD prefill node, CANN 9.2.0,
mega_moe_max_tokens 6144 -> HCCL 507057 on the first long prefill; 65536 and 0 run.
"""
from __future__ import annotations

import json

import pytest

from moecfg.frameworks import LaunchContext
import moecfg.frameworks.vllm_ascend as va
from vllm_ascend_launches import codes, launch

# Kimi-K3-like dims: top-16 as in #17202; 384 routed experts -> 384 / EP 16 = 24 per rank, min(16, 24) = 16
K3 = {"model_type": "deepseek_v3", "hidden_size": 7168, "n_routed_experts": 384, "num_experts_per_tok": 16,
      "moe_intermediate_size": 2048, "n_shared_experts": 1, "num_hidden_layers": 13}


def k3_ctx(tmp_path, version="0.27", cann="9.2.0") -> LaunchContext:
    (tmp_path / "config.json").write_text(json.dumps(K3))
    return LaunchContext(product="A3", product_source="--product", cann=cann, settings_dir=str(tmp_path),
                         framework_versions=(("vllm-ascend", version),), models=(("*", "config.json"),))


def k3_launch(extra: dict, mnbt: int = 8192):
    cfg = json.dumps({"enable_fused_mc2": 1, **extra})
    return launch(f"vllm serve moonshotai/Kimi-K3-W4A8 --quantization ascend --enable-expert-parallel -tp 16 "
                  f"--max-num-batched-tokens {mnbt} --kv-transfer-config '{{\"kv_role\": \"kv_producer\"}}' "
                  f"--additional-config '{cfg}'\n")


def mega(tmp_path, extra: dict, **kw):
    d = va.derive(k3_launch(extra), k3_ctx(tmp_path, **kw))
    calls = [c for c in d.calls if c.op == "mega_moe"]
    assert calls, [(c.op, c.why_none) for c in d.calls]
    return calls[0]


def test_issue_17202_is_an_error_naming_the_value_that_works(tmp_path):
    c = mega(tmp_path, {"mega_moe_max_tokens": 6144})
    # the fix of #14358/#14439 sizes the buffer from max_num_batched_tokens: 8192 / TP 16 = 512 tokens per rank
    assert c.arguments["num_max_tokens_per_rank"] == 512 and c.arguments["bs"] == 512
    assert c.arguments["max_recv_token_num"] == 6144
    note = next(n for n in c.notes if n.code == "MC955")
    # balanced load: 512 tokens per rank x min(16, 384 / 16 = 24) = 8192 > 6144
    assert note.severity is None or note.severity == "error"
    assert "mega_moe_max_tokens" in note.message and "at least 8192" in note.message
    assert "131072" in note.message  # 512 x EP 16 x 16: covers any routing


@pytest.mark.parametrize("mmt,code", [
    (8191, "MC955"),    # one below the balanced load 512 x 16 = 8192: error
    (8192, "MC953"),    # the balanced load itself: fits balanced routing, below the safe bound: warning
    (65536, "MC953"),   # worked in #17202, still below 512 x 16 x 16 = 131072: warning (skewed routing)
    (131071, "MC953"),
    (131072, None),     # the absolute safe bound: nothing
    (0, None),          # 0 reaches the op: auto on CANN 9.1.0+ (#17162; worked in #17202)
])
def test_boundaries(tmp_path, mmt, code):
    c = mega(tmp_path, {"mega_moe_max_tokens": mmt})
    found = [x for x in codes(c.notes) if x in ("MC955", "MC953")]
    assert found == ([code] if code else [])


def test_default_65536_after_15014_warns(tmp_path):
    c = mega(tmp_path, {})
    assert c.arguments["max_recv_token_num"] == 65536 and "MC953" in codes(c.notes)


@pytest.mark.parametrize("version", ["0.25.1rc1", "0.26.0rc", "main"])
def test_before_14730_the_op_gets_the_safe_bound(tmp_path, version):
    # mega_moe_max_tokens feeds only dispatch_ffn_combine there: max_recv_token_num = nmt x 16 x 16
    c = mega(tmp_path, {"mega_moe_max_tokens": 6144}, version=version)
    assert c.arguments["max_recv_token_num"] == c.arguments["num_max_tokens_per_rank"] * 16 * 16
    assert not {"MC955", "MC953"} & set(codes(c.notes))


@pytest.mark.parametrize("version", ["0.25.1rc1", "0.26.0rc", "0.27"])
def test_zero_is_refused_at_start_up_where_the_release_checks(tmp_path, version):
    d = va.derive(k3_launch({"mega_moe_max_tokens": 0}), k3_ctx(tmp_path, version=version))
    refused = any(n.code == "MC025" and "must be a positive integer, got 0" in n.message for n in d.notes)
    assert refused is (version != "0.27")


def _lint(tmp_path, cann):
    from moecfg.backends import Options
    from moecfg.checking.launch import lint_launch_file
    from moecfg.sources.readers import read_shell

    (tmp_path / "config.json").write_text(json.dumps(K3))
    text = ("vllm serve moonshotai/Kimi-K3-W4A8 --quantization ascend --enable-expert-parallel -tp 16 \\\n"
            "  --max-num-batched-tokens 8192 --kv-transfer-config '{\"kv_role\": \"kv_producer\"}' \\\n"
            "  --additional-config '{\"enable_fused_mc2\": 1, \"mega_moe_max_tokens\": 6144}'\n")
    ctx = LaunchContext(product="A3", product_source="--product", cann=cann, settings_dir=str(tmp_path),
                        framework_versions=(("vllm-ascend", "0.27.1"),), models=(("*", "config.json"),))
    return [d for r in lint_launch_file(read_shell(text), "k3.sh", ctx, Options()) for d in r.diagnostics
            if d.code == "MC955"]


def test_issue_17202_end_to_end_error_at_the_flag(tmp_path):
    (d,) = _lint(tmp_path, "9.2.0")  # CANN 9.2.0 (settings): MegaMoE runs
    assert d.severity == "error" and d.line == 3 and "at least 8192" in d.message


def test_issue_17202_without_cann_is_a_conditional_warning(tmp_path):
    # no CANN version: dispatch_ffn_combine may run instead (6144 only drops tokens there): MegaMoE's error is a warning
    (d,) = _lint(tmp_path, None)
    assert d.severity == "warning" and d.message.startswith("if cann_ops_transformer imports")
