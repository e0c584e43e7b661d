"""Hostile input for the launch surfaces added after issue 20 (harden2): xLLM's gflags command lines (`--x=v`, `-x v`,
`--nox`, hexadecimal and out-of-range integers), MindIE's config.json / conf/mindie_env.json / MindIE-Motor
user_config.json trees (hostile keys, values and types, deep nesting, huge numbers, NaN / Infinity, escapes, ANSI,
`::error`), and vLLM recipe strategies with hostile names. Each is checked in bounded time, never raises (no MC019),
and every output format and explain-launch stay safe (test_launch_values.assert_safe_outputs)."""
from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from launches import SETTINGS, VALUES
from test_launch_values import FAST, assert_safe_outputs, codes

from moecfg.backends import Options
from moecfg.core.diagnostics import Report
from moecfg.checking.engine import check_bytes, lint_text
from moecfg.checking.settings import Cli, Config, FilePolicy

# ---- xLLM: gflags syntax -------------------------------------------------------------------------------------------
XLLM_FLAGS = ["ep_size", "dp_size", "nnodes", "max_seqs_per_batch", "num_speculative_tokens", "enable_fused_mc2",
              "expert_parallel_degree", "acl_graph_decode_batch_size_limit", "devices", "npu_kernel_backend",
              "enable_graph", "enable_graph_mode_decode_no_padding", "communication_backend", "rank_tablefile",
              "device_id", "config_json_file", "flagfile", "model", "no_such_flag", "v"]
XLLM_VALUES = VALUES + ["0x10", "0X7FFFFFFF", "0x100000000", "-2147483649", "4294967296", "+8", " 8", "true", "no",
                        "maybe", "npu:0,npu:1", "npu:$DEV", "cuda:0", "TORCH", "ATB", "",
                        "../../etc/passwd", "$'\\e[31m::error::x'"]


@st.composite
def xllm_word(draw) -> str:
    name = draw(st.sampled_from(XLLM_FLAGS))
    value = draw(st.sampled_from(XLLM_VALUES))
    form = draw(st.integers(0, 5))
    dash = draw(st.sampled_from(["--", "-"]))
    if form == 0:
        return f"{dash}{name}={value}"
    if form == 1:
        return f"{dash}{name} {value}"
    if form == 2:
        return f"{dash}no{name}"
    if form == 3:
        return f"{dash}{name}"  # a boolean, or a flag missing its value when last
    if form == 4:
        return "--"
    return value


@st.composite
def xllm_script(draw) -> str:
    env = "".join(f"export HCCL_BUFFSIZE={v}\n" for v in draw(st.lists(st.sampled_from(XLLM_VALUES), max_size=1)))
    program = draw(st.sampled_from(["xllm", "/opt/xllm/build/xllm/core/server/xllm", "$XLLM_PATH"]))
    words = draw(st.lists(xllm_word(), min_size=1, max_size=12))
    return f"#!/bin/bash\n{env}{program} --model /models/deepseek-ai/DeepSeek-V4-Flash --max_seqs_per_batch 8 " \
        f"--master_node_addr a:1 {' '.join(words)}\n"


@FAST
@given(xllm_script())
def test_hostile_xllm_gflags_never_raise(text):
    start = time.process_time()
    results = lint_text(text, "run.sh", Options(product="A3"), SETTINGS)
    assert time.process_time() - start < 5, text[:300]
    assert "MC019" not in codes(results)
    assert_safe_outputs(Report(results=results, files=1))


# ---- MindIE: config.json + conf/mindie_env.json, and MindIE-Motor's user_config.json --------------------------------
ROOT = Path(tempfile.mkdtemp(prefix="moecfg-mindie-"))  # one tree for the run: hypothesis reuses no pytest tmp_path
HOSTILE_TEXT = ["::error::forged", "\n::warning::w", "\x1b[31mred", "\x1b]0;title\x07", "a\u202eb", "\x00", "x" * 3000]
KEYS = ["worldSize", "backendType", "dp", "tp", "sp", "cp", "pp", "moe_ep", "moe_tp", "modelName", "modelWeightPath",
        "plugin_params", "models"] + HOSTILE_TEXT
