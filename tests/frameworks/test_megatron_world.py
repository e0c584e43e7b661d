"""MC983: a GPU Megatron-LM launch whose torchrun world size is not a multiple of TP x PP x CP or of expert-TP x EP x PP
(NVIDIA/Megatron-LM@d98e8a6 arguments.py:432, parallel_state.py:874-884); the arithmetic is shared with MindSpeed's
MC927 (frameworks/megatron/parallel_sizes.py)."""
from __future__ import annotations

import pytest
from gpu_helpers import codes, derive, finding, lint

from moecfg.frameworks.megatron.parallel_sizes import indivisible

FIX = __import__("pathlib").Path(__file__).parent / "fixtures" / "megatron"
RUN = "torchrun --nproc_per_node {n} --nnodes {nodes} pretrain_gpt.py --hidden-size 4096 {flags}\n"


def run(flags: str, n: int = 8, nodes: int = 2) -> str:
    return RUN.format(n=n, nodes=nodes, flags=flags)


def test_the_reported_launch_is_refused_at_the_flag_the_fix_names():
    # 8 x 2 = 16 processes; TP 8 x PP 4 x CP 1 = 32; 16 % 32 = 16 -> refused; PP 2: 8 x 2 = 16 divides 16
    text = run("--tensor-model-parallel-size 8 --pipeline-model-parallel-size 4")
    d = finding(lint(text), "MC983")
    assert d.severity == "error"
    assert "world size 16" in d.message and "= 32" in d.message
    assert "set --pipeline-model-parallel-size 2" in d.message
    assert text[d.column - 1:].startswith("--pipeline-model-parallel-size 4")


@pytest.mark.parametrize("nodes, fires", [(4, False), (3, True), (6, True), (8, False)])
def test_dense_limit_just_inside_and_outside(nodes, fires):
    # TP 8 x PP 4 = 32: 8 x 4 = 32 and 8 x 8 = 64 are multiples; 8 x 3 = 24 and 8 x 6 = 48 are not
    text = run("--tensor-model-parallel-size 8 --pipeline-model-parallel-size 4", nodes=nodes)
    assert ("MC983" in codes(lint(text))) is fires


@pytest.mark.parametrize("cp, fires", [(2, False), (4, True)])
def test_context_parallel_counts(cp, fires):
    # 16 processes; TP 2 x PP 4 x CP 2 = 16 divides; CP 4 -> 32 does not
    text = run(f"--tensor-model-parallel-size 2 --pipeline-model-parallel-size 4 --context-parallel-size {cp}")
    assert ("MC983" in codes(lint(text))) is fires


@pytest.mark.parametrize("ep, fires", [(4, False), (8, False), (6, True), (16, True)])
def test_expert_grid_limit(ep, fires):
    # 16 processes, TP 2 (expert-TP defaults to TP), PP 1: 2 x 4 = 8 and 2 x 8 = 16 divide 16; 2 x 6 = 12 and
    # 2 x 16 = 32 do not (the dense grid, 2, always divides)
    text = run(f"--tensor-model-parallel-size 2 --num-experts 96 --expert-model-parallel-size {ep}")
    assert ("MC983" in codes(lint(text))) is fires


def test_expert_tensor_parallel_replaces_tp_in_the_expert_grid():
    # TP 2, expert-TP 1: 1 x EP 16 = 16 divides 16 (with expert-TP = TP it would be 32)
    assert "MC983" not in codes(lint(run("--tensor-model-parallel-size 2 --expert-tensor-parallel-size 1 "
                                         "--num-experts 64 --expert-model-parallel-size 16")))
    d = finding(lint(run("--tensor-model-parallel-size 2 --num-experts 64 --expert-model-parallel-size 16")), "MC983")
    # 16 % (2 x 16) != 0; EP 8: 2 x 8 = 16
    assert "expert-TP 2 x EP 16 x PP 1 = 32" in d.message and "set --expert-model-parallel-size 8" in d.message


def test_no_size_that_fits_asks_to_change_the_sizes():
    # 15 processes, TP 2 x PP 2 = 4: lowering PP leaves TP 2, lowering TP leaves PP 2, and 2 does not divide 15
    bad = indivisible(15, 2, 2, 1, 1, 2, False)
    assert bad is not None and (bad.product, bad.fit) == (4, None) and bad.fix(15) == "change the parallel sizes"
    # 16 processes: PP 1 (2 x 1 = 2) divides -> the fix names it
    assert indivisible(16, 2, 2, 1, 1, 2, False) is None
    assert indivisible(6, 2, 2, 1, 1, 2, False).fix(6) == "set --pipeline-model-parallel-size 1"


