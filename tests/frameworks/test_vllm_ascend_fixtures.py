"""Published vllm-ascend launches (nightly CI configs at vllm-project/vllm-ascend@182b75e), derived as main does.
Each fixture's first comment line is its source; the YAML `envs` / `server_cmd` are written as the script the
CI runner executes (export lines, then the folded command)."""
from __future__ import annotations

from vllm_ascend_launches import codes, derive

# https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/tests/e2e/nightly/multi_node/internal_dp/config/Qwen3-235B-disagg-pd.yaml (prefiller)
QWEN235_PREFILL = """# https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/tests/e2e/nightly/multi_node/internal_dp/config/Qwen3-235B-disagg-pd.yaml
export HCCL_BUFFSIZE=1024
export HCCL_OP_EXPANSION_MODE=AIV
vllm serve "Qwen/Qwen3-235B-A22B" --host 0.0.0.0 --port 8080 --data-parallel-size 2
 --data-parallel-size-local 2 --data-parallel-start-rank 0 --data-parallel-address 10.0.0.1
 --data-parallel-rpc-port 13389 --tensor-parallel-size 8 --seed 1024 --max-num-seqs 32 --max-model-len 8192
 --max-num-batched-tokens 8192 --enable-expert-parallel --trust-remote-code --gpu-memory-utilization 0.9
 --no-enable-prefix-caching --additional-config '{"enable_fused_mc2":1}'
 --kv-transfer-config '{"kv_connector": "MooncakeConnectorV1", "kv_role": "kv_producer", "kv_port": "30000"}'
"""
# https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/tests/e2e/nightly/multi_node/internal_dp/config/Qwen3-235B-disagg-pd.yaml (decoder)
QWEN235_DECODE = """# https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/tests/e2e/nightly/multi_node/internal_dp/config/Qwen3-235B-disagg-pd.yaml
export HCCL_BUFFSIZE=1024
export HCCL_OP_EXPANSION_MODE=AIV
vllm serve "Qwen/Qwen3-235B-A22B" --host 0.0.0.0 --port 8080 --data-parallel-size 4
 --data-parallel-size-local 4 --data-parallel-start-rank 0 --data-parallel-address 10.0.0.2
 --data-parallel-rpc-port 13389 --tensor-parallel-size 4 --seed 1024 --max-num-seqs 32 --max-model-len 8192
 --max-num-batched-tokens 8192 --enable-expert-parallel --trust-remote-code --gpu-memory-utilization 0.9
 --no-enable-prefix-caching --compilation-config '{"cudagraph_mode":"FULL_DECODE_ONLY"}'
 --additional-config '{"enable_fused_mc2":1}'
 --kv-transfer-config '{"kv_connector": "MooncakeConnectorV1", "kv_role": "kv_consumer", "kv_port": "30100"}'
"""
# https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/tests/e2e/nightly/single_node/models/configs/Deepseek_R1_W8A8_A3.yaml
DSR1_NIGHTLY = """# https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/tests/e2e/nightly/single_node/models/configs/Deepseek_R1_W8A8_A3.yaml
export HCCL_BUFFSIZE=1024
vllm serve Eco-Tech/DeepSeek-R1-0528-w8a8-mtp-QuaRot --port 8080 --data-parallel-size 2 --enable-expert-parallel
 --seed 1024 --tensor-parallel-size 8 --max-num-batched-tokens 4096 --max-num-seqs 16 --quantization ascend
 --async-scheduling --speculative-config '{"num_speculative_tokens": 1, "method":"deepseek_mtp"}'
 --trust-remote-code --gpu-memory-utilization 0.9 --disable-log-stats
 --compilation_config '{"cudagraph_mode": "FULL_DECODE_ONLY"}'
"""


def test_qwen235_pd_decoder_megamoe():
    # Qwen3-235B (bf16): hidden 4096, moe_intermediate 1536, no quant -> MegaMoE kept (ascend_config.py:401-441).
    # EP = DP 4 x TP 4 = 16 <= 64. Capacity: min(32 x 1, 512) = 32 (<= 8192) -> / TP 4 = 8 = num_max_tokens_per_rank;
    # max_recv = 8 x 16 x min(8, 128 / 16 = 8) = 1024; intermediate_hidden = moe_intermediate_size 1536; bf16.
    # global_bs: kv_consumer, but FULL_DECODE_ONLY separates decode -> no skip -> 0 (utils.py:1139-1147).
    d = derive(QWEN235_DECODE, version="main", cann="9.1.0")
    assert [(c.role, c.op) for c in d.calls] == [("decode", "mega_moe")]
    a = d.calls[0].arguments
    assert (a["bs"], a["num_max_tokens_per_rank"], a["ep_world_size"]) == (8, 8, 16)
    assert (a["max_recv_token_num"], a["intermediate_hidden"], a["dispatch_quant_mode"]) == (1024, 1536, 0)
    assert a["weight_dtype"] == "bf16"
    assert (a["h"], a["k"], a["moe_expert_num"]) == (4096, 8, 128)
    assert a["env"] == {"HCCL_BUFFSIZE": "1024"}
    assert d.calls[0].notes == []


def test_qwen235_pd_prefiller_megamoe_overflows_on_prefill():
    # EP = 2 x 8 = 16; nmt = ceil(min(32, 512) / 8) = 4; a prefill step of 8192 tokens: ceil(8192 / 8) = 1024 per rank
    # > 4 -> MC952 (the vllm-ascend#14273 pattern: enable_prefill_mc2 is off on a node that prefills)
    d = derive(QWEN235_PREFILL, version="main", cann="9.1.0")
    assert [(c.role, c.op) for c in d.calls] == [("decode", "mega_moe"), ("prefill", "mega_moe")]
    assert d.calls[0].arguments["bs"] == 4 and d.calls[1].arguments["bs"] == 1024
    assert codes(d.calls[1].notes) == ["MC952"]
    assert d.calls[1].notes[0].span.line == 7  # --max-num-batched-tokens 8192 (fixture line 7)


def test_qwen235_pd_prefiller_cann90_runs_dispatch_ffn_combine():
    # without cann_ops_transformer (CANN < 9.1 assumed): dispatch_ffn_combine, EP 16 <= 32, cap 512 per rank
    d = derive(QWEN235_PREFILL, version="main", cann="9.0.1")
    assert [c.op for c in d.calls] == ["dispatch_ffn_combine", "dispatch_ffn_combine"]
    assert d.calls[0].arguments["max_output_size"] == 131072


def test_dsr1_nightly_single_node():
    # EP = 2 x 8 = 16; min(16 x (1 + 1), 512) = 32 <= 4096 -> / TP 8 = 4; `--compilation_config` (underscores) read;
    # the QuaRot checkpoint resolves to the DeepSeek-V3/R1 dimensions by name; quant from the name (w8a8 ->
    # w8a8_dynamic experts, quant_mode 2)
    d = derive(DSR1_NIGHTLY, version="main")
    a = d.calls[0].arguments
    assert (d.calls[0].op, a["bs"], a["ep_world_size"], a["quant_mode"]) == ("dispatch_combine_v2", 4, 16, 2)
    assert (a["h"], a["k"], a["moe_expert_num"]) == (7168, 8, 256)
    assert "MC042" not in codes(d.notes) and "MC022" not in codes(d.notes)
    assert d.calls[1].kind == "none"  # 4096-token steps > capacity 32: all-to-all
