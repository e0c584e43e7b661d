"""sgl-kernel-npu DeepEP (`deep_ep.Buffer` on Ascend): what the two ops share.

Which tiling runs (sgl-kernel-npu @f425bdf): the `deepep` build (csrc/deepep/ops) holds the A3 ops, the
`deepep2` build (ops2) the A2 ones (doc/A2_DEEPEP.md: `bash build.sh -a deepep2`).
- normal mode: A3 and A2 with ep // 8 <= 1 run CamMoeDispatchNormal; A2 with ep >= 16 (num_rdma_ranks > 1,
  deep_ep.cpp L96-101) runs DispatchNormalA2 with global_bs = 4096 * ep (L688).
- low latency: aclnnMoeLowLatencyDispatchV2, sgl-kernel-npu's fork of CANN's dispatch v2; on A2 the ops2
  tiling splits single server (ep <= 8) from multi-server (ops2 moe_distribute_dispatch_v2_tiling.cc L131-151).
Limits per tiling are in LIMITS; rules.py checks them.
"""
from __future__ import annotations

from moecfg.core.record import field_names, record
from moecfg.backends import Analysis
from moecfg.backends.ascend.shared import formulas as fx
from moecfg.backends.ascend import kind
from moecfg.backends.ascend.ops.sgl_deepep import formulas as sx
from moecfg.backends.ascend.ops.sgl_deepep.fields import ENV_FIELDS, OP_FIELDS
from moecfg.core.input_rules import VALIDATOR_CODES

CAM, CAM2 = "ops/op_host/cam_moe_dispatch_normal_tiling.cc", "ops2/op_host/cam_moe_dispatch_normal_tiling.cc"
NA2 = "ops2/op_host/dispatch_normal_a2_tiling.cpp"
LLF, LL2 = "ops/op_host/moe_distribute_dispatch_v2_tiling.cpp", "ops2/op_host/moe_distribute_dispatch_v2_tiling.cc"
# quant_mode strings -> the op's quant attribute (deep_ep.cpp L17-22, L326-333)
QUANT_CODES = {"bf16": 0, "none": 0, "int8": 2, "mx_fp8_e4m3": 3, "mx_fp8_e5m2": 3, "mx_fp4_e2m1": 4,
               "pertoken_fp8_e4m3": 5}
DEFAULT_BUILD = {"A3": "deepep", "A2": "deepep2"}


@record(frozen=True, slots=True)
class SglLimits:
    """The host checks of one tiling, each bound with the line that enforces it."""

    tiling: str
    ep: tuple  # (min, max, multiple or 0, source)
    experts: tuple  # (max, divisor "ep" | "moe_ranks", dispatch status max or None, source)
    hidden: tuple  # (min, max, multiple or 0, source)
    topk: tuple  # (min, max, source); k <= experts is checked too
    bs_max: tuple  # (max x.size(0), source)
    comm_algs: tuple | None = None  # accepted commAlg values (None: not checked)
    window: str | None = None  # "normal" | "ll": the tiling checks the HCCL window


