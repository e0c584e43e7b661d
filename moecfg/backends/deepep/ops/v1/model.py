"""The validated `kind: deepep` document (`DeepEPDeployment`) and what follows from it (`Facts`)."""
from __future__ import annotations

from moecfg.core.record import field_names, record, replace
from moecfg.backends.deepep.ops.v1 import formulas as fx

ELEM_SIZE = {"bf16": 2, "fp8": 1}


@record(frozen=True, slots=True)
class DeepEPDeployment:
    """A validated DeepEP document: the Buffer's arguments and the model shapes."""

    mode: str
    num_ranks: int
    hidden: int
    num_experts: int
    num_topk: int
    dtype: str
    num_sms: int
    num_max_dispatch_tokens_per_rank: int | None
    dispatch_config: tuple | None
    combine_config: tuple | None
    num_nvl_bytes: int | None
    num_rdma_bytes: int | None
    num_qps_per_rank: int | None
    nvshmem_qp_depth: int
    device_sms: int

    @classmethod
    def from_values(cls, values: dict) -> "DeepEPDeployment":
        return cls(**{n: values.get(n) for n in field_names(cls)})

    @property
    def low_latency(self) -> bool:
        """Only the low-latency kernels run (mode: low_latency)."""
        return self.mode == "low_latency"

    @property
    def low_latency_mode(self) -> bool:
        """Buffer(low_latency_mode=True): mode low_latency, or auto (SGLang's one Buffer for both kernels)."""
        return self.mode in ("low_latency", "auto")

    def views(self) -> tuple["DeepEPDeployment", ...]:
        """The kernels this Buffer serves, each as a one-mode deployment (auto: normal and low-latency)."""
        if self.mode != "auto":
            return (self,)
        return (replace(self, mode="normal"), replace(self, mode="low_latency"))

    @property
    def elem_size(self) -> int:
        return ELEM_SIZE[self.dtype]


@record(frozen=True, slots=True)
class Facts:
    """What DeepEP derives from a deployment: nodes, NVLink peers, local experts, the dispatch/combine configs."""

    num_rdma_ranks: int  # nodes
    num_nvl_ranks: int  # NVLink peers per node
    internode: bool  # normal mode over more than one node
    local_experts: int | None  # None when num_experts % num_ranks != 0
    hidden_bytes: int  # hidden * max(elem, 2): how the hints size a token
    dispatch: fx.DeepEPConfig | None  # None: no config (rank count not in DeepEP's table, none in the file)
    combine: fx.DeepEPConfig | None
    config_source: str  # "file" | "default table" | "file + default table"
    nvshmem: bool  # NVSHMEM (RDMA) is initialised: more than one node, or low-latency mode

    @property
    def num_channels(self) -> int:
        return self.dispatch.num_sms // 2 if self.dispatch else 0


def _config(given, default: fx.DeepEPConfig | None, num_sms: int):
    if given is not None:
        return fx.DeepEPConfig(num_sms, *given), True
    return default, False


def derive(d: DeepEPDeployment) -> Facts:
    """Facts of a deployment whose counts are positive (the value-range rule runs first)."""
    rdma, nvl = fx.num_rdma_ranks(d.num_ranks), fx.num_nvl_ranks(d.num_ranks)
    local = d.num_experts // d.num_ranks if d.num_experts % d.num_ranks == 0 else None
    dispatch, from_file_d = _config(d.dispatch_config, fx.default_dispatch_config(d.num_ranks, d.num_sms), d.num_sms)
    combine, from_file_c = _config(d.combine_config, fx.default_combine_config(d.num_ranks, d.num_sms), d.num_sms)
    source = {(True, True): "file", (False, False): "default table"}.get((from_file_d, from_file_c),
                                                                          "file + default table")
    return Facts(rdma, nvl, not d.low_latency and d.num_ranks > fx.NUM_MAX_NVL_PEERS, local,
                 fx.hidden_bytes(d.hidden, d.elem_size), dispatch, combine, source,
                 d.low_latency_mode or rdma > 1)
