"""Property tests: no input, however odd, makes the engine raise, and every result renders to valid JSON."""
from __future__ import annotations

import json

import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from moecfg.backends.ascend.fields import ENV_FIELDS, FIELDS, HCCL_BUFFER_FIELDS
from moecfg.core.diagnostics import Report
from moecfg.checking.engine import check_bytes, check_text, lint_bytes, lint_text
from moecfg.backends import Options
from moecfg.render import json_report

KEYS = [f.name for f in FIELDS] + ["ep_wrold_size", "bs ", "BS", "unknown", "1", "<<"]
RAW_TOKENS = ["", "~", "null", "0", "1", "-1", "2", "8", "16", "128", "7168", "8.0", "1e3", "0x10", "0o17", "1_000",
              "yes", "no", "on", "true", "'8'", '"A3"', "A2", "A3", "a3", "910_93", "910b", "A4", "hierarchy",
              "fullmesh", "fullmesh_v1", "fullmesh_v2", "'0'", "latest", "8.5", "9.0.1", "9.10", "10.0", "7.0", "banana",
              "1d", "2d", "none", "int32", "bf16", "[1, 2]", "{a: 1}", "[]", "{}", "!!binary aGVsbG8=", "2024-01-01",
              "1:30", ".inf", ".nan", str(2**31), str(2**63), str(-(2**64)), "&x 3", "*x", "|\n  text", "!custom 5"]
SAFE = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def assert_renders(checked):
    results = checked.results
    assert results or checked.skipped  # every input gets results, or is listed as skipped with a reason
    report = Report(results=results, files=1, skipped=checked.skipped)
    data = json.loads(json_report.render(report))
    # A mapping with no moecfg key and no launch is a foreign file: skipped (recorded), never an error.
    assert data["summary"]["documents"] == len(data["results"])
    for r in data["results"]:
        assert r["valid"] is (not any(d["severity"] == "error" for d in r["diagnostics"]))
        for d in r["diagnostics"]:
            assert d["line"] >= 1 and d["column"] >= 1 and d["code"].startswith("MC")


ints = st.one_of(st.integers(-3, 2100), st.integers(-(2**70), 2**70))
scalars = st.one_of(ints, st.floats(allow_nan=True), st.booleans(), st.none(),
                    st.sampled_from(RAW_TOKENS), st.text(max_size=12))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                      st.dictionaries(st.text(max_size=6), inner, max_size=3)),
                      max_leaves=6)
mappings = {
    "env": st.dictionaries(st.sampled_from([f.name for f in ENV_FIELDS] + ["HCCL_BUFSIZE", "X"]), scalars, max_size=3),
    "hccl_buffer_size": st.dictionaries(st.sampled_from([f.name for f in HCCL_BUFFER_FIELDS] + ["epp"]), scalars,
                                        max_size=2),
}


@st.composite
def documents(draw):
    """A dict of random field keys (mostly real ones) with random values, dumped with yaml.safe_dump."""
    keys = draw(st.lists(st.sampled_from(KEYS), max_size=len(KEYS), unique=True))
    doc = {}
    for key in keys:
        doc[key] = draw(mappings[key]) if key in mappings and draw(st.booleans()) else draw(values)
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)


@st.composite
def raw_documents(draw):
    """Hand-written `key: token` lines, so YAML 1.1 spellings (8.0, yes, 910_93, anchors, tags) reach the loader."""
    lines = []
    for key in draw(st.lists(st.sampled_from(KEYS), max_size=12)):
        token = draw(st.sampled_from(RAW_TOKENS))
        lines.append(f"{key}: {token}")
        if draw(st.integers(0, 9)) == 0:
            lines.append(draw(st.sampled_from(["---", "env:", "  HCCL_BUFFSIZE: 8", "  - x", "...", "# c", "\t"])))
    return "\n".join(lines) + "\n"


@SAFE
@given(documents(), st.sampled_from([None, "8.5", "9.0", "9.1", "latest", "bogus"]))
def test_random_documents(text, cann):
    assert_renders(check_text(text, "p.yaml", Options(cann=cann)))


@SAFE
@given(raw_documents())
def test_random_raw_documents(text):
    assert_renders(check_text(text, "p.yaml"))


@SAFE
@given(st.text(max_size=200))
def test_random_text(text):
    assert_renders(check_text(text, "p.yaml"))


@SAFE
@given(st.binary(max_size=200))
def test_random_bytes(raw):
    assert_renders(check_bytes(raw, "p.yaml"))


VALID = {"product": "A3", "cann_version": "9.0", "bs": 128, "h": 7168, "k": 8, "ep_world_size": 32,
         "moe_expert_num": 256}


@SAFE
@given(st.sampled_from(["A2", "A3"]), st.sampled_from(["8.5", "9.0", "9.1", "latest"]),
       st.integers(-2, 1100), st.integers(-1, 12000), st.integers(-1, 20), st.integers(-1, 800),
       st.integers(-1, 1100), st.sampled_from(["", "fullmesh", "fullmesh_v1", "fullmesh_v2", "hierarchy"]),
       st.integers(-1, 5), st.integers(-1, 40), st.integers(-1, 3), st.sampled_from(["none", "1d", "2d"]),
       st.booleans(), st.integers(-1, 5000))
@example(
    # found by hypothesis: shared_expert_num -1 with 1 shared-expert rank on fullmesh_v2 (a ZeroDivisionError)
    product='A3',
    rs='9.0',
    bs=1,
    h=1,
    k=1,
    ep=2,
    moe=1,
    alg='fullmesh_v2',
    shared=-1,
    shared_ranks=1,
    zero=0,  # or any other generated value
    mask='none',  # or any other generated value
    elastic=False,  # or any other generated value
    buf=0,  # or any other generated value
)
def test_random_valid_typed_configs(product, rs, bs, h, k, ep, moe, alg, shared, shared_ranks, zero, mask, elastic, buf):
    """Typed but arbitrary values reach every rule and formula: no division by zero, no negative sizes."""
    doc = {**VALID, "product": product, "cann_version": rs, "bs": bs, "h": h, "k": k, "ep_world_size": ep,
           "moe_expert_num": moe, "comm_alg": alg, "shared_expert_num": shared, "shared_expert_rank_num": shared_ranks,
           "zero_expert_num": zero, "x_active_mask": mask, "elastic_info": elastic, "expert_scales": True,
           "env": {"HCCL_BUFFSIZE": buf}}
    checked = check_text(yaml.safe_dump(doc), "p.yaml")
    assert_renders(checked)
    results = checked.results
    for b in results[0].buffers.values():
        assert b["required_bytes"] >= 0 and b["required_mb"] == -(-b["required_bytes"] // 2**20)
        assert b["sufficient"] is (b["required_bytes"] <= b["configured_mb"] * 2**20)
