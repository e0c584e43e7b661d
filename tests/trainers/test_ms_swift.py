"""trainers/ms_swift: `megatron sft|pt|rlhf|export` -> the Megatron-LM train phase and a colocated vLLM rollout.

Fixture: modelscope/ms-swift@3602360 examples/megatron/grpo/moe_colocate_full.sh (Qwen3-30B-A3B, TP 4, EP 4, PP 2 on
NPROC_PER_NODE=8; ms-swift's expert-TP default 1 makes the expert grid 1 x 4 x 2 = 8).
"""
from __future__ import annotations

from pathlib import Path

from moecfg import frameworks
from moecfg.backends.deepep.arguments import normal_hint_bytes
from moecfg.frameworks import LaunchContext
from moecfg.sources.readers import read_shell

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "ms_swift" / "moe_colocate_full.sh"
RUN = "NPROC_PER_NODE={n} megatron {route} --model Qwen/Qwen3-30B-A3B --expert_model_parallel_size 8 {extra}"


def _derive(text: str, ctx=LaunchContext()):
    lf = read_shell(text)
    (launch,) = [x for x in lf.launches if frameworks.recognise(x, ctx)]
    module = frameworks.recognise(launch, ctx)
    assert module.NAME == "ms-swift"
    return module.derive(launch, ctx)


def _codes(d) -> list[str]:
    return [n.code for n in d.notes] + [n.code for c in d.calls for n in c.notes]


def test_published_grpo_example_reads_ms_swifts_own_defaults():
    d = _derive(FIXTURE.read_text())
    assert "MC983" not in _codes(d)  # expert-TP 1 (ms-swift's default), not Megatron's TP 4: 1 x 4 x 2 divides 8
    (train,) = [c for c in d.calls if c.role == "train"]
    # moe_token_dispatcher_type defaults to alltoall in ms-swift: NCCL, no DeepEP buffer
    assert train.kind == "none" and "alltoall" in train.why_none and "megatron_args.py:657" in train.why_none
    (rollout,) = [c for c in d.calls if c.role == "rollout"]
    assert rollout.kind == "none" and "--enable-expert-parallel" in rollout.why_none


def test_flex_with_deepep_gives_megatrons_buffer():
    d = _derive(RUN.format(n=8, route="sft", extra="--moe_token_dispatcher_type flex --moe_enable_deepep true"))
    (train,) = [c for c in d.calls if c.role == "train"]
    a = train.arguments
    assert (a["num_ranks"], a["hidden"], a["num_experts"], a["num_topk"]) == (8, 2048, 128, 8)
    assert (a["num_nvl_bytes"], a["num_rdma_bytes"]) == normal_hint_bytes(2048 * 2, 8)
    assert "--expert_model_parallel_size" in train.derivation["num_ranks"]


def test_world_size_from_nproc_per_node():
    d = _derive(RUN.format(n=4, route="sft", extra=""))
    (n,) = [n for n in d.notes if n.code == "MC983"]
    assert "NPROC_PER_NODE 4" in n.message and "--expert_model_parallel_size 4" in n.message
    assert "MC983" not in _codes(_derive(RUN.format(n=8, route="sft", extra="")))
    # neither NPROC_PER_NODE nor NNODES in the script: they may come from outside it, no check
    assert "MC983" not in _codes(_derive(RUN.format(n=4, route="sft", extra="").replace("NPROC_PER_NODE=4 ", "")))


def test_colocated_vllm_tp_must_divide_the_world():
    base = "--use_vllm true --vllm_mode colocate --vllm_tensor_parallel_size {}"
    d = _derive(RUN.format(n=8, route="rlhf", extra=base.format(3)))
    assert "MC720" in _codes(d)
    d = _derive(RUN.format(n=8, route="rlhf", extra=base.format(4)))
    assert "MC720" not in _codes(d) and [c.role for c in d.calls].count("rollout") == 1
    d = _derive(RUN.format(n=8, route="rlhf", extra="--use_vllm true --vllm_mode server"))
    assert "rollout" not in [c.role for c in d.calls]


def test_export_runs_no_dispatch_and_a_config_file_is_said():
    d = _derive(RUN.format(n=8, route="export", extra=""))
    assert [(c.kind, c.quiet) for c in d.calls] == [("none", True)]
    d = _derive("megatron sft sft.yaml")
    said = [u.reason for u in d.unread]
    assert any("sft.yaml" in m for m in said)


def test_unknown_model_quiet_without_ep_and_asked_with_it():
    d = _derive("NPROC_PER_NODE=8 megatron sft --model my/dense-7b")
    assert "MC042" not in _codes(d)
    d = _derive(RUN.format(n=8, route="sft", extra="").replace("Qwen/Qwen3-30B-A3B", "my/moe"))
    assert "MC042" in _codes(d)


def test_an_unknown_word_after_a_switch_may_hold_flags():
    # `$MORE` may set --moe_token_dispatcher_type flex: ms-swift's default alltoall does not stand in for it
    d = _derive(RUN.format(n=4, route="sft", extra="--sequence_parallel $MORE"))
    assert "MC023" in _codes(d) and not [c for c in d.calls if c.kind == "none" and "alltoall" in c.why_none]
    assert "MC983" not in _codes(d)  # nor is the world checked (EP 8 on 4 processes) over an unknown word
