"""MindSpeed-MM (Ascend/MindSpeed-MM) FSDP2 training: a config (sources/recipes/mindspeed_mm.py, `mindspeed-mm
parallel.<key>=<value> ...`) is one training launch whose expert parallelism is MindSpeed-MM's own (ep_plan:
alltoall, allgather, or mc2 = torch_npu's fused npu_alltoallv_gmm / npu_gmm_alltoallv); the shell launch `torchrun ...
mindspeed_mm/fsdp/train/trainer.py <config>.yaml` names the config, read as its own file.

Read at Ascend/MindSpeed-MM@57069cd: mindspeed_mm/fsdp/params/parallel_args.py:44-150,
mindspeed_mm/fsdp/distributed/torch_parallelize.py:32-35 (EP applies when expert_parallel_size > 1 and ep_plan names
modules), mindspeed_mm/fsdp/distributed/expert_parallel/expert_parallel.py:93-107 (the dispatchers),
mindspeed_mm/fsdp/ops/moe_ops/gemm_mc2.py (the mc2 kernels). alltoall / allgather are HCCL collectives through
torch.distributed (nothing to size); mc2's CANN ops (AlltoAllvGroupedMatMul / GroupedMatMulAlltoAllv) are checked on
their EP size and product (rules.py MC723 / MC724) and otherwise listed as not derived (Derivation.unread).
"""
from __future__ import annotations

import re

from moecfg.frameworks import Derivation, LaunchContext
from moecfg.sources.launch import Launch
from moecfg.trainers import config_launch as C

NAME = "mindspeed-mm"
VERSIONS = ("57069cd",)
COMMAND = "mindspeed-mm"
_ENTRY = re.compile(r"(?:^|/)mindspeed_mm/fsdp/train/trainer\.py$")


LEGACY = "mindspeed-mm-fsdp2-config"


def recognise(launch: Launch, ctx: LaunchContext | None = None) -> bool:
    return C.is_config(launch, COMMAND) or C.is_config(launch, LEGACY) or \
        C.entry_script(launch, _ENTRY, None, after_python=False) is not None


def derive(launch: Launch, ctx: LaunchContext) -> Derivation:
    from moecfg.trainers.mindspeed_mm.calls import derive_train

    out = Derivation(NAME, VERSIONS[-1])
    if C.is_config(launch, LEGACY):
        from moecfg.trainers.mindspeed_mm.calls import derive_legacy

        derive_legacy(launch, out)
        return out
    if not C.is_config(launch, COMMAND):
        at = C.entry_script(launch, _ENTRY, None, after_python=False)
        C.only_named(out, launch, C.named_config(launch, None, at), "")
        return out
    derive_train(launch, ctx, out)
    return out
