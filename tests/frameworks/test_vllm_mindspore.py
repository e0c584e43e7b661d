"""frameworks/vllm_mindspore: `vllm-mindspore serve` / `python -m vllm_mindspore.entrypoints ...` launches.

VMS@423bd12 (mindspore-ai/vllm-mindspore, branch r0.6.0.rc1) fused_moe.py:232-252: experts // ep per rank with the
remainder on the last; pure EP when EP > 1 and MoE TP 1; max_bs = 256 (A2) / 512 (A3) x EP passed as global_bs to
ms_custom_ops.moe_distribute_dispatch_v3 whatever the batch. VMS@40923e5 (v0.5.1): run_ep raises NotImplementedError.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from moecfg.checking.engine import check_bytes
from moecfg.checking.settings import Cli, Config, FilePolicy
from moecfg.frameworks.vllm_mindspore import parallel as P

FIXTURES = Path(__file__).parent / "fixtures" / "vllm_mindspore"
QWEN235 = "Qwen/Qwen3-235B-A22B"  # h 4096, k 8, 128 experts (presets)


def run(text: str, product: str | None = "A3", version: str | None = "0.6.0rc1", name: str = "serve.sh"):
    config = Config(product=product, cann_version="9.0.1",
                    framework_versions={"vllm-mindspore": version} if version else {})
    done = check_bytes(text.encode(), name, policy=FilePolicy(config, Cli()))
    return done.results


def diags(text: str, **kw) -> list:
    return [d for r in run(text, **kw) for d in r.diagnostics]


def codes(text: str, **kw) -> list[str]:
    return sorted(d.code for d in diags(text, **kw))


def serve(flags: str, model: str = QWEN235, backend: str | None = "Native", buffsize: int | None = 4096) -> str:
    env = f"export VLLM_MS_MODEL_BACKEND={backend}\n" if backend else ""
    env += f"export HCCL_BUFFSIZE={buffsize}\n" if buffsize else ""
    return f"{env}vllm-mindspore serve {model} --enable-expert-parallel {flags}\n"


# ---- recognition: only a vllm-mindspore sign; `vllm serve` stays vllm-ascend's / vLLM's ----

@pytest.mark.parametrize("text,framework", [
    ("vllm-mindspore serve Qwen/Qwen3-8B\n", "vllm-mindspore"),
    ("exec /usr/local/bin/vllm-mindspore serve Qwen/Qwen3-8B\n", "vllm-mindspore"),
    ("python3 -m vllm_mindspore.entrypoints vllm.entrypoints.openai.api_server --model Qwen/Qwen3-8B\n",
     "vllm-mindspore"),
    ("vllm serve Qwen/Qwen3-235B-A22B --tensor-parallel-size 16 --enable-expert-parallel\n", "vllm-ascend"),
])
def test_recognised_by_its_own_launcher_only(text, framework):
    results = run(text)
    assert results and {r.launch["framework"] for r in results} == {framework}


@pytest.mark.parametrize("text", [
    "echo vllm-mindspore serve Qwen/Qwen3-8B\n",  # not the command
    "python3 -m vllm_mindspore.entrypoints my.module --model x\n",  # not vLLM's server
    "vllm-mindspore bench serve --model x\n",
])
def test_not_a_launch(text):
    assert all(r.launch is None for r in run(text))


def test_yaml_commands_are_recognised():
    manifest = ("apiVersion: v1\nkind: Pod\nmetadata: {name: vms}\nspec:\n  containers:\n  - name: server\n"
                "    image: vllm_ms_20250726:latest\n    command: [\"vllm-mindspore\", \"serve\", \"Qwen/Qwen3-8B\"]\n")
    run_string = ("run: |\n  python3 -m vllm_mindspore.entrypoints vllm.entrypoints.openai.api_server "
                  "--model Qwen/Qwen3-8B\n")
    for text in (manifest, run_string):
        results = run(text, name="deploy.yaml")
        assert [r.launch["framework"] for r in results if r.launch] == ["vllm-mindspore"]


def test_unknown_buffsize_is_said():
    text = serve("--tensor-parallel-size 16 --max-num-batched-tokens 512", buffsize=None)
    found = diags(text.replace("vllm-mindspore serve", "export HCCL_BUFFSIZE=$BUF\nvllm-mindspore serve"))
    assert any(d.code == "MC023" and "HCCL_BUFFSIZE" in d.message for d in found)


# ---- the MoE layout (FusedMoEParallelConfig.make, config.py:134-183) ----

@pytest.mark.parametrize("tp,dp,enable,ep_cfg,mode,ep,moe_tp", [
    (4, 2, True, None, P.PURE_EP, 8, 1),  # EP = 4 x 2
    (4, 2, True, 4, P.TP_MIX_EP, 4, 2),  # MoE TP = 8 // 4
    (4, 2, True, 8, P.PURE_EP, 8, 1),  # 8 // 8 = 1
    (4, 2, False, 4, P.PURE_TP, 1, 8),  # expert_parallel ignored without the flag
    (1, 1, True, 8, P.PURE_TP, 1, 1),  # tp x dp = 1: no EP whatever expert_parallel says
])
def test_layout(tp, dp, enable, ep_cfg, mode, ep, moe_tp):
    lay = P.layout(tp, dp, enable, ep_cfg)
    assert (lay.mode, lay.ep, lay.moe_tp) == (mode, ep, moe_tp)


def test_expert_split_and_global_bs_arithmetic():
    assert P.experts_per_rank(128, 6) == (21, 23)  # 128 // 6 = 21 on ranks 0-4, 128 - 21 x 5 = 23 on the last
    assert P.experts_per_rank(128, 8) == (16, 16)
    assert P.global_bs("A2", 16) == 4096  # 256 x 16
    assert P.global_bs("A3", 16) == 8192  # 512 x 16
    assert P.divisors_near(128, 6) == [4, 8]


# ---- the op calls: explain-launch shows each derivation ----

def test_pure_ep_calls_and_derivations():
    results = run(serve("--tensor-parallel-size 16 --max-num-batched-tokens 512 --max-num-seqs 64"))
    assert [r.launch["role"] for r in results] == ["prefill", "decode"]
    prefill, decode = (r.arguments for r in results)
    assert (prefill["bs"], decode["bs"]) == (512, 64)
    for a in (prefill, decode):  # global_bs = 512 x 16 = 8192 on A3 whatever the batch
        assert (a["op"], a["api"], a["global_bs"], a["ep_world_size"], a["tp_world_size"], a["quant_mode"]) == \
            ("dispatch_combine_v2", "aclnn_v3", 8192, 16, 1, 0)
        assert (a["h"], a["k"], a["moe_expert_num"]) == (4096, 8, 128)
    why = results[0].derivation
    assert "512 x EP 16" in why["global_bs"] and "aclnnMoeDistributeDispatchV3" in why["api"]
    assert "fused_moe.py:241-252" in why["op"]


def test_a2_passes_tp_world_size_0_and_256_per_rank():
    a = run(serve("--tensor-parallel-size 8 --data-parallel-size 2 --max-num-batched-tokens 256"), product="A2")[0]
    assert (a.arguments["global_bs"], a.arguments["tp_world_size"], a.arguments["ep_world_size"]) == (4096, 0, 16)


def test_window_is_sized_for_the_fixed_global_bs_whatever_the_batch():
    # A3 fullmesh window, Qwen3-235B (h 4096, k 8), EP 16, global_bs 8192 -> max_bs 512, 8 local experts:
    # dispatch token = Align512(Align32(2 x 4096) + 44) = Align512(8236) = 8704 B; combine token = Align512(8192)
    # 2 x (512 x 8704 x 16 x 8 + 512 x 8192 x 8) = 2 x (570425344 + 33554432) = 1207959552 B = 1152 MB exactly
    for seqs in (1, 64):
        flags = f"--tensor-parallel-size 16 --max-num-batched-tokens 512 --max-num-seqs {seqs}"
        assert "MC501" in codes(serve(flags, buffsize=1151))  # just outside
        assert "MC501" not in codes(serve(flags, buffsize=1152))  # just inside


# ---- MC922: tokens per rank above the fixed max_bs ----

@pytest.mark.parametrize("product,tokens,fires", [("A3", 512, False), ("A3", 513, True),
                                                  ("A2", 256, False), ("A2", 257, True)])
def test_fixed_global_bs_limit(product, tokens, fires):
    found = diags(serve(f"--tensor-parallel-size 16 --max-num-batched-tokens {tokens} --max-num-seqs 8"),
                  product=product)
    mc922 = [d for d in found if d.code == "MC922"]
    assert bool(mc922) is fires
    if fires:  # one cause, one finding: the op's bs / global_bs findings are covered, the fix names the flag
        assert mc922[0].severity == "error" and {"MC103", "MC401"}.isdisjoint(d.code for d in found)
        assert f"lower --max-num-batched-tokens to {P.MAX_BS[product]}" in mc922[0].message


def test_default_max_num_batched_tokens_2048_is_too_many_for_pure_ep():
    found = diags(serve("--tensor-parallel-size 16"))
    mc922 = next(d for d in found if d.code == "MC922")
    assert "2048 tokens per rank" in mc922.message and "vllm-mindspore's API-server default" in mc922.message


# ---- MC921: experts not divisible by EP ----

def test_expert_split_error_names_the_sizes():
    found = diags(serve("--tensor-parallel-size 6 --max-num-batched-tokens 256", model="Qwen/Qwen3-30B-A3B"))
    mc921 = [d for d in found if d.code == "MC921"]
    assert mc921 and mc921[0].severity == "error" and "MC201" not in {d.code for d in found}
    assert "21 per rank and 23 on the last rank" in mc921[0].message and "4 or 8" in mc921[0].message
    assert "MC921" not in codes(serve("--tensor-parallel-size 8 --max-num-batched-tokens 256",
                                      model="Qwen/Qwen3-30B-A3B"))


# ---- what selects the path: model backend, architecture, release ----

def test_backend_unset_turns_errors_into_warnings():
    found = diags(serve("--tensor-parallel-size 16", backend=None))
    mc922 = next(d for d in found if d.code == "MC922")
    assert mc922.severity == "warning" and mc922.message.startswith("if VLLM_MS_MODEL_BACKEND is unset or Native")


def test_mindformers_backend_is_not_derived():
    found = diags(serve("--tensor-parallel-size 16", backend="MindFormers"))
    assert [d.code for d in found] == ["MC920"] and "MindSpore Transformers'" in found[0].message


def test_illegal_backend_is_an_error_at_the_export():
    found = diags(serve("--tensor-parallel-size 16", backend="MindFormer"))
    assert [(d.code, d.severity, d.line) for d in found] == [("MC924", "error", 1)]


def test_deepseek_is_native_only_from_0_6():
    flags = "--tensor-parallel-size 16 --max-num-batched-tokens 512"
    assert "MC920" in codes(serve(flags, model="deepseek-ai/DeepSeek-V3", backend=None), version="0.6.0rc1")
    old = diags(serve(flags, model="deepseek-ai/DeepSeek-V3", backend=None), version="0.5.1")
    assert [d.code for d in old] == ["MC920"] and "no native model" in old[0].message


def test_0_5_pure_ep_is_not_implemented():
    found = diags(serve("--tensor-parallel-size 16 --max-num-batched-tokens 512"), version="0.5.1")
    assert [(d.code, d.severity) for d in found] == [("MC923", "error")]
    assert "NotImplementedError" in found[0].message
    # TP+EP (expert_parallel below tp x dp) runs no MC2 and is fine on 0.5.1
    mixed = serve("--tensor-parallel-size 16 --additional-config '{\"expert_parallel\": 8}'")
    assert codes(mixed, version="0.5.1") == ["MC041"]


def test_unknown_version_is_said_only_where_it_matters():
    assert codes("vllm-mindspore serve Qwen/Qwen3-8B --tensor-parallel-size 4\n", version=None) == []
    assert "MC040" in codes(serve("--tensor-parallel-size 16 --max-num-batched-tokens 512"), version=None)


def test_product_unknown_asks_once_and_still_checks_the_split():
    found = codes(serve("--tensor-parallel-size 6", model="Qwen/Qwen3-30B-A3B"), product=None)
    assert found == ["MC042", "MC921"]


def test_unusable_expert_parallel_is_not_derived():
    text = serve("--tensor-parallel-size 16 --additional-config '{\"expert_parallel\": 5}'")
    assert codes(text) == ["MC023"]


# ---- published launches (fixtures: first line cites the source) ----

@pytest.mark.parametrize("fixture,expected", [
    ("parallel-hybrid-deepseek.sh", ["MC041"]),  # tp 4 x dp 4 // expert_parallel 4 = MoE TP 4: TP+EP, no MC2
    ("parallel-ep-qwen3-single-node.sh", ["MC041"]),  # no tp/dp: tp x dp = 1, the EP flags have no effect
    ("deepseek-r1-dp4-tp4-ep4.sh", ["MC920"]),  # vLLM_MODEL_BACKEND=MindFormers: not derived
    ("quick-start-entrypoints.sh", []),  # a dense model: recognised, nothing to say
    ("readme-quick-start.sh", []),
])
def test_published_launches(fixture, expected):
    path = FIXTURES / fixture
    assert path.read_text().startswith("# ")
    results = run(path.read_text(), product="A2", version=None, name=fixture)
    assert results and {r.launch["framework"] for r in results} == {"vllm-mindspore"}
    assert sorted(d.code for r in results for d in r.diagnostics) == expected


def test_tutorial_block_without_its_backend_export_gets_warnings_not_errors():
    # wild false positive (docs/frameworks/vllm-mindspore.md): the guide exports vLLM_MODEL_BACKEND=MindFormers in
    # another block; the launch alone cannot say which MoE layers run, so MC922 / MC501 are conditional warnings
    text = (FIXTURES / "deepseek-r1-tutorial-command-block.sh").read_text()
    found = diags(text, product="A3", version=None)
    assert {"MC922", "MC501"} <= {d.code for d in found}
    assert [d for d in found if d.severity == "error"] == []


def test_split_without_product_follows_the_backend_condition():
    text = serve("--tensor-parallel-size 6", model="Qwen/Qwen3-30B-A3B", backend=None)
    mc921 = next(d for d in diags(text, product=None) if d.code == "MC921")
    assert mc921.severity == "warning" and mc921.message.startswith("if VLLM_MS_MODEL_BACKEND is unset or Native")
