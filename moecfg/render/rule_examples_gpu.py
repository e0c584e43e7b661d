"""Documentation data of the GPU rules, DeepEP (MC6xx) and Tutel (MC7xx), in the form of rule_examples.EXAMPLES:
why, the library's own error text where gpu-rules.md §1.8 / §2.2 gives it, a document that fails, one that
passes, and the fix. DeepEP's host asserts raise `RuntimeError: Assertion exception (<file>:<line>): <expr>`
(builds before b306af0, 2026-04-30: `Failed: Assertion error <file>:<line> '<expr>'`); its device asserts trap inside the kernel ("illegal instruction" / "illegal memory access").
"""
from __future__ import annotations

from moecfg.render.rule_examples import ex

# DeepSeek-V3 shapes: hidden 7168, 256 routed experts, top-8. Every base below is valid (no diagnostic).
INTER = dict(kind="deepep", mode="normal", num_ranks=16, hidden=7168, num_experts=256, num_topk=8, num_sms=24)
INTRA = dict(kind="deepep", mode="normal", num_ranks=8, hidden=7168, num_experts=256, num_topk=8)
LL = dict(kind="deepep", mode="low_latency", num_ranks=16, hidden=7168, num_experts=256, num_topk=8,
          num_max_dispatch_tokens_per_rank=128)
# Tutel: 4 experts sharded over 16 GPUs (s = 4), top-2; r = 4 is what moecfg's model recommends.
TUTEL = dict(kind="tutel", world_size=16, num_global_experts=4, top_k=2, capacity_factor=1.15, tokens_per_device=400,
             model_dim=2048, hidden_size_per_expert=8192, adaptive_degree=4)

_HOST = "DeepEP's host assert fails {when} with `RuntimeError: Assertion exception ({where})`"
_CTOR = "when the job builds its Buffer (the constructor, before any token moves),"
_TRAP = ("The kernel's device assert ({where}) traps at the first dispatch or combine{cause}: the process dies with "
         "CUDA \"illegal instruction\" and no message that names the value")
_NEXT = "; every rank of the EP group then hangs or fails with it."


def _host(where: str, extra: str = "", when: str = _CTOR) -> str:
    return _HOST.format(where=where, when=when) + extra + _NEXT


def _trap(where: str, cause: str = "", after: str = "") -> str:
    return _TRAP.format(where=where, cause=cause) + after + _NEXT