@pytest.mark.parametrize("text", [
    # --nnodes absent: torchrun reads PET_NNODES (Kubeflow's PyTorchJob sets it), else 1 -> not known
    "torchrun --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size 8 --pipeline-model-parallel-size 4\n",
    # --nproc_per_node absent
    "torchrun --nnodes 2 pretrain_gpt.py --tensor-model-parallel-size 8 --pipeline-model-parallel-size 4\n",
    # no launcher: WORLD_SIZE comes from elsewhere
    "python pretrain_gpt.py --tensor-model-parallel-size 8 --pipeline-model-parallel-size 4\n",
    # an elastic range, a device word, a size from an unset variable
    "torchrun --nproc_per_node 8 --nnodes 1:4 pretrain_gpt.py --tensor-model-parallel-size 16\n",
    "torchrun --nproc_per_node gpu --nnodes 1 pretrain_gpt.py --tensor-model-parallel-size 16\n",
    "torchrun --nproc_per_node 8 --nnodes 1 pretrain_gpt.py --tensor-model-parallel-size $TP\n",
    # sizes that come from the checkpoint, a YAML file, or a word the reader does not know
    "torchrun --nproc_per_node 8 --nnodes 1 pretrain_gpt.py --tensor-model-parallel-size 16 --use-checkpoint-args "
    "--load /ckpt\n",
    "torchrun --nproc_per_node 8 --nnodes 1 pretrain_gpt.py --tensor-model-parallel-size 16 --yaml-cfg a.yaml\n",
    "torchrun --nproc_per_node 8 --nnodes 1 pretrain_gpt.py --tensor-model-parallel-size 16 $EXTRA_ARGS\n",
])
def test_unknown_sizes_say_nothing(text):
    assert "MC983" not in codes(lint(text))


def test_pet_environment_gives_the_absent_option():
    # PET_NNODES=2 is what torchrun takes for an absent --nnodes: 8 x 2 = 16, TP 8 x PP 4 = 32 -> refused
    text = "export PET_NNODES=2\n" + \
        "torchrun --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size 8 --pipeline-model-parallel-size 4\n"
    assert "world size 16" in finding(lint(text), "MC983").message


def test_python_m_torch_distributed_run_is_a_launcher():
    text = "python -m torch.distributed.run --nproc_per_node=8 --nnodes=1 pretrain_gpt.py --tensor-model-parallel-size 16\n"
    # 8 % 16 != 0; TP 8 x PP 1 = 8 divides 8
    assert "set --tensor-model-parallel-size 8" in finding(lint(text), "MC983").message


def test_a_refused_world_derives_no_buffer():
    text = run("--num-experts 64 --expert-model-parallel-size 32 --moe-token-dispatcher-type flex")
    assert derive(text).calls == []


def test_published_gpt3_175b_example_as_written_is_refused():
    # its NUM_NODES=1 ("Change for multinode config"): 8 x 1 = 8 processes, TP 8 x PP 16 = 128
    text = (FIX / "train_gpt3_175b_distributed.sh").read_text()
    d = finding(lint(text), "MC983")
    assert "world size 8" in d.message and "= 128" in d.message and "set --pipeline-model-parallel-size 1" in d.message


def test_published_64_gpu_guide_without_nnodes_says_nothing():
    # "TP=4, PP=4, CP=2, DP=2 => 64 GPUs" with --nproc_per_node=8 only: the node count is not written
    assert "MC983" not in codes(lint((FIX / "parallelism_guide_64_gpus.sh").read_text()))


@pytest.mark.parametrize("extra, fires", [("", True), (" --use-checkpoint-args --load /ckpt", False)])
def test_mindspeed_shares_the_check(extra, fires):
    # msrun (MindSpeed's launch): 16 workers, TP 2 x PP 2 x EP 6 = 24 -> MC927 (its own code); the sizes read from a
    # checkpoint are not the command's -> nothing
    text = ("msrun --worker_num 16 --local_worker_num 16 pretrain_gpt.py --tensor-model-parallel-size 2 "
            f"--pipeline-model-parallel-size 2 --expert-model-parallel-size 6 --num-experts 48{extra}\n")
    found = codes(lint(text))
    assert ("MC927" in found) is fires and "MC983" not in found
