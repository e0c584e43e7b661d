"""The HCCL communicators one rank of a MindSpeed-LLM training run creates, and the buffer (MB) each one gets.

MindSpeed-LLM runs on Megatron-LM core_v0.12.1 (its install guide: docs/en/pytorch/training/install_guide.md:179-188
at Ascend/MindSpeed-LLM@c77308a). Its initialize_model_parallel (NVIDIA/Megatron-LM@a845aa7 = core_v0.12.1, PS =
megatron/core/parallel_state.py) creates each group with `pg_options=get_nccl_options(<name>, ...)`, the name
MindSpeed's table is looked up by: dp :799, dp_cp :826, cp :925, mp :949, tp :966, pp :1046, embd :1071, tp_dp_cp
:1099, tp_dp :1108, tp_cp :1122, ep :1135, ep_tp :1150, tp_ep_mp :1165, tp_ep_pp :1180, ep_dp :1196. The names
MindSpeed's adaptive table writes for expert groups (`exp`, `tp_exp`, `mp_exp`) are Megatron's older names: no
core_v0.12.1 group asks for them, so those groups keep HCCL_BUFFSIZE (`ep:400` is what reaches the EP group).

Sizes (decoder only, order tp-cp-ep-dp-pp): DP = world / (TP x PP x CP) (PS:629-632), expert DP = world / (ETP x EP x
PP) (PS:693-703), ETP defaults to TP. A group of one rank runs no collective (Megatron skips them), so it has no
communicator here; `embd` (first and last pipeline stage) exists on those ranks only and is counted when PP > 1.
HCCL allocates 2 x the buffer per communicator: CANN hcomm's CCLBufferManager::CreateCommCCLbuffer
(ccl_buffer_manager.cc, read in a public mirror of the CANN open source, commit not pinned) makes one device allocation
of the in + out CCL buffers (each the communicator's hccl_buffer_size, else HCCL_BUFFSIZE) plus a small expansion
window (EXP_BUFFER_SIZE, not counted here), when a collective first needs them — as MC901 and vllm-ascend's MC950 count
it. So a group that never communicates allocates nothing: `every_step` marks the groups a training step certainly uses (tp: every layer; ep: the MoE
all-to-all over ep, or over tp_ep_mp for the allgather dispatcher and MindSpeed's --moe-tp-extend-ep dispatcher
(Ascend/MindSpeed@028de58 mindspeed/core/transformer/moe/moe_feature/tp_extend_ep/token_dispatcher.py:114,196; get_expert_tensor_and_model_
parallel_group); dp_cp and ep_dp: gradient reduction), the rest are an upper bound.
Not counted: MindSpeed's own groups of features moecfg does not read (pp_new_stream, cp2 / cp_ring* / cp_ulysses of
ring and hybrid context parallelism, nd* of 2-D TP), the encoder groups, pos_embd (one rank).
"""
from __future__ import annotations

from dataclasses import dataclass

from moecfg.frameworks.vllm_ascend.groups import HCCL_DEFAULT_MB, Comm

PS = "NVIDIA/Megatron-LM@a845aa7 (core_v0.12.1) megatron/core/parallel_state.py"
SHORT = "Megatron core_v0.12.1 parallel_state.py"  # in per-group texts; the docstring has the commit
_LINES = {"dp": 799, "dp_cp": 826, "cp": 925, "mp": 949, "tp": 966, "pp": 1046, "embd": 1071, "tp_dp_cp": 1099,
          "tp_dp": 1108, "tp_cp": 1122, "ep": 1135, "ep_tp": 1150, "tp_ep_mp": 1165, "tp_ep_pp": 1180, "ep_dp": 1196}
OLD_NAMES = {"exp": "ep", "tp_exp": "ep_tp / tp_ep_mp", "mp_exp": "tp_ep_pp", "dp_modulo_exp": "ep_dp"}


@dataclass(frozen=True, slots=True)
class Layout:
    world: int
    tp: int = 1
    pp: int = 1
    cp: int = 1
    ep: int = 1
    etp: int = 1
    moe: bool = True
    dispatch_group: str = "ep"  # the group the MoE dispatcher communicates over every MoE layer

    @property
    def dp(self) -> int:  # 0 when the world size is unknown (0)
        return self.world // (self.tp * self.pp * self.cp)

    @property
    def edp(self) -> int:
        return self.world // (self.etp * self.ep * self.pp)


def sizes(lay: Layout) -> list[tuple[str, int]]:
    """(group name, ranks) of every group with more than one rank, in Megatron's creation order. World size unknown
    (0): the groups whose size depends on it are listed with 0 ranks (their buffer is known, their size not)."""
    dense = [("dp", lay.dp), ("dp_cp", lay.dp * lay.cp), ("cp", lay.cp), ("mp", lay.tp * lay.pp), ("tp", lay.tp),
             ("pp", lay.pp), ("embd", 2 if lay.pp > 1 else 1), ("tp_dp_cp", lay.tp * lay.dp * lay.cp),
             ("tp_dp", lay.tp * lay.dp), ("tp_cp", lay.tp * lay.cp)]
    expert = [("ep", lay.ep), ("ep_tp", lay.etp), ("tp_ep_mp", lay.etp * lay.ep), ("tp_ep_pp", lay.etp * lay.ep * lay.pp),
              ("ep_dp", lay.edp)] if lay.moe else []
    unknown = {"dp", "dp_cp", "tp_dp_cp", "tp_dp", "ep_dp"} if not lay.world else set()
    return [(name, 0 if name in unknown else n) for name, n in dense + expert if n > 1 or name in unknown]


def every_step(lay: Layout) -> set[str]:
    used = {"tp", "dp_cp"}
    if lay.moe:
        used |= {"ep_dp", lay.dispatch_group}
    return used


def communicators(lay: Layout, table: dict[str, tuple[int, str]] | None, buffsize: int, buffsize_how: str) -> list[Comm]:
    """Every communicator of one rank; `table` {group: (MB, how)} is what MindSpeed applies (None: nothing)."""
    out = []
    for name, ranks in sizes(lay):
        where = f"{SHORT}:{_LINES[name]}"
        if table and name in table:
            mb, how = table[name]
            why = f"group '{name}' <- {how} ({where})"
        else:
            mb, why = buffsize, f"group '{name}': {buffsize_how} ({where})"
        out.append(Comm(name, ranks, mb, why))
    return out


def default_buffsize(env_value: str | None, known: bool) -> tuple[int | None, str]:
    """The process HCCL_BUFFSIZE (MB) every group without an entry gets; None when unknown or not a size."""
    from moecfg.frameworks.values import integer

    if env_value is None:
        return (HCCL_DEFAULT_MB, f"HCCL_BUFFSIZE unset: HCCL's default {HCCL_DEFAULT_MB} MB") if known else (None, "")
    mb = integer(env_value.strip())
    return (mb, f"HCCL_BUFFSIZE={mb}") if mb and mb > 0 else (None, "")
