"""vllm-ascend: recognising the launch, reading its flags (MC021-MC023), picking the version (MC040), what the
launch cannot tell (MC042), and the whole path through checking/launch.py with positioned findings."""
from __future__ import annotations

import pytest

import moecfg.frameworks.vllm_ascend as va
from moecfg.frameworks import LaunchContext
from moecfg.sources.launch import LaunchFile
from vllm_ascend_launches import DSR1_A3_SINGLE_NODE, codes, ctx, derive, launch, serve

GPU = "vllm serve deepseek-ai/DeepSeek-V3 -tp 8 --enable-expert-parallel --max-num-seqs 16\n"


# ---- recognise ----

@pytest.mark.parametrize("text,image,hints,product,expected", [
    (GPU, None, (), None, False),  # a plain vLLM launch: the GPU framework's
    (GPU, "quay.io/ascend/vllm-ascend:v0.13.0", (), None, True),
    (GPU, None, (("huawei.com/ascend-1980", None),), None, True),
    (GPU, None, (), "A3", True),
    ("export HCCL_BUFFSIZE=1024\n" + GPU, None, (), None, True),
    (GPU.replace("-tp 8", "-tp 8 --additional-config '{\"enable_mc2_hierarchy_comm\": true}'"), None, (), None, True),
    (GPU.replace("-tp 8", "-tp 8 --quantization ascend"), None, (), None, True),
    ("python -m vllm.entrypoints.api_server --model m --quantization ascend\n", None, (), None, True),
    ("python -m sglang.launch_server --model m --quantization ascend\n", None, (), None, False),
    ("echo vllm serve --quantization ascend\n", None, (), None, False),  # `vllm serve` not at a command position
])
def test_recognise(text, image, hints, product, expected):
    lau = launch(text, image=image, hints=hints)
    assert va.recognise(lau, LaunchContext(product=product)) is expected


@pytest.mark.parametrize("text,start", [
    ("vllm serve m -tp 4\n", 2), ("exec vllm serve m\n", 3), ("numactl -N 0 vllm serve m\n", 5),
    ("python3 -u -m vllm.entrypoints.openai.api_server --model m\n", 4), ("echo vllm serve m\n", None),
    ("python3 -m pip install vllm\n", None),
])
def test_command_start(text, start):
    assert va.cli.command_start(launch(text)) == start


# ---- flags ----

def test_unknown_flag_is_mc022_with_suggestion():
    """A typo is a warning when the release is known (argparse stops), an info when moecfg assumed the newest."""
    pinned = derive(serve("-dp 4 -tp 4 --max-num-seqz 16"), version="0.13.0")
    note = next(n for n in pinned.notes if n.code == "MC022")
    assert "--max-num-seqz" in note.message and "did you mean --max-num-seqs" in note.message
    assert note.severity is None and "vLLM 0.13.0" in note.message and note.span.line == 1
    assumed = derive(serve("-dp 4 -tp 4 --max-num-seqz 16"), version="main")
    assert next(n for n in assumed.notes if n.code == "MC022").severity == "info"


def test_unique_prefix_is_the_flag_argparse_takes():
    """`--max-num-seq` is argparse's abbreviation of --max-num-seqs (allow_abbrev): read as it, a style note only."""
    short = derive(serve("-dp 4 -tp 4 --max-num-seq 16"), version="0.13.0")
    full = derive(serve("-dp 4 -tp 4 --max-num-seqs 16"), version="0.13.0")
    note = next(n for n in short.notes if n.code == "MC022")
    assert note.severity == "info" and "--max-num-seqs" in note.message
    assert short.calls[0].arguments == full.calls[0].arguments
    assert short.calls[0].arguments != derive(serve("-dp 4 -tp 4 --max-num-seqs 8"), version="0.13.0").calls[0].arguments


def test_known_vllm_flags_are_not_reported():
    d = derive(DSR1_A3_SINGLE_NODE, version="main")
    assert "MC022" not in codes(d.notes)


