"""MC040 "framework version assumed" once per run per assumption (framework, version, reason), as MC042's questions:
vllm-project/recipes gave 769 identical MC040 infos, one per strategy launch; one pin answers them all."""
from __future__ import annotations

from moecfg.backends import Options
from moecfg.checking.engine import check_paths

VLLM = "vllm serve deepseek-ai/DeepSeek-V3 --tensor-parallel-size 8 --enable-expert-parallel\n"
SGLANG = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --moe-a2a-backend deepep\n"
LMDEPLOY = "lmdeploy serve api_server /models/dsv3 --backend pytorch --device ascend --tp 16 --dp 2"


def _write(tmp_path, texts: dict) -> list[str]:
    for name, text in texts.items():
        (tmp_path / name).write_text(text)
    return [str(tmp_path / n) for n in texts]


def _said(paths, options=Options()) -> list:
    report = check_paths(paths, options)
    return [(r.file, d) for r in report.results for d in r.diagnostics if d.code == "MC040"]


def test_n_launches_of_one_assumption_get_one_mc040_naming_n(tmp_path):
    names = _write(tmp_path, {"a.sh": VLLM, "b.sh": VLLM, "c.sh": VLLM + VLLM})  # c.sh: two launches
    said = _said(names)
    assert len(said) == 1
    file, d = said[0]
    assert file == names[0] and d.severity == "info"
    assert "said once for the 4 launches it covers" in d.message
    assert names[1] in d.message and names[2] in d.message


def test_one_launch_keeps_its_message_as_it_was(tmp_path):
    (file, d), = _said(_write(tmp_path, {"a.sh": VLLM}))
    assert "said once" not in d.message and "vLLM version not given" in d.message


def test_two_frameworks_two_mc040(tmp_path):
    said = _said(_write(tmp_path, {"a.sh": VLLM, "b.sh": SGLANG, "c.sh": VLLM, "d.sh": SGLANG}))
    assert len(said) == 2
    assert {"vLLM version not given" in d.message for _, d in said} == {True, False}
    assert all("for the 2 launches" in d.message for _, d in said)


def test_a_different_reason_is_another_mc040(tmp_path):
    # the same framework, once unpinned and once pinned by an image newer than every release table read
    pinned = ("apiVersion: v1\nkind: Pod\nmetadata: {name: dsv3}\nspec:\n  containers:\n    - name: vllm\n"
              "      image: vllm/vllm-openai:v9.9.0\n      command: [" + ", ".join(VLLM.split()) + "]\n")
    said = _said(_write(tmp_path, {"a.sh": VLLM, "b.yaml": pinned, "c.sh": VLLM}))
    by_file = {file.rsplit("/", 1)[1]: d.message for file, d in said}
    assert sorted(by_file) == ["a.sh", "b.yaml"]
    assert "for the 2 launches" in by_file["a.sh"] and "v9.9.0" in by_file["b.yaml"]
    assert "said once" not in by_file["b.yaml"]


def test_lmdeploy_counts_only_its_ep_launches(tmp_path):
    # LMDeploy says MC040 only where the release changes the verdict: launches with expert parallelism
    ep = LMDEPLOY + " --ep 32\n"
    names = _write(tmp_path, {"a.sh": LMDEPLOY + "\n", "b.sh": ep, "c.sh": ep})
    said = _said(names)
    assert len(said) == 1 and said[0][0] == names[1]
    assert "for the 2 launches" in said[0][1].message and names[0] not in said[0][1].message


def test_a_second_run_in_the_same_process_starts_fresh(tmp_path):
    names = _write(tmp_path, {"a.sh": VLLM, "b.sh": VLLM, "c.sh": VLLM})
    first, second = _said(names), _said(names)
    assert [d.message for _, d in first] == [d.message for _, d in second]
    assert len(second) == 1 and "for the 3 launches" in second[0][1].message
    (alone, d), = _said(names[:1])
    assert "said once" not in d.message
