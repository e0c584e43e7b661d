"""frameworks/megatron: Megatron-LM `pretrain_gpt.py` launches -> the flex dispatcher's DeepEP / HybridEP buffer.

NVIDIA/Megatron-LM@d98e8a6: the group is expert-TP x EP; DeepEP's Buffer gets DeepEP's normal-mode hints with
hidden x max(elem, 2) bytes (fused_a2a.py get_buffer); HybridEP's buffer the first batch's tokens.
"""
from __future__ import annotations

import pytest
from gpu_helpers import FIXTURES, H200, codes, derive, finding, lint, note_codes

from moecfg.backends.deepep.arguments import normal_hint_bytes

RUN = "torchrun --nproc_per_node 8 pretrain_gpt.py --hidden-size 7168 --num-experts 256 --moe-router-topk 8 " \
      "--seq-length 4096 --micro-batch-size 1"
FLEX = f"{RUN} --moe-token-dispatcher-type flex"


def test_deepep_intranode_figures():
    (call,) = derive(f"{FLEX} --expert-model-parallel-size 8").calls
    a = call.arguments
    # 8 ranks, 20 SMs, hidden_bytes 7168 x 2: NVL 335,709,824 B (the DeepEP README sizing), no RDMA within a node
    assert (a["mode"], a["num_ranks"], a["num_nvl_bytes"], a["num_rdma_bytes"]) == ("normal", 8, 335_709_824, 0)
    assert (a["num_experts"], a["num_topk"], a["num_sms"]) == (256, 8, 20)


def test_deepep_internode_and_expert_tp_scaling():
    # ETP 2 x EP 8 = 16 ranks; DeepEP sees 2 x 256 experts and top-2 x 8
    a = derive(f"{FLEX} --expert-model-parallel-size 8 --tensor-model-parallel-size 2").calls[0].arguments
    assert (a["num_ranks"], a["num_experts"], a["num_topk"]) == (16, 512, 16)
    assert (a["num_nvl_bytes"], a["num_rdma_bytes"]) == normal_hint_bytes(7168 * 2, 16)
    assert a["num_rdma_bytes"] > 0
    etp1 = derive(f"{FLEX} --expert-model-parallel-size 8 --tensor-model-parallel-size 2 "
                  "--expert-tensor-parallel-size 1").calls[0].arguments
    assert etp1["num_ranks"] == 8


def test_num_sms_flag():
    a = derive(f"{FLEX} --expert-model-parallel-size 8 --moe-flex-dispatcher-num-sms 24").calls[0].arguments
    assert a["num_sms"] == 24 and (a["num_nvl_bytes"], a["num_rdma_bytes"]) == normal_hint_bytes(14336, 8, 24)


@pytest.mark.parametrize("extra, tokens", [("--tensor-model-parallel-size 2 --sequence-parallel", 2048),
                                           ("--tensor-model-parallel-size 2", 4096),
                                           ("--context-parallel-size 2", 2048),
                                           ("--micro-batch-size 2", 8192)])