LIMITS = {
    "normal_cam_a3": SglLimits(f"CamMoeDispatchNormal ({CAM})", (2, 384, 0, f"{CAM} L369-372"),
                               (1024, "ep", 1280, f"{CAM} L396-413, L434-440"), (1024, 8192, 0, f"{CAM} L487-489"),
                               (1, 16, f"{CAM} L503-508"), (131072, f"{CAM} L448-451"), window="normal"),
    "normal_cam_a2": SglLimits(f"CamMoeDispatchNormal ({CAM2})", (2, 384, 0, f"{CAM2} L302-305"),
                               (512, "ep", 1280, f"{CAM2} L329-346"), (1024, 7168, 0, f"{CAM2} L425-426"),
                               (1, 16, f"{CAM2} L441-445"), (65536, f"{CAM2} L382-384"), window="normal"),
    "normal_a2_internode": SglLimits(f"DispatchNormalA2 ({NA2})", (1, 256, 8, f"{NA2} L975-977"),
                                     (512, "ep", None, f"{NA2} L982-986"), (1, 7168, 32, f"{NA2} L907-908"),
                                     (2, 16, f"{NA2} L913-915"), (4096, f"{NA2} L115, L909-912")),
    "ll_fork": SglLimits(f"MoeLowLatencyDispatchV2 ({LLF})", (2, 768, 0, f"{LLF} L81, L607"),
                         (1024, "moe_ranks", None, f"{LLF} L680-682, L881"), (1024, 8192, 0, f"{LLF} L970-971"),
                         (1, 16, f"{LLF} L986-992"), (512, f"{LLF} L85, L908-910"),
                         comm_algs=("", "fullmesh_v1", "fullmesh_v2", "ccu"), window="ll"),
    "ll_a2_single": SglLimits(f"MoeLowLatencyDispatchV2, A2 single server ({LL2})", (2, 256, 0, f"{LL2} L142-147, L197"),
                              (1024, "moe_ranks", None, f"{LL2} L237-239"), (1024, 8192, 0, f"{LL2} L672-673"),
                              (0, 16, f"{LL2} L688-692"), (512, f"{LL2} L628-630"), window="ll"),
    "ll_a2_multi": SglLimits(f"MoeLowLatencyDispatchV2, A2 multi-server ({LL2})", (1, 256, 8, f"{LL2} L1023-1025"),
                             (512, "ep", None, f"{LL2} L1028-1030"), (1, 7168, 32, f"{LL2} L1124-1125"),
                             (1, 16, f"{LL2} L1146-1147"), (512, f"{LL2} L122, L1126"),
                             comm_algs=("fullmesh", "hierarchy")),
}


@record(frozen=True, slots=True)
class SglConfig:
    op: str
    product: str
    h: int
    k: int
    ep_world_size: int
    num_experts: int
    kernel_build: str | None
    hccl_buffer_size: int | None
    env: dict
    bs: int | None
    quant_mode: str | None
    num_worst_tokens: int = 0
    num_max_dispatch_tokens_per_rank: int | None = None
    use_fp8: bool = True
    comm_alg: str | None = None

    @classmethod
    def from_values(cls, values: dict) -> "SglConfig":
        kw = {n: values.get(n) for n in field_names(cls) if n in values}
        kw["env"] = kw.get("env") or {}
        return cls(**kw)

    @property
    def build(self) -> str:
        return self.kernel_build or DEFAULT_BUILD[self.product]

    @property
    def layered_env(self) -> bool:
        # deep_ep.cpp L960-969; ops2 dispatch v2 tiling L1215-1222: the env pair selects the layered algorithm
        return self.env.get("HCCL_INTRA_PCIE_ENABLE") == 1 and self.env.get("HCCL_INTRA_ROCE_ENABLE") == 0


@record(frozen=True, slots=True)
class LongSeq:
    """DEEPEP_NORMAL_LONG_SEQ_ROUND / _PER_ROUND_TOKENS as the Buffer constructor reads them (deep_ep.cpp L63-88)."""

    rounds: int
    per_round_tokens: int

    @property
    def capacity(self) -> int:
        return self.rounds * self.per_round_tokens  # deep_ep.cpp L127

    @classmethod
    def of(cls, env: dict) -> "LongSeq":
        r, t = env.get("DEEPEP_NORMAL_LONG_SEQ_ROUND"), env.get("DEEPEP_NORMAL_LONG_SEQ_PER_ROUND_TOKENS")
        if r is None or t is None:  # unset (or only one set: the constructor asserts, rules report it)
            return cls(1, sx.MAX_TOKENS_PER_ROUND)
        return cls(r, t)


@record(frozen=True, slots=True)
class SglFacts:
    limits: SglLimits
    limits_key: str
    long_seq: LongSeq
    quant: str  # resolved quant_mode string
    quant_code: int
    bs: int  # x.size(0)
    max_bs: int  # globalBs / ep as the tiling sees it
    local_experts: int | None
    shared_rank: int
    shared_num: int  # after the (1, 0) -> 0 normalisation
    comm_alg: str | None  # low latency only
    tiling_window_mb: int
    tiling_window_from: str  # "DEEPEP_HCCL_BUFFSIZE" | "HCCL_BUFFSIZE" | "" (default 200)
    hccl_window_mb: int  # what HCCL allocates for the group
    hccl_window_from: str


