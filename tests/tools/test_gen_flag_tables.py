"""tools/gen_flag_tables.py on small hand-written sources shaped like vLLM's and SGLang's argument code (no wheel,
no download): every add_argument becomes a row with the kind argparse gives it."""
from __future__ import annotations

import importlib.util
from pathlib import Path

_SPEC = importlib.util.spec_from_file_location("gen", Path(__file__).resolve().parents[2] / "tools/gen_flag_tables.py")
gen = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(gen)

VLLM_CONFIG = '''
from dataclasses import dataclass, field
from typing import Literal, Optional
BlockSize = Literal[1, 8, 16]

@dataclass
class EPLBConfig:
    window_size: int = 1000

@config
@dataclass
class ParallelConfig:
    tensor_parallel_size: int = 1
    enable_expert_parallel: bool = False
    eplb_config: EPLBConfig = field(default_factory=EPLBConfig)
    block_size: Optional[BlockSize] = None
    cudagraph_capture_sizes: Optional[list[int]] = None
'''
VLLM_ARGS = '''
class EngineArgs:
    @staticmethod
    def add_cli_args(parser):
        parallel_kwargs = get_kwargs(ParallelConfig)
        group = parser.add_argument_group("ParallelConfig")
        group.add_argument("--tensor-parallel-size", "-tp", **parallel_kwargs["tensor_parallel_size"])
        group.add_argument("--enable-expert-parallel", **parallel_kwargs["enable_expert_parallel"])
        group.add_argument("--eplb-config", **parallel_kwargs["eplb_config"])
        group.add_argument("--block-size", **parallel_kwargs["block_size"])
        group.add_argument("--cudagraph-capture-sizes", **parallel_kwargs["cudagraph_capture_sizes"])
        for arg, type in [("--old-a", str), ("--old-b", bool)]:
            group.add_argument(arg, type=type, deprecated=True)
        return parser

class AsyncEngineArgs(EngineArgs):
    @staticmethod
    def add_cli_args(parser):
        parser = EngineArgs.add_cli_args(parser)
        parser.add_argument("--enable-log-requests", action=argparse.BooleanOptionalAction, default=False)
        return parser

def make_arg_parser(parser):
    parser.add_argument("model_tag", nargs="?")
    parser.add_argument("--headless", action="store_true")
    parser.add_argument("--api-server-count", "-asc", type=int, default=1)
    return AsyncEngineArgs.add_cli_args(parser)
'''
SGLANG = '''
@dataclasses.dataclass
class ServerArgs:
    model_path: A[str, Arg(help="p", aliases=["--model"])]
    tp_size: A[int, Arg(help="tp", aliases=["--tensor-parallel-size"])] = 1
    enable_dp_attention: A[bool, "dp attention"] = False
    cuda_graph_bs: A[Optional[List[int]], "sizes"] = None
    hidden: A[bool, Arg(no_cli=True)] = False
    deepep_mode: A[Literal["auto", "normal", "low_latency"], "mode"] = "auto"

    @staticmethod
    def add_cli_args(parser):
        add_cli_args_from_dataclass(parser, ServerArgs)
        parser.add_argument("--enable-deepep-moe", action=DeprecatedStoreTrueAction, new_flag="--moe-a2a-backend")

class DeprecatedStoreTrueAction(argparse.Action):
    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, **kwargs)
'''


def rows(framework, sources):
    out, unresolved = gen.release_rows(framework, sources)
    return {r[0][0]: r for r in out}, unresolved


def test_vllm_rows_follow_get_kwargs():
    r, unresolved = rows("vllm", {"vllm/config/parallel.py": VLLM_CONFIG, "vllm/engine/arg_utils.py": VLLM_ARGS,
                                  "vllm/entrypoints/openai/cli_args.py": ""})
    assert unresolved == 0
    assert r["--tensor-parallel-size"] == [["--tensor-parallel-size", "-tp"], "value", "int", 1]
    assert r["--enable-expert-parallel"] == [["--enable-expert-parallel"], "bool", "bool", False]
    assert r["--eplb-config"][1:3] == ["json", "json"]  # a dataclass field: JSON (dotted sub-flags)
    assert r["--block-size"][1:3] == ["value", "int"]  # Optional[Literal[1, 8, 16]] through the alias
    assert r["--cudagraph-capture-sizes"][1:3] == ["list", "int"]
    assert r["--old-a"][1] == r["--old-b"][1] == "value"  # `type=bool` still takes a value
    assert r["--enable-log-requests"][1] == "bool" and r["--headless"][1] == "flag"
    assert r["--api-server-count"][0] == ["--api-server-count", "-asc"] and "model_tag" not in r


def test_sglang_dataclass_rows():
    r, _ = rows("sglang", {"sglang/srt/server_args.py": SGLANG})
    assert r["--model-path"][0] == ["--model-path", "--model"]
    assert r["--tp-size"] == [["--tp-size", "--tensor-parallel-size"], "value", "int", 1]
    assert r["--enable-dp-attention"][1] == "flag" and r["--cuda-graph-bs"][1:3] == ["list", "int"]
    assert "--hidden" not in r and r["--deepep-mode"][1:] == ["value", "str", "auto"]
    assert r["--enable-deepep-moe"][1] == "flag"  # the custom action's nargs=0


