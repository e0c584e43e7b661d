"""frameworks/xllm: xLLM launches (`xllm --ep_size 16 ...`, gflags syntax) -> start-up checks MC915-MC919 and the
dispatch_v2 call of the TORCH backend (jd-opensource/xllm@87e8d6e).

Scripts go through the real shell reader (sources/readers.read_shell), so `--flag=value` words and `$VAR` programs
are read as in a user's file. The world is len(--devices) x --nnodes (dist_manager.cpp:177-178).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from moecfg.backends import Options
from moecfg.checking.launch import lint_launch_file
from moecfg.frameworks import LaunchContext, recognise
from moecfg.frameworks import xllm
from moecfg.frameworks.xllm import gflags as G
from moecfg.sources.readers import read_shell

FIXTURES = Path(__file__).parent / "fixtures" / "xllm"
A3 = LaunchContext(product="A3", product_source="--product")


def lint(text: str, ctx=A3):
    return lint_launch_file(read_shell(text), "run.sh", ctx, Options())


def diags(text: str, ctx=A3):
    return [d for r in lint(text, ctx) for d in r.diagnostics]


def codes(text: str, ctx=A3) -> list[str]:
    return sorted({d.code for d in diags(text, ctx)})


def message(text: str, code: str, ctx=A3) -> str:
    return next(d.message for d in diags(text, ctx) if d.code == code)


def world16(*flags: str, env: str = "") -> str:
    """One process per NPU, 16 processes: world 16."""
    return f"{env}xllm --model /models/deepseek-ai/DeepSeek-V4-Flash --devices=npu:0 --nnodes=16 " + " ".join(flags)


EP2 = ("--npu_kernel_backend=TORCH", "--ep_size=16", "--expert_parallel_degree=2", "--enable_fused_mc2=0")


# ---- recognition ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("command, yes", [
    ("xllm --model m --devices npu:0", True), ("/path/to/xllm --model m", True),
    ("./build/xllm/core/server/xllm --port 9000", True),
    ("$XLLM_PATH --max_seqs_per_batch 4 --master_node_addr a:1", True),  # the guides' `$XLLM_PATH`: two own flags
    ("$XLLM_PATH --model m --port 1", False),  # an unknown program with generic flags is not claimed
    ("xllm", False), ("python xllm.py --model m", False), ("vllm serve m --max_seqs_per_batch 4", False),
])
def test_recognise(command, yes):
    launch = read_shell(command + "\n").launches[0]
    module = recognise(launch)
    assert (module is xllm) == yes


# ---- gflags syntax -------------------------------------------------------------------------------------------

TABLE = {"ep_size": "int32", "enable_graph": "bool", "model": "string", "max_tokens": "uint32"}


def words(text: str):
    return read_shell(f"xllm {text}\n").launches[0].argv[1:]


@pytest.mark.parametrize("text, name, value", [
    ("--ep_size=16", "ep_size", "16"), ("-ep_size=16", "ep_size", "16"), ("--ep_size 16", "ep_size", "16"),
    ("-ep_size 16", "ep_size", "16"), ("--enable_graph", "enable_graph", "true"),
    ("--noenable_graph", "enable_graph", "false"), ("--enable_graph=false", "enable_graph", "false"),
    ("--model -x", "model", "-x"),  # a non-boolean flag takes the next word whatever it is
])
def test_gflags_forms(text, name, value):
    assert G.parse(words(text), TABLE).get(name).text == value


def test_gflags_boolean_never_takes_the_next_word_and_double_dash_ends_flags():
    parsed = G.parse(words("--enable_graph false -- --ep_size 4"), TABLE)
    assert parsed.get("enable_graph").text == "true" and parsed.get("ep_size") is None


def test_gflags_unknown_and_missing_value():
    parsed = G.parse(words("--ep-size 4 --ep_size"), TABLE)
    assert [w.value for w in parsed.unknown] == ["--ep-size"]
    assert [w.value for w in parsed.missing_value] == ["--ep_size"]


@pytest.mark.parametrize("text, kind, value", [
    ("16", "int32", 16), (" 16", "int32", 16), ("+16", "int32", 16), ("-1", "int32", -1), ("0x10", "int32", 16),
    ("-0x10", "int32", None),  # base 16 only when the text itself starts with 0x
    ("1_6", "int32", None), ("16.0", "int32", None), ("١٦", "int32", None), ("", "int32", None),
    ("2147483647", "int32", 2147483647), ("2147483648", "int32", None),  # int32 range: just inside / outside
    ("-1", "uint32", None), ("4294967295", "uint32", 4294967295), ("4294967296", "uint32", None),
])
def test_gflags_integers(text, kind, value):
    assert G.as_int(text, kind) == value


# ---- published launches --------------------------------------------------------------------------------------

def check_fixture(name: str, ctx=LaunchContext()):
    results = lint_launch_file(read_shell((FIXTURES / name).read_text()), name, ctx, Options())
    return [d for r in results for d in r.diagnostics]


def test_multi_machine_guide_deepseek_r1():
    found = check_fixture("multi_machine_deepseek_r1.sh")
    assert sorted(d.code for d in found) == ["MC040", "MC041", "MC918"]
    summary = next(d.message for d in found if d.code == "MC918")
    # 1 device per process x --nnodes 32 = 32; --ep_size default 1: MoE TP over the whole world
    assert "world 32" in summary and "MoE EP 1 x TP 32" in summary
    assert "ep_size 1 (default)" in next(d.message for d in found if d.code == "MC041")


def test_glm5_two_node_guide():
    found = check_fixture("glm5_two_node_node0.sh")
    assert sorted(d.code for d in found) == ["MC040", "MC918"]  # the model path is set in another block: unknown
    summary = found[-1].message
    # NNODES=32 processes x 1 device = 32; --ep_size=16 -> MoE TP 32 / 16 = 2; --dp_size=1 -> attention TP 32
    assert "world 32" in summary and "MoE EP 16 x TP 2" in summary and "attention DP 1 x TP 32" in summary


def test_cuda_launch_is_recognised_not_derived():
    found = check_fixture("launch_cuda_qwen3.sh")
    assert sorted(d.code for d in found) == ["MC040", "MC918"]
    assert "xLLM on cuda" in found[-1].message and "not derived" in found[-1].message


# ---- start-up checks -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dp, fails", [(1, False), (3, True), (4, False), (16, False), (32, True)])
def test_world_must_be_a_multiple_of_dp(dp, fails):
    found = codes(world16(f"--dp_size={dp}"))
    assert ("MC915" in found) == fails
    if fails:  # 16 % 3 = 1, 16 % 32 = 16: CHECK_EQ(world_size % dp_size, 0) fails
        assert "set --dp_size to a divisor of 16 (1, 2, 4, 8, 16)" in message(world16(f"--dp_size={dp}"), "MC915")


@pytest.mark.parametrize("ep, fails", [(2, False), (5, True), (8, False), (16, False), (32, True)])
def test_world_must_be_a_multiple_of_ep(ep, fails):
    assert ("MC916" in codes(world16(f"--ep_size={ep}"))) == fails


def test_ep_check_message_shows_the_integer_division():
    # MoE TP = 16 // 5 = 3 and 3 x 5 = 15 != 16
    assert "MoE TP = 16 // 5 = 3 and 3 x 5 != 16" in message(world16("--ep_size=5"), "MC916")


def test_devices_list_counts_every_device():
    # 8 devices per process x --nnodes 2 = 16: ep 16 divides it, ep 12 does not
    two_nodes = "xllm --model m --devices=npu:0,npu:1,npu:2,npu:3,npu:4,npu:5,npu:6,npu:7 --nnodes=2 "
    assert "MC916" not in codes(two_nodes + "--ep_size=16")
    assert "MC916" in codes(two_nodes + "--ep_size=12")


@pytest.mark.parametrize("backend, fails", [("lccl", True), ("hccl", False)])
def test_rank_table_needs_hccl(backend, fails):
    text = world16(f"--rank_tablefile=rt.json --communication_backend={backend}")
    assert ("MC917" in codes(text)) == fails


def test_rank_table_check_is_not_in_older_releases():
    old = LaunchContext(product="A3", framework_versions=(("xllm", "0.9.1"),))
    assert "MC917" not in codes(world16("--rank_tablefile=rt.json --communication_backend=lccl"), old)


@pytest.mark.parametrize("ep, warns", [(16, False), (8, True)])
def test_ep_level_2_needs_ep_equal_to_world(ep, warns):
    found = diags(world16(f"--ep_size={ep}", "--expert_parallel_degree=2"))
    hits = [d for d in found if d.code == "MC919"]
    assert bool(hits) == warns
    if warns:
        assert hits[0].severity == "warning" and "set --ep_size 16" in hits[0].message


@pytest.mark.parametrize("flag", ["--ep_size=abc", "--dp_size=0", "--nnodes=-1", "--enable_fused_mc2=3",
                                  "--enable_graph=maybe", "--npu_kernel_backend=FAST", "--ep_size"])
def test_values_xllm_refuses_are_errors_at_the_flag(flag):
    found = [d for d in diags(world16(flag)) if d.code == "MC025"]
    assert len(found) == 1 and found[0].severity == "error"
    assert not any(d.code in ("MC915", "MC916", "MC918") for d in diags(world16(flag)))  # nothing derived after it


@pytest.mark.parametrize("mode", ["-1", "0", "2"])
def test_fused_mc2_modes_in_range_are_accepted(mode):
    assert "MC025" not in codes(world16(f"--enable_fused_mc2={mode}"))


def test_unknown_flags():
    found = diags(world16("--ep-size=16", "--logtostderr", "--v=2"))
    unknown = [d for d in found if d.code == "MC022"]
    # gflags does not read dashes as underscores; glog's own flags are not typos
    assert len(unknown) == 1 and "--ep-size" in unknown[0].message and "ep_size" in unknown[0].message
    assert unknown[0].severity == "warning"


def test_flag_of_an_older_release_only_is_an_info_when_the_version_is_not_given():
    found = [d for d in diags(world16("--npu_phy_id=0")) if d.code == "MC022"]
    assert found and found[0].severity == "info" and "0.9.1" in found[0].message


# ---- the TORCH backend's dispatch_v2 call --------------------------------------------------------------------

def dispatch(text: str, ctx=A3):
    return next(r for r in lint(text, ctx) if r.op == "dispatch_combine_v2")


def test_dispatch_v2_arguments():
    r = dispatch(world16(*EP2, "--max_seqs_per_batch=8"))
    args = r.arguments
    # bs = 8 sequences x (1 + 0 draft tokens) = 8; dp 1: global_bs = 8 x EP 16 = 128 (fused_moe.cpp:1413)
    assert (args["bs"], args["global_bs"], args["ep_world_size"]) == (8, 128, 16)
    # DeepSeek-V4-Flash: hidden 4096, top-6 of 256 routed experts
    assert (args["h"], args["k"], args["moe_expert_num"]) == (4096, 6, 256)
    assert (args["quant_mode"], args["tp_world_size"], args["api"], args["expert_token_nums_type"]) == \
        (0, 0, "aclnn_v2", 1)
    assert "fused_moe.cpp:1413" in r.derivation["global_bs"]


def test_draft_tokens_multiply_the_decode_rows():
    args = dispatch(world16(*EP2, "--max_seqs_per_batch=8", "--num_speculative_tokens=1")).arguments
    assert (args["bs"], args["global_bs"]) == (16, 256)  # 8 x (1 + 1) = 16; 16 x 16 = 256


def test_dp_makes_global_bs_zero():
    args = dispatch(world16(*EP2, "--max_seqs_per_batch=8", "--dp_size=2")).arguments
    assert (args["bs"], args["global_bs"]) == (8, 0)  # fused_moe.cpp:1414-1420: 0 (auto) under DP


@pytest.mark.parametrize("seqs, spec, fails", [(512, 0, False), (513, 0, True), (256, 1, False), (257, 1, True)])
def test_a3_batch_limit_in_xllm_terms(seqs, spec, fails):
    # A3 dispatch_v2 takes bs in [1, 512]: 512 x 1 = 512 in, 513 out; 256 x 2 = 512 in, 257 x 2 = 514 out
    text = world16(*EP2, f"--max_seqs_per_batch={seqs}", f"--num_speculative_tokens={spec}",
                   env="HCCL_BUFFSIZE=8192 ")
    hits = [d for d in diags(text) if d.code == "MC103"]
    assert bool(hits) == fails
    if fails:
        assert "--max_seqs_per_batch" in hits[0].message


def test_buffer_finding_names_hccl_buffsize():
    found = [d for d in diags(world16(*EP2, "--max_seqs_per_batch=256", env="HCCL_BUFFSIZE=200 ")) if d.code == "MC501"]
    assert found and "set HCCL_BUFFSIZE >=" in found[0].message


def test_prefill_steps_take_no_dispatch():
    results = lint(world16(*EP2, "--max_seqs_per_batch=8"))
    assert [(r.op) for r in results] == ["dispatch_combine_v2", "none"]


def test_product_unknown_asks_for_it():
    assert "MC042" in codes(world16(*EP2), LaunchContext())


def test_default_fused_mode_is_not_derived():
    # --enable_fused_mc2 -1 resolves to 1 under EP level 2 (kernel_config.cpp:69-71): xllm_ops' fused kernel
    text = world16("--npu_kernel_backend=TORCH", "--ep_size=16", "--expert_parallel_degree=2")
    assert not any(r.op == "dispatch_combine_v2" for r in lint(text))
    assert "DispatchFFNCombine" in message(text, "MC918")


def test_atb_backend_is_summarised_not_derived():
    text = "xllm --model /models/DeepSeek-R1 --devices=npu:0 --nnodes=16 --ep_size=16 --expert_parallel_degree=2\n"
    assert not any(r.op == "dispatch_combine_v2" for r in lint(text))
    summary = message(text, "MC918")
    assert "xllm_atb_layers" in summary and "model type deepseek_v3 is one AUTO runs on ATB" in summary


def test_no_direct_dispatch_before_0_10():
    old = LaunchContext(product="A3", framework_versions=(("xllm", "0.9.1"),))
    assert not any(r.op == "dispatch_combine_v2" for r in lint(world16(*EP2[:3]), old))


@pytest.mark.parametrize("env, shown", [("", "512 MB (HCCL_BUFFSIZE unset"), ("HCCL_BUFFSIZE=1024 ", "1024 MB"),
                                        ("HCCL_BUFFSIZE=1G ", "512 MB (HCCL_BUFFSIZE '1G' is not a positive int32")])
def test_atb_moe_ep_buffer(env, shown):
    text = f"{env}xllm --model /models/DeepSeek-R1 --devices=npu:0 --nnodes=16 --ep_size=16\n"
    assert shown in message(text, "MC918")


def test_atb_moe_ep_buffer_is_fixed_before_0_10():
    old = LaunchContext(product="A3", framework_versions=(("xllm", "0.9.1"),))
    text = "HCCL_BUFFSIZE=1024 xllm --model /models/DeepSeek-R1 --devices=npu:0 --nnodes=16 --ep_size=16\n"
    assert "512 MB fixed" in message(text, "MC918", old)


def test_dense_model_without_ep_gets_no_summary():
    assert codes("xllm --model /models/Qwen3-8B --devices=npu:0\n") == ["MC040"]


def test_ep_level_2_with_ep_1_is_ignored_silently():
    # ep_size 1: the ATB layer sets expertParallelDegree 0 (npu_deepseek_v2_decoder_layer_impl.cpp:375-380)
    assert "MC919" not in codes(world16("--ep_size=1", "--expert_parallel_degree=2"))


@pytest.mark.parametrize("value, shown", [(" 1024", "1024 MB"), ("+1024", "1024 MB"), ("2147483647", "2147483647 MB"),
                                          ("2147483648", "512 MB"), ("0x400", "512 MB"), ("1024 ", "512 MB"),
                                          ("0", "512 MB")])
def test_hccl_buffsize_read_as_strtol_reads_it(value, shown):
    # mapping_npu.cpp:41-46: strtol base 10, nothing after the digits, in (0, INT32_MAX]
    text = f"export HCCL_BUFFSIZE='{value}'\n" \
        "xllm --model /models/DeepSeek-R1 --devices=npu:0 --nnodes=16 --ep_size=16\n"
    assert f"(moe_ep included) {shown}" in message(text, "MC918")


@pytest.mark.parametrize("extra", ["--config_json_file=xllm.json", "--flagfile=xllm.flags"])
def test_values_from_a_file_are_not_derived(extra):
    found = codes(world16("--dp_size=3", extra))  # 16 % 3 would be MC915, but the file may override --dp_size
    assert "MC023" in found and "MC915" not in found and "MC918" not in found


def test_device_index_set_at_run_time_is_one_device():
    text = "for i in 0 1; do\n  xllm --model m --devices=\"npu:$D\" --nnodes=16 --ep_size=5\ndone\n"
    assert "MC916" in codes(text)  # one device x 16: 16 % 5 != 0


def test_devices_auto_leaves_the_world_unknown():
    assert "MC916" not in codes("xllm --model m --devices=auto --nnodes=16 --ep_size=5\n")


def test_unknown_ep_size_is_never_the_default():
    text = "xllm --model /models/DeepSeek-R1 --devices=npu:0 --nnodes=16 --ep_size=$EP --expert_parallel_degree=2\n"
    found = diags(text)
    assert any(d.code == "MC023" and "--ep_size" in d.message for d in found)
    assert not any(d.code in ("MC041", "MC919") for d in found)  # no "ep_size 1" path, no EP-level verdict
    assert "MoE EP unknown" in message(text, "MC918") and "not known statically" in message(text, "MC918")


def test_explain_launch_shows_every_derivation():
    from moecfg.core.diagnostics import Report
    from moecfg.render.launch_view import render

    text = render(Report(results=lint(world16(*EP2, "--max_seqs_per_batch=8", env="HCCL_BUFFSIZE=1024 "))))
    for line in ("bs = 8 <- --max_seqs_per_batch 8 x (1 + --num_speculative_tokens 0 (default)) = 8",
                 "global_bs = 128 <- rows 8 x EP 16", "ep_world_size = 16 <- --ep_size 16",
                 "api = aclnn_v2 <- xLLM calls aclnnMoeDistributeDispatchV2", "quant_mode = 0 <- fixed in xLLM",
                 "env.HCCL_BUFFSIZE = 1024 <- the launch's HCCL_BUFFSIZE", "moe_expert_num = 256 <- n_routed_experts"):
        assert line in text, line


@pytest.mark.parametrize("model, backend, release, fails", [
    ("deepseek-ai/DeepSeek-V4-Flash", "ATB", "main", True), ("deepseek-ai/DeepSeek-V4-Flash", "TORCH", "main", False),
    ("deepseek-ai/DeepSeek-V3", "TORCH", "main", True), ("deepseek-ai/DeepSeek-V3", "ATB", "main", False),
    ("Qwen/Qwen3-235B-A22B", "TORCH", "main", False), ("Qwen/Qwen3-235B-A22B", "ATB", "main", False),  # qwen3_moe
    ("Qwen/Qwen3.5-397B-A17B", "ATB", "0.9.1", True),  # torch-only since v0.9
    ("deepseek-ai/DeepSeek-V4-Flash", "ATB", "0.9.1", False),  # deepseek_v4 joined the torch-only set in v0.10.0
    ("deepseek-ai/DeepSeek-V3", "TORCH", "0.8.0", False),  # v0.8.0 does not check
])
def test_backend_the_model_type_does_not_support(model, backend, release, fails):
    ctx = LaunchContext(product="A3", framework_versions=(("xllm", release),))
    text = f"xllm --model /models/{model} --devices=npu:0 --nnodes=16 --ep_size=16 --npu_kernel_backend={backend}\n"
    hits = [d for d in diags(text, ctx) if d.code == "MC025"]
    assert bool(hits) == fails
    if fails:
        assert hits[0].severity == "error" and "only supports --npu_kernel_backend=" in hits[0].message


@pytest.mark.parametrize("image, release", [
    ("quay.io/jd_xllm/xllm-ai:xllm-0.7.2-dev-hb-rc2-x86", "0.7.2"),
    ("quay.io/jd_xllm/xllm-ai:0.6.0-dev-hb-rc2-arm", "0.6.0"),
    ("quay.io/jd_xllm/xllm-ai:xllm-dev-a2-x86-cann9-20260605", "main"), (None, "main"),
])
def test_release_from_the_image_tag(image, release):
    from dataclasses import replace

    launch = replace(read_shell(world16("--ep_size=16") + "\n").launches[0], image=image)
    out = xllm.derive(launch, A3)
    assert out.version == release
    assert any(n.code == "MC040" for n in out.notes) == (release == "main")


def test_hccl_buffsize_set_at_run_time_is_not_judged():
    # 256 decode tokens need more than HCCL's 200 MB default; the launch sets the variable from elsewhere
    text = "export HCCL_BUFFSIZE=$BUF\n" + world16(*EP2, "--max_seqs_per_batch=256") + "\n"
    found = diags(text)
    assert not any(d.code == "MC501" for d in found)
    assert any(d.code == "MC023" and "HCCL_BUFFSIZE" in d.message for d in found)
    # the same launch with the default (unset) is judged: 200 MB < the 1112 MB the window needs
    assert "MC501" in codes(world16(*EP2, "--max_seqs_per_batch=256") + "\n")


def test_atb_buffer_with_hccl_buffsize_set_at_run_time():
    text = "export HCCL_BUFFSIZE=$BUF\nxllm --model /models/DeepSeek-R1 --devices=npu:0 --nnodes=16 --ep_size=16\n"
    assert "HCCL_BUFFSIZE is not known statically" in message(text, "MC918")


@pytest.mark.parametrize("flags, bs", [
    (("--max_seqs_per_batch=12",), 12),  # eager: 12 rows
    (("--max_seqs_per_batch=12", "--enable_graph=true"), 16),  # bucket(12) = 16
    (("--max_seqs_per_batch=12", "--enable_graph", "--enable_graph_mode_decode_no_padding"), 12),  # no padding
    (("--max_seqs_per_batch=12", "--num_speculative_tokens=1", "--enable_graph=true"), 32),  # 24 -> bucket 32
    (("--max_seqs_per_batch=5", "--enable_graph=true"), 8),  # bucket(5) = 8
    (("--max_seqs_per_batch=100", "--enable_graph=true"), 100),  # > 16 sequences run eager; bucket(16) = 16 < 100
    (("--max_seqs_per_batch=11", "--enable_graph=true", "--acl_graph_decode_batch_size_limit=10"), 16),  # bucket(10)
])
def test_graph_mode_pads_decode_rows(flags, bs):
    assert dispatch(world16(*EP2, *flags)).arguments["bs"] == bs


def test_kernel_backend_before_0_8_is_atb():
    old = LaunchContext(product="A3", framework_versions=(("xllm", "0.7.2"),))
    text = "xllm --model /models/DeepSeek-R1 --devices=npu:0 --nnodes=16 --ep_size=16 --expert_parallel_degree=2\n"
    assert "ATB (xLLM 0.7.2 has no --npu_kernel_backend" in message(text, "MC918", old)


@pytest.mark.parametrize("value", ["torch", "$BACKEND"])
def test_kernel_backend_is_case_sensitive_and_never_assumed(value):
    text = f"xllm --model /models/deepseek-ai/DeepSeek-V4-Flash --devices=npu:0 --nnodes=16 " \
           f"--npu_kernel_backend={value} --ep_size=16 --expert_parallel_degree=2 --enable_fused_mc2=0\n"
    assert not any(r.op == "dispatch_combine_v2" for r in lint(text))
    assert ("MC025" in codes(text)) == (value == "torch")  # "Unsupported --npu_kernel_backend=torch"


POD = """apiVersion: v1
kind: Pod
metadata: {name: xllm}
spec:
  containers:
    - name: xllm
      image: quay.io/jd_xllm/xllm-ai:xllm-0.7.2-dev-hc-rc2-arm
      command: ["/usr/local/bin/xllm", "--model=/models/DeepSeek-R1", "--devices=npu:0", "--nnodes=16", "--dp_size=3"]
