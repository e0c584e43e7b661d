"""`op: ffn_worker_batching`: FfnWorkerBatching on an FFN worker of an attention/FFN-disaggregated deployment.

Fields describe `max_out_shape` {A, BS, K+1, H} and the attributes (expert_num, layer_num, token_dtype,
need_schedule), plus the ScheduleContext facts (micro_batch_num, and optionally the token slot size and
the FFN window size the job allocates). Buffers: the FFN window (token_info_buf + token_data_buf), the
output area the ScheduleContext points at, the op's workspace, and the 1024-byte ScheduleContext itself
with each area's offset and size. Rules: rules.py.
"""
from __future__ import annotations

from moecfg.core.record import field_names, record
from moecfg.backends import Analysis, Options
from moecfg.backends.ascend.shared import formulas as fx
from moecfg.backends.ascend.ops.ffn_worker_batching import formulas as ffx
from moecfg.backends.ascend import kind
from moecfg.backends.ascend.shared.catalog import RuleSet
from moecfg.backends.ascend.ops.ffn_worker_batching.catalog import (FFN_RULES, SCHEDULE_CONTEXT, SCHEDULE_CONTEXT_BYTES,
                                                                  FfnRules)
from moecfg.backends.ascend.ops.ffn_worker_batching.fields import TOKEN_DTYPES
from moecfg.backends.ascend.ops.ffn_worker_batching import rules as ffn

OP = "ffn_worker_batching"


@record(frozen=True, slots=True)
class FfnConfig:
    product: str
    attention_workers: int
    micro_batch_num: int
    micro_batch_size: int
    top_k: int
    hidden: int
    expert_num: int
    layer_num: int
    token_dtype: str
    need_schedule: int
    attn_to_ffn_token_size: int | None
    ffn_window_size: int | None

    @classmethod
    def from_values(cls, values: dict) -> "FfnConfig":
        return cls(**{n: values.get(n) for n in field_names(cls)})


@record(frozen=True, slots=True)
class FfnFacts:
    ruleset: RuleSet
    limits: FfnRules
    selected_experts: int  # K + 1
    output_tokens: int  # Y = A * BS * (K + 1)
    payload_bytes: int  # one token's data: H * sizeof(dtype) (+ 4-byte scale for int8)
    token_slot_bytes: int  # attn_to_ffn_token_size as configured, else Align512(payload)
    token_info_bytes: int
    token_data_bytes: int
    window_bytes: int  # Align512(token_info) + token_data
    output_area_bytes: int
    workspace_bytes: int


def _normalize(data: dict) -> dict:
    """token_dtype may be written as the attribute's integer (0 fp16, 1 bf16, 2 int8)."""
    v = data.get("token_dtype")
    if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < len(TOKEN_DTYPES):
        return {**data, "token_dtype": TOKEN_DTYPES[v]}
    return data


def derive_ffn(cfg: FfnConfig, ruleset: RuleSet) -> FfnFacts:
    a, m, bs, k1 = cfg.attention_workers, cfg.micro_batch_num, cfg.micro_batch_size, cfg.top_k + 1
    y = ffx.ffn_output_tokens(a, bs, cfg.top_k)
    payload = ffx.ffn_token_payload_bytes(cfg.hidden, cfg.token_dtype)
    slot = cfg.attn_to_ffn_token_size if cfg.attn_to_ffn_token_size is not None else ffx.ffn_token_slot_bytes(payload)
    info = ffx.ffn_token_info_bytes(a, m, bs, k1)
    data = ffx.ffn_token_data_bytes(a, m, bs, k1, slot)
    return FfnFacts(ruleset, FFN_RULES[ruleset.name], k1, y, payload, slot, info, data, ffx.ffn_window_bytes(info, data),
                    ffx.ffn_output_area_bytes(a, bs, k1), ffx.ffn_workspace_bytes(y, cfg.expert_num))


def analyze(doc, options: Options) -> Analysis:
    values, findings, broken, ruleset = kind.validate(doc, options, OP, _normalize)
    out = Analysis(findings=findings, kind="ascend", op=OP, product=values.get("product"),
                   ruleset=ruleset.name if ruleset else None)
    if ruleset is None or broken:
        return out
    cfg = FfnConfig.from_values(values)
    if not FFN_RULES[ruleset.name].available:
        findings.extend(ffn.unavailable(cfg, ruleset))
        return out
    facts = derive_ffn(cfg, ruleset)
    for check in ffn.CHECKS:
        findings.extend(check(cfg, facts))
    if ffn.computable(cfg):
        out.buffers = buffer_table(cfg, facts)
        out.derived = derived(cfg, facts)
    return out


def schedule_context_layout() -> list:
    """[(area, offset, size)] of the packed ScheduleContext, FfnArea split into its input and output halves."""
    areas, offset = [], 0
    for area, members in SCHEDULE_CONTEXT:
        size = sum(n for _, n in members)
        areas.append((area, offset, size))
        offset += size
    return areas


