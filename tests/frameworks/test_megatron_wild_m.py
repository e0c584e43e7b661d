"""Megatron-LM / MindSpeed-LLM / miles launch files moecfg missed (round mlmwild): each read the way it is launched.

Fixtures under fixtures/mlmwild/ (each cites its source on its first line): NVIDIA/Megatron-LM@d98e8a6 (the perf-test
model_config.yaml with its args file and CI recipe, an RL model-config argument file, the ModelOpt quantize.sh, the
inference server), Ascend/MindSpeed-LLM@c77308a (an inference.py launch), radixark/miles@31f1ca9 (a --sglang-config).
"""
from __future__ import annotations

from pathlib import Path

import pytest
from gpu_helpers import derive, lint

from moecfg import frameworks
from moecfg.checking.engine import check_text
from moecfg.frameworks import LaunchContext
from moecfg.frameworks.megatron import command_start, entry_script
from moecfg.sources.manifests.yaml_source import parse_stream
from moecfg.sources.readers import read_shell
from moecfg.sources.shell.sourced import Includes

FIX = Path(__file__).resolve().parent / "fixtures" / "mlmwild"
MLM = FIX / "megatron_lm"
NONE = LaunchContext()
MOE = "--num-experts 64 --hidden-size 2048 --moe-router-topk 8"


def _check(path: Path, root: Path):
    return check_text(path.read_text(), str(path), root=str(root))


def _results(checked):
    return [r for r in checked.results if r.launch is not None]


def _codes(checked) -> list[str]:
    return sorted(d.code for r in checked.results for d in r.diagnostics)


# --- entry scripts that parse Megatron's arguments --------------------------------------------------------------

@pytest.mark.parametrize("cmd, entry", [
    (f"torchrun --nproc_per_node 8 train_rl.py --expert-model-parallel-size 8 {MOE}", "train_rl.py"),
    (f"torchrun --nproc-per-node 8 -m tools.run_dynamic_text_generation_server --expert-model-parallel-size 8 {MOE}",
     "run_dynamic_text_generation_server.py"),
    ("torchrun --nproc_per_node 8 quantize.py --tensor-model-parallel-size 8 --expert-model-parallel-size 8",
     "quantize.py"),
    ("torchrun --nproc_per_node 8 inference.py --tensor-model-parallel-size 1 --expert-model-parallel-size 8",
     "inference.py"),
])
def test_megatron_entry_scripts_beyond_pretrain(cmd, entry):
    (launch,) = read_shell(cmd).launches
    assert command_start(launch) is not None and entry_script(launch) == entry


@pytest.mark.parametrize("cmd", [
    "python generate.py --model x --tensor-parallel-size 8",  # a shared name without a Megatron flag: not Megatron's
    "python quantize.py --num-layers 4",  # --num-layers alone does not make quantize.py Megatron's
    "cp quantize.py /tmp --tensor-model-parallel-size 8",
])
def test_shared_entry_names_need_a_megatron_parallel_flag(cmd):
    (launch,) = read_shell(cmd).launches
    assert command_start(launch) is None


def test_world_refusal_applies_to_a_generation_server():
    # 6 ranks, TP 4: Megatron asserts the world divides TP x PP x CP, whatever the entry script
    results = lint(f"torchrun --nproc_per_node 6 --nnodes 1 tools/run_text_generation_server.py "
                   f"--tensor-model-parallel-size 4 {MOE}")
    assert any(d.code == "MC983" for r in results for d in r.diagnostics)


def test_inference_optimized_says_its_dispatcher_not_deepep():
    d = derive("torchrun --nproc_per_node 8 -m examples.inference.launch_inference_server --transformer-impl "
               f"inference_optimized --moe-token-dispatcher-type flex --expert-model-parallel-size 8 {MOE}")
    (call,) = d.calls
    assert call.kind == "none" and "moe_layer.py:392-411" in call.why_none
    flex = derive(f"torchrun --nproc_per_node 8 pretrain_gpt.py --moe-token-dispatcher-type flex "
                  f"--expert-model-parallel-size 8 {MOE}")
    assert flex.calls[0].kind == "deepep"


