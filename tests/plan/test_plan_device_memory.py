"""MC901 / MC902: the HCCL buffers of every communicator (2 x buffer each) against the device memory."""
from __future__ import annotations

from conftest import run_lint

from moecfg.core.registry import RULES

# A3 DeepSeek-V3, EP 32, bs 8: window = 2*(8*14848*32*8 + 8*14336*8) = 62652416 B = 60 MB (< every buffer below)
DOC = {"product": "A3", "cann_version": "9.0.1", "bs": 8, "h": 7168, "k": 8, "ep_world_size": 32,
       "moe_expert_num": 256}
GIB_MB = 1024


def with_buffer(mb, **kw):
    return run_lint(DOC, env={"HCCL_BUFFSIZE": mb}, **kw)


def test_a3_die_holds_exactly_64_gb_of_buffers():
    # one EP communicator: 2 x 32768 MB = 64 GB = the die's HBM: not exceeded (> is the test)
    assert "MC901" not in with_buffer(32 * GIB_MB).codes
    d = with_buffer(32 * GIB_MB + 1).one("MC901")
    assert "64 GB HBM per die" in d.message and d.path == "/env/HCCL_BUFFSIZE"


def test_near_limit_warning_above_75_percent():
    # 75% of 64 GB = 48 GB = 2 x 24576 MB
    assert not {"MC901", "MC902"} & with_buffer(24 * GIB_MB).codes
    d = with_buffer(24 * GIB_MB + 1).one("MC902")
    assert d.severity == "warning" and "75%" in d.message


def test_tp_communicator_doubles_the_memory():
    # tp_world_size 2 adds a TP communicator with its own 2 x HCCL_BUFFSIZE: 4 x 16385 MB > 64 GB
    assert "MC901" not in with_buffer(16 * GIB_MB, tp_world_size=2).codes
    linted = with_buffer(16 * GIB_MB + 1, tp_world_size=2)
    assert "2 communicators" in linted.one("MC901").message


def test_device_memory_override():
    # 2 x 60 MB needed; 0.1 GB = 102.4 MB
    assert with_buffer(60, device_memory_gb=0.1).one("MC901")
    assert "MC901" not in with_buffer(60, device_memory_gb=0.2).codes


def test_required_window_counts_when_larger_than_configured():
    # configured 1 MB < required 60 MB: the job must allocate 60 MB per buffer; fix points at bs
    d = with_buffer(1, device_memory_gb=0.1).one("MC901")
    assert d.path == "/bs" and "2 x 60 MB" in d.message


def test_a2_npu_limit():
    doc = dict(DOC, product="A2", moe_expert_num=256, comm_alg="fullmesh")
    assert "MC901" not in run_lint(doc, env={"HCCL_BUFFSIZE": 32 * GIB_MB}).codes
    assert "64 GB HBM per NPU" in run_lint(doc, env={"HCCL_BUFFSIZE": 32 * GIB_MB + 1}).one("MC901").message


def test_non_positive_override_is_invalid():
    assert with_buffer(60, device_memory_gb=0).one("MC006").path == "/device_memory_gb"


def test_rule_doc_examples_fire_and_pass():
    for code in ("MC901", "MC902"):
        rule = RULES[code]
        assert code in run_lint(rule.fail_example).codes
        assert code not in run_lint(rule.pass_example).codes
