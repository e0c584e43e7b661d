"""Documentation data of the rules: why each matters, the library's own error text, a document that fails,
one that passes, and the fix. Used by `moecfg explain`, `moecfg rules`, SARIF help and docs/rules.md
(never on the `check` path, so the family modules stay light). This module holds MC0xx-MC5xx; the tables
of the other families are the modules in EXAMPLE_MODULES (same keys); `all_examples()` merges them. A rule
may instead carry the fields in `rule(...)` itself (registry.Rule; MC014/MC015, MC9xx do); a field given
there wins over the tables.

Keys: why, cann_error (the library's verbatim error text: CANN's, DeepEP's or Tutel's, by family), fail,
pas (whole YAML documents), fix; `fail_text` describes a failing input that no YAML text can show (MC008).
tests/integration/test_rule_docs.py requires all of them for every registered code, runs every `fail`
through the engine and asserts the code fires, and every `pas` and asserts that nothing at all is reported.
"""
from __future__ import annotations


def render(fields: dict, indent: str = "") -> str:
    """Block YAML of a flat mapping (nested mappings one level down); str values are written verbatim."""
    out = []
    for key, value in fields.items():
        if isinstance(value, dict):
            out.append(f"{indent}{key}:\n" + render(value, indent + "  "))
        elif isinstance(value, bool):
            out.append(f"{indent}{key}: {str(value).lower()}\n")
        else:
            out.append(f"{indent}{key}: {value}\n")
    return "".join(out)


def ex(base: dict, **changes) -> str:
    """`base` with keys replaced, added (at the end, before env) or removed (value None)."""
    d = {k: v for k, v in base.items() if k != "env"}
    for k, v in changes.items():
        if k != "env":
            d.pop(k, None)
            if v is not None:
                d[k] = v
    env = changes.get("env", base.get("env"))
    if env is not None:
        d["env"] = env
    return render(d)


A3 = dict(product="A3", cann_version="9.0.1", bs=128, h=7168, k=8, ep_world_size=32, moe_expert_num=256,
          env={"HCCL_BUFFSIZE": 1024})
A2 = dict(product="A2", cann_version="9.0.1", bs=128, h=4096, k=8, ep_world_size=16, moe_expert_num=128,
          comm_alg="fullmesh", env={"HCCL_BUFFSIZE": 2048})
A3_OK = ex(A3)
A2_OK = ex(A2)

_TILING = ("The op's host tiling rejects the attributes: the first dispatch (or combine) call returns an error and "
           "the CANN log names the failed check, after the job has already loaded its weights and built its "
           "communicators.")
_INPUT = "moecfg cannot read the value, so every hardware rule that depends on it is skipped for this document."

