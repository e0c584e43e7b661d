"""trainers/llamafactory: a LLaMA-Factory Megatron config (USE_MCA=1 / USE_MEGATRON_BRIDGE=1) read as the Megatron-LM
train it runs; a v1 fsdpturbo config (LLaMA-Factory's own expert parallelism) listed as not derived.

Fixtures: hiyouga/LLaMA-Factory@ff6d4d12e examples/megatron/qwen3_moe_full.yaml (Qwen3-30B-A3B, PP 4, EP 2, alltoall)
and examples/v1/train_full/train_full_qwen3_moe_fsdpturbo_ep_fsdp.yaml (dist_config fsdpturbo, ep_size 16).
"""
from __future__ import annotations

from pathlib import Path

from moecfg import frameworks
from moecfg.frameworks import LaunchContext
from moecfg.sources.manifests.yaml_source import parse_stream
from moecfg.sources.readers import read_shell, read_yaml_document

HERE = Path(__file__).resolve().parent / "fixtures" / "llamafactory"
MCA = HERE / "qwen3_moe_full.yaml"
V1 = HERE / "train_full_qwen3_moe_fsdpturbo_ep_fsdp.yaml"
CTX = LaunchContext()


def _file(text: str):
    (doc,) = parse_stream(text)
    return read_yaml_document(doc, text, "x.yaml", str(HERE))


def _derive(text: str):
    (launch,) = _file(text).launches
    module = frameworks.recognise(launch, CTX)
    assert module.NAME == "llamafactory"
    return module.derive(launch, CTX)


def test_megatron_config_is_a_megatron_train(monkeypatch):
    from moecfg.trainers import phases

    seen = {}
    real = phases.run_phase

    def spy(out, framework, args, launch, ctx, role, engine):
        seen["words"], seen["named"] = [w.value for w in args.words], dict(args.named)
        return real(out, framework, args, launch, ctx, role, engine)

    monkeypatch.setattr(phases, "run_phase", spy)
    d = _derive(MCA.read_text())
    (call,) = d.calls
    assert (call.role, call.kind) == ("train", "none")  # alltoall: NCCL all-to-all, no DeepEP buffer
    words = seen["words"]
    assert words[words.index("--expert-model-parallel-size") + 1] == "2"
    assert words[words.index("--pipeline-model-parallel-size") + 1] == "4"
    assert words[words.index("--moe-token-dispatcher-type") + 1] == "alltoall"
    assert words[words.index("--num-experts") + 1] == "128"  # Qwen/Qwen3-30B-A3B-Instruct-2507
    assert seen["named"]["--expert-model-parallel-size"] == "expert_model_parallel_size"
    assert not d.unread


def test_a_dispatcher_not_written_stays_unknown():
    text = MCA.read_text().replace("moe_token_dispatcher_type: alltoall\n", "")
    d = _derive(text)  # mcore_adapter's allgather or the Megatron-Bridge provider's: the environment decides
    assert any(n.code == "MC023" and "moe_token_dispatcher_type" in n.message for n in d.notes)


def test_a_plain_hugging_face_config_is_not_read():
    text = "model_name_or_path: Qwen/Qwen3-4B\nstage: sft\nfinetuning_type: lora\n"
    assert not _file(text) or not _file(text).launches


def test_v1_fsdpturbo_expert_parallelism_is_listed():
    d = _derive(V1.read_text())
    (unread,) = d.unread
    assert "dist_config.ep_size 16" in unread.reason and "fsdpturbo.py:57-79" in unread.reason
    assert not d.calls


def test_the_shell_launch_with_use_mca_names_its_config():
    launch = read_shell("USE_MCA=1 llamafactory-cli train examples/megatron/qwen3_moe_full.yaml\n").launches[-1]
    module = frameworks.recognise(launch, CTX)
    assert module.NAME == "llamafactory"
    (unread,) = module.derive(launch, CTX).unread
    assert "examples/megatron/qwen3_moe_full.yaml" in unread.reason


def test_without_an_engine_variable_the_launch_is_hugging_faces():
    launch = read_shell("llamafactory-cli train examples/train_lora/qwen3_lora_sft.yaml\n").launches[-1]
    module = frameworks.recognise(launch, CTX)
    assert module is None or module.NAME != "llamafactory"
