"""torchtitan 0.2 with `parallelism.expert_parallel_comm_backend = "deepep"`: DeepEP v1's `Buffer`, sized as DeepEP's
README (and Megatron-LM) size it, so moecfg's `kind: deepep` v1 op checks it.

pytorch/torchtitan@73a0e69 (v0.2.2):
- only deepseek_v3 and llama4 read the backend (torchtitan/models/deepseek_v3/infra/parallelize.py:99-113,
  torchtitan/models/llama4/infra/parallelize.py:113-127): DeepEP needs expert_parallel_degree > 1 (ValueError) and no
  expert tensor parallelism (NotImplementedError); any other model runs the standard all-to-all whatever the backend.
- the experts run DeepEPExpertParallel over the EP mesh (llama4/infra/parallelize.py:564-573): the DeepEP group is the
  `expert_parallel_degree` ranks.
- torchtitan/distributed/deepep/deepep.py:288-317 get_buffer(group, hidden_bytes): num_nvl_bytes / num_rdma_bytes =
  the largest get_nvl_buffer_size_hint / get_rdma_buffer_size_hint(hidden_bytes, group.size()) of
  Buffer.get_dispatch_config(group.size()) and Buffer.get_combine_config(group.size()); hidden_bytes =
  dim x max(element_size, 2) (:288-291) of the tokens dispatched (:426), which are in
  training.mixed_precision_param: with EP, FSDP always wraps the model with that param dtype
  (deepseek_v3/infra/parallelize.py:162-181). Buffer.num_sms stays DeepEP's 20 (torchtitan never sets it).
- the shapes are the flavor's (flavors.json, tools/gen_torchtitan_flavors.py): `dim`, MoEArgs num_experts / top_k.
- llama4 passes its parallelize checks but builds the standard MoE, whose experts get 2 inputs where
  DeepEPExpertParallel unpacks 5 (llama4/model/model.py:404, moe/moe.py:524, expert_parallel.py:339): its DeepEP path
  does not run as released; only deepseek_v3 (DeepEPMoE, moe/moe_deepep.py:62-68) is sized.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from moecfg.frameworks import Derivation, LaunchContext, Note, OpCall
from moecfg.frameworks.values import integer
from moecfg.trainers import phases
from moecfg.trainers.phases import Key
from moecfg.trainers.torchtitan import releases, rules

T = releases.V022
DEEPEP_MODELS = {"deepseek_v3": "torchtitan/models/deepseek_v3/infra/parallelize.py:99-113",
                 "llama4": "torchtitan/models/llama4/infra/parallelize.py:113-127"}
_BUF = "torchtitan/distributed/deepep/deepep.py:288-317"
NUM_SMS = 20  # DeepEP Buffer.num_sms (deep_ep/buffer.py), not changed by torchtitan


@lru_cache(maxsize=1)
def flavors() -> dict:
    return json.loads((Path(__file__).with_name("flavors.json")).read_text(encoding="utf-8"))


def derive(out: Derivation, ctx: LaunchContext, s, ep: int | None, ep_key: Key) -> bool:
    """True when the dispatch is settled here (an op call, a refusal, or listed as not derived)."""
    backend = s.get("parallelism.expert_parallel_comm_backend")
    if backend.value is None:
        return False  # the caller lists the dispatch as not derived (the backend is not known)
    if backend.value != "deepep":
        _none(out, s, f"{_said(backend)} {backend.value}: PyTorch all-to-all over the EP group, no DeepEP buffer",
              ep, ep_key)
        return True
    name = s.get("model.name")
    if name.value is None:
        return _unknown(out, s, f"DeepEP applies to deepseek_v3 and llama4 only, and the model is not known ({name.name})")
    if name.value not in DEEPEP_MODELS:
        _none(out, s, f"{_said(backend)} deepep has no effect on model {name.value} (only deepseek_v3 and llama4 "
              f"read it, {T} {DEEPEP_MODELS['deepseek_v3']}): PyTorch all-to-all, no DeepEP buffer", ep, ep_key)
        return True
    if _refused(out, s, backend, name, ep, ep_key):
        return True
    if name.value == "llama4":
        return _unknown(out, s, "llama4 builds the standard MoE (torchtitan/models/llama4/model/model.py:404), whose "
                        "experts get 2 inputs (torchtitan/models/moe/moe.py:524) where DeepEPExpertParallel unpacks 5 "
                        f"(torchtitan/distributed/expert_parallel.py:339, {T}): the DeepEP path does not run as "
                        "released, no buffer is sized")
    if ep is None:
        return _unknown(out, s, f"the DeepEP group is the {_said(ep_key)} ranks, not known statically")
    call = _call(out, s, backend, name, ep, ep_key)
    if call is None:
        return True
    from moecfg.frameworks.vllm.calls import add_device

    add_device(s.launch, ctx, call)
    out.calls.append(call)
    return True


def _said(key: Key) -> str:
    return key.name.split(" ")[0]


def _none(out: Derivation, s, why: str, ep: int | None, ep_key: Key) -> None:
    out.calls.append(OpCall("train", "none", None, {"engine": "torchtitan", "op_call": f"none ({why})"},
                            {"engine": f"torchtitan <- {s.config or 'its defaults'}",
                             "expert_parallel_degree": f"{ep} <- {ep_key.name}"}, why_none=why, quiet=True))


def _unknown(out: Derivation, s, why: str) -> bool:
    phases.not_derived(out, s.launch, f"DeepEP buffer not derived: {why}")
    out.calls.append(OpCall("train", "none", None, {"engine": "torchtitan", "op_call": f"not derived ({why})"},
                            {"engine": f"torchtitan <- {s.config or 'its defaults'}"}, why_none=why, quiet=True))
    return True


def _refused(out: Derivation, s, backend: Key, name: Key, ep: int | None, ep_key: Key) -> bool:
    """MC721 / MC722: what deepseek_v3's and llama4's parallelize refuse with the DeepEP backend."""
    where = f"{T} {DEEPEP_MODELS[name.value]}"
    if ep is not None and ep <= 1:
        out.notes.append(Note(rules.DEEPEP_NEEDS_EP.code, f"{_said(backend)} deepep with {_said(ep_key)} {ep} on "
                              f"{name.value}: torchtitan raises ValueError 'DeepEP requires expert parallelism' "
                              f"({where}); set --parallelism.expert_parallel_degree > 1 or the standard backend",
                              backend.span))
        return True
    etp_key = s.get("parallelism.expert_tensor_parallel_degree")
    etp = integer(etp_key.value) if etp_key.value is not None else None
    if ep is not None and etp is not None and etp > 1:
        out.notes.append(Note(rules.DEEPEP_ETP.code, f"{_said(backend)} deepep with {_said(etp_key)} {etp}: "
                              f"torchtitan raises NotImplementedError 'DeepEP with Expert Tensor Parallelism (ETP) is "
                              f"not supported yet' ({where}); set --parallelism.expert_tensor_parallel_degree 1",
                              etp_key.span))
        return True
    return False


def _call(out: Derivation, s, backend: Key, name: Key, ep: int, ep_key: Key) -> OpCall | None:
    flavor = s.get("model.flavor")
    shapes = flavors()["models"][name.value]["flavors"].get(flavor.value or "")
    if shapes is None:
        _unknown(out, s, f"{flavor.name} is not a {name.value} flavor of torchtitan 0.2.2 (flavors.json)"
                 if flavor.value else f"the model flavor is not known ({flavor.name})")
        return None
    dtype = s.get("training.mixed_precision_param")
    if dtype.value != "bfloat16":
        _unknown(out, s, f"the tokens DeepEP dispatches are in {dtype.name} (hidden_bytes = dim x 4 for float32): "
                 "moecfg checks the BF16 payload" if dtype.value else f"the activation dtype is not known "
                 f"({dtype.name})")
        return None
    from moecfg.backends.deepep.arguments import megatron_buffer_arguments

    dim, experts, topk = shapes["dim"], shapes["num_experts"], shapes["top_k"]
    bufs = megatron_buffer_arguments(ep, dim, 2, NUM_SMS)
    src_flavor = f"{flavors()['source']} {flavors()['models'][name.value]['file']}:{shapes['line']}"
    hint = (f"max over DeepEP's default dispatch/combine configs for {ep} ranks of the normal-mode size hints, "
            f"hidden_bytes = {dim} x 2 ({T} {_BUF})")
    args = {"mode": "normal", "num_ranks": ep, "hidden": dim, "num_experts": experts, "num_topk": topk,
            "dtype": "bf16", "num_sms": NUM_SMS, "num_nvl_bytes": bufs["num_nvl_bytes"],
            "num_rdma_bytes": bufs["num_rdma_bytes"]}
    flav = f"{name.value} flavor {flavor.value} <- {name.name}, {flavor.name} ({src_flavor})"
    derivation = {"mode": f"normal <- {backend.name} deepep (DeepEP v1 Buffer, {T} {_BUF})",
                  "num_ranks": f"{ep} <- {ep_key.name} (the EP mesh is the DeepEP group, {T} "
                               "torchtitan/models/llama4/infra/parallelize.py:564-573)",
                  "hidden": f"{dim} <- dim of {flav}", "num_experts": f"{experts} <- num_experts of {flav}",
                  "num_topk": f"{topk} <- top_k of {flav}",
                  "dtype": f"bf16 <- {dtype.name} (FSDP's param dtype with EP, {T} "
                           "torchtitan/models/deepseek_v3/infra/parallelize.py:162-181)",
                  "num_sms": f"{NUM_SMS} <- DeepEP's Buffer.num_sms (torchtitan does not set it)",
                  "num_nvl_bytes": f"{bufs['num_nvl_bytes']} <- {hint}",
                  "num_rdma_bytes": f"{bufs['num_rdma_bytes']} <- {hint}",
                  "engine": f"torchtitan 0.2 <- {s.config or 'its defaults'}"}
    spans = tuple(k.span for k in (ep_key,))
    sources = {"mode": (backend.span,), "num_ranks": spans, "hidden": (flavor.span, name.span),
               "num_experts": (flavor.span,), "num_topk": (flavor.span,), "dtype": (dtype.span,)}
    return OpCall("train", "deepep", None, args, derivation, sources)