EXAMPLES: dict[str, dict] = {
    # ---- MC0xx input ----
    "MC001": dict(why="Neither moecfg nor the launcher can load the file.", fail=A3_OK.replace("bs: 128", "bs: [128"),
                  pas=A3_OK, fix="Fix the YAML at the reported position (unclosed bracket or quote, bad indentation)."),
    "MC002": dict(why="PyYAML (and so most launchers) silently keeps the last value, which may not be the one you "
                  "reviewed.", fail=A3_OK + "bs: 64\n", pas=A3_OK, fix="Delete one of the two keys."),
    "MC003": dict(why="A misspelt key is ignored by the launcher and the default is used instead.",
                  fail=ex(A3, moe_expert_nums=256), pas=A3_OK, fix="Use the key the did-you-mean hint names, or delete it."),
    "MC004": dict(why="torch_npu takes integers; a quoted \"128\" or 8.0 is a type error at the call or a silent "
                  "conversion. " + _INPUT, fail=ex(A3, bs='"128"'), pas=A3_OK,
                  fix="Write the value unquoted and without a decimal point."),
    "MC005": dict(why="The op cannot be called without it. " + _INPUT, fail=ex(A3, h=None), pas=A3_OK,
                  fix="Add the key with the value your model uses."),
    "MC006": dict(why="The value is not one moecfg (or CANN) knows; the rules of the product or op cannot be chosen.",
                  fail=ex(A3, product="A4"), pas=A3_OK, fix="Use one of the listed values."),
    "MC007": dict(why="An empty deployment file usually means a templating step produced nothing.",
                  fail="# deployment for the A3 cluster (to be filled in)\n", pas=A3_OK,
                  fix="Fill in the document, or stop passing the file to moecfg."),
    "MC008": dict(why="The file is not text: a wrong path or a binary artefact.", fix="Pass the YAML file itself.",
                  fail_text="A file with a NUL byte, or with bytes that are not valid UTF-8 (UTF-16 is read only after a "
                  "byte-order mark): for example a weights file or a gzip archive matched by a glob (`moecfg check "
                  "deploy/*`). No YAML text can show it: any example written here would be text.", pas=A3_OK),
    "MC009": dict(why="CANN attributes are 64-bit integers; a larger value cannot be passed at all.",
                  fail=ex(A3, bs=99999999999999999999), pas=A3_OK, fix="Use the intended value."),
    "MC010": dict(why="A deployment document is a mapping of keys; a list or scalar cannot describe one setup.",
                  fail="- product: A3\n- bs: 128\n", pas=A3_OK, fix="Remove the leading `- ` of each line."),
    "MC011": dict(why="Rules differ between CANN releases; without a pinned release moecfg checks the newest rules, "
                  "which may accept what your release rejects.", fail=ex(A3, cann_version=None), pas=A3_OK,
                  fix="Add `cann_version:` with the release you deploy (or set it once in .moecfg.yaml)."),
    "MC012": dict(why="The nearest rule set is used and may differ from your release.",
                  fail=ex(A3, cann_version="7.0.0"), pas=A3_OK, fix="Write a release moecfg knows (8.5, 9.0, 9.1 or latest)."),
    "MC013": dict(why="A misspelt environment variable is not set at all; HCCL then uses its default.",
                  fail=ex(A3, env={"HCCL_BUFFSIZE": 1024, "HCCL_INTRA_PCIE_ENABEL": 1}), pas=A3_OK, fix="Correct the name, or delete the entry."),
    # ---- MC1xx attributes ----
    "MC101": dict(cann_error="epWorldSize is invalid", fail=ex(A3, ep_world_size=1024, moe_expert_num=1024, bs=8), pas=A3_OK,
                  fix="Use an EP size the product supports (A3: 2-768; hierarchy: multiple of 16 up to 256)."),
    "MC102": dict(cann_error="epRankId is invalid", fail=ex(A3, ep_rank_id=32), pas=ex(A3, ep_rank_id=31),
                  fix="ep_rank_id counts from 0 to ep_world_size - 1."),
    "MC103": dict(cann_error="xDim0(BS) is invalid", fail=ex(A3, bs=1024, env={"HCCL_BUFFSIZE": 8192}), pas=A3_OK,
                  fix="Lower the tokens per rank (micro-batch) to the product's limit."),
    "MC104": dict(cann_error="hiddensize is invalid.", fail=ex(A3, h=512), pas=A3_OK,
                  fix="Check h against the product's range (A3: 1024-8192)."),
    "MC105": dict(cann_error="K is invalid", fail=ex(A3, k=17), pas=A3_OK, fix="top-k is at most 16 and at most the number of experts."),
    "MC106": dict(cann_error="moeExpertNum is invalid", fail=ex(A3, moe_expert_num=2048, env={"HCCL_BUFFSIZE": 8192}), pas=A3_OK,
                  fix="moe_expert_num counts the routed experts (> 0, at most the product's maximum)."),
    "MC107": dict(cann_error="cannot support static quant now.", fail=ex(A3, quant_mode=1), pas=ex(A3, quant_mode=2),
                  fix="Use quant_mode 2 (dynamic int8) or 0."),
    "MC108": dict(fail=ex(A3, expert_token_nums_type=2), pas=ex(A3, expert_token_nums_type=0),
                  fix="0 = prefix sums, 1 = counts."),
    "MC109": dict(fail=ex(A3, expert_shard_type=1), pas=A3_OK, fix="Only 0 (shared-expert ranks first) is implemented."),
    "MC110": dict(fail=ex(A3, group_ep="g" * 130), pas=ex(A3, group_ep="ep_group"),
                  fix="Communicator names are 1-127 characters; TP and EP groups differ."),
    "MC111": dict(cann_error="tpWorldSize is invalid, only support [0, 2]", fail=ex(A3, tp_world_size=4, moe_expert_num=32), pas=A3_OK,
                  fix="TP group size 0, 1 or 2 (8.5-9.1); the latest rules removed TP."),
    "MC112": dict(cann_error="commQuantMode is invalid.", fail=ex(A3, comm_quant_mode=1), pas=ex(A3, comm_quant_mode=2),
                  fix="comm_quant_mode 0 or 2 (A2 flat: 0)."),
    "MC113": dict(fail=ex(A3, x_dtype="int32"), pas=A3_OK, fix="Use bf16 or fp16 for x."),
    "MC114": dict(cann_error="Cannot support multi-moeExpert in a rank when tpWorldSize > 1",
                  fail=ex(A3, tp_world_size=2, group_tp="tp_group", hccl_buffer_size={"ep": 1024, "tp": 2048}),
                  pas=ex(A3, moe_expert_num=32, tp_world_size=2, group_tp="tp_group"),
                  fix="With tp_world_size = 2 put one expert on each rank (moe_expert_num = ep_world_size)."),
    # ---- MC2xx experts ----
    "MC201": dict(cann_error="moeExpertNum should be divisible by (epWorldSize - sharedExpertRankNum)",
                  fail=ex(A3, moe_expert_num=250), pas=A3_OK, fix="Pad moe_expert_num to the nearest multiple the message names."),
    "MC202": dict(cann_error="localMoeExpertNum * epWorldSize must be less than or equal to 2048",
                  fail=ex(A3, bs=16, ep_world_size=16, moe_expert_num=1024, shared_expert_num=4,
                          shared_expert_rank_num=12, env={"HCCL_BUFFSIZE": 4096}), pas=A3_OK,
                  fix="Every MoE rank needs at least one expert and local_expert_num * ep_world_size <= 2048."),
    "MC203": dict(fail=ex(A2, cann_version="8.5", moe_expert_num=512),
                  pas=ex(A2, cann_version="8.5", moe_expert_num=384),
                  fix="Use comm_alg hierarchy, more ranks, or CANN 9.0+."),
    "MC204": dict(fail=ex(A3, shared_expert_num=5, shared_expert_rank_num=5, moe_expert_num=216, ep_world_size=32),
                  pas=ex(A3, shared_expert_num=2, shared_expert_rank_num=4, moe_expert_num=224),
                  fix="At most 4 shared experts."),
    "MC205": dict(fail=ex(A3, shared_expert_rank_num=32), pas=ex(A3, shared_expert_rank_num=4, moe_expert_num=224),
                  fix="Shared-expert ranks are fewer than ep_world_size."),
    "MC206": dict(fail=ex(A3, shared_expert_num=2), pas=ex(A3, shared_expert_num=2, shared_expert_rank_num=4, moe_expert_num=224),
                  fix="Set both shared_expert_num and shared_expert_rank_num, or neither (torch_npu's default (1, 0) means none)."),
    "MC207": dict(fail=ex(A3, shared_expert_num=3, shared_expert_rank_num=4, moe_expert_num=224),
                  pas=ex(A3, shared_expert_num=2, shared_expert_rank_num=4, moe_expert_num=224),
                  fix="shared_expert_rank_num must be a multiple of shared_expert_num."),
    "MC208": dict(fail=ex(A3, zero_expert_num=-1), pas=ex(A3, zero_expert_num=1), fix="Special expert counts are >= 0."),
    "MC209": dict(fail=ex(A3, zero_expert_num=2147483647), pas=ex(A3, zero_expert_num=1),
                  fix="Expert IDs are INT32: keep the sum of all experts below 2^31."),
    "MC210": dict(cann_error="constExpertNum is invalid. Must be 0.", fail=ex(A2, const_expert_num=1), pas=A2_OK,
                  fix="A2 has no const experts; remove const_expert_num."),
    "MC211": dict(why="CANN ignores the value on A2: experts are spread over all ranks, not the layout you described.",
                  fail=ex(A2, shared_expert_rank_num=2), pas=A2_OK, fix="Remove the shared-expert attributes on A2."),
    # ---- MC3xx comm_alg ----
    "MC301": dict(cann_error="commAlg is not support", fail=ex(A3, comm_alg="fullmesh"), pas=ex(A3, comm_alg="fullmesh_v1"),
                  fix="Use a comm_alg the product and release accept (the message lists them)."),
    "MC302": dict(why="Informational: which algorithm the op will actually run, since the buffer and limits depend on it.",
                  fail=ex(A2, comm_alg='""', expert_scales=True,
                          env={"HCCL_BUFFSIZE": 2048, "HCCL_INTRA_PCIE_ENABLE": 1, "HCCL_INTRA_ROCE_ENABLE": 0}),
                  pas=A2_OK, fix="Set comm_alg explicitly."),
    "MC303": dict(cann_error="When comm_alg is fullmesh_v2, bs should be between [1, 256]",
                  fail=ex(A3, comm_alg="fullmesh_v2", bs=512, env={"HCCL_BUFFSIZE": 4096}), pas=ex(A3, comm_alg="fullmesh_v2"),
                  fix="bs <= 256 with fullmesh_v2, or use fullmesh_v1."),
    "MC304": dict(fail=ex(A3, comm_alg="fullmesh_v2", k=16), pas=ex(A3, comm_alg="fullmesh_v2"),
                  fix="k <= 12 with fullmesh_v2, or use fullmesh_v1."),
    "MC305": dict(cann_error="Cannot support elasticInfo when comm_alg = fullmesh_v2",
                  fail=ex(A3, cann_version="8.5", comm_alg="fullmesh_v2", elastic_info=True),
                  pas=ex(A3, cann_version="8.5", comm_alg="fullmesh_v2"),
                  fix="Drop the feature or use fullmesh_v1 (or a newer CANN where the restriction is lifted)."),
    "MC306": dict(fail=ex(A3, comm_alg="hierarchy", expert_scales=True, elastic_info=True, env={"HCCL_BUFFSIZE": 4096}),
                  pas=ex(A3, comm_alg="hierarchy", expert_scales=True, env={"HCCL_BUFFSIZE": 4096}),
                  fix="hierarchy runs without shared-expert ranks, elastic_info, special experts, 2-D masks and performance_info."),
    "MC307": dict(cann_error="expertScales is null.", fail=ex(A3, comm_alg="hierarchy", env={"HCCL_BUFFSIZE": 4096}),
                  pas=ex(A3, comm_alg="hierarchy", expert_scales=True, env={"HCCL_BUFFSIZE": 4096}),
                  fix="Pass expert_scales (the routing weights) to dispatch."),
    "MC308": dict(cann_error="Layered cannot support variableBs",
                  fail=ex(A3, comm_alg="hierarchy", expert_scales=True, global_bs=8192, env={"HCCL_BUFFSIZE": 8192}),
                  pas=ex(A3, comm_alg="hierarchy", expert_scales=True, env={"HCCL_BUFFSIZE": 4096}),
                  fix="With hierarchy every rank sends max_bs tokens: global_bs = bs * ep_world_size (or 0)."),
    "MC310": dict(cann_error="Current scenario is exceeds the size limit",
                  fail=ex(A3, comm_alg="fullmesh_v2", bs=256, h=8192, k=12, ep_world_size=516, moe_expert_num=1024,
                          shared_expert_num=4, shared_expert_rank_num=4, x_active_mask="2d", zero_expert_num=1,
                          elastic_info=True, env={"HCCL_BUFFSIZE": 10240}),
                  pas=ex(A3, comm_alg="fullmesh_v2"),
                  fix="Lower bs, h or k, or use fullmesh_v1."),
    # ---- MC4xx optional inputs ----
    "MC401": dict(cann_error="globalBS is invalid", fail=ex(A3, global_bs=100), pas=ex(A3, global_bs=4096),
                  fix="global_bs is 0 or max_bs * ep_world_size."),
    "MC402": dict(fail=ex(A3, global_bs=8192, x_active_mask="1d", env={"HCCL_BUFFSIZE": 2048}),
                  pas=ex(A3, global_bs=8192, env={"HCCL_BUFFSIZE": 2048}),
                  fix="Use the same bs on every rank, or drop x_active_mask."),
    "MC403": dict(cann_error="quant mode and scales not match", fail=ex(A3, scales=True),
                  pas=ex(A3, scales=True, quant_mode=2), fix="Pass scales only with quant_mode 2."),
    "MC404": dict(fail=ex(A2, elastic_info=True), pas=A2_OK, fix="Remove elastic_info on A2."),
    "MC405": dict(cann_error="performanceInfo should be nullptr.", fail=ex(A3, cann_version="8.5", performance_info=True),
                  pas=ex(A3, performance_info=True), fix="performance_info needs CANN 9.0+ on A3."),
    # ---- MC5xx buffers ----
    "MC501": dict(cann_error="HCCL_BUFFSIZE_EP is too SMALL", fail=ex(A3, env={"HCCL_BUFFSIZE": 200}), pas=A3_OK,
                  fix="Set HCCL_BUFFSIZE (or hccl_buffer_size.ep) to at least the size the message names."),
    "MC502": dict(fail=ex(A3, moe_expert_num=32, tp_world_size=2, group_tp="tp_group", hccl_buffer_size={"ep": 1024, "tp": 1}),
                  pas=ex(A3, moe_expert_num=32, tp_world_size=2, group_tp="tp_group"),
                  fix="Give the TP communicator the buffer the message names."),
    "MC503": dict(why="CANN only logs a warning on A2, but a window smaller than the op expects can corrupt or hang "
                  "large batches.", fail=ex(A2, env={"HCCL_BUFFSIZE": 64}), pas=A2_OK,
                  fix="Set HCCL_BUFFSIZE to at least the size the message names."),
    "MC504": dict(cann_error="cclBufferSize is 0", fail=ex(A3, env={"HCCL_BUFFSIZE": 0}), pas=A3_OK,
                  fix="HCCL_BUFFSIZE is a positive number of MB below 65536."),
    "MC505": dict(fail=ex(A3, comm_alg="hierarchy", expert_scales=True, hccl_buffer_size={"ep": 4096}),
                  pas=ex(A3, comm_alg="hierarchy", expert_scales=True, env={"HCCL_BUFFSIZE": 4096}),
                  fix="With hierarchy set HCCL_BUFFSIZE; hccl_buffer_size.ep is not read."),
}

EXAMPLE_MODULES = ("moecfg.render.rule_examples_gpu", "moecfg.render.rule_examples_ops")


def all_examples() -> dict[str, dict]:
    """EXAMPLES of every family, by code."""
    import importlib

    merged = dict(EXAMPLES)
    for name in EXAMPLE_MODULES:
        merged.update(importlib.import_module(name).EXAMPLES)
    return merged


FAMILY_WHY = {
    "input": _INPUT,
    "ascend-attrs": _TILING,
    "ascend-experts": _TILING,
    "ascend-comm-alg": _TILING,
    "ascend-inputs": _TILING,
    "ascend-buffers": "The tiling compares the communicator's window with HCCL's buffer and refuses to run "
                      "(A3), or the op runs with a window too small for the batch (A2).",
}
