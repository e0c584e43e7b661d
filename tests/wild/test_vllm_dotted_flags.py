"""vLLM's dotted sub-keys (`--limit-mm-per-prompt.video 0`): FlexibleArgumentParser turns every `--flag.key value` into
`--flag '{"key": value}'` (vllm==0.33.0 vllm/utils/argparse_utils.py:462-501), which only a JSON flag reads. From
vLLM 0.31.0 `--limit-mm-per-prompt` is one (arg_utils.py _compute_kwargs: a dict subclass, MultiModalDummyOptions,
is a CLI dict); the flag table said `str` there, so the vllm-project/recipes Glyph recipe got an MC022 info."""
from __future__ import annotations

from pathlib import Path

import pytest

from moecfg.backends import Options
from moecfg.core.engine import check_paths, lint_text

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
