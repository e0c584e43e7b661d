"""Base documents and shared texts of the Ascend rules' docs (MC0xx-MC8xx examples start from these).

Every base below is valid (no diagnostic); a rule's example is `ex(BASE, key=value)`. Plain data: importing
this module builds no text (the examples are built in the rules' `docs` lambdas, when docs are rendered).
"""
from __future__ import annotations

from moecfg.core.examples import ex  # noqa: F401  (re-exported: the docs lambdas call eg.ex)

A3 = dict(product="A3", cann_version="9.0.1", bs=128, h=7168, k=8, ep_world_size=32, moe_expert_num=256,
          env={"HCCL_BUFFSIZE": 1024})
A2 = dict(product="A2", cann_version="9.0.1", bs=128, h=4096, k=8, ep_world_size=16, moe_expert_num=128,
          comm_alg="fullmesh", env={"HCCL_BUFFSIZE": 2048})
ARN = dict(product="A3", cann_version="9.0.1", op="combine_add_rms_norm", bs=128, h=7168, k=8, ep_world_size=32,
           moe_expert_num=256, norm_eps="1.0e-6", env={"HCCL_BUFFSIZE": 1024})
ARN_85 = dict(ARN, cann_version="8.5")
V1 = dict(product="A3", cann_version="9.0.1", op="dispatch_combine_v1", bs=64, h=7168, k=8, ep_world_size=32,
          moe_expert_num=256, env={"HCCL_BUFFSIZE": 512})
FFN = dict(product="A3", cann_version="9.0.1", op="ffn_worker_batching", attention_workers=64, micro_batch_num=2,
           micro_batch_size=32, top_k=8, hidden=7168, expert_num=1160, layer_num=58, token_dtype="int8",
           need_schedule=1)
# The scale-down example: 4 of 32 dies fail; the 28 left keep 8 experts each.
SCALE_DOWN_28 = {"ep_world_size": 28}

# Why texts shared by a family's rules (the MC1xx-MC4xx tiling checks, the MC5xx buffers, the MC8xx ops).
TILING = ("The op's host tiling rejects the attributes: the first dispatch (or combine) call returns an error and "
          "the CANN log names the failed check, after the job has already loaded its weights and built its "
          "communicators.")
BUFFERS = ("The tiling compares the communicator's window with HCCL's buffer and refuses to run (A3), or the op runs "
           "with a window too small for the batch (A2).")
ARN_TILING = ("The combine tiling (CombineV2 with Add + RmsNorm; CANN 8.5 the op's own copy) rejects the call: the "
              "first combine returns an error and the CANN log names the failed check, after the job has loaded its "
              "weights and built its communicators.")
V1_TILING = ("The v1 dispatch (or combine) tiling rejects the attributes at the first call "
             "(moe_distribute_dispatch_tiling.cpp); the CANN log names the failed check.")
FFN_TILING = ("FfnWorkerBatching's tiling (ffn_worker_batching_tiling.cpp) rejects the shape at the first call on "
              "the FFN worker; the attention workers then wait for it forever.")
