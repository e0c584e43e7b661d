"""Fields of `op: ffn_worker_batching` (FfnWorkerBatching, attention/FFN disaggregation)."""
from __future__ import annotations

from moecfg.backends.ascend.shared.fields import DTYPE_ALIASES, COMMON
from moecfg.core.fields import FieldSpec as F

TOKEN_DTYPES = ("fp16", "bf16", "int8")  # attr token_dtype 0, 1, 2
FFN_FIELDS = COMMON + (
    F("attention_workers", "int", "ffn_worker_batching: A, attention workers (sessions) served", required=True),
    F("micro_batch_num", "int", "ffn_worker_batching: M, micro batches per attention worker", required=True),
    F("micro_batch_size", "int", "ffn_worker_batching: BS, tokens per micro batch", required=True),
    F("top_k", "int", "ffn_worker_batching: K, routed experts per token (the op adds the shared expert: K+1)",
      required=True),
    F("hidden", "int", "ffn_worker_batching: H, hidden size", required=True),
    F("expert_num", "int", "ffn_worker_batching: experts on this FFN rank over all layers", required=True),
    F("layer_num", "int", "ffn_worker_batching: layers (0: one expert index space)", default=0),
    F("token_dtype", "enum", "ffn_worker_batching: token dtype: fp16 (0), bf16 (1), int8 + fp32 scale (2)",
      default="fp16", choices=TOKEN_DTYPES, aliases=DTYPE_ALIASES),
    F("need_schedule", "int", "ffn_worker_batching: 0 batching only, 1 scan the data first", default=0),
    F("attn_to_ffn_token_size", "int", "ffn_worker_batching: bytes per token slot in the FFN window "
      "(default: the payload aligned to 512)", default=None),
    F("ffn_window_size", "int", "ffn_worker_batching: bytes of the FFN window (token_info + token_data)", default=None),
)
FIELDS = FFN_FIELDS
