"""vllm-ascend global_bs on a kv_consumer, per release (issue 32): each release's own
should_skip_allreduce_across_dp_group decides.

- up to v0.24.0rc1: skip the DP all-reduce (global_bs = tokens per rank x EP) when decode and
  max_num_batched_tokens both run MC2 (vllm-project/vllm-ascend@5cb98ca vllm_ascend/utils.py:1230-1275, v0.23.0;
  @e18643f utils.py:1002-1071, v0.18.0; @367b8e6 utils.py:1142-1211, v0.20.2rc1);
- from v0.25.1rc1 (PR #14307) the prefill case also needs `uniform_cudagraph_mode` = not
  cudagraph_mode.separate_routine(): FULL_DECODE_ONLY separates decode, so global_bs is 0
  (@9bf964c utils.py:1165-1214).
"""
from __future__ import annotations

import pytest

from vllm_ascend_launches import derive

# EP = DP 4 x TP 4 = 16; decode min(32, 512) = 32 tokens, / TP 4 = 8 per rank; max_num_batched_tokens 32 also
# runs MC2 too (32 <= the MC2 capacity of 32): both on MC2
DECODER = """export HCCL_BUFFSIZE=1024
vllm serve "Qwen/Qwen3-235B-A22B" --data-parallel-size 4 --tensor-parallel-size 4 --max-num-seqs 32
 --max-model-len 8192 --max-num-batched-tokens 32 --enable-expert-parallel
 --compilation-config '{"cudagraph_mode":"FULL_DECODE_ONLY"}'
 --kv-transfer-config '{"kv_connector": "MooncakeConnectorV1", "kv_role": "kv_consumer", "kv_port": "30100"}'
"""


def decode_call(version: str):
    d = derive(DECODER, version=version, cann="9.0.1")
    return next(c for c in d.calls if c.role == "decode" and c.op == "dispatch_combine_v2")


@pytest.mark.parametrize("version, commit, lines", [
    ("0.18.0", "e18643f", "utils.py:1002-1071"), ("0.20.2rc1", "367b8e6", "utils.py:1142-1211"),
    ("0.23.0", "5cb98ca", "utils.py:1230-1275"), ("0.24.0rc1", "412cda2", "utils.py:1173-1218"),
])
def test_before_14307_both_on_mc2_skips_the_allreduce_whatever_the_graph_mode(version, commit, lines):
    call = decode_call(version)
    bs = call.arguments["bs"]
    assert call.arguments["global_bs"] == bs * 16 and bs > 0
    why = call.derivation["global_bs"]
    assert commit in why and lines in why and "182b75e" not in why
    assert "x_active_mask" not in call.arguments  # a real global_bs: no mc2_mask


@pytest.mark.parametrize("version, commit", [("0.25.1rc1", "9bf964c"), ("main", "182b75e")])
def test_from_14307_full_decode_only_keeps_the_allreduce(version, commit):
    call = decode_call(version)
    assert call.arguments["global_bs"] == 0
    assert "separates decode" in call.derivation["global_bs"] and commit in call.derivation["global_bs"]


def test_recompute_key_per_release():
    # v0.23.0 reads additional_config.recompute_scheduler_enable (ascend_config.py:142 @5cb98ca); from v0.25.1rc1 it
    # is scheduler_config.recompute_scheduler_enable (ascend_config.py:875 @9bf964c)
    from moecfg.frameworks.vllm_ascend.releases import RELEASES

    assert RELEASES["0.23.0"].recompute_key == ("recompute_scheduler_enable",)
    assert RELEASES["0.25.1rc1"].recompute_key == ("scheduler_config", "recompute_scheduler_enable")


# ---- the start-up profile run is not a decode step ----------------------------------------------------------------
# profile_run: `if self.max_num_tokens > mc2_tokens_capacity and select_moe_comm_method(mc2_tokens_capacity) in
# {MC2, FUSED_MC2}: self._dummy_run(mc2_tokens_capacity, with_prefill=True, is_profile=True)`
# (vllm-project/vllm-ascend@5cb98ca vllm_ascend/worker/model_runner_v1.py:3685-3688; @182b75e :3470-3473)

def _serve(seqs: int, sizes: str) -> str:
    return (f'vllm serve "Qwen/Qwen3-235B-A22B" --data-parallel-size 4 --tensor-parallel-size 4 --max-num-seqs {seqs} '
            f"--max-num-batched-tokens 8192 --enable-expert-parallel "
            f"--compilation-config '{{\"cudagraph_capture_sizes\": [{sizes}]}}'\n")


@pytest.mark.parametrize("version, lines", [("0.23.0", "model_runner_v1.py:3685-3688"),
                                            ("main", "model_runner_v1.py:3470-3473")])
def test_capacity_above_the_decode_batch_is_the_profile_run(version, lines):
    # capture sizes up to 256 -> capacity 256 (64 per TP rank); decode carries at most 16 tokens
    roles = {c.role: c for c in derive(_serve(16, "8, 16, 256"), version=version, cann="9.0.1").calls}
    assert "decode" not in roles and roles["profile"].arguments["bs"] == 64
    why = roles["profile"].derivation["bs"]
    assert "start-up profile run" in why and lines in why and "at most max_num_seqs x (1 + spec) = 16" in why


def test_capacity_within_the_decode_batch_stays_decode():
    # 256 sequences fill the 256-token capacity: a decode step reaches it
    roles = {c.role: c for c in derive(_serve(256, "8, 16, 256"), version="main", cann="9.0.1").calls}
    assert "profile" not in roles and roles["decode"].arguments["bs"] == 64


# ---- a refused value is MC025, worded as the code words it ---------------------------------------------------------
# v0.23.0 ascend_config.py:306-313 (@5cb98ca): `if not isinstance(..., int): raise ValueError(f"mega_moe_max_tokens
# must be an integer, got {type(...).__name__}: {...}")`; `if ... <= 0: raise ValueError(f"mega_moe_max_tokens must
# be a positive integer, got {...}")`

@pytest.mark.parametrize("value, said", [
    ('0', "must be a positive integer, got 0"), ('-1', "must be a positive integer, got -1"),
    ('"65536"', "must be an integer, got str: 65536"), ('1.5', "must be an integer, got float: 1.5"),
])
def test_mega_moe_max_tokens_refused_at_start_up(value, said):
    text = _serve(16, "8, 16").replace("--max-num-batched-tokens 8192",
                                       f"--max-num-batched-tokens 8192 --additional-config "
                                       f"'{{\"enable_fused_mc2\": 1, \"mega_moe_max_tokens\": {value}}}'")
    notes = [n for n in derive(text, version="0.23.0", cann="9.0.1").notes if "mega_moe_max_tokens" in n.message]
    (note,) = [n for n in notes if n.code == "MC025"]
    assert note.severity == "error" and said in note.message and "ascend_config.py:306-313" in note.message
    assert not [n for n in notes if n.code == "MC023"]


@pytest.mark.parametrize("value", ["1", "true"])  # true is an int in Python: isinstance(True, int)
def test_mega_moe_max_tokens_accepted(value):
    text = _serve(16, "8, 16").replace("--max-num-batched-tokens 8192",
                                       f"--max-num-batched-tokens 8192 --additional-config "
                                       f"'{{\"enable_fused_mc2\": 1, \"mega_moe_max_tokens\": {value}}}'")
    assert not [n for n in derive(text, version="0.23.0", cann="9.0.1").notes if n.code == "MC025"]