def validate(doc, op: str):
    """(values, findings, broken): the op's table and its environment (no CANN rule set: the op is sgl-kernel-npu's)."""
    values, findings, broken = kind._VALIDATOR.validate(doc.data, OP_FIELDS[op], (), doc.raw_scalars)
    findings = kind._other_op_hints(findings, op)
    broken |= kind._env(values, doc.raw_scalars, findings, ENV_FIELDS)
    broken |= any(fd.code == VALIDATOR_CODES["too_large"] for fd in findings)
    return values, findings, broken


def limits_key(cfg: SglConfig) -> str:
    a2 = cfg.build == "deepep2"
    if cfg.op == "sgl_deepep_normal":
        if not a2:
            return "normal_cam_a3"
        return "normal_a2_internode" if cfg.ep_world_size // 8 > 1 else "normal_cam_a2"
    if not a2:
        return "ll_fork"
    return "ll_a2_single" if cfg.ep_world_size <= 8 else "ll_a2_multi"


def _quant(cfg: SglConfig) -> str:
    if cfg.quant_mode is not None:
        return cfg.quant_mode
    if cfg.op == "sgl_deepep_normal":  # normal_strategy.py L193-196
        return "int8" if cfg.env.get("DEEP_NORMAL_MODE_USE_INT8_QUANT") == 1 else "bf16"
    return "int8" if cfg.use_fp8 else "none"  # buffer.py L667-674: use_fp8 (default True) -> int8


def _comm_alg(cfg: SglConfig) -> str | None:
    if cfg.op != "sgl_deepep_low_latency":
        return None
    if cfg.comm_alg is not None:
        return cfg.comm_alg
    if cfg.product == "A2":
        return "fullmesh"  # deep_ep.cpp L971-976
    return "ccu" if cfg.env.get("MOE_ENABLE_CCU") == 1 else "fullmesh_v1"


def hccl_window(cfg: SglConfig) -> tuple[int, str]:
    if cfg.hccl_buffer_size is not None:
        return cfg.hccl_buffer_size, "hccl_buffer_size (the group's option)"
    env = cfg.env.get("HCCL_BUFFSIZE")
    if env is not None:
        return env, "env HCCL_BUFFSIZE"
    return sx.DEFAULT_WINDOW_MB, "HCCL default (HCCL_BUFFSIZE unset)"


def derive(cfg: SglConfig) -> SglFacts:
    key = limits_key(cfg)
    seq = LongSeq.of(cfg.env)
    quant = _quant(cfg)
    shared_rank = cfg.env.get("MOE_SHARED_EXPERT_RANK_NUM") or 0
    if cfg.op == "sgl_deepep_normal":
        bs = cfg.bs
        max_bs = sx.normal_max_bs(seq.per_round_tokens, max(bs, cfg.num_worst_tokens))
        if key == "normal_a2_internode":
            max_bs = 4096  # deep_ep.cpp L688: global_bs = MAX_BATCH_SIZE * ranks
        shared_rank, moe_ranks = 0, cfg.ep_world_size
    else:
        bs = cfg.bs if cfg.bs is not None else cfg.num_max_dispatch_tokens_per_rank
        max_bs = cfg.num_max_dispatch_tokens_per_rank  # deep_ep.cpp L867: global_bs = T * ranks
        moe_ranks = cfg.ep_world_size - shared_rank
    local = cfg.num_experts // moe_ranks if moe_ranks > 0 else None
    tiling_mb, tiling_from = sx.tiling_window_mb(cfg.env.get("DEEPEP_HCCL_BUFFSIZE"), cfg.env.get("HCCL_BUFFSIZE"))
    hccl_mb, hccl_from = hccl_window(cfg)
    return SglFacts(LIMITS[key], key, seq, quant, QUANT_CODES[quant], bs, max_bs, local, shared_rank,
                    fx.normalized_shared_expert_num(1, shared_rank), _comm_alg(cfg), tiling_mb, tiling_from,
                    hccl_mb, hccl_from)


