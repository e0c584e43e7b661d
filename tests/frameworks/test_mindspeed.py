"""frameworks/mindspeed: MindSpeed-LLM training launches (msrun / torchrun / torch.distributed.launch) on Ascend.

Ascend/MindSpeed@028de58 mindspeed/core/hccl_buffer/ (the per-group buffers), features_manager/moe/ (the MoE
refusals); NVIDIA/Megatron-LM@a845aa7 = core_v0.12.1 parallel_state.py (the groups, the world-size RuntimeErrors).
Fixtures in fixtures/mindspeed/ are minimal copies of published scripts (first line: the source).
"""
from __future__ import annotations

from pathlib import Path

import pytest
from gpu_helpers import codes, derive, finding, lint

from moecfg.frameworks import LaunchContext
from moecfg.frameworks.mindspeed import hccl_buffer as H

HERE = Path(__file__).resolve().parent / "fixtures" / "mindspeed"
A3 = LaunchContext(product="A3", product_source="--product")
MOE = ("pretrain_gpt.py --hidden-size 7168 --seq-length 4096 --micro-batch-size 1 --num-experts 256 "
       "--moe-router-topk 8 --moe-token-dispatcher-type alltoall")


def fixture(name: str) -> str:
    return (HERE / name).read_text()


def call_of(text: str, ctx=A3):
    (call,) = derive(text, ctx).calls
    return call


# --- --hccl-group-buffer syntax, as MindSpeed parses it (hccl_adaptive_func.py:45-67)

@pytest.mark.parametrize("text, table", [("dp:200;tp:300;exp:400", {"dp": 200, "tp": 300, "exp": 400}),
                                         ("dp:200,tp:300", {"dp": 200, "tp": 300}),  # ',' splits when present
                                         (" ep : 1_000 ", {"ep": 1000}),  # blanks removed; int() reads `_`
                                         ("", {})])
def test_group_buffer_accepted(text, table):
    assert H.parse_group_buffer(text) == table


@pytest.mark.parametrize("text, named", [("dp:200;tp:300;", None),  # the trailing ';' leaves an empty part
                                         ("dp:200,tp:300;exp:400", None),  # split on ',': `tp:300;exp:400` has 2 ':'
                                         ("moe:400", "moe"), ("dp:0", "dp"), ("dp:-5", "dp"), ("tp:2.5", "tp"),
                                         ("tp=300", None)])
def test_group_buffer_refused(text, named):
    with pytest.raises(H.SyntaxRefused) as exc:
        H.parse_group_buffer(text)
    assert named is None or f"'{named}'" in str(exc.value)


def test_mc925_at_the_flag():
    text = f"msrun --worker_num 16 {MOE} --expert-model-parallel-size 8 --hccl-group-buffer 'dp:200;tp:300;'"
    d = finding(lint(text, A3), "MC925")
    assert d.severity == "error" and d.column == text.index("--hccl-group-buffer") + 1
    assert "dp, dp_cp" in d.message  # names what MindSpeed accepts


# --- the adaptive formulas (hccl_adaptive_func.py:78-228), by hand

def shape(**kw):
    base = dict(seq=4096, mbs=1, hidden=7168, tp=2, cp=1, ep=8, topk=8, dispatcher="alltoall",
                sequence_parallel=True, factor=-1.0, tp_extend_ep=False)
    return H.Shape(**(base | kw))


def test_adaptive_dense_groups():
    t = H.adaptive(shape())
    # S x B x H = 4096 x 7168 = 28 MiB: tp 2 x 28 = 56 with sequence parallelism, pp 2 x ceil(28 / TP 2) = 28
    assert (t["tp"][0], t["pp"][0], t["pp_new_stream"][0]) == (56, 28, 28) and "cp" not in t  # CP 1: no cp group
    assert (t["mp"][0], t["mp_exp"][0], t["tp_cp"][0], t["exp"][0]) == (10, 10, 10, 200)  # constants; no factor
    t = H.adaptive(shape(sequence_parallel=False))
    assert (t["tp"][0], t["pp"][0]) == (112, 56)  # 2 x 56; pp without the / TP


def test_adaptive_ceil_just_inside_and_outside():
    # 4096 x 7168 = 28.0 MiB exactly -> 56; hidden 7169 -> 28.0039 MiB -> ceil 29 -> 58
    assert H.adaptive(shape(hidden=7168))["tp"][0] == 56
    assert H.adaptive(shape(hidden=7169))["tp"][0] == 58


