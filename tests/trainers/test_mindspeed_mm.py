"""trainers/mindspeed_mm: a MindSpeed-MM FSDP2 config is read (its EP, dispatcher, the checks MindSpeed-MM runs on its
`parallel` section: MC745, MC746); the alltoall / allgather dispatchers are plain HCCL collectives (nothing to size),
the mc2 dispatcher's CANN ops are checked on their EP size (test_mindspeed_mc2_m.py) and listed as not derived.

Fixture: Ascend/MindSpeed-MM@57069cd examples/qwen3_5/qwen3_5_122B_config.yaml: EP 8, dispatcher alltoall.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from moecfg import frameworks
from moecfg.frameworks import LaunchContext
from moecfg.sources.manifests.yaml_source import parse_stream
from moecfg.sources.readers import read_shell, read_yaml_document

CONFIG = Path(__file__).resolve().parent / "fixtures" / "mindspeed_mm" / "qwen3_5_122B_config.yaml"
CTX = LaunchContext()


def _derive(text: str | None = None):
    text = CONFIG.read_text() if text is None else text
    (doc,) = parse_stream(text)
    (launch,) = read_yaml_document(doc, text, str(CONFIG), str(CONFIG.parent)).launches
    module = frameworks.recognise(launch, CTX)
    assert module.NAME == "mindspeed-mm"
    return module.derive(launch, CTX)


def test_the_config_is_read_and_its_alltoall_dispatch_has_nothing_to_size():
    d = _derive()
    (call,) = d.calls
    assert call.kind == "none" and call.derivation["expert_parallel_size"].startswith("8 <- parallel.")
    assert not d.unread and "all-to-all (HCCL collective) over the 8 EP ranks" in call.why_none
    d = _derive(CONFIG.read_text().replace("dispatcher: alltoall", "dispatcher: allgather"))
    assert not d.unread and "all-gather" in d.calls[0].why_none
    d = _derive(CONFIG.read_text().replace("dispatcher: alltoall", "dispatcher: other"))
    assert "dispatcher other" in d.unread[0].reason


def test_mc2_is_named_with_its_kernels():
    d = _derive(CONFIG.read_text().replace("dispatcher: alltoall", "dispatcher: mc2"))
    assert "npu_alltoallv_gmm" in d.unread[0].reason


@pytest.mark.parametrize("old,new,code", [
    ("  expert_parallel_size: 8\n", "  expert_parallel_size: 8\n  tensor_parallel_size: 2\n", "MC745"),
    ("  expert_parallel_size: 8\n", "  expert_parallel_size: 8\n  tensor_parallel_size: 1\n", None),
    ("  expert_parallel_size: 8\n", "  expert_parallel_size: 8\n  tensor_parallel_size: null\n", None),
    ("    dispatcher: alltoall", "    dispatcher: mc2\n    use_npu_fused_ops: false", "MC746"),
    ("    dispatcher: alltoall", "    dispatcher: alltoall\n    use_npu_fused_ops: false", None),
    ("    dispatcher: alltoall", "    dispatcher: mc2\n    use_npu_fused_ops: true", None),
])
def test_mindspeed_mm_refusals(old, new, code):
    d = _derive(CONFIG.read_text().replace(old, new))
    assert [n.code for n in d.notes] == ([code] if code else [])


def test_ep_one_or_no_apply_modules_has_nothing_unread():
    mc2 = CONFIG.read_text().replace("dispatcher: alltoall", "dispatcher: mc2")
    assert not _derive(mc2.replace("expert_parallel_size: 8", "expert_parallel_size: 1")).unread
    text = mc2.replace("    apply_modules:\n      - model.language_model.layers.{*}.mlp.experts\n"
                       "    dispatcher", "    dispatcher")
    assert not _derive(text).unread


def test_the_shell_launch_names_its_config():
    (launch,) = read_shell("torchrun $DISTRIBUTED_ARGS mindspeed_mm/fsdp/train/trainer.py "
                           "examples/qwen3_5/qwen3_5_122B_config.yaml\n").launches
    module = frameworks.recognise(launch, CTX)
    assert module.NAME == "mindspeed-mm"
    assert "qwen3_5_122B_config.yaml" in module.derive(launch, CTX).unread[0].reason
