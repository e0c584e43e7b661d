"""trainers/mindspeed_mm, `ep_plan.dispatcher: mc2`: each MoE layer runs torch_npu.npu_alltoallv_gmm and
npu_gmm_alltoallv with epWorldSize = expert_parallel_size (Ascend/MindSpeed-MM@57069cd
mindspeed_mm/fsdp/ops/moe_ops/gemm_mc2.py:11-21,56-66, ep_dispatcher.py:352-384). Their tiling takes epWorldSize in
{8, 16, 32, 64, 128} on Atlas A3 and {2, 4, 8, 16, 32, 64} (both ops) on Ascend 950 (cannmirror/ops-transformer
v8.5.0 / v9.0.0 / v9.1.0.pre), and they have no Atlas A2 kernel (AddConfig ascend910_93 / ascend950): MC723, MC724.

Fixture: fixtures/mindspeed_mm/qwen3_5_122B_config.yaml (Ascend/MindSpeed-MM@57069cd examples/qwen3_5/
qwen3_5_122B_config.yaml, EP 8, dispatcher alltoall), its dispatcher switched to mc2 here.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from moecfg import frameworks
from moecfg.frameworks import LaunchContext
from moecfg.sources.manifests.yaml_source import parse_stream
from moecfg.sources.readers import read_yaml_document

CONFIG = Path(__file__).resolve().parent / "fixtures" / "mindspeed_mm" / "qwen3_5_122B_config.yaml"
MC2 = CONFIG.read_text().replace("dispatcher: alltoall", "dispatcher: mc2")


def _derive(ep: int, product: str | None = None):
    text = MC2.replace("expert_parallel_size: 8", f"expert_parallel_size: {ep}")
    (doc,) = parse_stream(text)
    (launch,) = read_yaml_document(doc, text, str(CONFIG), str(CONFIG.parent)).launches
    ctx = LaunchContext(product=product, product_source="--product" if product else "")
    module = frameworks.recognise(launch, ctx)
    assert module.NAME == "mindspeed-mm"
    return module.derive(launch, ctx)


def _codes(d):
    return [n.code for n in d.notes]


@pytest.mark.parametrize("ep,product,code", [
    (8, "A3", None), (128, "A3", None),  # the ends of A3's set
    (4, "A3", "MC723"), (256, "A3", "MC723"),  # just outside it
    (4, None, None), (2, None, None),  # Ascend 950 takes them: no product, no error
    (12, None, "MC723"), (256, None, "MC723"), (24, None, "MC723"),  # refused on every product
    (8, "A2", "MC724"),  # no A2 kernel
])
def test_the_mc2_ops_ep_world_size(ep, product, code):
    d = _derive(ep, product)
    assert _codes(d) == ([code] if code else [])
    if code:
        assert not d.calls and str(ep) in d.notes[0].message
    else:
        (u,) = d.unread
        assert "npu_alltoallv_gmm" in u.reason and "HCCL buffer" in u.reason


def test_the_message_names_the_set_of_the_product():
    (note,) = _derive(4, "A3").notes
    assert "8, 16, 32, 64, 128" in note.message and "on Atlas A3" in note.message
    (note,) = _derive(12).notes
    assert "2, 4, 8, 16, 32, 64, 128" in note.message and "any product" in note.message
