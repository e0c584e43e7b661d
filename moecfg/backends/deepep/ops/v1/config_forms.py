"""DeepEP `Config` as users write it: moecfg's 4-list, or DeepEP's own constructor forms.

DeepEP binds `Config(num_sms=20, num_max_nvl_chunked_send_tokens=6, num_max_nvl_chunked_recv_tokens=256,
num_max_rdma_chunked_send_tokens=6, num_max_rdma_chunked_recv_tokens=256)` (deepseek-ai/DeepEP@dd758ca
csrc/legacy/buffer.hpp:1752-1760), so `Config(24, 8, 256)` keeps the RDMA defaults (6, 256). A list of 4 stays
moecfg's `[nvl_send, nvl_recv, rdma_send, rdma_recv]` (contract §1.2); 1, 2, 3 or 5 values are DeepEP's
positional form (num_sms first); a mapping uses DeepEP's keyword names (SGLang's `--deepep-config` JSON).
"""
from __future__ import annotations

from moecfg.backends.deepep.ops.v1 import formulas as fx
from moecfg.core.diagnostics import Finding
from moecfg.core.input_rules import VALIDATOR_CODES

KEYWORDS = ("num_sms", "num_max_nvl_chunked_send_tokens", "num_max_nvl_chunked_recv_tokens",
            "num_max_rdma_chunked_send_tokens", "num_max_rdma_chunked_recv_tokens")
_D = fx.PYBIND_DEFAULT_CONFIG
DEFAULTS = (_D.num_sms, _D.nvl_send, _D.nvl_recv, _D.rdma_send, _D.rdma_recv)
SIGNATURE = "Config(" + ", ".join(f"{k}={v}" for k, v in zip(KEYWORDS, DEFAULTS)) + ")"
NAMES = ("dispatch_config", "combine_config")


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def deepep_config_arguments(value) -> tuple[int, int, int, int, int] | None:
    """The five Config arguments of DeepEP's positional (1, 2, 3, 5 values) or keyword form, or None."""
    if isinstance(value, dict):
        if not value or any(k not in KEYWORDS or not _is_int(v) for k, v in value.items()):
            return None
        return tuple(value.get(k, d) for k, d in zip(KEYWORDS, DEFAULTS))
    if isinstance(value, list) and len(value) in (1, 2, 3, 5) and all(_is_int(v) for v in value):
        return tuple(value) + DEFAULTS[len(value):]
    return None


def _problem(name, value) -> Finding:
    got = f"a mapping with keys {sorted(map(str, value))}" if isinstance(value, dict) else (
        f"a list of {len(value)}" if isinstance(value, list) else type(value).__name__)
    return Finding(VALIDATOR_CODES["wrong_type"], (name,), f"`{name}` must be [nvl_send, nvl_recv, rdma_send, rdma_recv] "
                   f"or DeepEP's {SIGNATURE} as 1, 2, 3 or 5 integers (num_sms first) or a mapping of those keywords, "
                   f"got {got}")


def normalize(data: dict) -> tuple[dict, list[Finding], dict]:
    """(data with both configs as 4-lists, findings, {config name: num_sms it carries}).

    A config of the wrong shape is reported (MC004 naming DeepEP's signature) and dropped from the data."""
    out, findings, sms = dict(data), [], {}
    for name in NAMES:
        value = data.get(name)
        if value is None or (isinstance(value, list) and len(value) == 4):
            continue  # moecfg's own form: the validator checks it
        args = deepep_config_arguments(value)
        if args is None:
            findings.append(_problem(name, value))
            out.pop(name)
            continue
        sms[name] = args[0]
        out[name] = list(args[1:])
    return out, findings, sms


def sms_findings(data: dict, sms: dict) -> list[Finding]:
    """One SM count per Buffer: a short-form Config's num_sms sets `num_sms` when the file has none, and must agree.

    SGLang does the same with `--deepep-config` (asserts dispatch num_sms == combine num_sms, then uses it as
    the Buffer's num_sms and its normal-mode QP count)."""
    from moecfg.backends.deepep.ops.v1.rules.configs import CONSTRUCTOR

    given = data.get("num_sms")
    values = sorted(set(sms.values()))
    if not values:
        return []
    if len(values) == 1 and (given is None or given == values[0]):
        data["num_sms"] = values[0]
        return []
    shown = ", ".join(f"{k} num_sms = {v}" for k, v in sms.items())
    name = next(iter(sms))
    also = f" and `num_sms` = {given}" if given is not None else ""
    return [Finding(CONSTRUCTOR.code, (name,), f"{shown}{also} disagree: moecfg sizes one Buffer with one SM count "
                    f"(SGLang asserts dispatch num_sms == combine num_sms); use the same num_sms everywhere")]
