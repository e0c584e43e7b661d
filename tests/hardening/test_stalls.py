"""Stalls and blowups: the work is bounded per file (expanded values, merged entries), suppression matching is
linear, messages quote bounded values; and the suppression / merge faults found with them."""
from __future__ import annotations

import time

import pytest

from hostile import BAD, GOOD
from moecfg.checking.engine import lint_text
from moecfg.checking.settings import Cli, Config, FilePolicy


@pytest.fixture
def small_budget(monkeypatch):
    """The budget at a tenth (20 000 values): the same mechanism, a tenth of the test's time."""
    from moecfg.sources.manifests import yaml_source

    monkeypatch.setattr(yaml_source, "_MAX_NODES", 20_000)


def _lint(text: str):
    return lint_text(text, "t.yaml", policy=FilePolicy(Config(), Cli()))


def _codes(results):
    return [d.code for r in results for d in r.diagnostics]


def _timed(text: str, limit: float = 3.0):
    """A stall guard (a quadratic path takes minutes here), on this process's CPU time: other work on a loaded CI
    machine stretches the wall clock, not the CPU time."""
    start = time.process_time()
    results = _lint(text)
    assert time.process_time() - start < limit
    return results


def _bomb(i: int) -> str:  # 10^4 values per document: under a per-document budget, 10^6 for 100 of them
    levels = [f"a{i}0: &a{i}0 [" + ", ".join(["x"] * 10) + "]"]
    levels += [f"a{i}{j}: &a{i}{j} [" + ", ".join([f"*a{i}{j - 1}"] * 10) + "]" for j in range(1, 4)]
    return "\n".join(levels) + "\n"


def test_alias_budget_is_per_file_not_per_document(small_budget):
    assert _codes(_lint(_bomb(0))) != ["MC001"]  # one document alone is within the budget
    results = _timed("".join("---\n" + _bomb(i) for i in range(100)))
    assert _codes(results) == ["MC001"] and "more than 20000 values" in results[0].diagnostics[0].message


def test_merged_entries_count_towards_the_budget(small_budget):
    text = "a: &A {x: 1}\nm: &M {<<: [" + ", ".join(["*A"] * 1000) + "]}\nl: [" + ", ".join(["*M"] * 1900) + "]\n"
    results = _timed(text)
    assert _codes(results) == ["MC001"] and "merge keys" in results[0].diagnostics[0].message


def test_merge_inside_a_merged_mapping_loads_as_pyyaml_does():
    text = GOOD + "base: &B {x: 1}\nmid: &M {<<: *B, y: 2}\ntop: {<<: *M, z: 3}\n"
    import yaml

    assert yaml.safe_load(text)["top"] == {"x": 1, "y": 2, "z": 3}
    assert set(_codes(_lint(text))) == {"MC003"}  # base, mid, top are unknown keys; no MC001


def test_recursive_merge_is_refused():
    assert _codes(_lint("a: &A {<<: *A}\n")) == ["MC001"]


def test_suppression_matching_is_linear():
    text = "".join(f"---\nproduct: A3\na{i}: 1  # moecfg: disable=MC201 -- r\n" for i in range(2000))
    results = _timed(text, 6.0)
    assert len(results) == 2000 and _codes(results).count("MC014") == 2000


def test_standalone_directive_lines_are_linear():
    text = "# moecfg: disable=MC201 -- r\n" * 20_000 + GOOD
    assert set(_codes(_timed(text))) == {"MC014"}


def test_directive_inside_a_block_scalar_or_string_is_not_a_comment():
    doc = BAD.replace("moe_expert_num: 250\n", "note: |\n  # moecfg: disable=MC201 -- inside a block scalar\n"
                      "moe_expert_num: 250\nquoted: 'a # moecfg: disable=MC003 -- inside a string'\n")
    codes = _codes(_lint(doc))
    assert "MC201" in codes and codes.count("MC003") == 2  # note and quoted are unknown keys, not suppressed


def test_real_comment_after_a_string_holding_a_directive_still_counts():
    doc = BAD.replace("moe_expert_num: 250\n", "moe_expert_num: 250\nq: '# moecfg: x'  # moecfg: disable=MC003 -- ok\n")
    assert "MC003" not in _codes(_lint(doc)) and "MC201" in _codes(_lint(doc))


def test_unknown_keys_get_suggestions_for_the_first_ones_only():
    text = GOOD + "".join(f"moe_expert_nu{i}: 1\n" for i in range(3000)) + "? " + "x" * 200_000 + "\n: 1\n"
    results = _timed(text)
    messages = [d.message for d in results[0].diagnostics if d.code == "MC003"]
    assert len(messages) == 3001 and "did you mean" in messages[0] and "did you mean" not in messages[-2]
    assert max(len(m) for m in messages) < 200


def test_alias_bomb_value_in_a_message_is_bounded(small_budget):
    text = _bomb(0).replace("a03: &a03", "bs: &a03") + "product: A3\n"
    results = _timed(text)
    assert all(len(d.message) < 500 for r in results for d in r.diagnostics)


def test_large_file_is_counted_before_it_is_composed(small_budget):
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    results = _timed("bs: [" + "1," * 2_000_000 + "1]\n")  # 4 MB, 2M values: GBs as composed Python nodes
    assert _codes(results) == ["MC001"] and "more than 20000 values" in results[0].diagnostics[0].message
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 200_000  # KiB
