"""What differs between the vllm-mindspore releases read (VMS = mindspore-ai/vllm-mindspore, the GitHub mirror of
gitee.com/mindspore/vllm-mindspore).

- 0.5.1: tag v0.5.1 @40923e5 (= the PyPI wheel vllm-mindspore==0.5.1, its .commit_id; 0.5.0 @4114134 differs only
  in the scheduler). Pure EP is selected but not implemented: `run_ep` raises NotImplementedError
  (fused_moe.py:256-258), so a native MoE model with EP over every MoE rank stops at its first forward (the
  profile run at start-up).
- 0.6.0rc1: branch r0.6.0.rc1 @423bd12 (version.txt 0.6.0.rc1, 2026-04-20; no wheel published). Pure EP calls
  ms_custom_ops.moe_distribute_dispatch_v3 / combine_v3 with a fixed global_bs (fused_moe.py:241-252, 400-443),
  added by 26625875 "support deepseekv3 native model" (2025-12-26; master @a7b56a4 is the same).
Every release from 0.5.0 on pins vLLM 0.11.0 (.jenkins/test/config/dependent_packages.yaml:16-17); 0.4.0 pinned
0.9.1 and 0.3.0 0.8.3 (a 0.8.4.dev0 build), releases moecfg has no table for.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

VLLM_PINNED = "0.11.0"
_PIN = ".jenkins/test/config/dependent_packages.yaml:16-17"


@dataclass(frozen=True, slots=True)
class Release:
    ref: str  # repo@commit
    pure_ep: str  # "unimplemented" | "dispatch_v3"
    native_moe: tuple[str, ...]  # MoE architectures (config.json `architectures`) in the release's _NATIVE_MODELS
    cite: dict  # topic -> "path:lines" at ref

    def at(self, topic: str) -> str:
        return f"{self.ref} {self.cite[topic]}"


_QWEN3_MOE = ("Qwen3MoeForCausalLM", "Qwen3VLMoeForConditionalGeneration")
_COMMON = {
    "split": "vllm_mindspore/model_executor/layers/fused_moe/fused_moe.py:232-238",
    "ep_size": "vllm_mindspore/model_executor/layers/fused_moe/config.py:134-183",
    "defaults": "vllm_mindspore/engine/arg_utils.py:39-42, 92-115",
    "backend": "vllm_mindspore/utils.py:211-246",
    "pin": _PIN,
}
RELEASES = {
    "0.5.1": Release("VMS@40923e5", "unimplemented", _QWEN3_MOE, {
        **_COMMON, "split": "vllm_mindspore/model_executor/layers/fused_moe/fused_moe.py:91-97",
        "pure_ep": "vllm_mindspore/model_executor/layers/fused_moe/fused_moe.py:100-109, 256-258",
        "native": "vllm_mindspore/model_executor/models/registry.py:64-79, 126-143",
        "backend": "vllm_mindspore/utils.py:209-244"}),
    "0.6.0rc1": Release("VMS@423bd12", "dispatch_v3", _QWEN3_MOE + (
        "DeepseekV3ForCausalLM", "Glm4MoeForCausalLM"), {
        **_COMMON,
        "pure_ep": "vllm_mindspore/model_executor/layers/fused_moe/fused_moe.py:241-252",
        "dispatch": "vllm_mindspore/model_executor/layers/fused_moe/fused_moe.py:413-422, 429-442",
        "custom_ops": "vllm_mindspore/model_executor/layers/fused_moe/fused_moe.py:37-43",
        "no_chunking": "vllm_mindspore/model_executor/layers/fused_moe/layer.py:771-776",
        "native": "vllm_mindspore/model_executor/models/registry.py:64-83, 130-147, 226-247"}),
}
# ms_custom_ops.moe_distribute_dispatch_v3 runs aclnnMoeDistributeDispatchV3, whose entry point calls the
# dispatch_v2 base (the same graph op and kernel as npu_moe_distribute_dispatch_v2).
CUSTOM_OP = ("mindspore-ai/ms_custom_ops@d2531ae (the build r0.6.0.rc1 pins, dependent_packages.yaml:10-11) "
             "ops/c_api/moe_distribute_dispatch_v3/moe_distribute_dispatch_v3.cc:376 (aclnnMoeDistributeDispatchV3), "
             "moe_distribute_dispatch_op.yaml:41-55 (defaults: shared_expert_num 1, quant_mode 0, "
             "expert_token_nums_type 1); cannmirror/ops-transformer@d1a242b "
             "mc2/moe_distribute_dispatch_v2/op_api/aclnn_moe_distribute_dispatch_v3.cpp (-> the dispatch_v2 base)")


OP_DEFAULTS = ("mindspore-ai/ms_custom_ops@d2531ae "
               "ops/c_api/moe_distribute_dispatch_v3/moe_distribute_dispatch_op.yaml:41-55")


def match(text: str | None) -> str | None:
    """A version string -> the release table that reads it; None for releases before 0.5 (no table)."""
    m = re.match(r"^v?(\d+)\.(\d+)(?:\.(\d+))?", (text or "").strip())
    if not m:
        return None
    major, minor = int(m.group(1)), int(m.group(2))
    if (major, minor) < (0, 5):
        return None
    return "0.5.1" if (major, minor) == (0, 5) else "0.6.0rc1"