def test_adaptive_moe_groups_with_factor():
    t = H.adaptive(shape(dispatcher="alltoall_seq", factor=1.0))
    # alltoall_seq: tp = max(2 x ceil(1 x 4096 / TP 2 x 7168 x top-8 / MiB) = 2 x 112 = 224, dense 56)
    assert t["tp"][0] == 224 and t["exp"][0] == 224 and "tp_exp" not in t
    assert H.adaptive(shape(dispatcher="alltoall_seq"))["tp"][0] == 200  # no factor: 200 beats the dense 56
    # allgather: tp_exp = 2 x ceil(1 x 4096 x 7168 x EP 8 / MiB) = 2 x 224
    assert H.adaptive(shape(dispatcher="allgather", factor=1.0))["tp_exp"][0] == 448
    assert H.adaptive(shape(dispatcher="alltoall_seq", factor=2.0, tp_extend_ep=True))["tp_exp"][0] == 448


# --- recognition and the world size

def test_gpu_megatron_launch_stays_megatron():
    (call,) = derive(f"torchrun --nproc_per_node 8 {MOE} --expert-model-parallel-size 8").calls
    assert "framework" not in call.arguments  # frameworks/megatron's call (no MindSpeed sign)


@pytest.mark.parametrize("text", [f"msrun --worker_num 8 {MOE}", f"HCCL_BUFFSIZE=200 torchrun {MOE}",
                                  f"torchrun {MOE} --use-fused-rmsnorm"])
def test_mindspeed_signs(text):
    assert call_of(text).arguments["framework"] == "MindSpeed"


@pytest.mark.parametrize("script, mindspeed", [
    ("source /usr/local/Ascend/ascend-toolkit/set_env.sh", True),  # CANN's script: not read, still a sign
    (". ${HOME}/Ascend/cann/set_env.sh", True),  # MindSpeed-LLM install_guide.md:147, $HOME unknown
    ("source /opt/ascend-toolkit/latest/set_env.sh", True),
    ("source /opt/venv/bin/activate", False),  # a venv says nothing about the hardware
    ("source /opt/AscendSpeed/env.sh", False),  # `Ascend` only as part of a folder name
])
def test_sourced_cann_script_is_an_ascend_sign(script, mindspeed):
    (call,) = derive(f"{script}\ntorchrun --nproc_per_node 8 {MOE} --expert-model-parallel-size 8").calls
    assert ("framework" in call.arguments) is mindspeed
    assert not mindspeed or "set_env.sh" in call.derivation["framework"]


def test_cann_script_sourced_after_the_launch_is_no_sign():
    (call,) = derive(f"torchrun {MOE}\nsource /usr/local/Ascend/ascend-toolkit/set_env.sh").calls
    assert "framework" not in call.arguments


def test_quickstart_set_env_in_its_own_block_of_the_section():
    from moecfg.checking.engine import check_text
    (r,) = check_text(fixture("quickstart_set_env.md"), "quickstart.md").results
    assert r.launch["framework"] == "mindspeed" and r.arguments["world_size"] == 8  # torchrun 8 x 1
    assert "/usr/local/Ascend/cann/set_env.sh (line 7" in r.derivation["framework"]


def test_msrun_fixture_world_and_layout():
    a = call_of(fixture("pretrain_deepseek3_671b_4k_A3_ms.sh")).arguments
    # --worker_num $WORLD_SIZE = 16 x 32; TP 2 x PP 8 -> DP 32; ETP = TP 2: expert DP 512 / (2 x 16 x 8) = 2
    assert (a["world_size"], a["tp"], a["pp"], a["ep"], a["expert_tp"], a["dispatcher"]) == (
        512, 2, 8, 16, 2, "alltoall_seq")
    buf = a["hccl_buffer_mb"]
    assert buf["dp"] == buf["ep"] == buf["tp_ep_mp"] == 400  # HCCL_BUFFSIZE=400, no MindSpeed table
    assert buf["ep_dp"] == 400 and "cp" not in buf  # CP 1: no communicator


def test_torchrun_fixture_world():
    call = call_of(fixture("tune_qwen3_30b_a3b_4K_full_ptd.sh"))
    assert call.arguments["world_size"] == 32  # --nproc_per_node 16 x --nnodes 2
    assert call.derivation["world_size"] == "torchrun --nproc_per_node 16 x --nnodes 2"
    assert call.arguments["hccl_buffer_mb"]["tp"] == 200  # HCCL_BUFFSIZE unset: HCCL's default


