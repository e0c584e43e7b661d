"""rtp-llm (alibaba/rtp-llm) as read for the DeepEP derivation: main @4b8d39cd5 (2026-08-20). The flag table also
holds v0.2.0 (@d1e93ce12, 2025-10-27), which is not derived: its token cap is concurrency_limit / tp rounded to
16, 24, .., 128 with no MTP factor (rtp_llm/models_py/distributed/deepep_wrapper.py:129-158,198-236 at v0.2.0;
config/gpt_init_model_parameters.py:1026-1028) and its EP size comes from EP_SIZE / WORLD_SIZE
(distribute/worker_info.py:118). Paths below are at 4b8d39cd5.

- Options: every option of rtp_llm/server/server_args/*_args.py is also read from a variable (`env_name=`, else the
  option upper-cased); a variable fills only an option not written on the command line
  (server/server_args/server_args.py:340-347, EnvArgumentParser.parse_args).
- EP size: --ep_size 0 (default) -> --tp_size x --dp_size; 1 is pure TP (needs --dp_size 1); any other value must
  equal tp x dp (config/server_config_setup.py:274-293).
- DeepEP or not (server_config_setup.py:56-163, auto_configure_deepep): --use_all_gather (default True) keeps
  the all-gather MoE path on one GPU and for pure TP (tp > 1, dp 1, ep == tp) unless --use_deepep_moe or
  --use_deepep_low_latency says otherwise; when none of --use_deepep_moe / --use_deepep_internode /
  --use_deepep_low_latency / --use_mori_ep is given, _apply_auto_deepep_config (:166-241) picks them from the role
  (--role_type PDFUSION | PREFILL | DECODE), the world size and --local_world_size; otherwise the given ones are
  taken and the others keep MoeConfig's defaults (use_deepep_moe false, use_deepep_internode false,
  use_deepep_low_latency TRUE: rtp_llm/cpp/config/ConfigModules.h:285-287).
- Buffers (models_py/distributed/deepep_wrapper.py): low latency (:558-597): num_rdma_bytes =
  get_low_latency_rdma_size_hint(T, hidden, ep_size, experts), num_qps_per_rank = experts / ep_size, no NVL
  buffer; normal (:514-556): internode NVL int(2e9), RDMA int(1e9), num_qps_per_rank --deep_ep_num_sm // 2 (IBRC,
  the default ACCL_NORMAL_MODE) or max(that, experts / ep_size) (ACCL_NORMAL_MODE=IBGDA); intranode NVL int(2e9),
  no RDMA, 1 QP.
- T (:219-268, :691-703): --concurrency_limit (x (--gen_num_per_cycle + 1) with a --sp_type) over --tp_size,
  rounded up to a multiple of 128 above 128, else to the first of [64, 128] (BF16, FP8 per-block and FP4
  checkpoints; [128] on aarch64 SM10x) or of 16, 24, ..., 128 (per-tensor FP8 / W4A8 checkpoints).
- experts: the model's routed experts + --redundant_expert (EPLB's physical experts).
- DeepEP itself: rtp-llm installs its own build (deep_ep 1.2.1.10+d7d7b48, "acclep", deps/
  requirements_lock_torch_gpu_cuda12_9.txt:730) and runs it as ACCL-EP on NVIDIA (use_accl_ep(), :88-91).
  moecfg's DeepEP rules are upstream DeepEP's: on these calls their errors are said as warnings.
"""
from __future__ import annotations

REF = "alibaba/rtp-llm@4b8d39cd5"
WRAPPER = f"{REF} rtp_llm/models_py/distributed/deepep_wrapper.py"
SETUP = f"{REF} rtp_llm/config/server_config_setup.py"
ACCL = ("rtp-llm runs its own DeepEP build (ACCL-EP, deep_ep 1.2.1.10+d7d7b48): upstream DeepEP's limits are "
        "assumed to hold")
RELEASES = ("0.2.0", "main-2026-08")
