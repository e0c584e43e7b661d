"""trainers/mindspeed_llm_fsdp2: a MindSpeed-LLM FSDP2 config (`torchrun ... train_fsdp2.py <config>.yaml`) is read:
its `parallel.ep_size` and `ep_dispatcher` (Ascend/MindSpeed-LLM@c77308a mindspeed_llm/fsdp2/utils/arguments.py:382,
431-439); eager / fused run torch all_to_all_single over the EP group (expert_parallel/dispatcher.py:138-181:
nothing to size), mc2 runs fsdp_turbo's fused kernels (not read: listed as not derived).

Fixture: fixtures/mindspeed_llm_fsdp2/glm52_744b_4k_fsdp2_A3.yaml (examples/fsdp2/glm52/glm52_744b_4k_fsdp2_A3.yaml:
EP 128, eager).
"""
from __future__ import annotations

from pathlib import Path

from moecfg import frameworks
from moecfg.frameworks import LaunchContext
from moecfg.sources.manifests.yaml_source import parse_stream
from moecfg.sources.readers import read_shell, read_yaml_document

CONFIG = Path(__file__).resolve().parent / "fixtures" / "mindspeed_llm_fsdp2" / "glm52_744b_4k_fsdp2_A3.yaml"
MM = Path(__file__).resolve().parent / "fixtures" / "mindspeed_mm" / "qwen3_5_122B_config.yaml"
CTX = LaunchContext()


def _launch(text: str, path: Path = CONFIG):
    (doc,) = parse_stream(text)
    (launch,) = read_yaml_document(doc, text, str(path), str(path.parent)).launches
    return launch


def _derive(text: str | None = None):
    launch = _launch(CONFIG.read_text() if text is None else text)
    module = frameworks.recognise(launch, CTX)
    assert module.NAME == "mindspeed-llm-fsdp2"
    return module.derive(launch, CTX)


def test_the_config_is_read_and_eager_has_nothing_to_size():
    d = _derive()
    (call,) = d.calls
    assert call.kind == "none" and not d.unread and not d.notes
    assert call.derivation["ep_size"] == "128 <- parallel.ep_size"
    assert "eager: torch all_to_all_single" in call.why_none


def test_mc2_is_listed_as_not_derived():
    d = _derive(CONFIG.read_text().replace("ep_dispatcher: eager", "ep_dispatcher: mc2"))
    (u,) = d.unread
    assert "ep_size 128" in u.reason and "fsdp_turbo" in u.reason


def test_ep_one_or_the_default_has_no_dispatch():
    mc2 = CONFIG.read_text().replace("ep_dispatcher: eager", "ep_dispatcher: mc2")
    d = _derive(mc2.replace("ep_size: 128", "ep_size: 1"))
    assert not d.unread and "no expert parallelism" in d.calls[0].why_none
    d = _derive(mc2.replace("  ep_size: 128\n", ""))
    assert "(MindSpeed-LLM's default" in d.calls[0].derivation["ep_size"] and not d.unread


def test_a_mindspeed_mm_config_stays_mindspeed_mm():
    assert frameworks.recognise(_launch(MM.read_text(), MM), CTX).NAME == "mindspeed-mm"


def test_the_shell_launch_names_its_config():
    (launch,) = read_shell("torchrun $DISTRIBUTED_ARGS train_fsdp2.py examples/fsdp2/glm52/glm52_744b_4k_fsdp2_A3.yaml"
                           "\n").launches
    module = frameworks.recognise(launch, CTX)
    assert module.NAME == "mindspeed-llm-fsdp2"
    assert "glm52_744b_4k_fsdp2_A3.yaml: checked as its own file" in module.derive(launch, CTX).unread[0].reason


def test_a_drawn_tree_or_a_copy_naming_the_entry_is_no_launch():
    for line in ("└── train_fsdp2.py            # FSDP2 训练流程\n", "cp train_fsdp2.py /tmp/x/\n"):
        for launch in read_shell(line).launches:
            assert frameworks.recognise(launch, CTX) is None or frameworks.recognise(launch, CTX).NAME != \
                "mindspeed-llm-fsdp2"
