"""`moecfg buffer` overrides: dotted keys into mappings, list values, and the override winning."""
import json

from moecfg.checking.calculator import _apply, _parse_override
from moecfg.cli import main


def test_list_value_is_kept_as_a_list():
    assert _parse_override("dispatch_config=[24, 256, 6, 128]") == (["dispatch_config"], [24, 256, 6, 128])


def test_dotted_key_replaces_a_scalar_on_the_way():
    assert _apply({"env": 5}, [(["env", "HCCL_BUFFSIZE"], 1024)]) == {"env": {"HCCL_BUFFSIZE": 1024}}


def test_deepep_config_list_from_the_command_line(capsys):
    args = ["buffer", "--kind", "deepep", "--mode", "normal", "--num-ranks", "16", "--hidden", "7168",
            "--num-experts", "256", "--num-topk", "8", "--dispatch-config", "[24, 256, 6, 128]", "--format", "json"]
    try:
        main(args)
    except SystemExit as exc:
        assert exc.code == 0
    result = json.loads(capsys.readouterr().out)["results"][0]
    assert [d["code"] for d in result["diagnostics"] if d["severity"] == "error"] == []
    assert result["buffers"]["nvl"]["required_bytes"] > 0
