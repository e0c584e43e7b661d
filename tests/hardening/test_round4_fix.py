"""Round 4: `check --fix` / `--diff` (cli/fix.py) on hostile trees: links out of the tree, read-only files, names
that would forge diff headers or terminal escapes, a path given twice, line endings and tabs, documentation
spellings, JSON escapes inside `--additional-config`, a YAML alias. Nothing outside the checked paths changes."""
from __future__ import annotations

import os
import resource
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

SERVE = Path(__file__).resolve().parents[1] / "fix" / "fixtures" / "serve.sh"
BEFORE, AFTER = "export HCCL_BUFFSIZE=100 ", "export HCCL_BUFFSIZE=120 "


def moecfg(*args, cwd=None):
    got = subprocess.run([sys.executable, "-m", "moecfg", "check", "--product", "A3", *args], capture_output=True,
                         timeout=120, cwd=cwd, env={**os.environ, "NO_COLOR": "1", "GITHUB_ACTIONS": ""})
    out, err = got.stdout.decode(errors="replace"), got.stderr.decode(errors="replace")
    assert "Traceback" not in err and got.returncode in (0, 1), err
    return got.returncode, out, err


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "t").mkdir()
    (tmp_path / "out").mkdir()
    return tmp_path


def test_links_out_of_the_tree_are_never_written(tree):
    outside = tree / "out" / "serve.sh"
    shutil.copy(SERVE, outside)
    (tree / "t" / "dir").symlink_to(tree / "out")  # a folder link
    (tree / "t" / "file.sh").symlink_to(outside)  # a file link
    os.link(outside, tree / "t" / "hard.sh")  # a hard link: the rename gives the tree's name its own file
    moecfg("--fix", str(tree / "t"))
    assert outside.read_text() == SERVE.read_text()
    assert AFTER in (tree / "t" / "hard.sh").read_text()
    assert (tree / "t" / "file.sh").is_symlink()


def test_a_link_to_another_checked_file_is_fixed_once_through_the_file(tree):
    shutil.copy(SERVE, tree / "t" / "a.sh")
    (tree / "t" / "b.sh").symlink_to("a.sh")
    _, _, err = moecfg("--fix", str(tree / "t"))
    assert (tree / "t" / "a.sh").read_text().count(AFTER) == 1 and (tree / "t" / "b.sh").is_symlink()
    assert "b.sh: not fixed: a symlink" in err


def test_a_read_only_file_is_left_alone_and_said(tree):
    f = tree / "t" / "ro.sh"
    shutil.copy(SERVE, f)
    f.chmod(0o444)
    code, _, err = moecfg("--fix", str(f))
    assert BEFORE in f.read_text() and stat.S_IMODE(f.stat().st_mode) == 0o444  # root renamed over it before
    assert "ro.sh: not fixed: read-only" in err and code == 1


def test_a_name_with_a_line_break_cannot_forge_diff_headers(tree):
    name = "x\n+++ b\n@@ -1 +1 @@\n\x1b[2J.sh"
    shutil.copy(SERVE, tree / "t" / name)
    code, out, err = moecfg("--diff", str(tree / "t"))
    assert code == 1
    headers = [line for line in out.splitlines() if line.startswith(("---", "+++"))]
    assert len(headers) == 2 and all("x\\n+++ b\\n@@ -1 +1 @@\\n\\x1b[2J.sh" in h for h in headers)
    assert "\x1b" not in out + err and not any(line.startswith("@@ -1 +1 @@") for line in out.splitlines())


def test_a_path_given_twice_is_one_file_and_one_fix(tree):
    shutil.copy(SERVE, tree / "t" / "a.sh")
    _, _, err = moecfg("--fix", "a.sh", "./a.sh", "a.sh", cwd=tree / "t")
    assert "Fixed 1 finding in 1 file." in err and err.count("fixed ") == 1
    assert (tree / "t" / "a.sh").read_text().count(AFTER) == 1