def test_checkpoint_args_make_the_experts_unknown_not_dense():
    # load_args_from_checkpoint(force=True) puts the checkpoint's num_experts over the command line
    d = derive("torchrun --nproc_per_node 8 pretrain_gpt.py --use-checkpoint-args --load /ckpt "
               "--moe-token-dispatcher-type flex --expert-model-parallel-size 8 --hidden-size 2048")
    assert not d.calls and [n.code for n in d.notes] == ["MC023"] and "checkpointing.py" in d.notes[0].message
    dense = derive("torchrun --nproc_per_node 8 pretrain_gpt.py --load /ckpt --hidden-size 2048")
    assert dense.calls[0].why_none.startswith("no --num-experts")


def test_mindspeed_inference_is_read_as_a_mindspeed_launch():
    path = FIX / "mindspeed_llm" / "generate_qwen3_next_80b_ptd.sh"
    lf = read_shell(path.read_text(), Includes.for_script(str(path)))
    (launch,) = [x for x in lf.launches if frameworks.recognise(x, NONE)]
    module = frameworks.recognise(launch, NONE)
    assert module.NAME == "mindspeed" and entry_script(launch) == "inference.py"
    (call,) = module.derive(launch, NONE).calls
    a = call.arguments
    assert (a["world_size"], a["tp"], a["ep"], a["num_experts"], a["dispatcher"]) == (8, 1, 8, 512, "alltoall_seq")


def test_mindspeed_checkpoint_args_say_unknown():
    d = derive("torchrun --nproc_per_node 8 inference.py --use-checkpoint-args --tensor-model-parallel-size 1 "
               "--expert-model-parallel-size 8 --n-shared-experts 1")
    assert not d.calls and "MC023" in [n.code for n in d.notes]


# --- Megatron-LM's perf tests: model_config.yaml + args file, and the CI recipe -------------------------------------

PERF = MLM / "tests/performance_tests/test_cases/hybrid/hybrid_nanov3_3b_perf_gb200_4gpu/model_config.yaml"
RECIPE = MLM / "tests/test_utils/recipes/gb200/hybrid-perf-ep4.yaml"


def test_perf_config_is_the_run_perf_test_launch():
    checked = _check(PERF, MLM)
    (result,) = _results(checked)
    assert result.launch["framework"] == "megatron"
    from moecfg.sources.recipes.megatron_perf import read_perf_config
    (doc,) = parse_stream(PERF.read_text())
    (launch,) = read_perf_config(doc, str(PERF), str(MLM)).launches
    words = launch.words()
    # world = TP 1 x PP 1 x max(DP 1, EP 4) = 4 (run_perf_test.sh:102-103); the YAML's EP wins over the args file's 8
    assert words[words.index("--nproc-per-node") + 1] == "4"
    eps = [words[i + 1] for i, w in enumerate(words) if w == "--expert-model-parallel-size"]
    assert eps == ["8", "4"]
    assert "tools.run_dynamic_text_generation_server" in words
    # ${CHECKPOINT_LOAD_PATH} is not known from the config alone: an unknown word, said as MC023
    assert "MC023" in _codes(checked)


def test_perf_config_without_its_args_file_in_the_tree_is_skipped():
    checked = _check(PERF, PERF.parent)  # the args file lies outside the checked folder: not read
    assert not _results(checked) and "args not found" in checked.skipped[0].reason


def test_perf_recipe_reads_its_test_cases_with_the_recipes_checkpoint_path():
    checked = _check(RECIPE, MLM)
    (result,) = _results(checked)
    # CHECKPOINT_LOAD_PATH=/mnt/artifacts/ is given by the recipe: every word is known; --use-checkpoint-args and the
    # inference_optimized implementation then decide (no DeepEP buffer)
    assert result.launch["framework"] == "megatron" and result.launch["line"] == 30
    assert "MC023" not in _codes(checked)


# --- an argument file sourced by the launch -------------------------------------------------------------------------