def test_bad_json_is_mc021_and_the_rest_still_derived():
    d = derive(serve("-dp 4 -tp 4 --max-num-seqs 16 --additional-config '{enable_fused_mc2: 1}'"), version="main")
    assert "MC021" in codes(d.notes) and d.calls[0].arguments["bs"] == 4


def test_underscore_flags_and_equals_form():
    text = serve("--data_parallel_size=4 --tensor-parallel-size=4 --max_num_seqs 16")
    assert derive(text, version="main").calls[0].arguments["bs"] == 4


def test_optimisation_level_flag():
    # -O0: compilation mode 0 -> no graphs on v0.13/main: eager 300 tokens, TP 1
    text = serve("-dp 16 -tp 1 --max-num-seqs 300 --max-num-batched-tokens 8192 -O0")
    assert derive(text, version="main").calls[0].arguments["bs"] == 300
    assert derive(text.replace("-O0", "-O3"), version="main").calls[0].arguments["bs"] == 300 and \
        derive(text.replace(" -O0", ""), version="main").calls[0].arguments["bs"] == 300  # graphs: min(300, 512)


# ---- version and what the launch cannot tell ----

@pytest.mark.parametrize("image,version,assumed", [
    ("quay.io/ascend/vllm-ascend:v0.13.0rc1-a3", "0.13.0", False),
    ("quay.io/ascend/vllm-ascend:v0.11.0", "0.11.0", False),
    ("quay.io/ascend/vllm-ascend:v0.18.0", "0.18.0", False),  # 2026 releases: a table each (releases_2026.py)
    ("quay.io/ascend/vllm-ascend:v0.23.0", "0.23.0", False),
    ("quay.io/ascend/vllm-ascend:v0.17.0rc1", "main", True),  # a release line without a table: newest + MC040
    ("quay.io/ascend/vllm-ascend:v0.28.0", "main", True),  # newer than every table: named so (MC040)
    (None, "main", True),
])
def test_version_from_image(image, version, assumed):
    d = va.derive(launch(serve("-dp 4 -tp 4"), image=image), ctx())
    assert d.version == version and ("MC040" in codes(d.notes)) is assumed


def test_version_from_settings():
    d = derive(serve("-dp 4 -tp 4"), version="0.13.0")
    assert d.version == "0.13.0" and "MC040" not in codes(d.notes)


def test_product_unknown_is_mc042_and_no_call():
    d = derive(serve("-dp 4 -tp 4"), product=None, version="main")
    assert d.calls == [] and "MC042" in codes(d.notes)
    assert "--product" in next(n for n in d.notes if n.code == "MC042").message


def test_unknown_model_names_models_setting_and_leaves_dims_out():
    d = derive(serve("-dp 4 -tp 4 --max-num-seqs 16", model="/models/private-moe"), version="main")
    note = next(n for n in d.notes if n.code == "MC042")
    assert "models:" in note.message and note.span.line == 1
    assert "h" not in d.calls[0].arguments and d.calls[0].arguments["bs"] == 4


def test_models_setting_resolves_a_path():
    d = derive(serve("-dp 4 -tp 4 --max-num-seqs 16", model="/models/dsr1"), version="main",
               models=(("/models/dsr1", "deepseek-r1"),))
    assert d.calls[0].arguments["h"] == 7168
    # the dimensions resolve; the quant type cannot come from a bare path name (MC042 about quantisation only)
    assert [n.message for n in d.notes if n.code == "MC042" and "quant type" not in n.message] == []


# ---- the whole path: checking/launch.py judges the calls with the ascend kind and positions the findings ----

def _lint(text, product="A3", cann="9.0.1", version="main"):
    from moecfg import backends
    from moecfg.checking.launch import lint_launch_file

    lf = LaunchFile(launches=[launch(text)])
    return lint_launch_file(lf, "serve.sh", ctx(product=product, version=version, cann=cann),
                            backends.Options(cann=cann))


