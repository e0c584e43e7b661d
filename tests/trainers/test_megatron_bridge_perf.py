"""trainers/megatron_bridge/perf.py: `scripts/performance/setup_experiment.py -m -mr -g -ng [-c] [-tp/-pp/-ep ...]`
-> the flat performance recipe it names (utils/utils.py:446-458), its options over the recipe, the ranks of -ng GPUs
over nodes of -gn (or the GPU's) GPUs, and the GPU -g names for the flex dispatcher and the memory check.

Fixture: NVIDIA-NeMo/Megatron-Bridge@067f987 scripts/performance/README.md:63-81 (its `-g gb300 \\ ` ends in a blank,
so bash ends the command there: `-c fp8_mx` never reaches setup_experiment.py and the recipe is the bf16 one).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from moecfg import frameworks
from moecfg.frameworks import LaunchContext
from moecfg.sources.readers import read_shell
from moecfg.trainers.megatron_bridge import perf

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "megatron_bridge" / "perf_setup_experiment.sh"
SETUP = "python scripts/performance/setup_experiment.py -a acc -p part "


def _derive(text: str, ctx: LaunchContext = LaunchContext()):
    (launch,) = [x for x in read_shell(text).launches if perf.entry(x) is not None]
    module = frameworks.recognise(launch, ctx)
    assert module is not None and module.NAME == "megatron-bridge"
    return launch, module.derive(launch, ctx)


def _read(text: str, ctx: LaunchContext = LaunchContext()) -> perf.PerfRead:
    (launch,) = read_shell(text).launches
    return perf.PerfRead(launch, perf.entry(launch) + 1, ctx)


def test_the_published_readme_launch_names_the_bf16_recipe_over_64_nodes_of_4():
    launch, d = _derive(FIXTURE.read_text())
    assert [w.value for w in launch.argv[-3:]] == ["-g", "gb300", " "]  # `\ `: a blank word, then the command ends
    r = perf.PerfRead(launch, perf.entry(launch) + 1, LaunchContext())
    name, why = r.recipe()
    assert why is None and name.value == "deepseek_v3_pretrain_256gpu_gb300_bf16_config"
    assert [w.value for w in r.ranks()] == ["torchrun", "--nproc_per_node=4", "--nnodes=64"]
    (call,) = d.calls
    # the recipe's HybridEP (perf_recipes/deepseek/gb300/deepseek_v3.py) needs the first batch's tokens: the recipe
    # sets them, moecfg does not read them (bridge3: not known, MC023, no longer "not given", MC042)
    assert call.role == "train" and [n.code for n in d.notes if n.code in ("MC042", "MC023")] == ["MC023"]
    assert not d.unread


def test_deepep_buffers_from_the_options_over_the_recipe_on_the_named_gpu():
    # qwen3_30b_a3b_pretrain_16gpu_h100_bf16_config: EP 16 over 2 nodes of 8 (the H100's 8 GPUs, argument_parser.py:31)
    _, d = _derive(SETUP + "-m qwen -mr qwen3_30b_a3b -g h100 -ng 16 -ep 16 model.expert_model_parallel_size=8 "
                   "--moe_flex_dispatcher_backend deepep -sl 4096 -mb 1\n")
    (call,) = d.calls
    assert (call.kind, call.arguments["num_ranks"], call.arguments["hidden"], call.arguments["num_experts"]) == \
        ("deepep", 16, 2048, 128)
    assert "[--expert_model_parallel_size]" in call.derivation["num_ranks"]  # argparse over Hydra (run_script.py:76-79)
    assert call.arguments["num_rdma_bytes"] > 0  # 16 ranks over two nodes: DeepEP's internode buffer
    assert "-g h100" in call.derivation["device"]


def test_the_world_is_the_gpus_the_launch_asks_for():
    # 16 GPUs cannot hold EP 32 x PP 1 x TP 1: Megatron refuses the world (the ranks stand for -ng)
    _, d = _derive(SETUP + "-m qwen -mr qwen3_30b_a3b -g h100 -ng 16 -pp 1 -ep 32\n")
    assert [n.code for n in d.notes if n.code != "MC040"] == ["MC983"]
    assert "16" in next(n.message for n in d.notes if n.code == "MC983")


@pytest.mark.parametrize("gpu, kind", [("h100", "deepep"), ("b200", "deepep"), ("gb200", "none")])
def test_the_flex_backend_follows_the_gpu_the_launch_names(gpu, kind):
    # apply_flex_dispatcher_backend keeps DeepEP on majors 8 / 9 and B200 / B300 (flex_dispatcher_backend.py:59-68)
    ng = {"h100": 128, "b200": 64, "gb200": 64}[gpu]
    _, d = _derive(SETUP + f"-m qwen -mr qwen3_next_80b_a3b -g {gpu} -ng {ng} --moe_flex_dispatcher_backend deepep\n")
    (call,) = d.calls
    assert call.kind == kind and not call.condition


def test_none_backend_turns_the_flex_dispatcher_off():
    _, d = _derive(SETUP + "-m qwen -mr qwen3_next_80b_a3b -g b200 -ng 64 --moe_flex_dispatcher_backend None\n")
    assert [c.kind for c in d.calls] == ["none"]


@pytest.mark.parametrize("args, reason", [
    ("-m qwen -mr qwen3_30b_a3b -g h100 -ng 24", "no flat perf recipe qwen3_30b_a3b_pretrain_24gpu_h100_bf16_config"),
    ("-m qwen -mr qwen3_30b_a3b -g h100 -ng 16 --use_recipes", "--use_recipes"),
    ("-m qwen -mr $RECIPE -g h100 -ng 16", "not known statically"),
])
def test_a_recipe_moecfg_cannot_name_is_listed_not_derived(args, reason):
    _, d = _derive(SETUP + args + "\n")
    assert not d.calls and reason in d.unread[0].reason


def test_the_recipe_name_takes_the_task_the_dtype_and_a_variant():
    r = _read(SETUP + "-m qwen -mr Qwen3_235B_A22B --task pretrain -g h100 -ng 256 -c fp8_cs -cv large_scale\n")
    assert r.recipe()[0].value == "qwen3_235b_a22b_pretrain_256gpu_h100_fp8cs_large_scale_config"
    r = _read(SETUP + "-m qwen -mr qwen3_235b_a22b -g h100 -ng 256 -cv v1\n")  # v1 / v2: the canonical recipe
    assert r.recipe()[0].value == "qwen3_235b_a22b_pretrain_256gpu_h100_bf16_config"


def test_switches_and_many_valued_options_do_not_swallow_the_next_option():
    r = _read(SETUP + "--dryrun -m qwen --dataset_paths a b -mr qwen3_30b_a3b -et -g h100 --deterministic -ng 16\n")
    assert (r.args["--model_recipe_name"].value, r.args["--gpu"].value, r.args["--num_gpus"].value) == \
        ("qwen3_30b_a3b", "h100", "16")
    assert r.args["--expert_tensor_parallel_size"].value is None  # `-et` alone: None (argument_parser.py:419-427)


def test_gpus_not_a_multiple_of_the_node_leave_the_ranks_per_node_unknown():
    r = _read(SETUP + "-m qwen -mr qwen3_30b_a3b -g gb200 -ng 6\n")
    assert [w.value for w in r.ranks()] == ["torchrun", None]


def test_the_training_setup_experiment_is_not_the_performance_one():
    # scripts/training/setup_experiment.py (train_sh.py, bridge3) forwards --recipe to run_recipe.py; the performance
    # parser would refuse the launch (no -m/-mr/-ng/-g, MC747)
    (launch,) = read_shell("python scripts/training/setup_experiment.py --gpus-per-node 8 --recipe x\n").launches
    module = frameworks.recognise(launch, LaunchContext())
    d = module.derive(launch, LaunchContext())
    assert [n.code for n in d.notes if n.code != "MC040"] == []
    assert [u.reason.split(":")[0] for u in d.unread] == ["train engine not derived"] and "recipe x" in d.unread[0].reason


@pytest.mark.parametrize("args, said", [
    # NVIDIA-NeMo/Megatron-Bridge@067f987 scripts/performance/README.md:320-323: the older --model_size form, no -mr
    ("--gpu h100 -m llama3 -s 70b -ng 64 -gn 8 --task pretrain --deterministic", "-mr not given"),
    ("-m qwen -mr qwen3_30b_a3b -ng 16", "-g not given"),
    ("-m qwen -mr qwen3_30b_a3b -g H100 -ng 16", "-g H100 is not one of"),  # choices compared as written
])
def test_the_parser_refuses_a_launch_without_its_required_arguments(args, said):
    _, d = _derive(SETUP + args + "\n")
    (note,) = [n for n in d.notes if n.code != "MC040"]
    assert note.code == "MC747" and said in note.message and not d.calls


def test_an_unknown_word_may_hold_the_required_arguments():
    _, d = _derive(SETUP + "$PERF_ARGS -ng 16\n")
    assert "MC747" not in [n.code for n in d.notes] and d.unread


RUN_SCRIPT = ("scripts/performance/run_script.py -m qwen -mr qwen3_30b_a3b --task pretrain -g h100 -c bf16 -ng 16 "
              "--moe_flex_dispatcher_backend deepep")


def test_the_rank_local_runner_inside_an_allocation_has_no_world_of_its_own():
    # skills/nemo-mbridge-perf-cuda-graphs/SKILL.md:86: `uv run python scripts/performance/run_script.py ...` inside a
    # Slurm allocation: the ranks are the allocation's tasks (run_script.py:157 reads -ng only for a dry run)
    _, d = _derive("uv run python " + RUN_SCRIPT + " -ep 32\n")
    assert "MC983" not in [n.code for n in d.notes]
    (call,) = d.calls
    assert (call.kind, call.arguments["num_ranks"]) == ("deepep", 32)


def test_the_rank_local_runner_under_torchrun_takes_torchruns_world():
    _, d = _derive("torchrun --nproc_per_node 8 --nnodes 1 " + RUN_SCRIPT + " -pp 1 -ep 16\n")
    assert [n.code for n in d.notes if n.code != "MC040"] == ["MC983"]  # 8 ranks cannot hold EP 16