LEAVES = [0, -1, 1, 16, 64, 10 ** 30, -(10 ** 30), 1.5, 1e308, True, None, "", "torch", "atb", "ms", "16", "$WS",
          "DeepSeek-V3", "/mnt/weights/DeepSeek-V3.2-w8a8", '{"num_speculative_tokens": 1}',
          '{"num_speculative_tokens": 99999999999999999999}', "{", [], {}, [16]] + HOSTILE_TEXT
NON_JSON = ["NaN", "Infinity", "-Infinity", "1e400", "9" * 5000]  # numbers Python's json writes or reads oddly


@st.composite
def leaf(draw, depth: int = 0):
    if depth < 3 and draw(st.integers(0, 4)) == 0:
        return {draw(st.sampled_from(KEYS)): draw(leaf(depth + 1)) for _ in range(draw(st.integers(0, 3)))}
    return draw(st.sampled_from(LEAVES))


def _dump(data, raw_numbers: list[str]) -> str:
    """JSON text with some numbers replaced by tokens json.dumps never writes (NaN, 1e400, 5,000 digits)."""
    text = json.dumps(data, indent=2, ensure_ascii=False)
    for i, token in enumerate(raw_numbers):
        text = text.replace(f'"@RAW{i}@"', token, 1)
    return text


@st.composite
def mindie_tree(draw) -> tuple[str, str]:
    """(file to check, its text): a config.json or a user_config.json, with an env file written beside it."""
    raw = draw(st.lists(st.sampled_from(NON_JSON), max_size=3))
    entry = {k: draw(leaf()) for k in draw(st.lists(st.sampled_from(KEYS), max_size=8))}
    entry.setdefault("backendType", draw(st.sampled_from(["torch", "atb", 3, None])))
    entry.update({k: f"@RAW{i}@" for i, k in enumerate(draw(st.lists(st.sampled_from(["worldSize", "moe_ep", "tp"]),
                                                                  min_size=len(raw), max_size=len(raw))))})
    if draw(st.booleans()):
        nest = draw(st.sampled_from([5, 60, 400]))
        entry["models"] = json.loads('{"a":' * nest + "1" + "}" * nest)
    schedule = {k: draw(leaf()) for k in ("maxBatchSize", "maxPrefillBatchSize", "maxPrefillTokens",
                                          "distributedEnable")}
    backend = {"ModelDeployConfig": {"ModelConfig": [entry, draw(leaf())]}, "ScheduleConfig": schedule,
               "multiNodesInferEnabled": draw(st.sampled_from([True, False, "true", None])),
               "npuDeviceIds": draw(st.sampled_from([[list(range(16))], [[0]], [], "x", [[]], None]))}
    env = {"mindie_common_env": {"HCCL_BUFFSIZE": draw(st.sampled_from(LEAVES + ["$BUF", "`x`", "1024"])),
                                 draw(st.sampled_from(KEYS)): draw(leaf())},
           "mindie_server_decode_env": draw(leaf())}
    shutil.rmtree(ROOT, ignore_errors=True)
    (ROOT / "conf").mkdir(parents=True)
    (ROOT / "conf" / "mindie_env.json").write_text(json.dumps(env, ensure_ascii=False), encoding="utf-8",
                                                   errors="surrogatepass")
    if draw(st.booleans()):
        motor = {"deploy_config": {"hardware_type": draw(st.sampled_from(["800I_A3", "800I_A2", "x", 7])),
                                   "mindie_env_path": draw(st.sampled_from(["./conf/mindie_env.json", "../x.json",
                                                                            "/etc/passwd", "conf", 5, ""]))},
                 "mindie_server_prefill_config": {"BackendConfig": backend},
                 "mindie_server_decode_config": {"BackendConfig": draw(st.sampled_from([backend, {}, [], None]))}}
        return str(ROOT / "user_config.json"), _dump(motor, raw)
    return str(ROOT / "conf" / "config.json"), _dump({"BackendConfig": backend}, raw)


@FAST
@given(mindie_tree())
def test_hostile_mindie_trees_never_raise(named):
    name, text = named
    Path(name).write_text(text, encoding="utf-8", errors="surrogatepass")
    start = time.process_time()
    done = check_bytes(Path(name).read_bytes(), name, policy=FilePolicy(Config(product="A3", cann_version="9.0.1"),
                                                                         Cli()), root=str(ROOT))
    assert time.process_time() - start < 5, text[:300]
    assert "MC019" not in codes(done.results)
    assert_safe_outputs(Report(results=done.results, files=1))
