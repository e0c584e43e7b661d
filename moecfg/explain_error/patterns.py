"""The error texts users paste, each linked to the moecfg rule that catches the cause before launch.

One row per text: `regex` finds the line (single line, no nested quantifiers: every repetition is bounded);
`values` read numbers from that line; `knobs` are the flags / environment variables that feed the failing value,
looked up in the log (the command line, vLLM's "non-default args", SGLang's ServerArgs) to name the cause;
`fix` may use the values read. `static=False` rows have no cause moecfg can check before launch: they say so
and give the documented workarounds with their sources. Rows of one `group` are alternatives for one line: the
first that matches wins (specific texts before general ones). `generic` rows (an op's error code alone) are
shown only when no specific row matched.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Pattern:
    key: str
    regex: str
    title: str
    codes: tuple[str, ...]
    means: str
    fix: str
    source: str
    values: tuple[tuple[str, str], ...] = ()  # (label, regex with one group) searched in the matched line
    knobs: tuple[str, ...] = ()
    static: bool = True
    group: str = ""
    generic: bool = False
    needles: tuple[str, ...] = ()  # literal text one of which the line must hold before the regex runs (speed)
    # routing by evidence: the row applies only when the line or the log holds one of `evidence` (the framework
    # or library that prints this text) and the line holds none of `not_with` (another library's own signature)
    evidence: tuple[str, ...] = ()
    not_with: tuple[str, ...] = ()


_NEEDED = ("needed MB", r"NEEDED_HCCL_BUFFSIZE[^=\n]{0,400}=\s{0,4}(\d{1,9})\s{0,4}MB")
_HAVE = ("HCCL_BUFFSIZE MB", r"HCCL_BUFFSIZE\s{0,4}=\s{0,4}(\d{1,9})\s{0,4}MB")
_MAXBS = ("maxBs", r"maxBs\s{0,4}=\s{0,4}(\d{1,9})")
_H = ("h", r"\bh\s{0,4}=\s{0,4}(\d{1,9})")
_TOKENS = ("--max-num-seqs", "--max-num-batched-tokens", "--cuda-graph-max-bs", "--max-running-requests",
           "--chunked-prefill-size", "--speculative-config", "--data-parallel-size", "--tensor-parallel-size")
_BUF_FIX = ("set HCCL_BUFFSIZE >= {needed MB} (MB) in the launch's environment, or send fewer tokens per rank "
            "(batch and parallel flags); `moecfg plan` gives the smallest buffer for your batch")
# CANN's own MC2 ops sign their tiling errors with the op's tiling function and file (vllm-ascend#4051:
# `[FUNC:MoeDistributeDispatchA3TilingFuncImpl][FILE:moe_distribute_dispatch_v2_tiling.cc]`, reached from vLLM
# through torch_npu); sgl-kernel-npu prints the same words from its own ops, in logs that name SGLang or the kernel.
_CANN_OP_SIGNS = ("[FUNC:MoeDistribute", "FILE:moe_distribute_", "aclnnMoeDistribute")
_SGL_EVIDENCE = ("sglang", "sgl_kernel_npu", "sgl-kernel-npu", "cam_moe", "CamMoe", "deep_ep")
_SGL_LL = "deepseek-ai/DeepEP csrc/deep_ep.cpp Buffer::low_latency_dispatch (EP_HOST_ASSERT)"

PATTERNS: tuple[Pattern, ...] = (
    # ---- HCCL_BUFFSIZE too small: the tiling's window check, per op (most specific text first) ----
    Pattern("hccl-buffsize-hierarchy", r"HCCL_BUFFSIZE(?:_EP)? is too SMALL[^\n]{0,600}NEEDED_HCCL_BUFFSIZE_HIERARCHY",
            "HCCL_BUFFSIZE too small for A3 hierarchy (comm_alg hierarchy)", ("MC501", "MC505"),
            "the dispatch/combine tiling refused the call: the EP window of comm_alg hierarchy (every expert x maxBs "
            "tokens + 404 MB) does not fit HCCL_BUFFSIZE; hierarchy reads HCCL_BUFFSIZE only, not the group's "
            "hccl_buffer_size option", _BUF_FIX,
            "ops-transformer moe_distribute_combine_v2_tiling.cpp CheckActualWinSize; vllm-project/vllm-ascend#16835",
            (_MAXBS, _H, _NEEDED, _HAVE), ("HCCL_BUFFSIZE", *_TOKENS), group="buffsize", needles=('NEEDED_HCCL_BUFFSIZE_HIERARCHY',)),
    Pattern("hccl-buffsize-sgl", r"HCCL_BUFFSIZE is too SMALL[^\n]{0,400}(?:tokenNeedSize|localMoeExpertNum)",
            "HCCL_BUFFSIZE too small for sgl-kernel-npu DeepEP (SGLang on Ascend)", ("MC898", "MC899"),
            "sgl-kernel-npu's dispatch/combine tiling refused the call: its window does not fit the buffer it reads "
            "(DEEPEP_HCCL_BUFFSIZE if set, else HCCL_BUFFSIZE)",
            "set HCCL_BUFFSIZE (and DEEPEP_HCCL_BUFFSIZE if you set it) >= {needed MB}, or lower the tokens per rank "
            "(--chunked-prefill-size, DEEPEP_NORMAL_LONG_SEQ_PER_ROUND_TOKENS, --cuda-graph-max-bs)",
            "sgl-project/sgl-kernel-npu csrc/deepep/ops/op_host/cam_moe_*_normal_tiling.cc (sgl-kernel-npu#91)",
            (_MAXBS, _H, _NEEDED, _HAVE), ("HCCL_BUFFSIZE", "DEEPEP_HCCL_BUFFSIZE", "DEEPEP_NORMAL_LONG_SEQ_ROUND",
                                           "DEEPEP_NORMAL_LONG_SEQ_PER_ROUND_TOKENS", "--chunked-prefill-size",
                                           "--cuda-graph-max-bs"), group="buffsize", needles=('is too SMALL',),
            evidence=_SGL_EVIDENCE, not_with=_CANN_OP_SIGNS),
    Pattern("hccl-buffsize-dfc", r"HCCL_BUFFSIZE is too SMALL, m = \d{1,9}, k = \d{1,9}, topK",
            "HCCL_BUFFSIZE too small for dispatch_ffn_combine (vllm-ascend fused MoE)", ("MC880",),
            "dispatch_ffn_combine's tiling refused the call: M * topK * K * 3 bytes + 10 MB does not fit HCCL_BUFFSIZE "
            "(it grows with the tokens per rank M)",
            "set HCCL_BUFFSIZE >= {needed MB} (MB), or lower the tokens per rank (--max-num-batched-tokens)",
            "vllm-project/vllm-ascend csrc/dispatch_ffn_combine/op_host/dispatch_ffn_combine_tiling.cpp (PR #6130)",
            (("m", r"\bm\s{0,4}=\s{0,4}(\d{1,9})"), ("topK", r"topK\s{0,4}=\s{0,4}(\d{1,9})"), _NEEDED, _HAVE),
            ("HCCL_BUFFSIZE", "--max-num-batched-tokens", "--max-num-seqs"), group="buffsize", needles=('is too SMALL',)),
    Pattern("hccl-buffsize", r"HCCL_BUFFSIZE(?:_EP)? is too SMALL",
            "HCCL_BUFFSIZE too small for the MC2 dispatch/combine window", ("MC501", "MC828", "MC898"),
            "the dispatch/combine tiling compared the communicator's window with HCCL's buffer and refused to run "
            "(A3; on A2 CANN only warns)", _BUF_FIX,
            "ops-transformer moe_distribute_dispatch_v2_tiling.cpp / moe_distribute_combine_v2_tiling.cpp",
            (_MAXBS, _H, _NEEDED, _HAVE), ("HCCL_BUFFSIZE", *_TOKENS), group="buffsize", needles=('is too SMALL',)),
    Pattern("mega-moe-ccl", r"cclBufferSize\(\s{0,4}\d{1,15} Bytes[^\n]{0,80}should be >= leastCclBufferSize",
            "MegaMoE: the EP group's HCCL buffer is below what the op needs", ("MC873",),
            "the MegaMoE tiling needs the symmetric buffer to hold max_recv_token_num tokens of every rank",
            "raise the EP group's buffer (HCCL_BUFFSIZE / hccl_buffer_size) to the leastCclBufferSize the message "
            "prints, or lower mega_moe_max_tokens", "ops-transformer mega_moe tiling (moecfg explain MC873)",
            (("least MB", r"leastCclBufferSize\(\s{0,4}\d{1,15} Bytes,\s{0,4}(\d{1,9}) MB"),),
            ("HCCL_BUFFSIZE", "--additional-config"), needles=('leastCclBufferSize',)),
    Pattern("mte-out-of-range", r"MTE (?:instruction )?(?:is )?out of range|DDR address of the MTE instruction is out of range",
            "MTE out of range: an op wrote past its communication window", ("MC503", "MC880", "MC501"),
            "the window of a dispatch/combine (or dispatch_ffn_combine) op is larger than the HCCL buffer, and no "
            "host check refused it first (A2 MC2 only warns; dispatch_ffn_combine had no check before "
            "vllm-ascend#6130); vllm-ascend#2674: HCCL_BUFFSIZE=50 with EP 16 gave this error",
            "run `moecfg check` (or `moecfg preflight`) on the launch and set HCCL_BUFFSIZE to the size it requires",
            "vllm-project/vllm-ascend#2674, vllm-project/vllm-ascend#6131", (), ("HCCL_BUFFSIZE", *_TOKENS), needles=('MTE',)),
    Pattern("dispatch-quant-out-type", r"dispatch_quant_out_type must be INT8",
            "MegaMoE: dispatch quantisation does not match the weights", ("MC868",),
            "with INT8/INT4 weights MegaMoE's dispatch must quantise to INT8 (dispatch_quant_mode 2)",
            "use W8A8/W4A8 weights with dispatch_quant_mode 2 (int8 output), or BF16 weights with mode 0",
            "vllm-ascend mega_moe wrapper (moecfg explain MC868)", (), ("--quantization",), needles=('dispatch_quant_out_type',)),
    # ---- sgl-kernel-npu (SGLang on Ascend) ----
    Pattern("sgl-capacity", r"must not exceed the configured capacity",
            "sgl-kernel-npu DeepEP: more tokens than the long-sequence capacity", ("MC894", "MC897"),
            "normal-mode dispatch takes at most DEEPEP_NORMAL_LONG_SEQ_ROUND x DEEPEP_NORMAL_LONG_SEQ_PER_ROUND_TOKENS "
            "tokens per rank (default 1 x 8192)",
            "bound the prefill tokens per rank (--chunked-prefill-size) or raise the two variables (product <= 131072)",
            "sgl-project/sgl-kernel-npu csrc/deepep/deep_ep.cpp get_dispatch_layout (sgl-kernel-npu#716)",
            (("num_tokens", r"num_tokens \((\d{1,9})\)"), ("capacity", r"configured capacity \((\d{1,9})\)")),
            ("DEEPEP_NORMAL_LONG_SEQ_ROUND", "DEEPEP_NORMAL_LONG_SEQ_PER_ROUND_TOKENS", "--chunked-prefill-size"), needles=('configured capacity',)),
    Pattern("sgl-fused-bs", r"batchSize\(bs\) must <= (\d{1,6})",
            "sgl-kernel-npu fused_deep_moe: batch above its limit", (),
            "fused_deep_moe (--moe-a2a-backend ascend_fuseep) takes at most 256 tokens per rank per call (no moecfg "
            "rule checks this op yet)",
            "keep the tokens per rank <= 256 (--chunked-prefill-size, --cuda-graph-max-bs) or use --moe-a2a-backend deepep",
            "sgl-project/sgl-kernel-npu csrc/deepep/ops/op_host/fused_deep_moe_tiling.cpp (sgl-kernel-npu#185)",
            (("limit", r"must <= (\d{1,6})"),), ("--moe-a2a-backend", "--chunked-prefill-size", "--cuda-graph-max-bs"), needles=('batchSize(bs)',)),
    Pattern("sgl-comm-alg", r"Attr commAlg is invalid, current only support fullmesh_v1 and fullmesh_v2",
            "sgl-kernel-npu: commAlg not accepted by this build's tiling", ("MC896", "MC960"),
            "deep_ep.cpp passes commAlg `fullmesh` on A2, which the low-latency tiling of this build refuses: the "
            "sgl-kernel-npu build and the product do not match",
            "install the sgl-kernel-npu build for this product (A2 vs A3 image), or use normal mode on A2",
            "sgl-project/sgl-kernel-npu#239 (deep_ep.cpp L796-800 vs moe_distribute_dispatch_v2_tiling.cpp L604-610)",
            (("commAlg", r"commAlg = (\w{1,32})"),), ("--deepep-mode", "--moe-a2a-backend"), needles=('commAlg is invalid',)),
    # ---- DeepEP on GPUs ----
    Pattern("deepep-ll-tokens", r"x\.size\(0\) <= num_max_dispatch_tokens_per_rank",
            "DeepEP low-latency dispatch: more tokens than num_max_dispatch_tokens_per_rank", ("MC975", "MC976", "MC977", "MC894"),
            "a low-latency dispatch got more tokens per rank than the Buffer was built for (SGLang: "
            "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK, default 128); CUDA-graph batches, running requests and "
            "prefill chunks all count",
            "raise SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK (<= 1024) or lower --cuda-graph-max-bs / "
            "--max-running-requests; use --deepep-mode auto on a server that prefills",
            _SGL_LL, (), ("SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK", "--cuda-graph-max-bs", "--cuda-graph-bs",
                          "--max-running-requests", "--deepep-mode", "--chunked-prefill-size", "--speculative-num-steps"), needles=('num_max_dispatch_tokens_per_rank',)),
    Pattern("deepep-ll-cap", r"num_max_dispatch_tokens_per_rank <= 1024",
            "SGLang/DeepEP: low-latency token cap above 1024", ("MC961", "MC643"),
            "DeepEP's low-latency kernels count tokens in 10 bits (FINISHED_SUM_TAG): at most 1024 per rank",
            "set SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK <= 1024", "deepseek-ai/DeepEP deep_ep/buffer.py",
            (), ("SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK",), needles=('<= 1024',)),
    Pattern("deepep-qp-depth", r"nvshmem_qp_depth >= \(num_max_dispatch_tokens_per_rank \+ 1\) \* 2",
            "DeepEP: NVSHMEM_QP_DEPTH below 2 x (tokens + 1)", ("MC641",),
            "each low-latency rank posts up to 2 x (T + 1) RDMA writes per QP", "set NVSHMEM_QP_DEPTH >= 2 * (T + 1)",
            "deepseek-ai/DeepEP deep_ep/buffer.py Buffer.__init__ (since d981409)", (),
            ("NVSHMEM_QP_DEPTH", "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK"), needles=('nvshmem_qp_depth',)),
    Pattern("deepep-nvl-chunks", r"num_max_nvl_chunked_recv_tokens / num_rdma_ranks > std::max",
            "DeepEP internode combine: NVL receive chunk too small for the node count", ("MC612",),
            "internode combine needs nvl_recv / nodes > max(rdma_send, nvl_send) chunk tokens",
            "raise the NVL receive chunk (Config's 3rd value, --deepep-config) or lower the send chunks",
            "deepseek-ai/DeepEP csrc/kernels/internode.cu combine (DeepEP#114, #518)", (), ("--deepep-config",), needles=('num_max_nvl_chunked_recv_tokens',)),
    Pattern("deepep-buffer-size", r"(?:num_nvl_bytes|num_rdma_bytes|buffer_size_hint)[^\n]{0,160}(?:Assertion|assert)|"
            r"(?:Assertion|assert)[^\n]{0,160}(?:num_nvl_bytes|num_rdma_bytes)",
            "DeepEP: an NVL/RDMA buffer below what the kernels need", ("MC650", "MC651", "MC652", "MC653"),
            "the Buffer's num_nvl_bytes / num_rdma_bytes are below the size hint of this setup (or not 128-aligned, "
            "or past INT_MAX / 32 GiB)",
            "size the buffers with Config.get_nvl_buffer_size_hint / get_rdma_buffer_size_hint (`moecfg plan --kind deepep`)",
            "deepseek-ai/DeepEP csrc/deep_ep.cpp Buffer::Buffer, deep_ep/buffer.py", (),
            ("NVSHMEM_QP_DEPTH", "--deepep-config", "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK"), needles=('num_nvl_bytes', 'num_rdma_bytes', 'buffer_size_hint')),
    Pattern("hybridep-tx-depth", r"tx_depth > 0 && tx_depth < 65536",
            "Hybrid-EP: the RDMA queue depth past 65535", ("MC674",),
            "across NVLink domains the QP depth is 3 x padded tokens per rank + 1 and must stay below 65536: the "
            "tokens per rank given to HybridEPBuffer are too many (Megatron-LM#3999: the whole micro-batch was passed)",
            "lower the tokens per rank (--seq-length x --micro-batch-size per rank)",
            "deepseek-ai/DeepEP hybrid-ep csrc/hybrid_ep/buffer/internode.cu:167 (NVIDIA/Megatron-LM#3999)", (),
            ("--seq-length", "--micro-batch-size", "--moe-flex-dispatcher-backend"), needles=('tx_depth',)),
    # ---- no static cause: the documented workarounds ----
    Pattern("hccl-qp-exhausted", r"Failed to allocate resource\[qp\][^\n]{0,400}exhausted",
            "HCCL could not allocate RDMA queue pairs (memory resources exhausted)", (),
            "no launch setting moecfg can check explains this: the QP resources of the NPU / NIC ran out while HCCL "
            "built the MC2 communicator (vllm-ascend#5947, #2754 on two-node A2)",
            "documented workaround: upgrade the NPU firmware and driver (vllm-project/vllm-ascend#9005: 25.5.0 fixed "
            "it with CANN 8.5.1 unchanged); check `npu-smi info` and /usr/local/Ascend/driver/version.info",
            "vllm-project/vllm-ascend#5947, #2754, #9005", (("send_cq_depth", r"send_cq_depth:(\d{1,9})"),),
            static=False, needles=('resource[qp]',)),
    Pattern("hccl-alloc-by-tiling", r"HcclAllocComResourceByTiling[^\n]{0,200}?ret = (\d{1,4})",
            "HCCL could not build the MC2 op's communication resources", (),
            "HCCL returned {ret} (hccl_types.h: 4 = HCCL_E_INTERNAL, 9 = HCCL_E_TIMEOUT) while "
            "allocating the resources of the op's tiling; vllm-ascend#8568 (ret = 4, two-node A2) has no resolution, "
            "vllm-ascend#9447 (ret = 9) shows an inter-node link that did not come up within 120 s",
            "ret = 9: check the link between the nodes (HCCL_SOCKET_IFNAME / HCCL_IF_IP, `hccn_tool -i N -link -g`) "
            "and HCCL_CONNECT_TIMEOUT (120 s in that log); ret = 4: compare driver, firmware and CANN on every node "
            "(vllm-ascend#9005 fixed resource errors with a driver upgrade); read the HCCL lines above it",
            "vllm-project/vllm-ascend#8568, #9447, #9005; CANN hccl_types.h HcclResult",
            (("ret", r"ret = (\d{1,4})"),), ("HCCL_CONNECT_TIMEOUT", "HCCL_SOCKET_IFNAME", "HCCL_IF_IP"), static=False, needles=('HcclAllocComResourceByTiling',)),
    # ---- an op's error code alone ----
    Pattern("acl-561002", r"error code is 561002",
            "error code 561002: the op's tiling refused its arguments", (),
            "a host-side check of the op (tiling) failed; the line that names the check comes before it in the log "
            "(EZ9999 / [ERROR] lines with the tiling file and line)",
            "run `moecfg check` / `moecfg preflight` on the launch: its rules are those checks, with the flag that "
            "sets each value", "CANN aclnn error codes; vllm-project/vllm-ascend#2858", (), (), generic=True, needles=('561002',)),
    Pattern("acl-561000", r"error code is 561000",
            "error code 561000: the op failed while running (not a tiling refusal)", (),
            "the op passed its host checks and failed in the runtime / HCCL (resources, links); the HCCL lines "
            "around it say which", "read the HCCL errors next to it; see the rows above for known ones",
            "CANN aclnn error codes; vllm-project/vllm-ascend#5947, #8568", (), (), static=False, generic=True, needles=('561000',)),
)
