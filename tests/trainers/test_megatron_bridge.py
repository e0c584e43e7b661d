"""trainers/megatron_bridge: `run_recipe.py --recipe X [options] [model.<field>=<value>]` -> the Megatron-LM train,
the recipe's settings replayed from recipes.json (tools/gen_bridge_recipes.py), the launch's over them.

Fixture: NVIDIA-NeMo/Megatron-Bridge@067f987 examples/models/deepseek_v4/slurm_pretrain.sh (the launch inside
`$SRUN_CMD bash -lc "$CMD"`): DeepSeek-V4-Flash over 4 x 8 ranks, TP 1 PP 4 EP 8, the recipe's alltoall dispatcher.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from moecfg import frameworks
from moecfg.frameworks import LaunchContext
from moecfg.sources.readers import read_shell
from moecfg.trainers.megatron_bridge import releases

SCRIPT = Path(__file__).resolve().parent / "fixtures" / "megatron_bridge" / "slurm_pretrain.sh"
CTX = LaunchContext()
RUN = "torchrun --nproc_per_node=8 --nnodes=4 scripts/training/run_recipe.py "


def _derive(text: str):
    lf = read_shell(text)
    (launch,) = [l for l in lf.launches if any("run_recipe" in (w or "") for w in l.words())]
    module = frameworks.recognise(launch, CTX)
    assert module.NAME == "megatron-bridge"
    return module.derive(launch, CTX)


def _codes(d) -> list[str]:
    return [n.code for n in d.notes if n.code != "MC040"]


def test_recipe_replayed_through_its_base_helpers_and_flex_backend():
    r = releases.recipe("deepseek_v3_pretrain_config")  # re-exported from recipes/deepseek/h100/deepseek_v3.py
    assert r.at.endswith("recipes/deepseek/h100/deepseek_v3.py:105")
    assert (r.hf.value, r.hf.at.rsplit(":", 1)[1]) == ("deepseek-ai/DeepSeek-V3", "113")
    f = {k: v.value for k, v in r.fields.items()}
    assert (f["tensor_model_parallel_size"], f["pipeline_model_parallel_size"], f["expert_model_parallel_size"]) == \
        (2, 16, 64)
    # :159-160 alltoall + hybridep, then :256 apply_flex_dispatcher_backend turns the flex dispatcher on
    assert (f["moe_token_dispatcher_type"], f["moe_flex_dispatcher_backend"]) == ("flex", "hybridep")
    assert r.fields["moe_token_dispatcher_type"].at.endswith(":256")


def test_a_benchmark_recipe_comes_before_a_library_one_and_takes_its_base():
    r = releases.recipe("deepseek_v3_pretrain_1024gpu_h100_bf16_config")
    assert "perf_recipes/" in r.at and r.hf.value == "deepseek-ai/DeepSeek-V3"
    assert r.fields["pipeline_model_parallel_size"].value == 8  # the benchmark's own, over its base's 16


def test_a_model_id_from_a_module_constant():
    assert releases.recipe("qwen3_30b_a3b_pretrain_16gpu_h100_bf16_config").hf.value == "Qwen/Qwen3-30B-A3B"
    assert releases.recipe("no_such_recipe_config") is None


def test_the_published_script_is_read_inside_its_srun_bash_c():
    d = _derive(SCRIPT.read_text())
    (call,) = d.calls
    assert call.role == "train" and call.kind == "none"  # the recipe's alltoall: no DeepEP buffer
    assert "deepseek_v4_flash_pretrain_mxfp8_config" in call.why_none or any(
        "deepseek_v4.py:176" in v for v in call.derivation.values()) or "deepseek_v4.py:176" in " ".join(
        n.message for n in call.notes)


def test_deepep_from_an_override_over_the_recipe():
    d = _derive(RUN + "--recipe deepseek_v3_pretrain_config -pp 1 model.expert_model_parallel_size=32 "
                "model.moe_flex_dispatcher_backend=deepep\n")
    (call,) = d.calls
    assert (call.kind, call.arguments["num_ranks"], call.arguments["hidden"], call.arguments["num_experts"]) == \
        ("deepep", 32, 7168, 256)
    assert "[model.expert_model_parallel_size]" in call.derivation["num_ranks"]


def test_a_trailing_override_wins_over_the_common_option():
    d = _derive(RUN + "--recipe deepseek_v3_pretrain_config -pp 1 -ep 16 model.expert_model_parallel_size=32 "
                "model.moe_flex_dispatcher_backend=deepep\n")
    (call,) = d.calls
    assert call.arguments["num_ranks"] == 32  # run_recipe.py:27-28: the KEY=VALUE override takes precedence


def test_megatron_refuses_the_world():
    d = _derive(RUN + "--recipe deepseek_v3_pretrain_config -pp 4 -ep 32\n")
    assert _codes(d) == ["MC983"] and not [c for c in d.calls if c.kind != "none"]


def test_recipe_and_model_together_is_refused():
    d = _derive(RUN + "--recipe deepseek_v3_pretrain_config --model deepseek_v3\n")
    assert _codes(d) == ["MC735"] and not d.calls


def test_a_word_that_is_no_override_is_refused_and_a_valued_option_is_not():
    d = _derive(RUN + "--recipe deepseek_v3_pretrain_config --dataset mock model.expert_model_parallel_size 8\n")
    assert _codes(d) == ["MC736"]
    note = next(n for n in d.notes if n.code == "MC736")
    assert "model.expert_model_parallel_size" in note.message
    assert "MC736" not in _codes(_derive(RUN + "--recipe deepseek_v3_pretrain_config --dataset mock -pp 1 "
                                         "-ep 32 --dry-run\n"))


def test_an_unknown_recipe_or_a_model_stem_is_listed_not_derived():
    d = _derive(RUN + "--recipe my_own_recipe_config\n")
    assert not d.calls and "my_own_recipe_config" in d.unread[0].reason
    d = _derive(RUN + "--model gpt_oss_20b -ep 8\n")
    assert "--model gpt_oss_20b" in d.unread[0].reason


def test_an_unset_variable_after_the_recipe_is_not_refused():
    d = _derive(RUN + "--recipe deepseek_v3_pretrain_config $EXTRA -pp 1 -ep 32\n")
    assert "MC736" not in _codes(d)


def test_a_dispatcher_the_recipe_does_not_set_is_not_megatrons_default():
    # qwen35_vl_35b_a3b_pretrain_8gpu_b200_bf16_config sets EP but no dispatcher: the model provider's default stands
    r = releases.recipe("qwen35_vl_35b_a3b_pretrain_8gpu_b200_bf16_config")
    assert "moe_token_dispatcher_type" not in r.fields and "expert_model_parallel_size" in r.fields
    d = _derive(RUN.replace("--nnodes=4", "--nnodes=1") + "--recipe qwen35_vl_35b_a3b_pretrain_8gpu_b200_bf16_config\n")
    said = " ".join(v for c in d.calls for v in c.derivation.values()) + " ".join(
        [n.message for n in d.notes] + [c.why_none for c in d.calls])
    assert not [c for c in d.calls if c.kind == "deepep"] and "allgather" not in said


def test_no_recipe_read_leaves_the_recipes_settings_unknown():
    from moecfg.trainers.megatron_bridge.calls import _Read, _fields
    from moecfg.frameworks import Derivation
    (launch,) = read_shell(RUN + "--model gpt_oss_20b -ep 8 model.moe_token_dispatcher_type=flex\n").launches
    fields = _fields(_Read(launch, 3), Derivation("megatron-bridge", "x"))
    assert "_hf" not in fields and fields["moe_token_dispatcher_type"].value == "flex"


@pytest.mark.parametrize("device,kind", [("H100", "deepep"), ("B200", "deepep"), ("GB200", "none"), (None, "deepep")])
def test_the_recipes_flex_dispatcher_depends_on_the_gpu(device, kind):
    # qwen3_moe.py:67-68 alltoall + deepep, :137 apply_flex_dispatcher_backend: DeepEP on majors 8 / 9 and B200 / B300
    # only (flex_dispatcher_backend.py:59-68); GB200 falls back to alltoall
    ctx = LaunchContext(device=device)
    (launch,) = read_shell("torchrun --nproc_per_node=8 scripts/training/run_recipe.py --recipe "
                           "qwen3_30b_a3b_pretrain_config -tp 1 -pp 1\n").launches
    (call,) = frameworks.recognise(launch, ctx).derive(launch, ctx).calls
    assert call.kind == kind
    assert bool(call.condition) == (device is None)  # a GPU not named: the buffer holds only on one that takes DeepEP


def test_the_performance_scripts_runner_is_not_the_training_one():
    (launch,) = read_shell("python scripts/performance/run_recipe.py --model_family_name deepseek -ng 8\n").launches
    module = frameworks.recognise(launch, CTX)
    assert module is None or module.NAME != "megatron-bridge"


def test_a_launch_kept_by_read_d_and_run_after_an_unknown_srun_prefix_is_read():
    # fixture: step35's INNER_SCRIPT (`read -r -d '' ... <<'EOF'`), run as `${SRUN_CMD} --nodes=... bash -c "...;
    # ${INNER_SCRIPT}"` where SRUN_CMD is unknown (set in a loop): the overrides reach run_recipe.py
    text = (SCRIPT.parent / "step35_read_heredoc.sh").read_text()
    (launch,) = [l for l in read_shell(text).launches if any("run_recipe" in (w or "") for w in l.words())]
    words = launch.words()
    assert "model.expert_model_parallel_size=8" in words and "step35_196b_a11b_pretrain_config" in words
    ep = next(w for w in launch.argv if w.value == "model.expert_model_parallel_size=8")
    # placed in the script held in INNER_SCRIPT, at its `${CLI_OVERRIDES}` (not at `${INNER_SCRIPT}` on the srun line)
    assert text.splitlines()[ep.span.line - 1].strip() == "${CLI_OVERRIDES}"
    run = next(w for w in launch.argv if w.value == "scripts/training/run_recipe.py")
    assert text.splitlines()[run.span.line - 1].startswith("uv run --no-sync python scripts/training/run_recipe.py")
    module = frameworks.recognise(launch, CTX)
    assert module.NAME == "megatron-bridge"


def test_an_array_launch_whose_folder_is_known_at_run_time_and_its_dry_run_printf():
    # NVIDIA-NeMo/Megatron-Bridge@067f987 examples/models/qwen/qwen3_omni/local_train_thinker_full.sh:265-299, :441, :449
    text = ('ROOT_DIR=$(cd -- "$(dirname -- "$0")" && pwd -P)\nCMD=(\n    python -m torch.distributed.run\n'
            '    --nproc_per_node=8\n    "${ROOT_DIR}/scripts/training/run_recipe.py"\n'
            '    --recipe qwen3_30b_a3b_pretrain_config\n    model.expert_model_parallel_size=8\n)\n'
            'printf \'[dry-run] %q \' "${CMD[@]}"\n"${CMD[@]}"\n')
    launches = read_shell(text).launches
    recognised = [x for x in launches if frameworks.recognise(x, CTX) is not None]
    assert [x.argv[0].value for x in recognised] == ["python"]  # the printf shows the launch, it does not run it
    (call,) = frameworks.recognise(recognised[0], CTX).derive(recognised[0], CTX).calls
    # qwen3_moe.py's alltoall + deepep, turned flex by apply_flex_dispatcher_backend: DeepEP over the override's EP 8
    assert (call.kind, call.arguments["num_ranks"]) == ("deepep", 8)
    assert "[model.expert_model_parallel_size]" in call.derivation["num_ranks"]
