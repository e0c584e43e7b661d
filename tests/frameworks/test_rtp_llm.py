"""frameworks/rtp_llm: `python3 -m rtp_llm.start_server ...` (options on the command line or as variables) -> the DeepEP
Buffer rtp-llm builds, and its start-up checks MC760-MC761.

Hand-computed from alibaba/rtp-llm@4b8d39cd5 rtp_llm/models_py/distributed/deepep_wrapper.py:219-268 (token cap),
:514-597 (buffers), rtp_llm/config/server_config_setup.py:56-293 (EP size, DeepEP switches). DeepSeek-V3: hidden
7168, 256 routed experts, top-8. Scripts go through the real shell reader.
"""
from __future__ import annotations

import pytest

from tests.frameworks.gpu_helpers import codes, derive, finding, lint, note_codes
from tests.frameworks.test_lightllm import _ll_rdma

START = "python3 -m rtp_llm.start_server --checkpoint_path /models/DeepSeek-V3"
LL = "--use_deepep_moe 1 --use_deepep_low_latency 1 --use_deepep_internode 0"


def call(text: str):
    (c,) = derive(text).calls
    return c


@pytest.mark.parametrize("limit, extra, t", [
    (64, "", 64), (65, "", 128), (128, "", 128), (129, "", 256),  # [64, 128], then multiples of 128
    (257, " --tp_size 2", 256),  # ceil(257 / 2) = 129 -> 256
    (1024, " --sp_type mtp", 2048),  # x (gen_num_per_cycle 1 + 1)
    (100, " --sp_type mtp --gen_num_per_cycle 3", 512),  # 400 -> 512
])
def test_low_latency_token_cap(limit, extra, t):
    c = call(f"{START} --dp_size 32 {LL} --concurrency_limit {limit}{extra}\n")
    tp = 2 if "--tp_size 2" in extra else 1
    a = c.arguments
    assert (a["mode"], a["num_max_dispatch_tokens_per_rank"], a["num_ranks"]) == ("low_latency", t, 32 * tp)
    assert a["num_rdma_bytes"] == _ll_rdma(t) and a["num_qps_per_rank"] == 256 // (32 * tp)


def test_options_from_variables_and_the_command_line_wins():
    c = call(f"DP_SIZE=16 USE_DEEPEP_MOE=1 USE_DEEPEP_LOW_LATENCY=1 CONCURRENCY_LIMIT=128 {START} --dp_size 32\n")
    assert (c.arguments["num_ranks"], c.arguments["num_max_dispatch_tokens_per_rank"]) == (32, 128)
    res = lint(f"DP_SIZE=16 USE_DEEPEP_MOE=1 {START} --dp_size 32\n")
    assert finding(res, "MC761").severity == "warning"
    assert "MC761" not in codes(lint(f"DP_SIZE=32 USE_DEEPEP_MOE=1 {START} --dp_size 32\n"))


def test_use_deepep_moe_alone_keeps_the_low_latency_default():
    assert call(f"{START} --dp_size 8 --use_deepep_moe 1\n").arguments["mode"] == "low_latency"


@pytest.mark.parametrize("ep, bad", [(32, False), (0, False), (16, True)])
def test_ep_size_must_be_tp_times_dp(ep, bad):
    res = lint(f"{START} --dp_size 32 --ep_size {ep} {LL}\n")
    assert ("MC760" in codes(res)) is bad


def test_pure_tp_ep_one_needs_dp_one():
    assert "MC760" in codes(lint(f"{START} --tp_size 8 --dp_size 2 --ep_size 1 {LL}\n"))


def test_pure_tp_keeps_all_gather():
    c = call(f"{START} --tp_size 8\n")
    assert c.kind == "none" and "all-gather" in c.why_none


@pytest.mark.parametrize("role, mode, rdma", [("PDFUSION", "normal", 10 ** 9), ("DECODE", "low_latency", None)])
def test_auto_configuration_from_role_and_nodes(role, mode, rdma):
    c = call(f"ROLE_TYPE={role} WORLD_SIZE=16 {START} --dp_size 16 --local_world_size 8\n")
    assert c.arguments["mode"] == mode
    if rdma:
        assert c.arguments["num_rdma_bytes"] == rdma and c.arguments["num_nvl_bytes"] == 2 * 10 ** 9


@pytest.mark.parametrize("sizes", ["", "--world_size 16"])  # no world size, or no node size
def test_auto_configuration_needs_the_sizes(sizes):
    der = derive(f"{START} --dp_size 16 {sizes}\n")
    assert der.calls == [] and "MC023" in note_codes(der)


def test_auto_configuration_one_gpu_world_builds_nothing():
    (c,) = derive(f"{START} --dp_size 16 --world_size 1\n").calls
    assert c.kind == "none" and "one GPU" in c.why_none


def test_intranode_normal_buffer():
    a = call(f"{START} --dp_size 8 --use_deepep_moe 1 --use_deepep_low_latency 0\n").arguments
    assert (a["num_nvl_bytes"], a["num_rdma_bytes"], a["num_qps_per_rank"]) == (2 * 10 ** 9, 0, 1)


def test_upstream_deepep_limits_are_warnings_for_rtp_llm():
    d = finding(lint(f"{START} --dp_size 32 {LL} --concurrency_limit 1024 --sp_type mtp\n"), "MC643")
    assert d.severity == "warning" and "ACCL-EP" in d.message


def test_pinned_v020_is_read_not_derived():
    from moecfg.frameworks import LaunchContext

    ctx = LaunchContext(framework_versions=(("rtp-llm", "0.2.0"),))
    der = derive(f"{START} --dp_size 32 {LL} --max_batch_size 64\n", ctx)
    (c,) = der.calls
    assert der.version == "0.2.0" and c.kind == "none" and "0.2.0" in c.why_none
    assert "MC022" not in note_codes(der)  # --max_batch_size is a v0.2.0 option


@pytest.mark.parametrize("limit, extra, codes_expected", [
    (512, " --sp_type mtp", set()),  # T 1024: just inside the cap (the QP depth, 2050 > 1024, is not)
    (513, " --sp_type mtp", {"MC643"}),  # 1026 -> 1152
    (192, "", set()),  # 192 -> 256: within 511
    (385, "", set()),  # 385 -> 512: QP depth needs 1026
])
def test_token_cap_limits_in_rtp_llm_knobs(limit, extra, codes_expected):
    res = lint(f"{START} --dp_size 32 {LL} --concurrency_limit {limit}{extra}\n")
    found = {d.code for r in res for d in r.diagnostics if d.code in ("MC641", "MC643")}
    t = {512: 1024, 513: 1152, 192: 256, 385: 512}[limit]
    assert ("MC641" in found) is (2 * (t + 1) > 1024)
    assert ("MC643" in found) is ("MC643" in codes_expected)
    for code in found:
        d = finding(res, code)
        assert d.severity == "warning" and "--concurrency_limit <=" in d.message