def test_rows_shared_across_releases_are_stored_once():
    built = gen.build("sglang", {"0.5.9": [[["--a"], "flag", "bool", False]], "0.5.10": [[["--a"], "flag", "bool", False],
                                                                                     [["--b"], "value", "int", 1]]})
    assert built["releases"] == ["0.5.9", "0.5.10"]
    assert built["rows"] == [[["--a"], "flag", "bool", False, "0-1"], [["--b"], "value", "int", 1, "1"]]


# vllm 0.31.0 vllm/config/multimodal.py: `limit_per_prompt: MultiModalDummyOptions` where
# `class MultiModalDummyOptions(dict[str, BaseDummyOptions])`; vllm/engine/arg_utils.py _compute_kwargs maps a dict
# subclass to dict (is_dict_subclass, TypedDicts excluded), so the flag is JSON and `--limit-mm-per-prompt.video 0`
# is read (FlexibleArgumentParser merges dotted keys into one JSON object). 0.30.0 has no is_dict_subclass: str there.
VLLM_MM_CONFIG = '''
class BaseDummyOptions(TypedDict): ...
class MultiModalDummyOptions(dict[str, BaseDummyOptions]): ...
class Options(MultiModalDummyOptions): ...
class Typed(TypedDict, total=False): ...

@config
@dataclass
class MultiModalConfig:
    limit_per_prompt: MultiModalDummyOptions = Field(default_factory=MultiModalDummyOptions)
    nested: Options | None = None
    typed: Typed | None = None
'''
VLLM_MM_ARGS = '''
class EngineArgs:
    @staticmethod
    def add_cli_args(parser):
        multimodal_kwargs = get_kwargs(MultiModalConfig)
        parser.add_argument("--limit-mm-per-prompt", **multimodal_kwargs["limit_per_prompt"])
        parser.add_argument("--nested", **multimodal_kwargs["nested"])
        parser.add_argument("--typed", **multimodal_kwargs["typed"])
        return parser

def make_arg_parser(parser):
    return EngineArgs.add_cli_args(parser)
'''
IS_DICT_SUBCLASS = "\ndef is_dict_subclass(type_hint):\n    return isinstance(type_hint, type)\n"


def test_vllm_dict_subclass_fields_are_json_where_the_release_says_so():
    sources = {"vllm/config/multimodal.py": VLLM_MM_CONFIG, "vllm/entrypoints/openai/cli_args.py": ""}
    with_it, _ = rows("vllm", {**sources, "vllm/engine/arg_utils.py": VLLM_MM_ARGS + IS_DICT_SUBCLASS})
    assert with_it["--limit-mm-per-prompt"][1:3] == ["json", "json"]
    assert with_it["--nested"][1:3] == ["json", "json"]  # a subclass of the subclass
    assert with_it["--typed"][1:3] == ["value", "str"]  # a TypedDict is not a dict subclass to vLLM
    without, _ = rows("vllm", {**sources, "vllm/engine/arg_utils.py": VLLM_MM_ARGS})  # 0.30.0 and older
    assert without["--limit-mm-per-prompt"][1:3] == ["value", "str"]


def test_update_keeps_the_other_releases_rows(tmp_path):
    table = gen.build("vllm", {"0.30.0": [[["--a"], "value", "str", None]], "0.31.0": [[["--a"], "value", "str", None]]})
    (tmp_path / "vllm.json").write_text(__import__("json").dumps(table))
    kept = gen.committed_releases(str(tmp_path / "vllm.json"))
    assert kept == {"0.30.0": [[["--a"], "value", "str", None]], "0.31.0": [[["--a"], "value", "str", None]]}
    kept["0.31.0"] = [[["--a"], "json", "json", None]]
    assert gen.build("vllm", kept)["rows"] == [[["--a"], "value", "str", None, "0"], [["--a"], "json", "json", None, "1"]]


# vllm==0.33.0 vllm/engine/arg_utils.py _compute_kwargs: a dict with str or a non-builtin member (a Protocol, a
# Callable) is `union_dict_and_str`: `{...}` is JSON, any other text stays a string (`--pt-load-map-location cuda:0`).
VLLM_LOAD_CONFIG = '''
@config
@dataclass
class LoadConfig:
    pt_load_map_location: str | dict[str, str] = "cpu"
    model_loader_extra_config: dict = Field(default_factory=dict)
'''
VLLM_LOAD_ARGS = '''
class EngineArgs:
    @staticmethod
    def add_cli_args(parser):
        load_kwargs = get_kwargs(LoadConfig)
        parser.add_argument("--pt-load-map-location", **load_kwargs["pt_load_map_location"])
        parser.add_argument("--model-loader-extra-config", **load_kwargs["model_loader_extra_config"])
        return parser

def make_arg_parser(parser):
    return EngineArgs.add_cli_args(parser)
'''
UNION = "\ndef union_dict_and_str(val):\n    return val\n"


def test_vllm_dict_or_str_fields_keep_a_plain_string():
    sources = {"vllm/config/load.py": VLLM_LOAD_CONFIG, "vllm/entrypoints/openai/cli_args.py": ""}
    r, _ = rows("vllm", {**sources, "vllm/engine/arg_utils.py": VLLM_LOAD_ARGS + UNION})
    assert r["--pt-load-map-location"] == [["--pt-load-map-location"], "json", "json|str", "cpu"]
    assert r["--model-loader-extra-config"][1:3] == ["json", "json"]  # a dict alone: JSON only
    r, _ = rows("vllm", {**sources, "vllm/engine/arg_utils.py": VLLM_LOAD_ARGS})  # a release without the helper
    assert r["--pt-load-map-location"][1:3] == ["json", "json"]
