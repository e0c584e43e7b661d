"""The vllm-ascend release tables against the additional_config keys generated from each tag's ascend_config.py
(tools/gen_ascend_config_keys.py -> config_keys.py), version matching, and keys a pinned release ignores."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from moecfg.frameworks.vllm_ascend.config_keys import CONFIG_KEYS
from moecfg.frameworks.vllm_ascend.releases import RELEASES, match, newer_than_tables
from vllm_ascend_launches import codes, derive, serve

TABLES = [r for r in RELEASES.values() if not r.from_pr]


def test_every_tag_read_has_generated_keys():
    assert set(CONFIG_KEYS) == {r.key for r in TABLES}
    for r in TABLES:
        assert r.ref.endswith("@" + CONFIG_KEYS[r.key]["commit"])


@pytest.mark.parametrize("rel", TABLES, ids=lambda r: r.key)
def test_release_fields_agree_with_the_generated_keys(rel):
    keys = CONFIG_KEYS[rel.key]["keys"]
    kind, value = rel.dfc_output
    if kind == "config":  # mega_moe_max_tokens: the table's default is the one ascend_config.py writes
        assert keys["mega_moe_max_tokens"][0] == str(value)
    else:
        assert "mega_moe_max_tokens" not in keys
    assert ("enable_prefill_mc2" in keys) is rel.prefill_mc2
    if rel.fused in ("dfc", "main"):
        assert ("enable_fused_mc2" in keys) is rel.fused_config_key


@pytest.mark.parametrize("text,key", [
    ("v0.18.0", "0.18.0"), ("0.18.1", "0.18.0"), ("v0.23.0", "0.23.0"), ("0.23.0.post1", "0.23.0"),
    ("v0.24.0rc1", "0.24.0rc1"), ("v0.26.0rc3", "0.26.0rc"), ("0.27.1", "0.27"), ("main", "main"),
    ("v0.19.1rc1", "0.19.1rc1"), ("v0.17.0rc1", None), ("v0.28.0", None), ("1.0.0", None), ("nonsense", None),
])
def test_match(text, key):
    assert match(text) == key


def test_newer_than_tables():
    assert newer_than_tables("v0.28.0") and newer_than_tables("1.0") and not newer_than_tables("v0.27.1")
    assert not newer_than_tables("v0.17.0rc1")


def test_newer_image_is_named_as_such():
    from vllm_ascend_launches import ctx, launch
    import moecfg.frameworks.vllm_ascend as va

    d = va.derive(launch(serve("-dp 4 -tp 4")), ctx(version="0.28.0"))
    note = next(n for n in d.notes if n.code == "MC040")
    assert "newer than the newest release table" in note.message and d.version == "main"


@pytest.mark.parametrize("version,ignored", [
    ("0.18.0", ["enable_fused_mc2", "mega_moe_max_tokens"]),  # env-only fused MC2; max_output_size fixed
    ("0.22.1rc1", ["mega_moe_max_tokens"]),
    ("0.23.0", []),
])
def test_keys_the_pinned_release_ignores(version, ignored):
    text = serve("-dp 4 -tp 4 --additional-config '{\"enable_fused_mc2\": 1, \"mega_moe_max_tokens\": 8192}'")
    d = derive(text, version=version)
    found = sorted(n.message.split(":")[0].split(".")[1] for n in d.notes if n.code == "MC022")
    assert found == ignored


def test_no_ignored_key_note_without_a_pinned_version():
    d = derive(serve("-dp 4 -tp 4 --additional-config '{\"mega_moe_max_tokens\": 8192}'"))
    assert "MC022" not in codes(d.notes)


def _generator():
    path = Path(__file__).resolve().parents[2] / "tools" / "gen_ascend_config_keys.py"
    spec = importlib.util.spec_from_file_location("gen_ascend_config_keys", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_generator_reads_each_form():
    src = ('class A:\n    def __init__(self, additional_config):\n'
           '        self.a = additional_config.get("a", 65536)\n'
           '        self.b = self._get_config_value(additional_config, "b", "ENV_B", 0)\n'
           '        if "c" in additional_config:\n            self.c = additional_config["c"]\n'
           '        self.d = other.get("d", 1)\n')
    assert _generator().keys_of(src) == {"a": ("65536", 3), "b": ("env ENV_B", 4), "c": ("required", 5)}