"""


def test_kubernetes_command_list_with_the_release_from_the_image():
    from moecfg.checking.engine import check_bytes
    from moecfg.checking.settings import Cli, Config, FilePolicy

    done = check_bytes(POD.encode(), "pod.yaml", policy=FilePolicy(Config(), Cli()))
    found = [d for r in done.results for d in r.diagnostics]
    hit = next(d for d in found if d.code == "MC915")  # 16 % 3 != 0
    assert POD.splitlines()[hit.line - 1][hit.column - 1:].startswith('"--dp_size=3"')  # at the flag's scalar
    assert "xLLM 0.7.2" in next(d.message for d in found if d.code == "MC918")
    assert "MC040" not in {d.code for d in found}


# ---- issue 32: an unknown gflag with the release known is a certain start-up failure ------------------------------
# xllm.cpp google::ParseCommandLineFlags: gflags exits on a flag no linked library defines; cited at the release's own
# commit and line (:493 @5e814b18 = v0.10.0, :505 @87e8d6e = main)

@pytest.mark.parametrize("release, cited", [("0.10.0", "xllm@5e814b18 xllm/xllm.cpp:493"),
                                            ("main", "xllm@87e8d6ed (main) xllm/xllm.cpp:505")])
def test_unknown_flag_with_the_release_known_is_an_error(release, cited):
    ctx = LaunchContext(product="A3", framework_versions=(("xllm", release),))
    found = [d for d in diags(world16("--ep-size=16"), ctx) if d.code == "MC022"]
    assert len(found) == 1 and found[0].severity == "error" and cited in found[0].message


def test_flag_of_another_release_with_the_release_known_is_an_error():
    ctx = LaunchContext(product="A3", framework_versions=(("xllm", "main"),))
    found = [d for d in diags(world16("--npu_phy_id=0"), ctx) if d.code == "MC022"]
    assert found and found[0].severity == "error" and "0.9.1" in found[0].message


def test_undefok_lets_an_unknown_flag_pass():
    ctx = LaunchContext(product="A3", framework_versions=(("xllm", "main"),))
    assert not [d for d in diags(world16("--ep-size=16", "--undefok=ep-size"), ctx) if d.code == "MC022"]
