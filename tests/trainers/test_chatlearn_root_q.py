"""ChatLearn's own scripts run from the repository root (`python chatlearn/entrypoint.py grpo --config-file
template/grpo_megatron.yaml ...`, scripts/*/train_*.sh): the config file is found where the relative entry script is,
the nearest folder above the script inside the checked tree, so its `rollout_backend: vllm` is read (it was "cannot
read (No such file or directory)" and "rollout engine not derived").

Fixture (fixtures/chatlearn_root_q/): alibaba/ChatLearn@b7af31a scripts/mcore_vllm/train_mcore_vllm_qwen3_30b_grpo.sh,
template/grpo_megatron.yaml, and the place of chatlearn/entrypoint.py.
"""
from __future__ import annotations

from pathlib import Path

from moecfg import frameworks
from moecfg.frameworks import LaunchContext
from moecfg.sources import contained
from moecfg.sources.readers import read_shell
from moecfg.sources.recipes import chatlearn as reader

ROOT = Path(__file__).resolve().parent / "fixtures" / "chatlearn_root_q"
SCRIPT = ROOT / "scripts" / "mcore_vllm" / "train_mcore_vllm_qwen3_30b_grpo.sh"


def _derive(text: str, root: Path = ROOT):
    ctx = LaunchContext(file=str(SCRIPT))
    (launch,) = [x for x in read_shell(text).launches if frameworks.recognise(x, ctx)]
    with contained.checking(str(root)):
        return frameworks.recognise(launch, ctx).derive(launch, ctx)


def test_the_config_beside_the_relative_entry_script_is_read():
    d = _derive(SCRIPT.read_text())
    assert not [n.message for n in d.notes if n.code == "MC023" and "--config-file" in n.message]
    assert [c.role for c in d.calls] == ["train", "rollout"]  # rollout_backend: vllm, from template/grpo_megatron.yaml
    assert not [u.reason for u in d.unread if "rollout engine not derived" in u.reason]


def test_the_working_folder_is_the_script_folder_when_the_entry_is_beside_it_or_nowhere():
    with contained.checking(str(ROOT)):
        assert reader.working_folder(str(SCRIPT), "chatlearn/entrypoint.py") == str(ROOT)
        assert reader.working_folder(str(SCRIPT), "chatlearn_entrypoint.py") == str(SCRIPT.parent)  # Pai: beside
        assert reader.working_folder(str(SCRIPT), None) == str(SCRIPT.parent)
        assert reader.working_folder(str(SCRIPT), "/abs/chatlearn/entrypoint.py") == str(SCRIPT.parent)


def test_nothing_above_the_checked_tree_is_looked_at():
    # checked from the script's own folder: the repository root is outside the tree, the config stays unread
    d = _derive(SCRIPT.read_text(), root=SCRIPT.parent)
    (n,) = [n for n in d.notes if n.code == "MC023" and "--config-file" in n.message]
    assert "template/grpo_megatron.yaml" in n.message