@pytest.mark.parametrize("name", ["up.MD", "notes.markdown", "page.mdx", "guide.RST"])
def test_documentation_spellings_are_never_rewritten(tree, name):
    f = tree / "t" / name
    f.write_text("```bash\n" + SERVE.read_text() + "```\n")
    moecfg("--fix", "--markdown", str(f))
    assert BEFORE in f.read_text()


@pytest.mark.parametrize("ending", ["\n", "\r\n"])
def test_tabs_and_no_final_newline_stay(tree, ending):
    text = SERVE.read_text().replace("export HCCL_BUFFSIZE=100   # MB", "export\tHCCL_BUFFSIZE=100\t# MB")
    text = ending.join(text.splitlines())  # no line break after the last line
    f = tree / "t" / "a.sh"
    f.write_bytes(text.encode())
    moecfg("--fix", str(f))
    assert f.read_bytes() == text.replace("HCCL_BUFFSIZE=100\t", "HCCL_BUFFSIZE=120\t").encode()


KIMI = ("vllm serve moonshotai/Kimi-K3-W4A8 --quantization ascend --enable-expert-parallel -tp 16 \\\n"
        "  --max-num-batched-tokens 8192 --kv-transfer-config '{\"kv_role\": \"kv_producer\"}' \\\n"
        "  --additional-config '{\"enable_fused_mc2\": 1, CONFIG}'\n")
K3 = ('{"model_type": "deepseek_v3", "hidden_size": 7168, "n_routed_experts": 384, "num_experts_per_tok": 16, '
      '"moe_intermediate_size": 2048, "n_shared_experts": 1, "num_hidden_layers": 13}\n')
SETTINGS = 'product: A3\ncann_version: 9.2.0\nframework_versions:\n  vllm-ascend: "0.27"\nmodels:\n  "*": k3.json\n'


@pytest.mark.parametrize("config,after", [
    # an escaped key: the value is still the one literal 6144 of the JSON
    ('"mega_moe\\u005fmax_tokens": 6144', '"mega_moe\\u005fmax_tokens": 8192'),
    # a decoy key ending in the knob's name holds the same number: neither is edited by guess
    ('"xmega_moe_max_tokens": 6144, "mega_moe\\u005fmax_tokens": 6144', None),
    # the knob twice (JSON keeps the last): two literals, no fix
    ('"mega_moe_max_tokens": 6144, "mega_moe_max_tokens": 6144', None),
])
def test_values_inside_additional_config_json(tree, config, after):
    t = tree / "t"
    (t / "k3.json").write_text(K3)
    (t / ".moecfg.yaml").write_text(SETTINGS)
    (t / "s.sh").write_text(KIMI.replace("CONFIG", config))
    moecfg("--fix", str(t))
    assert f'"enable_fused_mc2": 1, {after or config}}}' in (t / "s.sh").read_text()


def test_an_alias_value_is_edited_at_its_anchor_only_when_nothing_else_uses_it(tree):
    op = (Path(__file__).resolve().parents[1] / "fix" / "fixtures" / "op.yaml").read_text()
    shared = op.replace("bs: &batch 64", 'bs: &batch 64\nbuf: &buf "400"\nother_note: *buf').replace(
        'HCCL_BUFFSIZE: "400"', "HCCL_BUFFSIZE: *buf")
    f = tree / "t" / "op.yaml"
    f.write_text(shared)
    moecfg("--fix", str(f))
    assert 'buf: &buf "400"' in f.read_text()  # the anchor also sets other_note: not edited


def test_a_long_json_value_before_the_fixed_one_is_not_searched_backwards(tree):
    t = tree / "t"
    (t / "k3.json").write_text(K3)
    (t / ".moecfg.yaml").write_text(SETTINGS)
    long = f'"x": "{"-" * 100_000}", "y": "{"&" * 100_000} ", "mega_moe_max_tokens": 6144'
    (t / "s.sh").write_text(KIMI.replace("CONFIG", long))
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    code, _, err = moecfg("--diff", str(t))
    assert resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before < 10  # > 60 s before
    assert code == 1 and '"mega_moe_max_tokens": 8192' in err