def test_rl_model_config_is_read_as_the_train_rl_launch():
    path = MLM / "examples/rl/model_configs/qwen3_30b_a3b_moe.sh"
    lf = read_shell(path.read_text(), Includes.for_script(str(path), str(MLM)))
    (launch,) = [x for x in lf.launches if frameworks.recognise(x, NONE)]
    assert entry_script(launch) == "train_rl.py"
    d = frameworks.recognise(launch, NONE).derive(launch, NONE)
    # the dispatcher is written (alltoall); EP comes from ${EP:-2} after an unread `source`: unknown, said
    assert d.calls[0].why_none.startswith("--moe-token-dispatcher-type alltoall")
    unknown = [n for n in d.notes if n.code == "MC023"]
    assert unknown and "--expert-model-parallel-size" in unknown[0].message


def test_a_script_that_launches_is_not_an_argument_file():
    text = 'MODEL_OPTIONS="--expert-model-parallel-size 8 --num-experts 64"\n' \
           "torchrun --nproc_per_node 8 train_rl.py $MODEL_OPTIONS --hidden-size 2048\n"
    launches = read_shell(text).launches
    assert len(launches) == 1 and launches[0].words()[0] == "torchrun"
    quiet = read_shell('MODEL_OPTIONS="--num-layers 4 --hidden-size 64"\necho hi\n').launches
    assert [w.words()[0] for w in quiet] == ["echo"]  # no parallel flag: not a Megatron argument file


def test_modelopt_quantize_is_a_megatron_launch_with_unknown_model_args():
    path = MLM / "examples/post_training/modelopt/quantize.sh"
    checked = _check(path, MLM)
    (result,) = _results(checked)
    assert result.launch["framework"] == "megatron" and "MC023" in _codes(checked)


# --- miles --sglang-config ------------------------------------------------------------------------------------------

def test_miles_sglang_config_groups_are_sglang_servers():
    from moecfg.sources.recipes.miles_sglang import read_miles_config

    path = FIX / "miles" / "sglang_config_qwen3_5_35b_1p1d.yaml"
    (doc,) = parse_stream(path.read_text())
    prefill, decode = read_miles_config(doc).launches
    words = prefill.words()
    # tp_size = num_gpus_per_engine (sglang_engine.py:731), the overrides as flags, the a2a backend from the launch
    assert words[words.index("--tp-size") + 1] == "4" and words[words.index("--ep-size") + 1] == "4"
    assert words[words.index("--disaggregation-mode") + 1] == "prefill"
    assert words[words.index("--moe-a2a-backend") + 1] is None and words[words.index("--model-path") + 1] is None
    assert decode.words()[decode.words().index("--deepep-mode") + 1] == "low_latency"
    checked = _check(path, path.parent)
    assert [d.code for r in checked.results for d in r.diagnostics].count("MC023") == 2


def test_sglang_unknown_a2a_backend_is_not_none():
    d = derive("python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 "
               "--moe-a2a-backend $BACKEND")
    assert not d.calls and any(n.code == "MC023" and "--moe-a2a-backend" in n.message for n in d.notes)


def test_slime_rollout_from_a_sglang_config_is_listed_not_derived_from_the_flags():
    base = "ray job submit -- python3 train.py --actor-num-nodes 1 --actor-num-gpus-per-node 8 --hidden-size 7168 " \
           "--num-experts 256 --moe-router-topk 8 --expert-model-parallel-size 8 --rollout-num-gpus-per-engine 8 " \
           "--hf-checkpoint deepseek-ai/DeepSeek-V3 --sglang-moe-a2a-backend deepep"
    ctx = LaunchContext(models=(("*", "deepseek-v3"),))
    plain = derive(base, ctx)
    assert [c.role for c in plain.calls] == ["train", "rollout"] and not plain.unread
    grouped = derive(base + " --sglang-config sglang_config.yaml", ctx)
    assert [c.role for c in grouped.calls] == ["train"]
    (entry,) = grouped.unread
    assert "--sglang-config sglang_config.yaml" in entry.reason