def member_offsets() -> dict:
    """{'ffn.token_data_buf': 400, ...}: every member's byte offset in the packed struct."""
    out = {}
    for area, base, _ in schedule_context_layout():
        members = dict(SCHEDULE_CONTEXT)[area]
        for name, offset, _size in ffx.packed_struct_layout(members):
            out[f"{area}.{name}"] = base + offset
    return out


def _context_terms() -> tuple:
    terms = [(area, f"offset {off}, {size} bytes") for area, off, size in schedule_context_layout()]
    offsets = member_offsets()
    half = offsets["ffn.layer_ids_buf"] - offsets["ffn.token_info_buf"]  # FfnArea: input half, output half
    terms += [("ffn.input", f"offset {offsets['ffn.token_info_buf']}, {half} bytes"),
              ("ffn.output", f"offset {offsets['ffn.layer_ids_buf']}, {half} bytes")]
    terms += [(f"ffn.{m}", f"offset {offsets['ffn.' + m]}") for m in
              ("token_info_buf", "token_data_buf", "layer_ids_buf", "session_ids_buf", "micro_batch_ids_buf",
               "expert_ids_buf", "out_num")]
    return tuple(terms)


def _entry(required: int, formula: str, terms, configured: int | None = None, note: str = "") -> dict:
    d = {"required_bytes": required, "formula": formula, "terms": dict(terms)}
    if configured is not None:
        d["configured_bytes"] = configured
        d["configured_from"] = "ffn_window_size"
    d["sufficient"] = None if configured is None else required <= configured
    if note:
        d["note"] = note
    return d


def buffer_table(cfg: FfnConfig, f: FfnFacts) -> dict:
    a, m, bs, k1 = cfg.attention_workers, cfg.micro_batch_num, cfg.micro_batch_size, f.selected_experts
    hs = ("HS (attn_to_ffn_token_size)", f.token_slot_bytes)
    return {
        "ffn_window": _entry(f.window_bytes, "Align512(token_info) + token_data",
                             (("token_info", f.token_info_bytes), ("Align512(token_info)", fx.align_up(f.token_info_bytes, 512)),
                              ("token_data", f.token_data_bytes)), cfg.ffn_window_size,
                             "token_info_buf = [A, M] x (flag, layer_id, expert_ids[BS][K+1]) int32; "
                             "token_data_buf = [A, M, BS, K+1, HS] after it"),
        "token_info_buf": _entry(f.token_info_bytes, "A * M * (8 + 4 * BS * (K + 1))",
                                 (("A", a), ("M", m), ("BS", bs), ("K + 1", k1))),
        "token_data_buf": _entry(f.token_data_bytes, "A * M * BS * (K + 1) * HS",
                                 (("A", a), ("M", m), ("BS", bs), ("K + 1", k1), hs),
                                 note=f"HS = Align512(token payload {f.payload_bytes} B)"
                                 if cfg.attn_to_ffn_token_size is None else "HS as configured"),
        "output_area": _entry(f.output_area_bytes, "Align512(4 * A) * 3 + Align512(4 * A * BS * (K + 1))",
                              (("A", a), ("BS", bs), ("K + 1", k1)),
                              note="layer_ids, session_ids, micro_batch_ids [A] and expert_ids [A, BS, K+1], int32"),
        "workspace": _entry(f.workspace_bytes, "128 * 4 + Y * 4 + Y * 4 * 2 * 4 + expert_num * 4",
                            (("Y", f.output_tokens), ("expert_num", cfg.expert_num)),
                            note="plus the platform's library workspace (GetLibApiWorkSpaceSize), not included"),
        "schedule_context": _entry(SCHEDULE_CONTEXT_BYTES, "sizeof(ScheduleContext), #pragma pack(1)", _context_terms()),
    }


def derived(cfg: FfnConfig, f: FfnFacts) -> dict:
    y, h = f.output_tokens, cfg.hidden
    sizes = ffx.ffn_output_bytes(y, h, cfg.expert_num, cfg.token_dtype)
    shapes = {"y": ([y, h], cfg.token_dtype), "group_list": ([cfg.expert_num, 2], "int64"),
              "session_ids": ([y], "int32"), "micro_batch_ids": ([y], "int32"), "token_ids": ([y], "int32"),
              "expert_offsets": ([y], "int32"),
              "dynamic_scale": ([y] if cfg.token_dtype == "int8" else [0], "fp32"), "actual_token_num": ([], "int64")}
    d = {"Y": y, "selected_expert_num": f.selected_experts, "token_slot_bytes": f.token_slot_bytes,
         "group_list_len": cfg.expert_num,
         "outputs": {n: {"shape": s, "dtype": t, "bytes": sizes[n]} for n, (s, t) in shapes.items()},
         "workspace_bytes": f.workspace_bytes, "tiling_key": 100 + cfg.need_schedule}
    if cfg.need_schedule == 1 and y <= f.limits.schedule_block_dim_y_max:
        d["block_dim"] = f"min(aiv cores, {f.limits.schedule_block_dim_max})"
    return d