DEEPEP: dict[str, dict] = {
    "MC601": dict(why="A count of zero (or a negative byte size) makes no valid Buffer: with NVSHMEM (more than one node, "
                  "or low-latency mode) DeepEP asserts `num_qps_per_rank > 0` in deep_ep/buffers/legacy.py (AssertionError); "
                  "zero hidden, top-k or ranks fail in the host asserts or build empty tensors. moecfg skips the other "
                  "DeepEP rules and the buffer sizes for the document.",
                  fail=ex(LL, num_qps_per_rank=0), pas=ex(LL, num_qps_per_rank=16),
                  fix="Give every count a positive value (buffer sizes may be 0); in low-latency mode one QP per local "
                  "expert."),
    "MC602": dict(why=_host("csrc/legacy/buffer.hpp:114", " (`num_ranks < NUM_MAX_NVL_PEERS or num_ranks % NUM_MAX_NVL_PEERS "
                  "== 0`): DeepEP assumes full nodes of 8 GPUs in every mode"),
                  fail=ex(INTER, num_ranks=12, num_experts=240), pas=ex(INTER),
                  fix="Use fewer than 8 ranks (one node) or whole nodes of 8 GPUs."),
    "MC603": dict(why=_host("csrc/legacy/buffer.hpp:113", " (normal mode allows at most NUM_MAX_RDMA_PEERS = 20 nodes)"),
                  fail=ex(INTER, num_ranks=192, num_experts=384), pas=ex(LL, num_ranks=192, num_experts=384),
                  fix="At most 160 ranks in normal mode, or mode: low_latency (no rank limit)."),
    "MC604": dict(why="Without explicit configs DeepEP picks the chunk sizes from its table in deep_ep/buffers/legacy.py "
                  "(get_dispatch_config / get_combine_config), which raises at the first dispatch.",
                  cann_error="AssertionError: Unsupported number of EP ranks: 6",
                  fail=ex(INTRA, num_ranks=6, num_experts=48), pas=ex(INTRA),
                  fix="Use a rank count of the table (2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 144, 160), or pass both "
                  "dispatch_config and combine_config."),
    "MC605": dict(why="The normal-mode kernels are template-instantiated only for 2, 4, 8 ranks in a node "
                  "(SWITCH_RANKS) and 2-20 listed node counts (SWITCH_RDMA_RANKS); any other count fails at launch "
                  "even with hand-written configs.", cann_error="Unsupported ranks",
                  fail=ex(INTRA, num_ranks=6, num_experts=48, dispatch_config=[6, 256, 6, 128],
                          combine_config=[4, 256, 6, 128]),
                  pas=ex(INTRA, dispatch_config=[6, 256, 6, 128], combine_config=[4, 256, 6, 128]),
                  fix="Use 2, 4 or 8 ranks in a node, or 16, 24, 32, 48, 64, 96, 128, 144 or 160 ranks."),
    "MC610": dict(why=_host("csrc/legacy/config.hpp", " (struct Config)", when="when the job builds the Config,"),
                  fail=ex(INTRA, dispatch_config=[256, 256, 6, 128]), pas=ex(INTRA, dispatch_config=[6, 256, 6, 128]),
                  fix="All four sizes > 0, nvl_send < nvl_recv and rdma_send < rdma_recv (DeepEP's table has working "
                  "values for each rank count)."),
    "MC611": dict(why="Buffer.set_num_sms asserts an even SM count (one channel = 2 SMs); internode cached notify "
                  "also needs at least 2 channels (csrc/kernels/legacy/internode.cu:1519).",
                  cann_error="AssertionError: The SM count must be even",
                  fail=ex(INTRA, num_sms=21), pas=ex(INTRA, num_sms=24),
                  fix="Use an even num_sms (DeepEP's default 20, its README 24), at least 4 internode."),
    "MC612": dict(why=_host("csrc/legacy/buffer.hpp:1326-1327", " (or the kernel traps, csrc/kernels/legacy/internode.cu:2363-2373): the combine chunk "
                  "sizes do not fit the node count (DeepEP issues #114, #300)", when="at the first internode combine"),
                  fail=ex(INTER, combine_config=[1, 288, 8, 128]), pas=ex(INTER, combine_config=[4, 288, 12, 128]),
                  fix="Take the combine config of DeepEP's table for your rank count (here [4, 288, 12, 128] for 16 "
                  "ranks), or tune one with DeepEP's tests."),
    "MC613": dict(why=_trap("csrc/kernels/legacy/internode.cu:497", after=" (DeepEP issue #134)"),
                  fail=ex(INTER, num_qps_per_rank=16), pas=ex(INTER, num_qps_per_rank=12),
                  fix="Set num_qps_per_rank to num_sms / 2 or at least num_sms."),
    "MC620": dict(why=_host("csrc/legacy/buffer.hpp:458", " (`(hidden * elem_size) % 16 == 0`): tokens move in 16-byte int4 "
                  "units", when="at the first normal-mode dispatch or combine"),
                  fail=ex(INTRA, hidden=4100), pas=ex(INTRA, hidden=4096),
                  fix="Use a hidden size whose bytes per token are a multiple of 16 (BF16: hidden % 8 == 0)."),
    "MC621": dict(why="Low-latency kernels are compiled for eight hidden sizes only (SWITCH_HIDDEN in "
                  "csrc/kernels/legacy/launch.cuh); any other size fails at the first low-latency dispatch.",
                  cann_error="Unsupported hidden", fail=ex(LL, hidden=2880), pas=ex(LL, hidden=3072),
                  fix="Pad hidden to the next compiled size (2048, 2560, 3072, 4096, 5120, 6144, 7168, 8192), as vLLM "
                  "does, or use normal mode."),
    "MC622": dict(why=_trap("csrc/kernels/legacy/intranode.cu:304", " of SM90 builds (the dispatch TMA stages a token "
                  "in 8192 bytes)", "; DeepEP issue #722: hidden 8192 fails"),
                  fail=ex(INTRA, hidden=8192), pas=ex(INTRA, hidden=7168),
                  fix="BF16 hidden <= 8176 in intranode normal mode, or use mode: low_latency (which takes 8192)."),
    "MC623": dict(why=_trap("csrc/kernels/legacy/internode.cu:578, 1758", " when an internode token does not fit the 16 KiB "
                  "of shared memory a warp stages it in"),
                  fail=ex(INTER, hidden=8192), pas=ex(INTER, hidden=7168),
                  fix="Lower hidden (BF16 top-8: <= 8144) or use mode: low_latency."),
    "MC624": dict(why=_trap("csrc/kernels/legacy/internode.cu:1588", " (the internode combine forwarder always uses TMA on "
                  "512-byte multiples)", "; DeepEP issue #506: gpt-oss hidden 2880 fails"),
                  fail=ex(INTER, hidden=2880), pas=ex(INTER, hidden=3072),
                  fix="Use a BF16 hidden divisible by 256 internode, or mode: low_latency."),
    "MC630": dict(why=_host("csrc/legacy/buffer.hpp:468", " (`num_experts % num_ranks == 0`; low-latency: csrc/legacy/buffer.hpp:1483): "
                  "every rank holds the same number of experts", when="at the first dispatch"),
                  fail=ex(INTRA, num_experts=250), pas=ex(INTRA),
                  fix="Round num_experts up to a multiple of num_ranks with redundant (EPLB) experts."),
    "MC631": dict(why=_trap("csrc/kernels/legacy/intranode.cu:167-168; csrc/kernels/legacy/internode.cu:227", " (the notify kernels count experts "
                  "with one thread each: 128 per rank intranode, 512 per node internode)", "; above 1024 local experts "
                  "the host assert csrc/legacy/buffer.hpp:469 fails first"),
                  fail=ex(INTRA, num_experts=2048), pas=ex(INTER, num_ranks=32, num_experts=2048),
                  fix="Spread the experts over more ranks (or nodes), or use fewer experts."),
    "MC632": dict(why=_trap("csrc/kernels/legacy/internode_ll.cu:493-501; normal mode: csrc/kernels/legacy/intranode.cu:251, csrc/kernels/legacy/internode.cu:519",
                  " (the kernels are compiled for at most 11 experts per token in low-latency mode, 32 in normal "
                  "mode)"),
                  fail=ex(LL, num_topk=12), pas=ex(LL),
                  fix="num_topk <= 11 in low-latency mode (<= 32 in normal mode)."),
    "MC633": dict(why=_trap("csrc/kernels/legacy/internode_ll.cu:382, 916", " (low-latency kernels give an SM the warp "
                  "groups of at most 14 experts)", "; above the 32 MiB workspace (num_experts * 8 bytes) the launch's "
                  "host assert csrc/kernels/legacy/internode_ll.cu:506 fails instead"),
                  fail=ex(LL, num_experts=1152, device_sms=78), pas=ex(LL, num_experts=1152, device_sms=132),
                  fix="num_experts <= 14 x device_sms (H20: 1092, H100/H800: 1848); use a GPU with more SMs or fewer "
                  "(redundant) experts."),
    "MC640": dict(why=_host("csrc/legacy/buffer.hpp:1526", when="at the first low-latency dispatch"),
                  cann_error="TMA requires the number of tokens to be multiple of 4",
                  fail=ex(LL, num_ranks=2, num_experts=64, num_max_dispatch_tokens_per_rank=127),
                  pas=ex(LL, num_ranks=2, num_experts=64, num_max_dispatch_tokens_per_rank=128),
                  fix="Choose num_max_dispatch_tokens_per_rank so that num_ranks * T is a multiple of 4."),
    "MC641": dict(why="DeepEP builds at or after d981409 (2025-09-25, PR #430) assert NVSHMEM_QP_DEPTH >= (T + 1) * 2 at "
                  "every low_latency_dispatch and low_latency_combine (deep_ep/buffers/legacy.py:609,665 at dd758ca; "
                  "AssertionError); earlier builds do not check and overrun the QP's work queue (the kernels skip the "
                  "WQ slot check). With the default depth 1024, T is at most 511 (DeepEP issue #392); set it with "
                  "`env: {NVSHMEM_QP_DEPTH: ...}` (SGLang raises it to 2 * (T + 1) itself since PR #34923).",
                  cann_error="AssertionError (assert self.nvshmem_qp_depth >= (num_max_dispatch_tokens_per_rank + 1) * 2)",
                  fail=ex(LL, num_max_dispatch_tokens_per_rank=600),
                  pas=ex(LL, num_max_dispatch_tokens_per_rank=600, env={"NVSHMEM_QP_DEPTH": 2048}),
                  fix="Lower num_max_dispatch_tokens_per_rank, or set NVSHMEM_QP_DEPTH (env, or nvshmem_qp_depth) to at least "
                  "2 * (T + 1)."),
    "MC642": dict(why=_trap("csrc/kernels/legacy/internode_ll.cu:284", " (each local expert needs its own QP)"),
                  fail=ex(LL, num_qps_per_rank=8), pas=ex(LL, num_qps_per_rank=16),
                  fix="Set num_qps_per_rank to the local expert count num_experts / num_ranks (DeepEP's README does)."),
    "MC650": dict(why="A buffer below the hint overruns at the first large batch: the intranode host checks "
                  "(csrc/legacy/buffer.hpp:552, 627-637, 807-811) raise `RuntimeError: Assertion exception`, internode "
                  "the kernels write past the buffer (corrupt tokens or a hang). Below the hint but above DeepEP's own "
                  "check is a warning.",
                  fail=ex(INTER, num_nvl_bytes=268435456), pas=ex(INTER, num_nvl_bytes=1073741824),
                  fix="Size num_nvl_bytes with Config.get_nvl_buffer_size_hint (the figure moecfg prints), as DeepEP's "
                  "README and Megatron do."),
    "MC651": dict(why="An RDMA buffer below the hint overruns internode (uccl PR #670: a fixed 1 GB RDMA buffer "
                  "overflowed at 8 nodes); in low-latency mode csrc/legacy/buffer.hpp:1503 asserts the layout total <= "
                  "num_rdma_bytes at the first dispatch (`RuntimeError: Assertion exception`).",
                  fail=ex(INTER, num_rdma_bytes=67108864), pas=ex(INTER, num_rdma_bytes=134217728),
                  fix="Size num_rdma_bytes with get_rdma_buffer_size_hint (normal) or get_low_latency_rdma_size_hint "
                  "(low-latency), the figure moecfg prints."),
    "MC652": dict(why=_host("csrc/legacy/buffer.hpp:107 (NVL) / 154 (RDMA)", " (`num_nvl_bytes % NUM_BUFFER_ALIGNMENT_BYTES "
                  "== 0`)"),
                  fail=ex(INTRA, num_nvl_bytes=1000000001), pas=ex(INTRA, num_nvl_bytes=1000000128),
                  fix="Round the byte count up to a multiple of 128."),
    "MC653": dict(why=_host("csrc/legacy/buffer.hpp:107-112", ": a normal-mode RDMA buffer (and an "
                  "NVL buffer next to an RDMA one) is at most INT_MAX bytes, any buffer below 32 GiB"),
                  fail=ex(INTER, num_rdma_bytes=4294967296), pas=ex(INTER, num_rdma_bytes=134217728),
                  fix="Pass at most 2147483647 bytes for a normal-mode RDMA buffer (the hint is usually far smaller)."),
    "MC654": dict(why="The setup needs more than DeepEP can allocate: sized with the hint the Buffer constructor fails "
                  "(`RuntimeError: Assertion exception (csrc/legacy/buffer.hpp:109-112)`); sized below it the kernels "
                  "overrun.",
                  fail=ex(INTER, num_ranks=128, num_sms=64), pas=ex(INTER, num_ranks=128, num_sms=24),
                  fix="Lower num_sms (fewer channels) or the chunk sizes; in low-latency mode lower "
                  "num_max_dispatch_tokens_per_rank or the experts."),
    "MC655": dict(why=_host("csrc/legacy/buffer.hpp:115-116", " (`num_ranks > NUM_MAX_NVL_PEERS or low_latency_mode`): "
                  "a single node has no RDMA peer in normal mode"),
                  fail=ex(INTRA, num_rdma_bytes=1073741824), pas=ex(INTRA, num_rdma_bytes=0),
                  fix="Pass num_rdma_bytes: 0 for normal mode on one node (or use mode: low_latency)."),
}

