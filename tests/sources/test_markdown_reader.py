"""Launches in documentation (sources/documents/markdown.py): code blocks read as scripts, positions in the Markdown file,
placeholders unknown, prose never a finding."""
from __future__ import annotations

import time

from reader_helpers import FIXTURES, after, at, pos, words

from moecfg.backends import Options
from moecfg.checking.engine import lint_text
from moecfg.sources.documents.markdown import blocks, read_markdown


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def launches(text: str, name: str = "doc.md"):
    return [x for x in read_markdown(text, name).launches if "serve" in words(x) or "-m" in words(x)]


def test_export_block_then_launch_block_read_as_one_script():
    text = fixture("vllm-ascend-docs-dots3-export-then-launch.md")
    (launch,) = launches(text)
    assert pos(launch.argv[0].span)[:2] == (16, 1)  # `vllm` on line 16 of the Markdown file
    media = after(launch, "--allowed-local-media-path")
    assert media.value == "/path/to/local-image-root"  # exported in the block before (line 9)
    assert launch.env["MEDIA_DIR"].value == "/path/to/local-image-root"
    assert pos(launch.env["MEDIA_DIR"].span)[:2] == (9, 8)
    assert after(launch, "--tensor-parallel-size").value == "16"
    assert at(text, after(launch, "--tensor-parallel-size").span) == "16"
    assert launch.argv[2].value is None  # "$MODEL_PATH": set in an earlier section, unknown here


def test_tabs_are_separate_scripts_and_placeholders_unknown():
    text = fixture("vllm-ascend-docs-qwen38-a3-multinode-tabs.md")
    node0, worker = launches(text)
    assert after(node0, "--tensor-parallel-size").value == "16"
    assert after(node0, "--data-parallel-address").value is None  # export LOCAL_IP=<NODE0_LOCAL_IP>
    assert node0.env["HCCL_BUFFSIZE"].value == "1024"
    assert after(worker, "--data-parallel-start-rank").value is None  # <1_OR_2_OR_3>
    assert "--headless" in words(worker)
    assert pos(worker.argv[0].span)[:2] == (115, 1)
    problems = read_markdown(text, "doc.md").problems
    assert [p for p in problems if p.code == "MC020"] == []


def test_a_tab_or_heading_starts_a_new_script():
    text = ("# A\n\n```bash\nexport TP=4\n```\n\n```bash\nvllm serve m --tensor-parallel-size $TP\n```\n\n"
            "## B\n\n```bash\nvllm serve m --tensor-parallel-size $TP\n```\n\n"
            "::::{tab-item} x\n```bash\nexport TP=8\n```\n::::\n::::{tab-item} y\n```bash\n"
            "vllm serve m --tensor-parallel-size $TP\n```\n::::\n")
    same, after_heading, other_tab = launches(text)
    assert after(same, "--tensor-parallel-size").value == "4"
    assert after(after_heading, "--tensor-parallel-size").value is None
    assert after(other_tab, "--tensor-parallel-size").value is None


def test_prose_and_non_launch_blocks_give_nothing():
    text = ("# Install\n\nRun vllm serve --tensor-parallel-size \"unterminated in prose.\n\n```bash\n"
            "pip install 'vllm\nif then fi ((\n```\n\n```python\nimport os; os.system('vllm serve x -tp 3')\n```\n"
            "```\nINFO: serving with vllm serve model --tensor-parallel-size 0\n```\n")
    assert lint_text(text, "README.md", Options()) == []


def test_untagged_fence_is_read_when_a_line_starts_a_launch():
    """alibaba/rtp-llm@4b8d39cd5 docs/references/deepseek/deploy.md:23-36 writes its launches in untagged fences,
    assignments on the lines before the command."""
    text = ("```\nLD_PRELOAD=/usr/lib64/libjemalloc.so\nROLE_TYPE=PREFILL \\\n/opt/conda310/bin/python3 -m "
            "rtp_llm.start_server \\\n--tp_size 1 --dp_size 32\n```\n\n```\nvllm serve m --tensor-parallel-size 2\n```\n")
    first, second = launches(text)
    assert first.env["ROLE_TYPE"].value == "PREFILL" and first.argv[-1].value == "32"
    assert [w.value for w in second.argv][:2] == ["vllm", "serve"]


def test_console_block_reads_prompted_lines_only():
    text = ("```console\n$ pip install vllm\nCollecting vllm\n(venv) $ vllm serve m \\\n"
            "    --tensor-parallel-size 2\nINFO: started (vllm serve output --x)\n```\n")
    (launch,) = launches(text)
    assert pos(launch.argv[0].span)[:2] == (4, 10)
    assert after(launch, "--tensor-parallel-size").value == "2"
    assert words(launch)[-1] == "2"  # the output line after the command is not read