def test_msrun_default_worker_num():
    assert call_of(f"msrun {MOE}").arguments["world_size"] == 8  # msrun's --worker_num default


def test_unknown_launcher_words_leave_the_world_unknown():
    # MindSpeed-LLM's qwen3_moe script: NODE_RANK=${NODE_RANK:-0} makes DISTRIBUTED_ARGS unknown; it was read as
    # torchrun's defaults (1 x 1) and gave a false MC927 (benchmarks/wild.py on MindSpeed-LLM)
    text = 'export HCCL_CONNECT_TIMEOUT=1800\nNODE_RANK=${NODE_RANK:-0}\n' \
           'ARGS="--nproc_per_node 16 --nnodes 2 --node_rank $NODE_RANK"\n' \
           f"torchrun $ARGS {MOE} --tensor-model-parallel-size 4 --pipeline-model-parallel-size 8"
    results = lint(text, A3)
    assert "MC927" not in codes(results)
    # bash splits $ARGS at its blanks: only --node_rank's value is unknown, the sizes are read (16 x 2)
    assert results[0].arguments["world_size"] == 32
    whole = text.replace('ARGS="--nproc_per_node 16 --nnodes 2 --node_rank $NODE_RANK"', 'ARGS="$NODE_RANK"')
    assert lint(whole, A3)[0].arguments["world_size"] == "unknown"  # the sizes themselves unknown: unknown
    # an unknown value of another option is harmless: the world size is still known
    assert call_of(f"msrun --worker_num 16 --master_addr $IP --log_dir=$D {MOE}").arguments["world_size"] == 16


# --- start-up refusals

def test_mc927_world_not_divisible():
    ok = f"msrun --worker_num 16 {MOE} --tensor-model-parallel-size 2 --pipeline-model-parallel-size 2"
    assert "MC927" not in codes(lint(ok + " --expert-model-parallel-size 4 --expert-tensor-parallel-size 1", A3))
    # ETP 2 (= TP) x EP 4 x PP 2 = 16 divides 16; EP 8 -> 32 does not
    assert "MC927" not in codes(lint(ok + " --expert-model-parallel-size 4", A3))
    text = ok + " --expert-model-parallel-size 8"
    d = finding(lint(text, A3), "MC927")
    # at the flag its fix names (EP 4: 2 x 4 x 2 = 16)
    assert "32" in d.message and d.column == text.index("--expert-model-parallel-size 8") + 1
    assert "MC927" in codes(lint(f"msrun --worker_num 12 {MOE} --tensor-model-parallel-size 8", A3))


def test_experts_not_divisible_reuses_megatron_rule():
    text = f"msrun --worker_num 16 {MOE.replace('256', '60')} --expert-model-parallel-size 8"
    assert "MC981" in codes(lint(text, A3))


def test_mc926_tp_extend_ep_companions():
    base = f"msrun --worker_num 16 {MOE} --expert-model-parallel-size 8 --moe-tp-extend-ep --moe-grouped-gemm"
    d = finding(lint(base, A3), "MC926")
    assert "--moe-permutation-async-comm" in d.message and d.column == base.index("--moe-tp-extend-ep") + 1
    assert "MC926" not in codes(lint(base + " --moe-permutation-async-comm", A3))
    # 256 experts over TP 2 x EP 8 = 16: fine; TP 2 x EP 8 with 24 experts: 24 % 16
    bad = base.replace("256", "24") + " --moe-permutation-async-comm --tensor-model-parallel-size 2"
    assert "divisible by TP 2 x EP 8" in finding(lint(bad, A3), "MC926").message


def test_mc926_overlap_comm_dispatchers():
    base = f"msrun --worker_num 16 {MOE} --expert-model-parallel-size 8 --moe-grouped-gemm --moe-permutation-async-comm"
    assert "MC926" not in codes(lint(base + " --moe-alltoall-overlap-comm", A3))
    assert "MC926" in codes(lint(base + " --moe-allgather-overlap-comm", A3))  # needs allgather
    assert "MC926" in codes(lint(base + " --moe-alltoall-overlap-comm --moe-tp-extend-ep", A3))  # alltoall refuses it


# --- which table MindSpeed applies (adaptor.py:16-28) and MC929

