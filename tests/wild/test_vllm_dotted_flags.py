"""vLLM's dotted sub-keys (`--limit-mm-per-prompt.video 0`): FlexibleArgumentParser turns every `--flag.key value` into
`--flag '{"key": value}'` (vllm==0.33.0 vllm/utils/argparse_utils.py:462-501), which only a JSON flag reads. From
vLLM 0.31.0 `--limit-mm-per-prompt` is one (arg_utils.py _compute_kwargs: a dict subclass, MultiModalDummyOptions,
is a CLI dict); the flag table said `str` there, so the vllm-project/recipes Glyph recipe got an MC022 info. Also the key=value
pairs vLLM <= 0.9 read for a JSON flag (sgl-project/ome's vLLM 0.9 runtimes)."""
from __future__ import annotations

from pathlib import Path

import pytest

from moecfg.backends import Options
from moecfg.checking.engine import check_paths, lint_text

GLYPH = Path(__file__).parent / "fixtures" / "recipes-glyph"


def _pod(image: str, *words: str) -> str:
    command = ", ".join(f'"{w}"' for w in ("vllm", "serve", "zai-org/Glyph") + words)
    return ("apiVersion: v1\nkind: Pod\nmetadata: {name: glyph}\nspec:\n  containers:\n    - name: vllm\n"
            f"      image: {image}\n      command: [{command}]\n")


def _mc022(text: str, name: str = "pod.yaml") -> list:
    return [d for r in lint_text(text, name, Options()) for d in r.diagnostics if d.code == "MC022"]


def test_the_glyph_recipe_reads_its_dotted_flag():
    report = check_paths([str(GLYPH)], Options())
    found = [(d.code, d.severity) for r in report.results for d in r.diagnostics]
    assert report.results and ("MC022", "info") not in found and ("MC040", "info") in found


@pytest.mark.parametrize("release", ["0.30.0", "0.31.0", "0.32.0", "0.33.0"])
def test_limit_mm_per_prompt_takes_dotted_keys_in_every_release(release):
    # 0.30.0: a dict annotation (JSON); 0.31.0+: MultiModalDummyOptions, a dict subclass (JSON too)
    assert _mc022(_pod(f"vllm/vllm-openai:v{release}", "--limit-mm-per-prompt.video", "0")) == []


def test_a_dotted_key_on_a_flag_that_is_not_json_names_the_flag():
    (d,) = _mc022(_pod("vllm/vllm-openai:v0.32.0", "--max-model-len.video", "0"))
    assert d.severity == "warning"  # the release is known and its parser gives --max-model-len a JSON object
    assert "--max-model-len.video" in d.message and "0.32.0" in d.message and "did you mean" not in d.message
    (d,) = _mc022("vllm serve zai-org/Glyph --max-model-len.video 0\n", "run.sh")
    assert d.severity == "info" and "version is not known" in d.message


def test_a_dotted_key_on_no_flag_stays_an_unknown_flag():
    (d,) = _mc022(_pod("vllm/vllm-openai:v0.32.0", "--limit-mm-per-promptt.video", "0"))
    assert d.severity == "warning" and "not a flag of vLLM 0.32.0" in d.message


# vLLM <= 0.9 read a JSON flag that is not `{...}` as key=value pairs (vllm==0.9.0.1 vllm/engine/arg_utils.py:53-110
# parse_type -> nullable_kvs, "removed in v0.10.0"); vllm==0.11.0 parse_type is json.loads alone.
def test_key_value_pairs_of_a_vllm_0_9_launch_are_read_as_it_read_them():
    from wildkit import findings

    assert findings("ome-vllm-0.9-limit-mm-pairs.yaml") == []


def test_key_value_pairs_where_vllm_refuses_them():
    (d,) = [x for x in _mc021(_pod("vllm/vllm-openai:v0.11.0", "--limit-mm-per-prompt", "image=10,video=1"))]
    assert d.severity == "error" and "'{\"image\": 10, \"video\": 1}'" in d.message and "0.11.0" in d.message
    (d,) = _mc021("vllm serve zai-org/Glyph --limit-mm-per-prompt image=10\n", "run.sh")
    assert d.severity == "info" and "version is not known" in d.message  # unpinned: <= 0.9 would read it
    (d,) = _mc021(_pod("vllm/vllm-openai:v0.11.0", "--limit-mm-per-prompt", "image=ten"))
    assert d.severity == "error" and "not valid JSON" in d.message  # not pairs either: invalid everywhere


def _mc021(text: str, name: str = "pod.yaml") -> list:
    return [d for r in lint_text(text, name, Options()) for d in r.diagnostics if d.code == "MC021"]


def test_dotted_keys_on_the_short_alias_of_compilation_config():
    # `-cc.pass_config.fuse_rope_kvcache=True`: vLLM's parser takes any `-x.key` word; -cc is --compilation-config
    from wildkit import FIXTURES

    report = check_paths([str(FIXTURES / "recipes-gpt-oss-cc-dotted.md")], Options())
    assert "MC022" not in {d.code for r in report.results for d in r.diagnostics}
    launch = (FIXTURES / "recipes-gpt-oss-cc-dotted.md").read_text().splitlines()[-2]
    from moecfg.frameworks.vllm_ascend import cli
    from moecfg.sources.readers import read_shell

    args = cli.read(read_shell(launch + "\n").launches[0], None)
    assert args.json["--compilation-config"].value == {"pass_config": {"fuse_rope_kvcache": True},
                                                        "use_inductor_graph_partition": True}


def test_a_plain_string_where_vllm_keeps_one():
    # vllm==0.33.0 vllm/engine/arg_utils.py:182-185 union_dict_and_str: `--pt-load-map-location cuda:0` is a string
    assert _mc021("vllm serve zai-org/Glyph --pt-load-map-location cuda:0 --hf-overrides x\n", "run.sh") == []
    (d,) = _mc021("vllm serve zai-org/Glyph --pt-load-map-location '{\"a\": }'\n", "run.sh")
    assert d.severity == "error"  # shaped `{...}`: parsed as JSON, and this is not JSON
    # --additional-config too is dict-or-string in vLLM, but vllm-ascend reads it with .get(): a string breaks it
    (d,) = _mc021("vllm serve zai-org/Glyph --additional-config ascend\n", "run.sh")
    assert d.severity == "error"
