"""Issue 21 item 3: a YAML string that is documentation is not read as a script."""
from __future__ import annotations

from wildkit import findings

from moecfg.sources.manifests.commands import _is_command


def test_a_markdown_guide_is_not_a_script():
    assert findings("recipes-guide-prose.yaml") == []


def test_command_keys_and_launcher_starts_are_still_commands():
    assert _is_command(("deploy", "command"), "# start the server\nvllm serve m --tensor-parallel-size 8")
    assert _is_command(("server_cmd",), "vllm serve m")
    assert _is_command(("decode",), "VLLM_USE_V1=1 exec vllm serve m --tensor-parallel-size 8")


def test_prose_mentioning_a_launcher_is_not_a_command():
    assert not _is_command(("description",), "Start it with vllm serve m, then curl the port.")
    assert not _is_command(("command",), "## Serve\n\n```bash\nvllm serve m\n```\n")