def test_manual_buffer_without_adaptive_is_ignored():
    results = lint(fixture("hccl_group_buffer_doc.sh"), A3)
    d = finding(results, "MC929")
    assert d.severity == "warning" and "--hccl-group-buffer-adaptive" in d.message
    assert results[0].arguments["hccl_buffer_mb"]["tp"] == 200  # the process default, not tp:300


def test_adaptive_with_manual_override_and_old_name():
    text = fixture("hccl_group_buffer_doc.sh").replace('--hccl-group-buffer "', '--hccl-group-buffer-adaptive '
                                                       '--hccl-group-buffer "')
    results = lint(text, A3)
    buf = results[0].arguments["hccl_buffer_mb"]
    # dp:200 and tp:300 override; pp is adaptive (no sequence parallel: 2 x ceil(4096 x 4096 / MiB) = 32)
    assert (buf["dp"], buf["tp"]) == (200, 300)
    # `exp` is Megatron's older name of the EP group: no core_v0.12.1 group receives it, ep keeps HCCL_BUFFSIZE
    assert buf["ep"] == 200 and "MC929" in codes(results) and "write ep:400" in finding(results, "MC929").message
    assert "'exp' = 400 MB" in results[0].derivation["hccl_buffer_mb.ep"]


def test_adaptive_needs_the_shapes():
    call = call_of(f"msrun --worker_num 16 pretrain_gpt.py --num-experts 8 --hccl-group-buffer-adaptive")
    assert call.arguments["hccl_buffer_mb"] == "not derived" and "--seq-length" in call.derivation["hccl_buffer_mb"]


# --- memory (MC928): 2 x buffer per communicator against 64 GiB per A3 die

LAYOUT = (f"msrun --worker_num 16 {MOE} --tensor-model-parallel-size 8 --expert-model-parallel-size 8 "
          "--expert-tensor-parallel-size 1")


def buffsize(mb: int) -> str:
    return f"export HCCL_BUFFSIZE={mb}\n{LAYOUT}"


def test_memory_table_rows():
    call = call_of(buffsize(1000))
    # world 16, TP 8, EP 8, ETP 1: dp 2, dp_cp 2, mp 8, tp 8, tp_dp_cp 16, tp_dp 16, tp_cp 8, ep 8, tp_ep_mp 8,
    # tp_ep_pp 8, ep_dp 2 (11 groups of more than one rank; ep_tp has 1)
    tab = call.derived["memory_budget"]
    assert list(tab["buffers"]) == ["dp", "dp_cp", "mp", "tp", "tp_dp_cp", "tp_dp", "tp_cp", "ep", "tp_ep_mp",
                                    "tp_ep_pp", "ep_dp"]
    assert tab["total_bytes"] == 11 * 2 * 1000 * 2**20


def test_mc928_every_step_groups_just_inside_and_outside():
    # tp, dp_cp, ep, ep_dp every step: 4 x 2 x X MB <= 65536 MiB -> X <= 8192
    inside = finding(lint(buffsize(8192), A3), "MC928")
    assert inside.severity == "warning"  # all 11 groups: 22 x 8192 MB > 64 GiB (an upper bound)
    outside = finding(lint(buffsize(8193), A3), "MC928")
    assert outside.severity == "error" and "HCCL_BUFFSIZE <= 8192" in outside.message and outside.line == 1


def test_mc928_all_groups_just_inside_and_outside():
    # 11 groups x 2 x X MB <= 65536 MiB -> X <= 2978 (65536 / 22 = 2978.9)
    assert "MC928" not in codes(lint(buffsize(2978), A3))
    assert finding(lint(buffsize(2979), A3), "MC928").severity == "warning"


def test_memory_needs_a_product():
    call = call_of(buffsize(9000), LaunchContext())
    assert "device_bytes" not in call.derived["memory_budget"] and not any(n.code == "MC928" for n in call.notes)


def test_explain_launch_shows_each_group():
    from moecfg.core.diagnostics import Report
    from moecfg.render.launch_view import render

    text = render(Report(results=lint(fixture("pretrain_deepseek3_671b_4k_A3_ms.sh"), A3)))
    assert "mindspeed" in text and "hccl_buffer_mb.ep = 400 <- group 'ep': HCCL_BUFFSIZE=400" in text
    assert "world_size = 512" in text and "memory per rank on A3" in text


