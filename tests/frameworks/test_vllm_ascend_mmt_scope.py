"""Issue 23 leftovers: what `mega_moe_max_tokens` sizes per vllm-ascend release (an MC043 info where it does not size
MegaMoE's receive capacity), and `framework_versions: {vllm-ascend: 0.26.0rc}` (a bare rc branch) in the settings."""
from __future__ import annotations

import json

import pytest

import moecfg.frameworks.vllm_ascend as va
from moecfg.checking.settings import parse
from moecfg.frameworks.vllm_ascend.releases import match
from vllm_ascend_launches import ctx, launch

# the key on line 3, so a note at the flag's position is told apart from one at the launch (line 1)
SCRIPT = """vllm serve vllm-ascend/DeepSeek-R1-W8A8 --quantization ascend --enable-expert-parallel \\
  --data-parallel-size 4 --tensor-parallel-size 4 --max-num-seqs 16 \\
  --additional-config '{cfg}'
"""


def scope_notes(cfg: dict, version: str):
    d = va.derive(launch(SCRIPT.format(cfg=json.dumps(cfg))), ctx(version=version, cann="9.2.0"))
    assert d.version == version
    return [n for n in d.notes if n.code == "MC043" and "mega_moe_max_tokens" in n.message]


@pytest.mark.parametrize("version", ["0.25.1rc1", "0.26.0rc", "main"])
def test_set_where_it_does_not_size_megamoe_is_an_info_at_the_key(version):
    notes = scope_notes({"enable_fused_mc2": 1, "mega_moe_max_tokens": 8192}, version)
    assert len(notes) == 1
    note = notes[0]
    assert note.severity in (None, "info") and note.span.line == 3
    assert "max_output_size" in note.message and "#14730" in note.message and "#15014" in note.message
    assert "8192" in note.message


@pytest.mark.parametrize("version", ["0.27", "0.24.0rc1", "0.23.0", "0.18.0"])
def test_no_info_where_it_sizes_megamoe_or_there_is_no_megamoe(version):
    # 0.27 (#15014): the key is MegaMoE's max_recv_token_num; before 0.25.1rc1 there is no MegaMoE to mislead about
    assert scope_notes({"enable_fused_mc2": 1, "mega_moe_max_tokens": 8192}, version) == []


def test_no_info_when_the_key_is_not_set_or_refused():
    assert scope_notes({"enable_fused_mc2": 1}, "main") == []
    refused = va.derive(launch(SCRIPT.format(cfg='{"mega_moe_max_tokens": 0}')), ctx(version="main", cann="9.2.0"))
    assert "MC025" in [n.code for n in refused.notes]  # start-up refusal says it; the scope info would be noise
    assert not any(n.code == "MC043" and "mega_moe_max_tokens" in n.message for n in refused.notes)


@pytest.mark.parametrize("text", ["0.26.0rc", "v0.26.0rc"])
def test_bare_rc_branch_in_settings_maps_to_its_release_table(text):
    cfg = parse({"framework_versions": {"vllm-ascend": text}}, None)
    assert cfg.framework_versions == {"vllm-ascend": "0.26.0rc"}
    assert match(cfg.framework_versions["vllm-ascend"]) == "0.26.0rc"


def test_pep_440_spelling_of_the_rc_branch_reads_the_same_table():
    # packaging.version reads `0.26.0-rc` as 0.26.0rc0, the release-candidate branch (PEP 440 separators)
    cfg = parse({"framework_versions": {"vllm-ascend": "0.26.0-rc"}}, None)
    assert match(cfg.framework_versions["vllm-ascend"]) == "0.26.0rc"


@pytest.mark.parametrize("text", ["0.26.0rcx", "0.26.0-rcx", "rc"])
def test_other_rc_spellings_are_still_refused(text):
    from moecfg.checking.settings import ConfigError

    with pytest.raises(ConfigError):
        parse({"framework_versions": {"vllm-ascend": text}}, None)
