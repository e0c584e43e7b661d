"""sources/recipes/mindspeed_mm.py, MindSpeed-MM's other two config shapes (Ascend/MindSpeed-MM@57069cd):
- the flat FSDP2 config of its Megatron-based trainer (`fsdp2_config_path`, Fsdp2Config,
  mindspeed_mm/models/transformers/base_model.py:220-283): read; expert_parallel_size 1 is no expert dispatch, > 1 is
  the model code's own dispatch over an EP mesh (listed as not derived).
- an mcore config (`gpt_args` -> Megatron arguments, read_yaml_config.py:9-75): listed as not read, with why.

Fixtures: fixtures/mindspeed_mm/qwen3vl_fsdp2_config.yaml (examples/qwen3vl/fsdp2_config.yaml), fixtures/mindspeed_mm/
qwen3_5_35B_mcore_config.yaml (examples/mcore/qwen3_5/qwen3_5_35B_config.yaml, abridged).
"""
from __future__ import annotations

from pathlib import Path

from moecfg import frameworks
from moecfg.frameworks import LaunchContext
from moecfg.sources.manifests.yaml_source import parse_stream
from moecfg.sources.readers import read_yaml_document

HERE = Path(__file__).resolve().parent / "fixtures" / "mindspeed_mm"
CTX = LaunchContext()


def _read(name: str, text: str | None = None):
    path = HERE / name
    text = path.read_text() if text is None else text
    (doc,) = parse_stream(text)
    return read_yaml_document(doc, text, str(path), str(path.parent))


def test_the_legacy_fsdp2_config_is_read_with_ep_1():
    (launch,) = _read("qwen3vl_fsdp2_config.yaml").launches
    module = frameworks.recognise(launch, CTX)
    assert module.NAME == "mindspeed-mm"
    d = module.derive(launch, CTX)
    assert not d.unread and not d.notes and "no expert parallelism (expert_parallel_size 1)" in d.calls[0].why_none


def test_the_legacy_fsdp2_config_with_ep_lists_its_dispatch():
    text = (HERE / "qwen3vl_fsdp2_config.yaml").read_text().replace("expert_parallel_size: 1", "expert_parallel_size: 16")
    (launch,) = _read("qwen3vl_fsdp2_config.yaml", text).launches
    (u,) = frameworks.recognise(launch, CTX).derive(launch, CTX).unread
    assert "expert_parallel_size 16" in u.reason and "Megatron-based trainer" in u.reason


def test_the_mcore_config_is_listed_not_read():
    lf = _read("qwen3_5_35B_mcore_config.yaml")
    assert not lf.launches
    (u,) = lf.unread
    assert u.launcher == "MindSpeed-MM mcore" and "gpt_args" in u.reason and u.span.line == 5
