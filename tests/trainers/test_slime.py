"""trainers/slime: `ray job submit ... -- python3 train.py` -> the Megatron-LM train phase and the SGLang rollout phase.

Fixture: THUDM/slime@624b824 scripts/run-deepseek-r1.sh with models/deepseek-v3.sh, sourced through the SCRIPT_DIR
idiom. DeepSeek-R1 over 16 nodes x 8: TP 8 x PP 4 x CP 4 = 128, expert-TP 1 x EP 32 x PP 4 = 128; the flex dispatcher
with DeepEP over the 32 EP ranks; one SGLang server per 64 GPUs (TP 64, DeepEP).
"""
from __future__ import annotations

from pathlib import Path

from moecfg import frameworks
from moecfg.backends import Options
from moecfg.backends.deepep.arguments import normal_hint_bytes
from moecfg.checking.launch import lint_launch_file
from moecfg.frameworks import LaunchContext
from moecfg.sources.readers import read_shell
from moecfg.sources.shell.sourced import Includes

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SCRIPT = FIXTURES / "slime" / "run-deepseek-r1.sh"
R1 = LaunchContext(models=(("*", "deepseek-r1"),))
RUN = "ray job submit -- python3 train.py --actor-num-nodes {nodes} --actor-num-gpus-per-node 8 " \
      "--hidden-size 7168 --num-experts 256 --moe-router-topk 8 --moe-token-dispatcher-type flex " \
      "--expert-model-parallel-size 8 --tensor-model-parallel-size {tp} --rollout-num-gpus-per-engine 8 " \
      "--hf-checkpoint deepseek-ai/DeepSeek-V3 --sglang-moe-a2a-backend deepep {extra}"


def _derive(text: str | None = None, ctx=R1):
    lf = read_shell(SCRIPT.read_text(), Includes.for_script(str(SCRIPT))) if text is None else read_shell(text)
    (launch,) = [x for x in lf.launches if frameworks.recognise(x, ctx)]
    module = frameworks.recognise(launch, ctx)
    assert module.NAME == "slime"
    return module.derive(launch, ctx), lf


def _line(word: str) -> int:
    return next(i for i, line in enumerate(SCRIPT.read_text().splitlines(), 1) if word in line)


def test_deepseek_r1_train_phase_is_megatrons_deepep_buffer_over_the_ep_group():
    d, _ = _derive()
    (train,) = [c for c in d.calls if c.role == "train"]
    a = train.arguments
    # the model's shape comes from the sourced models/deepseek-v3.sh; flex (MISC_ARGS) wins over alltoall (MODEL_ARGS)
    assert (a["num_ranks"], a["hidden"], a["num_experts"], a["num_topk"]) == (32, 7168, 256, 8)
    assert (a["num_nvl_bytes"], a["num_rdma_bytes"]) == normal_hint_bytes(7168 * 2, 32)
    assert train.sources["num_ranks"][0].line == _line("--expert-model-parallel-size 32")


def test_deepseek_r1_rollout_phase_is_one_sglang_server_per_engine():
    d, _ = _derive()
    (rollout,) = [c for c in d.calls if c.role == "rollout"]
    a = rollout.arguments
    # --rollout-num-gpus-per-engine 64 is the SGLang TP size; DeepEP makes EP = TP (SGLang's _handle_a2a_moe)
    assert (rollout.kind, a["num_ranks"], a["mode"], a["hidden"]) == ("deepep", 64, "auto", 7168)
    assert "--rollout-num-gpus-per-engine" in rollout.derivation["num_ranks"]
    assert rollout.sources["num_ranks"][0].line == _line("--rollout-num-gpus-per-engine 64")


def test_the_slime_version_and_the_sglang_release_are_said_once():
    d, _ = _derive()
    said = [n for n in d.notes if n.code == "MC040"]
    assert len(said) == 1 and "0.5.15.post1" in said[0].message


def test_without_the_sourced_model_file_the_shape_is_unknown():
    lf = read_shell(SCRIPT.read_text())  # no include hook: `source` is not followed, MODEL_ARGS unknown
    (launch,) = [x for x in lf.launches if frameworks.recognise(x, R1)]
    d = frameworks.recognise(launch, R1).derive(launch, R1)
    assert not [c for c in d.calls if c.role == "train" and c.kind == "deepep"]
    assert any(p.code == "MC023" and "source" in p.message for p in lf.problems)


