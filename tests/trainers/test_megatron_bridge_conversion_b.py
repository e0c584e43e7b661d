"""trainers/megatron_bridge/conversion.py: convert.sh import|export|roundtrip, infer.sh and the conversion /
generation scripts torchrun starts, read as a Megatron model's conversion or inference phase.

Fixtures (tests/trainers/fixtures/megatron_bridge/): NVIDIA-NeMo/Megatron-Bridge@067f987
examples/models/glm47/conversion.sh:38-53, examples/models/kimi/kimi_k25_vl/slurm_conversion.sh:40-67,
examples/model_verification_cards/deepseek-v4-flash/card.yaml:106-115 (each cites it on its first line).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from moecfg import frameworks
from moecfg.checking.engine import check_paths
from moecfg.frameworks import LaunchContext
from moecfg.sources.readers import read_shell

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "megatron_bridge"
CONVERT = "./scripts/conversion/convert.sh "
GENERATE = "torchrun --nproc_per_node=8 --nnodes={n} examples/conversion/hf_to_megatron_generate_text.py " \
           "--hf_model_path Qwen/Qwen3-30B-A3B --prompt hi "


def _derive(text: str):
    out = []
    for launch in read_shell(text).launches:
        module = frameworks.recognise(launch, LaunchContext())
        if module is not None:
            assert module.NAME == "megatron-bridge"
            out.append(module.derive(launch, LaunchContext()))
    return out


def _codes(text: str) -> list[str]:
    (d,) = _derive(text)
    return [n.code for n in d.notes if n.code != "MC040"]


def _check(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text)
    return check_paths([str(path)])


def test_the_glm47_conversions_are_read_with_no_token_dispatch():
    ds = _derive((FIXTURES / "conversion_glm47.sh").read_text())
    assert len(ds) == 3  # the torchrun round trip, convert.sh import, convert.sh export
    for d in ds:
        (call,) = d.calls
        assert call.kind == "none" and call.role == "convert" and "no token dispatch" in call.why_none
        assert not [n for n in d.notes if n.code != "MC040"] and not d.unread
    assert "EP 8" in ds[0].calls[0].derivation["parallel"]
    # `uv run python -m torch.distributed.run --nproc_per_node=8`: --nnodes absent (PET_NNODES may set it)
    assert "torch.distributed.run --nproc_per_node 8 x --nnodes (absent)" in ds[0].calls[0].derivation["ranks"]
    assert ds[1].calls[0].derivation["ranks"] == "one CPU process"  # import's default --device cpu


def test_a_conversion_held_in_convert_sh_variable_is_read_and_not_judged_past_unknown_words():
    (d,) = _derive((FIXTURES / "slurm_conversion_kimi.sh").read_text())
    (call,) = d.calls
    assert call.kind == "none" and "EP 48" in call.derivation["parallel"]
    assert [n.code for n in d.notes] == ["MC040"]  # "${MOUNT_ARGS[@]}" "$@" may set anything: nothing refused


def test_the_card_export_over_8_gpus_with_ep8_pp4_is_refused_by_setup_conversion(tmp_path):
    report = _check(tmp_path, "card.yaml", (FIXTURES / "card_dsv4_export.yaml").read_text())
    (error,) = [d for r in report.results for d in r.diagnostics if d.severity == "error"]
    assert error.code == "MC714" and "ETP 1 x EP 8 x PP 4 = 32" in error.message and error.line == 8
    fixed = (FIXTURES / "card_dsv4_export.yaml").read_text().replace("--nodes 2 ", "--nodes 8 ")
    report = _check(tmp_path, "card.yaml", fixed)  # 8 x 4 = 32 GPUs: just inside
    assert report.count("error") == 0 and [s.state for s in report.states] == ["read"]


@pytest.mark.parametrize("args, code", [
    ("import --hf-model M --megatron-path P --ep 8", "MC714"),  # the CPU backend (import's default) needs EP 1
    ("import --hf-model M --megatron-path P --device gpu --gpus-per-node 8 --ep 8", None),
    ("import --hf-model M --megatron-path P --device gpu --ep 8", "MC714"),  # no --gpus-per-node
    ("import --hf-model M --megatron-path P --device gpu --gpus-per-node 8 --tp 4 --pp 4", "MC714"),  # 8 % 16
    ("import --hf-model M --megatron-path P --device gpu --gpus-per-node 8 --tp 4 --pp 2", None),  # 8 % 8
    ("roundtrip --hf-model M --device cpu", "MC714"),
    ("roundtrip --hf-model-id M --gpus-per-node 8 --ep 8", None),  # roundtrip's default --device gpu
    ("export --hf-model M --megatron-path P", "MC714"),  # --hf-path is required
    ("import --hf-model M --megatron-path P --nodes 2", "MC714"),  # the local executor: one node
    ("import --hf-model M --megatron-path P --executor slurm --nodes 2", None),
    ("import --hf-model M --megatron-path P $EXTRA --ep 8", None),  # $EXTRA may hold --device gpu ...
])
def test_setup_conversion_refuses_what_its_validate_args_refuses(args, code):
    assert _codes(CONVERT + args + "\n") == ([code] if code else [])


def test_a_generation_over_a_world_megatron_refuses_is_mc983():
    assert _codes(GENERATE.format(n=1) + "--ep 16\n") == ["MC983"]  # 8 % (ETP 1 x EP 16 x PP 1)
    assert _codes(GENERATE.format(n=2) + "--ep 16\n") == []  # 16 ranks: just inside
    uv = "uv run python -m torch.distributed.run --nproc_per_node=8 --nnodes=1 examples/conversion/" \
         "hf_megatron_roundtrip_multi_gpu.py --hf-model-id M --tp 2 --pp 2 --ep {ep}\n"
    assert _codes(uv.format(ep=4)) == []  # behind `uv run`: 8 ranks, TP 2 x PP 2 and ETP 1 x EP 4 x PP 2 divide 8
    assert _codes(uv.format(ep=8)) == ["MC983"]  # ETP 1 x EP 8 x PP 2 = 16


def test_a_generation_lists_the_providers_dispatcher_as_not_derived():
    (d,) = _derive(GENERATE.format(n=1) + "--ep 8\n")
    assert d.calls == [] and len(d.unread) == 1
    assert d.unread[0].reason.startswith("inference dispatcher not derived: text generation")
    (d,) = _derive(GENERATE.format(n=1) + "--ep 1\n")
    assert d.calls[0].kind == "none" and not d.unread  # EP 1: no expert-parallel dispatch


def test_a_torchrun_world_without_nnodes_is_not_judged():
    text = "torchrun --nproc_per_node=8 examples/conversion/hf_to_megatron_generate_text.py --ep 16\n"
    assert _codes(text) == []  # --nnodes may come from PET_NNODES


def test_text_generation_with_ep_needs_the_coordinator():
    base = "torchrun --nproc_per_node=8 --nnodes=1 scripts/inference/text_generation.py --hf-model-path M --ep 2"
    assert _codes(base + "\n") == ["MC714"]
    assert _codes(base + " --use-coordinator\n") == []


def test_infer_sh_runs_its_task_over_nodes_times_gpus_per_node():
    task = ("./scripts/inference/infer.sh --nodes {n} --gpus-per-node 8 --task legacy-full-prefix-generation "
            "--hf_model_path zai-org/GLM-5.2 --legacy-full-prefix --tp 1 --pp 4 --ep 8 --etp 1\n")
    assert _codes(task.format(n=4)) == []
    assert _codes(task.format(n=2)) == ["MC983"]  # 16 % (1 x 8 x 4)


def test_a_printed_launch_and_a_prose_mention_are_not_launches():
    assert _derive('echo "./scripts/conversion/convert.sh import --hf-model M --megatron-path P --ep 8"\n') == []
    assert _derive("roundtrip --hf-model M\n") == []  # a program named `roundtrip`, not convert.sh's subcommand
