"""Pai-Megatron-Patch's README launches (`sh run_mcore_qwen3.sh dlc A3B 1 8 ...` in a code block): listed as a
script run with positional arguments, not read (alibaba/Pai-Megatron-Patch@a098ca5 examples/qwen3/README.md:109-138)."""
from __future__ import annotations

from moecfg.sources.seen import seen

README = ("# Qwen3\n\n```bash\ncd /workspace/Pai-Megatron-Patch/examples/qwen3\nsh run_mcore_qwen3.sh  \\\ndlc  \\\n"
          "A3B   \\\n```\n\nThen `sh run_mcore_qwen3.sh` again, or\n\n```bash\nsh run_make_pretraining_dataset_megatron.sh "
          "\\\n```\n")


def test_a_readme_script_launch_is_listed_and_prose_or_data_preparation_is_not():
    assert [(s.line, s.launcher.name) for s in seen(README, "markdown")] == [(5, "Pai-Megatron-Patch script")]
    other = README.replace("Pai-Megatron-Patch", "another-project")
    assert seen(other, "markdown") == []