def test_fence_variants_and_rst():
    text = ("1. Step\n\n   ~~~sh\n   vllm serve a -tp 2\n   ~~~\n\n```{code-block} bash\nvllm serve b -tp 4\n```\n\n"
            "````bash\nvllm serve c -tp 8\n````\n")
    got = [(words(x)[2], pos(x.argv[0].span)[:2]) for x in launches(text)]
    assert got == [("a", (4, 4)), ("b", (8, 1)), ("c", (12, 1))]
    rst = "Title\n=====\n\n.. code-block:: bash\n   :caption: x\n\n   vllm serve d -tp 2\n\nprose\n"
    (launch,) = launches(rst, "doc.rst")
    assert words(launch)[2] == "d" and pos(launch.argv[0].span)[:2] == (7, 4)


def test_unclosed_fence_runs_to_the_end():
    (block,) = blocks("```bash\nvllm serve m\n")
    assert block.lang == "bash" and len(block.lines) == 2


def test_yaml_block_with_a_pod_is_read_at_its_markdown_lines():
    text = ("# Deploy\n\n```yaml\napiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  containers:\n"
            "  - name: c\n    command: [vllm, serve, m, --tensor-parallel-size, '8']\n```\n\n"
            "```yaml\nproduct: A3\nbs: 99999\n```\n")
    lf = read_markdown(text, "doc.md")
    (launch,) = lf.launches
    assert after(launch, "--tensor-parallel-size").value == "8"
    span = after(launch, "--tensor-parallel-size").span
    assert span.line == 10 and at(text, span) == "'8'"
    assert lint_text("```yaml\nproduct: A3\nbs: 99999\n```\n", "x.md", Options()) == []  # an example, not a deployment


def test_many_blocks_are_bounded():
    text = "```bash\necho hi\n```\n" * 20000 + "```bash\nvllm serve m -tp 2\n```\n"
    start = time.process_time()
    lf = read_markdown(text, "big.md")
    assert time.process_time() - start < 20
    assert not any("serve" in words(x) for x in lf.launches)  # past MAX_BLOCKS: not read


def test_escapes_in_markdown_do_not_reach_messages():
    text = "```bash\nvllm serve m --tensor-parallel-size \x1b[31m2\n```\n"
    for r in lint_text(text, "x.md", Options()):
        assert all("\x1b" not in d.message for d in r.diagnostics)


def test_dynamo_doc_launches_derive_like_the_script(tmp_path):
    text = fixture("dynamo-docs-dsr1-wideep-h100.md")
    prefill, decode = [x for x in read_markdown(text, "doc.md").launches if "dynamo.sglang" in words(x)]
    assert pos(prefill.argv[0].span)[:2] == (16, 1) and after(prefill, "--deepep-mode").value == "normal"
    assert after(decode, "--dist-init-addr").value is None  # ${HEAD_DECODE_NODE_IP}: set nowhere
    assert pos(after(decode, "--cuda-graph-bs").span)[:2] == (80, 19)
    (tmp_path / ".moecfg.yaml").write_text("models:\n  '*': deepseek-r1\n")
    (tmp_path / "guide.md").write_text(text)
    from moecfg.checking.engine import check_paths
    from moecfg.checking.settings import Settings

    report = check_paths([str(tmp_path)], Options(), Settings())
    got = [(r.launch["role"], r.arguments.get("mode"), r.arguments.get("num_ranks")) for r in report.results]
    assert got == [("prefill", "normal", 32), ("decode", "low_latency", 32)]


# ---- markdown-it-py's block structure (sources/documents/fences.py) ---------------------------------------------

def test_fences_come_from_markdown_it_line_maps():
    text = "# Serve\n\n1. Start:\n\n   ```bash\n   vllm serve m --tensor-parallel-size 4\n   ```\n\n> ```bash\n> vllm serve quoted\n> ```\n"
    (block,) = blocks(text)  # the quoted fence's lines carry `>`: not read as a script
    assert block.indent == 3 and [text[lo:hi] for lo, hi in block.lines] == ["   vllm serve m --tensor-parallel-size 4"]


def test_mkdocs_tabs_hold_fences_indented_by_four():
    text = ('=== "pip"\n\n    ```bash\n    export A=1\n    ```\n\n=== "docker"\n\n    ```bash\n    vllm serve m\n    ```\n'
            '\n## Next\n\n```sh\nvllm serve n\n```\n')
    found = blocks(text)
    assert [(b.lang, b.indent, [text[lo:hi].strip() for lo, hi in b.lines]) for b in found] == [
        ("bash", 4, ["export A=1"]), ("bash", 4, ["vllm serve m"]), ("sh", 0, ["vllm serve n"])]
    assert found[0].section == found[1].section != found[2].section  # the heading starts a new section


def test_a_myst_directive_body_is_markdown_and_its_own_section():
    text = "````{tab-item} Node 0\n```bash\nvllm serve a\n```\n````\n````{tab-item} Node 1\n```bash\nvllm serve b\n```\n````\n"
    first, second = blocks(text)
    assert text.count("\n", 0, first.lines[0][0]) == 2 and text.count("\n", 0, second.lines[0][0]) == 7
    assert first.section != second.section


def test_a_fence_marker_in_prose_or_inline_code_is_no_fence():
    from moecfg.sources.documents.fences import has_fence

    assert has_fence("Run it:\n\n```bash\nvllm serve m\n```\n")
    assert not has_fence("vllm serve m  # see ```docs``` inline")
    assert not has_fence("vllm serve m --x 1")
