"""trainers/areal: an AReaL config's allocation strings (areal/api/alloc_mode.py) -> the Megatron-LM actor and the
SGLang / vLLM rollout servers; AReaL's allocation checks (MC742-MC744).

Fixture: inclusionAI/AReaL@4aef98d examples/tau2/config_30b_moe_airline.yaml: Qwen3-30B-A3B, actor
megatron:(attn:d4p4t2|ffn:d2p4e4) (32 GPUs, TP 2, PP 4, EP 4, ffn d 2), rollout sglang:d8t4.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from moecfg import frameworks
from moecfg.frameworks import LaunchContext
from moecfg.sources.manifests.yaml_source import parse_stream
from moecfg.sources.readers import read_yaml_document
from moecfg.trainers.areal.calls import parse

CONFIG = Path(__file__).resolve().parent / "fixtures" / "areal" / "config_30b_moe_airline.yaml"
CTX = LaunchContext()


def _derive(text: str | None = None):
    text = CONFIG.read_text() if text is None else text
    (doc,) = parse_stream(text)
    (launch,) = read_yaml_document(doc, text, str(CONFIG), str(CONFIG.parent)).launches
    module = frameworks.recognise(launch, CTX)
    assert module.NAME == "areal"
    return module.derive(launch, CTX)


def _codes(d):
    return [n.code for n in d.notes if n.code != "MC040"]


def test_hybrid_allocation_as_areal_parses_it():
    (p,) = parse("megatron:(attn:d4p4t2|ffn:d2p4e4)")
    assert (p.backend, p.sizes, p.refusal) == ("megatron", {"d": 4, "t": 2, "p": 4, "c": 1, "e": 4, "etp": 1}, None)
    (p,) = parse("megatron:attn:d4p4t2|ffn:p4e4t2")  # ffn d derived: 32 / (4 x 2 x 4) = 1, expert-TP 2
    assert (p.sizes["e"], p.sizes["etp"], p.refusal) == (4, 2, None)
    parts = parse("sglang:d2p1t2+megatron:d2p1t1c2")
    assert [(q.backend, q.sizes["t"]) for q in parts] == [("sglang", 2), ("megatron", 1)]
    assert parse("d4t2") is None and parse("sglang:d1+d1") is None  # no backend: not parsed


@pytest.mark.parametrize("text,code", [
    ("megatron:(attn:d4p4t2|ffn:d4p4e4)", "MC742"),  # ffn 64 GPUs, attn 32
    ("megatron:(attn:d4p4t2|ffn:p4e3)", "MC742"),  # 32 not a multiple of 3 x 1 x 4
    ("megatron:(attn:d4p4t2|ffn:d4p2e4)", "MC743"),
    ("megatron:d1p1t1e4", "MC744"),
    ("megatron:d4p1t1e4", None),
    ("megatron:(attn:d4p4t2|ffn:d2p4e4)", None),
])
def test_allocation_refusals(text, code):
    (p,) = parse(text)
    assert (p.refusal[0] if p.refusal else None) == code


def test_the_published_config_gives_both_phases_from_its_allocations():
    d = _derive()
    assert [c.role for c in d.calls] == ["train", "rollout"] and not _codes(d)
    said = " ".join(v for c in d.calls for v in c.derivation.values()) + " ".join(c.why_none for c in d.calls)
    assert "AReaL's default" in said and "cli_args.py:902-907" in said


def test_deepep_on_the_actor():
    text = CONFIG.read_text().replace("  dtype: bfloat16\n", "  dtype: bfloat16\n  megatron:\n    "
                                      "moe_token_dispatcher_type: flex\n    moe_enable_deepep: true\n", 1)
    train = _derive(text).calls[0]
    assert (train.kind, train.arguments["num_ranks"], train.arguments["hidden"]) == ("deepep", 4, 2048)
    assert "ffn:d2p4e4" in train.derivation["num_ranks"]


def test_a_refused_allocation_stops_the_derivation():
    d = _derive(CONFIG.read_text().replace("ffn:d2p4e4", "ffn:d4p4e4"))
    assert _codes(d) == ["MC742"] and not d.calls


def test_fsdp_or_an_unparsed_allocation_is_listed():
    d = _derive(CONFIG.read_text().replace('"megatron:(attn:d4p4t2|ffn:d2p4e4)"', '"fsdp:d8p1t1"'))
    assert any("fsdp" in u.reason for u in d.unread) and [c.role for c in d.calls] == ["rollout"]
    d = _derive(CONFIG.read_text().replace('"sglang:d8t4"', '"sglang:d8x4"'))
    assert any("allocation not read" in u.reason for u in d.unread)
