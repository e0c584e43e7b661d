"""The rule-set catalogs are typed data: pydantic validates every entry against its dataclass (strict: an
int limit written as "8" or 8.0 would fail), and the per-release data tells the documented history."""
import dataclasses
import typing

import pytest
from pydantic import TypeAdapter

from moecfg.backends.ascend.ops.combine_add_rms_norm import catalog as add_rms_norm
from moecfg.backends.ascend.ops.dispatch_combine_v1 import catalog as v1
from moecfg.backends.ascend.ops.ffn_worker_batching import catalog as ffn
from moecfg.backends.ascend.shared import catalog, rulesets

TABLES = {
    "RULESETS": (rulesets.RULESETS, catalog.RuleSet),
    "ADD_RMS_NORM_RULES": (add_rms_norm.ADD_RMS_NORM_RULES, add_rms_norm.AddRmsNormRules),
    "V1_RULES": (v1.V1_RULES, v1.V1Rules),
    "FFN_RULES": (ffn.FFN_RULES, ffn.FfnRules),
}


def strict_check(obj, where: str) -> None:
    """Each field of a catalog dataclass against its annotation, with pydantic in strict mode, recursively."""
    hints = typing.get_type_hints(type(obj))
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if dataclasses.is_dataclass(value):
            strict_check(value, f"{where}.{f.name}")
            continue
        TypeAdapter(hints[f.name]).validate_python(value, strict=True)


@pytest.mark.parametrize("table", sorted(TABLES))
def test_every_entry_validates_strictly(table):
    entries, cls = TABLES[table]
    adapter = TypeAdapter(cls)
    assert set(entries) == set(rulesets.TIMELINE)
    for name, entry in entries.items():
        assert isinstance(entry, cls)
        strict_check(entry, f"{table}[{name}]")
        assert adapter.validate_python(dataclasses.asdict(entry)) == entry, f"{table}[{name}] does not round-trip"


def test_strict_validation_rejects_a_stringly_limit():
    bad = dataclasses.replace(rulesets.RULESETS["9.0"].a3, ep_max="768")
    with pytest.raises(Exception):
        strict_check(bad, "a3")


def test_catalogs_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        rulesets.RULESETS["latest"].a3.ep_max = 1024


def test_release_history_of_the_v2_rules():
    # ascend-mc2-rules.md §9: A3 hierarchy arrives in 9.0; TP removed only upstream; A2 max ep 256 -> 384 in 9.0;
    # A2 H <= 10240 and moe <= 1024 for fullmesh in 9.1; the 24 experts/rank limit only in 8.5.
    r = rulesets.RULESETS
    assert r["8.5"].a3.hierarchy is None and all(r[v].a3.hierarchy for v in ("9.0", "9.1", "latest"))
    assert [r[v].a3.legacy_tp for v in ("8.5", "9.0", "9.1", "latest")] == [True, True, True, False]
    assert [r[v].a2.ep_max_flat for v in ("8.5", "9.0", "9.1", "latest")] == [256, 384, 384, 384]
    assert [r[v].a2.h_max_flat for v in ("8.5", "9.0", "9.1", "latest")] == [7168, 7168, 10240, 10240]
    assert [r[v].a2.moe_per_rank_max_flat for v in ("8.5", "9.0", "9.1", "latest")] == [24, None, None, None]
    assert r["latest"].a2.h_max_int32 == 5120 and r["9.1"].a2.h_max_int32 is None


def test_later_code_points():
    # 9.1.0 branch head (3311e26) = v9.1.0.pre for every limit; 9.1.0-beta.1 (f3bd274) = v9.0.0 (no e74eca1:
    # A2 H 7168 and moe 512 with fullmesh); cannmirror master 25fb6b9 = latest before b042695 (A2 INT32 x)
    r = rulesets.RULESETS
    same = lambda a, b: dataclasses.replace(r[a], name=b, source=r[b].source) == r[b]  # noqa: E731
    assert same("9.1.0", "9.1") and same("9.1.0-beta.1", "9.0")
    assert r["9.1.0-beta.1"].a2.h_max_flat == 7168 and r["9.1.0-beta.1"].a2.moe_max_flat == 512
    assert r["master-2026-07-24"].a2.h_max_int32 is None and r["latest"].a2.h_max_int32 == 5120
    assert not r["master-2026-07-24"].a3.legacy_tp
    assert [r[v].a3.context_rejects for v in ("8.5", "9.0", "9.1.0-beta.1", "9.1.0-beta.3", "9.1.0-beta.2", "9.1",
                                              "latest")] == [None, (), (), (), (), ("hierarchy",), ("hierarchy",)]
    assert [r[v].a3.context_window_wraps for v in ("9.0", "9.1.0-beta.3", "9.1.0-beta.2", "9.1")] == \
        [False, False, True, True]
    assert r["9.1.0-beta.2"].a2 == r["9.1.0-beta.3"].a2 == r["9.1"].a2 and r["9.1.0-beta.3"].a3.legacy_tp
    assert list(rulesets.TIMELINE) == sorted(r, key=rulesets.TIMELINE.index) and set(rulesets.TIMELINE) == set(r)