def test_world_size_uses_slimes_actor_nodes_and_gpus():
    d, _ = _derive(RUN.format(nodes=1, tp=8, extra="--pipeline-model-parallel-size 2"))
    assert [n.code for n in d.notes if n.code == "MC983"] == ["MC983"]
    (n,) = [n for n in d.notes if n.code == "MC983"]
    assert "--actor-num-nodes" in n.message and "16" in n.message
    d, _ = _derive(RUN.format(nodes=2, tp=8, extra="--pipeline-model-parallel-size 2 --expert-tensor-parallel-size 1"))
    assert "MC983" not in [n.code for n in d.notes]


def test_pipeline_size_must_divide_the_gpus_per_engine():
    d, _ = _derive(RUN.format(nodes=1, tp=1, extra="--sglang-pp-size 3"))
    assert "MC715" in [n.code for n in d.notes]
    assert not [c for c in d.calls if c.role == "rollout"]
    d, _ = _derive(RUN.format(nodes=1, tp=1, extra="--sglang-pp-size 2"))
    assert "MC715" not in [n.code for n in d.notes]


def test_dp_size_needs_dp_attention():
    d, _ = _derive(RUN.format(nodes=1, tp=1, extra="--sglang-dp-size 2"))
    assert "MC716" in [n.code for n in d.notes]
    d, _ = _derive(RUN.format(nodes=1, tp=1, extra="--sglang-dp-size 2 --sglang-enable-dp-attention"))
    assert "MC716" not in [n.code for n in d.notes]


def test_debug_flags_skip_a_phase():
    d, _ = _derive(RUN.format(nodes=1, tp=1, extra="--debug-rollout-only"))
    assert {c.role for c in d.calls} == {"rollout"}
    d, _ = _derive(RUN.format(nodes=1, tp=1, extra="--debug-train-only"))
    assert {c.role for c in d.calls} == {"train"}


def test_a_train_py_without_slime_flags_is_not_slime():
    lf = read_shell("python3 train.py --lr 1e-5 --epochs 3\n")
    assert not [x for x in lf.launches if frameworks.recognise(x, R1)]


def test_check_positions_findings_at_the_slime_flag():
    text = RUN.format(nodes=1, tp=1, extra="--sglang-pp-size 3")
    results = lint_launch_file(read_shell(text), "t", R1, Options())
    (d,) = [d for r in results for d in r.diagnostics if d.code == "MC715"]
    assert d.column == text.index("--sglang-pp-size") + 1 and d.severity == "error"


def test_a_phase_with_no_op_call_is_still_listed_with_why():
    d, _ = _derive(ctx=LaunchContext())  # the model is `$BASE_DIR/DeepSeek-R1/`: not known, SGLang asks (MC042)
    (rollout,) = [c for c in d.calls if c.role == "rollout"]
    assert rollout.kind == "none" and rollout.quiet
    assert rollout.arguments["op_call"].startswith("not derived (MC042 line ")
    assert any(n.code == "MC042" for n in d.notes)


def test_an_unknown_word_after_a_switch_is_not_its_value():
    # `--colocate ${MODEL_ARGS[@]}` with MODEL_ARGS unknown: the word may hold the MoE flags, said (MC023), not dense
    d, _ = _derive("python3 train.py --rollout-num-gpus-per-engine 8 --colocate $UNKNOWN_ARGS")
    assert any(n.code == "MC023" and "not known statically" in n.message for n in d.notes)


def test_python_options_and_a_variable_folder_before_train_py():
    # THUDM/slime@624b824 examples/coding_agent_rl/run_qwen36_35b_a3b_swe_8nodes.sh:299 (`python3 -u train.py`),
    # examples/eval_multi_task/multi_task.sh:136 (`python3 "${REPO_ROOT}/train.py"`)
    for text in ("ray job submit -- python3 -u train.py --actor-num-nodes 1 --rollout-num-gpus-per-engine 8\n",
                 'ray job submit -- python3 "${REPO_ROOT}/train.py" --actor-num-nodes 1\n'):
        (launch,) = read_shell(text).launches
        assert frameworks.recognise(launch, R1).NAME == "slime"