TUTEL: dict[str, dict] = {
    "MC701": dict(why="Tutel sizes the capacity and the expert shards from these counts: a zero or negative value "
                  "raises in moe_layer (ZeroDivisionError, or \"Unexpected value\") or builds empty tensors. moecfg "
                  "skips the other Tutel rules for the document.",
                  fail=ex(TUTEL, tokens_per_device=0), pas=ex(TUTEL),
                  fix="Counts >= 1, a2a_ffn_overlap_degree >= 1, megablocks_size and max_expert_load >= 0."),
    "MC702": dict(why="tutel/impls/moe_layer.py cannot place the experts: with fewer experts than GPUs each expert is "
                  "shared by W / E GPUs (num_local_experts = -W / E), which must be a whole number, else the layer's "
                  "constructor asserts (the error below: num_local_experts = -3 on 16 GPUs); with more, every GPU holds "
                  "E / W.",
                  cann_error="AssertionError: Excepting 3 devices to share an expert param, while global device count "
                  "is 16.",
                  fail=ex(TUTEL, num_global_experts=6, adaptive_degree=2), pas=ex(TUTEL),
                  fix="num_global_experts a multiple of world_size, or a divisor of it."),
    "MC703": dict(why="moe_layer raises at construction when parallel_type 'adaptive:r' is not 0 or a divisor of "
                  "sharded_count = W / E (values above it are silently clamped: a warning).",
                  cann_error="Exception: Unexpected value of adaptive_degree: 3, expecting a candidate within [0, 1, 2, 4].",
                  fail=ex(TUTEL, adaptive_degree=3), pas=ex(TUTEL),
                  fix="Use 0 (DP), 1 (DP+EP), W / E (MP+EP) or another divisor of W / E."),
    "MC704": dict(why="tutel/experts/ffn.py splits every expert's FFN over the sharded_count GPUs that share it: an "
                  "uneven split fails when the expert is built.",
                  fail=ex(TUTEL, hidden_size_per_expert=8190), pas=ex(TUTEL),
                  fix="Use a hidden_size_per_expert divisible by world_size / num_global_experts."),
    "MC705": dict(why="moe_layer asserts an even model dimension when the layer is built.",
                  cann_error="AssertionError: Model_dim (2047) must be even value, while this Model_dim mod 2 > 0.",
                  fail=ex(TUTEL, model_dim=2047), pas=ex(TUTEL),
                  fix="Use an even model_dim."),
    "MC706": dict(why="tutel/impls/overlap.py asserts at the first forward: at most AllToAllStatus.max_num_split = 32 "
                  "splits, and the split dimension (the capacity) must divide evenly.",
                  fail=ex(TUTEL, a2a_ffn_overlap_degree=64), pas=ex(TUTEL, a2a_ffn_overlap_degree=2),
                  fix="a2a_ffn_overlap_degree <= 32 and a divisor of the capacity (a megablocks_size that is a "
                  "multiple of it aligns the capacity, but only in single-GPU inference with several local experts: "
                  "elsewhere Tutel forces megablocks_size to 0, MC708)."),
    "MC707": dict(why="Nothing fails: this is moecfg's communication model (gpu-rules 2.3, derived from Tutel's code, "
                  "not measured), which finds an adaptive_degree that moves fewer bytes per training step.",
                  fail=ex(TUTEL, adaptive_degree=1), pas=ex(TUTEL),
                  fix="Try the adaptive_degree the message names and measure the step time before switching."),
}

EXAMPLES = {**DEEPEP, **TUTEL}