def test_hybridep_tokens_per_rank(extra, tokens):
    # seq 4096 x mbs / CP, / TP with sequence parallelism
    text = f"{FLEX} --moe-flex-dispatcher-backend hybridep --expert-model-parallel-size 8 {extra}"
    a = derive(text).calls[0].arguments
    assert (a["api"], a["max_num_of_tokens_per_rank"], a["num_local_experts"], a["hidden_dim"]) == (
        "hybridep", tokens, 256 // 8, 7168)


def test_hybridep_multinode_token_limit_just_inside_and_outside():
    # EP 16 spans 2 NVLink domains: 3 x tokens (padded to 64) + 1 < 65536 -> at most 21824 tokens per rank
    base = RUN.replace("--seq-length 4096", "--seq-length {}") + \
        " --moe-token-dispatcher-type flex --moe-flex-dispatcher-backend hybridep --expert-model-parallel-size 16"
    assert "MC674" not in codes(lint(base.format(21824)))
    d = finding(lint(base.format(21825)), "MC674")
    assert d.column == base.index("--seq-length") + 1


def test_dispatchers_without_a_buffer():
    assert derive(f"{RUN} --expert-model-parallel-size 8").calls[0].why_none.startswith(
        "--moe-token-dispatcher-type allgather")
    assert "all-to-all" in derive(f"{RUN} --moe-token-dispatcher-type alltoall --expert-model-parallel-size 8").calls[
        0].why_none
    dense = "torchrun pretrain_gpt.py --hidden-size 4096 --moe-token-dispatcher-type flex"
    assert "dense model" in derive(dense).calls[0].why_none
    nccl = derive(f"{FLEX} --moe-flex-dispatcher-backend ncclep --expert-model-parallel-size 8").calls[0]
    assert nccl.kind == "none" and "NCCL EP" in nccl.why_none


def test_a_dispatcher_not_known_statically_is_not_megatrons_default():
    d = derive(f"{RUN} --moe-token-dispatcher-type $DISPATCHER --expert-model-parallel-size 8")
    assert not [c for c in d.calls if c.kind != "none" or "allgather" in c.why_none]
    assert "MC023" in note_codes(d)


def test_backend_without_flex_warns():
    d = derive(f"{RUN} --expert-model-parallel-size 8 --moe-flex-dispatcher-backend hybridep")
    assert "MC980" in note_codes(d)


def test_experts_divisible_by_ep():
    ok = f"{FLEX} --expert-model-parallel-size 8"
    assert "MC981" not in codes(lint(ok))
    bad = ok.replace("--num-experts 256", "--num-experts 60")
    d = finding(lint(bad), "MC981")
    assert d.column == bad.index("--expert-model-parallel-size") + 1 and "60" in d.message


def test_deepep_needs_two_ranks():
    assert "MC982" in codes(lint(f"{FLEX} --expert-model-parallel-size 1"))
    assert "MC982" not in codes(lint(f"{FLEX} --expert-model-parallel-size 2"))


def test_memory_table_without_fraction():
    table = lint(f"{FLEX} --expert-model-parallel-size 8", H200)[0].derived["memory_budget"]
    # 335,709,824 + 0 + 33,554,432 workspace
    assert table["total_bytes"] == 369_264_256 and "training" in table["framework_fraction"]


def test_mixtral_example_arrays_are_read():
    # Megatron's own example passes its flags through bash arrays (${MOE_ARGS[@]}): read element by element;
    # --moe-token-dispatcher-type alltoall (MOE_ARGS, line 57 of the fixture) -> NCCL all-to-all, no DeepEP buffer
    d = derive((FIXTURES / "megatron-mixtral-8x7b-alltoall.sh").read_text())
    (call,) = d.calls
    assert (call.kind, call.why_none) == ("none", "--moe-token-dispatcher-type alltoall: NCCL all-to-all, no DeepEP "
                                          "buffer") and d.notes == []


def test_gptoss_example_through_torch_distributed_run():
    d = derive((FIXTURES / "megatron-gptoss-20b-train.sh").read_text())
    assert [c.why_none for c in d.calls] == ["--moe-token-dispatcher-type alltoall: NCCL all-to-all, no DeepEP buffer"]


def test_array_launch_with_flex_derives_hybridep_at_the_array_lines():
    text = ("EP=8\nMOE_ARGS=(\n    --num-experts 256\n    --moe-token-dispatcher-type flex\n"
            "    --moe-flex-dispatcher-backend hybridep\n)\nMODEL=(--hidden-size 7168 --seq-length 4096 "
            "--micro-batch-size 4)\nMODEL+=(--expert-model-parallel-size ${EP})\n"
            "srun -N 2 --container-image=img numactl -N 0 -- python pretrain_gpt.py ${MODEL[@]} \\\n"
            "    \"${MOE_ARGS[@]}\"\n")
    (call,) = derive(text).calls
    a = call.arguments
    # 4096 tokens x micro-batch 4 / CP 1 = 16384 tokens per rank; 256 experts / EP 8 = 32 local experts
    assert (a["hidden_dim"], a["max_num_of_tokens_per_rank"], a["num_local_experts"]) == (7168, 16384, 32)
    assert call.sources["num_local_experts"][0].line == 3  # --num-experts inside MOE_ARGS=( ... )
    assert call.sources["api"][0].line == 5


def test_entry_script_behind_an_unknown_root_is_recognised():
    # Megatron-LM's own sbatch scripts run `${MEGATRON_PATH}/pretrain_gpt.py` with MEGATRON_PATH from the caller:
    # the word's value is unknown, its pattern still ends in the literal entry script name.
    from moecfg.checking.engine import lint_text

    script = ("MOE=(--num-experts 64 --moe-router-topk 8 --expert-model-parallel-size 8 "
              "--moe-token-dispatcher-type flex --moe-flex-dispatcher-backend deepep)\n"
              "torchrun --nproc-per-node 8 ${MEGATRON_PATH}/pretrain_gpt.py --hidden-size 4096 "
              "--seq-length 4096 --micro-batch-size 1 \"${MOE[@]}\"\n")
    [r] = lint_text(script, "train.sh")
    assert r.launch["framework"] == "megatron" and r.kind == "deepep"
    assert (r.arguments["num_ranks"], r.arguments["hidden"], r.arguments["num_experts"]) == (8, 4096, 64)