def test_world_unknown_keeps_the_buffers_and_skips_the_memory_check():
    call = call_of(f"export HCCL_BUFFSIZE=300\npython {MOE} --expert-model-parallel-size 8 --tensor-model-parallel-size 2")
    assert call.arguments["world_size"] == "unknown" and "memory_budget" not in call.derived
    assert call.arguments["hccl_buffer_mb"]["dp"] == 300  # the buffer is known; the group's size is not
    assert "ranks unknown" in call.derivation["hccl_buffer_mb.dp"]


def test_hostile_buffer_values():
    key = "k" * 5000
    with pytest.raises(H.SyntaxRefused) as exc:
        H.parse_group_buffer(f"{key}:1")
    assert len(str(exc.value)) < 200
    call = call_of(f"msrun --worker_num 16 {MOE} --hccl-group-buffer-adaptive --hccl-ep-group-buffer-adaptive-factor "
                   "1e308 --moe-token-dispatcher-type allgather")
    assert call.arguments["hccl_buffer_mb"] == "not derived"  # the volume overflows: said, not a traceback


@pytest.mark.parametrize("extra, refused", [
    ("--moe-fb-overlap --moe-grouped-gemm --expert-tensor-parallel-size 1", False),
    ("--moe-fb-overlap --expert-tensor-parallel-size 1", True),  # fb_overlap.py:87 requires grouped gemm
    ("--moe-fb-overlap --moe-grouped-gemm", True),  # expert-TP defaults to TP 2 (:91-94)
    ("--moe-fb-overlap --moe-grouped-gemm --expert-tensor-parallel-size 1 --moe-token-dispatcher-type allgather", True),
    ("--moe-alltoall-mc2 --expert-tensor-parallel-size 1", False),
    ("--moe-alltoall-mc2", True),  # alltoall needs expert-TP 1 (moe_alltoall_mc2.py:36-38)
    ("--moe-alltoall-mc2 --expert-tensor-parallel-size 1 --moe-fb-overlap --moe-grouped-gemm", True),  # incompatible
])
def test_mc926_fb_overlap_and_alltoall_mc2(extra, refused):
    text = f"msrun --worker_num 16 {MOE} --expert-model-parallel-size 8 --tensor-model-parallel-size 2 {extra}"
    assert ("MC926" in codes(lint(text, A3))) is refused


@pytest.mark.parametrize("kw, table", [
    # ulysses: 2 x ceil(4096 / CP 2 x 7168 / TP 2 / MiB) = 2 x 7
    (dict(cp=2, cp_algo="ulysses_cp_algo"), {"cp": 14}),
    # megatron_cp_algo (MindSpeed-LLM's default): 4096 / 2 x 4096 / 32 heads / TP 1 = 0.25 MiB -> one = 2 x 1;
    # cp = 2 x 2 x 1 = 4, or 2 with send-recv overlap (then cp2 too)
    (dict(cp=2, hidden=4096, tp=1, heads=32), {"cp": 4}),
    (dict(cp=2, hidden=4096, tp=1, heads=32, overlap=True), {"cp": 2, "cp2": 2}),
    # GQA 8 groups: x 8 -> 2 MiB -> 2 x 2 x 2 = 8; a window > 1 adds cp_ring_intra
    (dict(cp=2, hidden=4096, tp=1, heads=32, query_groups=8, window=2), {"cp": 8, "cp_ring_intra": 8}),
    # hybrid CP 8 = ulysses 2 x ring 4: ulysses 2 x ceil(4096 / 2 x 4096 / MiB) = 16; ring 2 x 2 x ceil(0.125) = 4
    (dict(cp=8, hidden=4096, tp=1, heads=32, cp_algo="hybrid_cp_algo", ulysses=2),
     {"cp": 10, "cp_ulysses": 16, "cp_ring": 4}),
])
def test_adaptive_context_parallel(kw, table):
    t = H.adaptive(shape(**kw))
    assert {k: t[k][0] for k in t if k.startswith("cp")} == table


def test_adaptive_context_parallel_needs_its_values():
    with pytest.raises(ValueError):
        H.adaptive(shape(cp=2))  # megatron_cp_algo without the heads
    call = call_of(f"msrun --worker_num 16 {MOE} --context-parallel-size 2 --hccl-group-buffer-adaptive "
                   "--context-parallel-algo hybrid_cp_algo --num-attention-heads 32")
    assert call.arguments["hccl_buffer_mb"] == "not derived" and "ulysses" in call.derivation["hccl_buffer_mb"]