def requirement(cfg: SglConfig, f: SglFacts) -> dict | None:
    """The HCCL window the tiling requires, with formula and terms; None where it has no host check."""
    h, k, ep, mbs = cfg.h, cfg.k, cfg.ep_world_size, f.max_bs
    if f.limits.window == "normal":
        product = "A2" if cfg.build == "deepep2" else "A3"
        state, notify, extra = sx.NORMAL_STATE[product]
        need = sx.normal_window_bytes(product, h, k, mbs, f.long_seq.rounds)
        formula = "(max_bs * k * (tok_dispatch + tok_combine) + combine_state + notify_dispatch) * 2" + \
            (" + 4 * 2 MiB" if extra else "")
        terms = {"max_bs": mbs, "k": k, "tok_dispatch": fx.a3_dispatch_token_bytes(h, False),
                 "tok_combine": sx.normal_combine_token_bytes(h, f.long_seq.rounds), "combine_state": state,
                 "notify_dispatch": notify}
    elif f.limits.window == "ll" and f.comm_alg != "ccu" and f.local_experts is not None:
        elem = sx.ll_dispatch_elem_bytes(f.quant_code) if f.limits_key == "ll_fork" else 2
        fm2 = f.comm_alg == "fullmesh_v2" and f.limits_key == "ll_fork"
        dispatch = fx.a3_ep_window_bytes(h, k, ep, f.local_experts, mbs, f.shared_num, fm2, elem)
        combine = sx.ll_combine_window_bytes(h, k, ep, f.local_experts, mbs, f.shared_num)
        need = max(dispatch, combine)
        formula = "max(dispatch tiling, combine tiling); each 2 * (max_bs * tok_dispatch * ep_world_size * " \
                  "local_expert_num + max_bs * tok_combine * (k + shared_expert_num))"
        terms = {"max_bs": mbs, "tok_dispatch": fx.a3_dispatch_token_bytes(h, fm2, elem), "ep_world_size": ep,
                 "local_expert_num": f.local_experts, "tok_combine": fx.a3_combine_token_bytes(h), "k": k,
                 "shared_expert_num": f.shared_num, "dispatch_elem_bytes": elem, "dispatch_window": dispatch,
                 "combine_tok_dispatch": fx.a3_dispatch_token_bytes(h, False), "combine_window": combine}
    else:
        return None
    return {"required_bytes": need, "required_mb": fx.ceil_mb(need), "formula": formula, "terms": terms,
            "configured_mb": f.tiling_window_mb, "configured_from": f.tiling_window_from or "default 200 MB",
            "sufficient": need <= f.tiling_window_mb * fx.MB, "enforced": "error"}


def computable(cfg: SglConfig) -> bool:
    return min(cfg.h, cfg.k, cfg.ep_world_size, cfg.num_experts) > 0 and (
        cfg.op == "sgl_deepep_normal" or (cfg.num_max_dispatch_tokens_per_rank or 0) > 0)


def analyze(doc, op: str, checks) -> Analysis:
    values, findings, broken = validate(doc, op)
    out = Analysis(findings=findings, kind="ascend", op=op, product=values.get("product"), ruleset="sgl-kernel-npu")
    if broken:
        return out
    cfg = SglConfig.from_values(values)
    facts = derive(cfg)
    for check in checks:
        findings.extend(check(cfg, facts))
    req = requirement(cfg, facts) if computable(cfg) else None
    if req is not None:
        out.buffers = {"ep": req}
    out.derived = {"tiling": facts.limits.tiling, "kernel_build": cfg.build, "quant_mode": facts.quant,
                   "quant_code": facts.quant_code, "max_bs": facts.max_bs, "global_bs": facts.max_bs * cfg.ep_world_size,
                   "local_expert_num": facts.local_experts, "rounds": facts.long_seq.rounds,
                   "per_round_tokens": facts.long_seq.per_round_tokens, "comm_alg": facts.comm_alg}
    return out