def test_tutorial_checks_clean_with_enough_buffer():
    text = "export HCCL_BUFFSIZE=1024\n" + DSR1_A3_SINGLE_NODE
    results = _lint(text)
    assert [r.op for r in results] == ["dispatch_combine_v2", "none"]
    errors = [d for r in results for d in r.diagnostics if d.severity == "error"]
    assert errors == []
    assert results[0].launch["role"] == "decode" and results[0].arguments["bs"] == 16


def test_buffer_finding_points_at_the_export_line():
    # HCCL_BUFFSIZE=50 MB is far below the A3 dispatch window for bs 16, EP 16, h 7168: the kind's buffer rule fires
    results = _lint("export HCCL_BUFFSIZE=50\n" + DSR1_A3_SINGLE_NODE)
    errs = [d for d in results[0].diagnostics if d.severity == "error"]
    assert errs and all(d.line == 1 for d in errs if "HCCL_BUFFSIZE" in d.message)


# ---- bad input: never a traceback ----

def test_odd_values_give_notes_not_tracebacks():
    import json
    import random

    odd = [None, True, 0, 1, 2, -1, 10**9, "1", "x", [], {}, [8, 16], 3.5]
    keys = ["enable_fused_mc2", "enable_prefill_mc2", "enable_mc2_hierarchy_comm", "mega_moe_max_tokens",
            "init_redundancy_expert", "dynamic_eplb", "torchair_graph_config", "enable_shared_expert_dp"]
    rng = random.Random(7)
    for _ in range(150):
        extra = json.dumps({k: rng.choice(odd) for k in rng.sample(keys, 3)})
        comp = json.dumps({rng.choice(["cudagraph_mode", "cudagraph_capture_sizes", "max_cudagraph_capture_size"]):
                           rng.choice(odd)})
        spec = json.dumps({"num_speculative_tokens": rng.choice(odd)})
        flags = f"-tp {rng.choice(['4', '0', 'x', '-2'])} -dp {rng.choice(['4', '0', '7'])} " \
                f"--max-num-seqs {rng.choice(['16', '0', '-5'])}"
        text = serve(f"{flags} --speculative-config '{spec}' --compilation-config '{comp}' --additional-config '{extra}'",
                     env=rng.choice(["", "HCCL_BUFFSIZE=abc", "VLLM_ASCEND_ENABLE_FUSED_MC2=z"]))
        for version in ("0.11.0", "0.13.0", "main"):
            d = derive(text, version=version, product=rng.choice(["A2", "A3"]), cann=rng.choice([None, "9.0.1", "bad"]))
            assert all(n.span is not None for n in d.notes)


def test_refused_tp_is_mc025_and_unreadable_tp_mc023():
    d = derive(serve("-tp 0 -dp 4 --max-num-seqs 16"), version="main")  # vLLM refuses it: an error (issue 20)
    assert d.calls == [] and "MC025" in codes(d.notes) and "MC023" not in codes(d.notes)
    d = derive(serve("-tp 99999999999999999999999 -dp 4 --max-num-seqs 16"), version="main")
    assert d.calls == [] and "MC023" in codes(d.notes) and "MC025" not in codes(d.notes)


def test_dotted_speculative_config_is_the_json_flag():
    """`--speculative-config.method mtp --speculative-config.num_speculative_tokens 1` (FlexibleArgumentParser's
    dotted form, value as the next word) derives as the JSON form: the draft tokens enter bs."""
    dotted = derive(serve("-dp 4 -tp 4 --max-num-seqs 16 --speculative-config.method mtp "
                          "--speculative-config.num_speculative_tokens 1"), version="0.13.0")
    json_form = derive(serve("-dp 4 -tp 4 --max-num-seqs 16 --speculative-config "
                             "'{\"method\": \"mtp\", \"num_speculative_tokens\": 1}'"), version="0.13.0")
    plain = derive(serve("-dp 4 -tp 4 --max-num-seqs 16"), version="0.13.0")
    assert "MC022" not in codes(dotted.notes)
    assert [c.arguments for c in dotted.calls] == [c.arguments for c in json_form.calls]
    assert [c.arguments for c in dotted.calls] != [c.arguments for c in plain.calls]
