"""sweep: JSON against direct formula calls, the chart's limit lines, --plot without matplotlib."""
from __future__ import annotations

import importlib.util
import json

import pytest
from click.testing import CliRunner

from moecfg.backends.ascend.shared import formulas as fx
from moecfg.cli import cli


def sweep(*args):
    return CliRunner().invoke(cli, ["sweep", "--product", "A3", "--model", "deepseek-v3", *args])


def test_sweep_json_equals_the_formulas():
    out = sweep("--ep", "32", "--bs", "1:512:17", "--comm-alg", "fullmesh_v1,fullmesh_v2,hierarchy",
                "--rulesets", "9.0", "--format", "json")
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    xs = data["x"]
    assert xs == list(range(1, 513, 17)) and data["fixed"] == {"ep_world_size": 32}
    v1, v2, hier = data["series"]
    for i, bs in enumerate(xs):
        assert v1["required_bytes"][i]["ep"] == fx.a3_ep_window_bytes(7168, 8, 32, 8, bs, 0, False)
        assert v2["required_bytes"][i]["ep"] == fx.a3_ep_window_bytes(7168, 8, 32, 8, bs, 0, True)
        assert hier["required_bytes"][i]["ep"] == fx.a3_hierarchy_window_bytes(7168, 8, 256, bs)
        assert v1["required_mb"][i] == fx.ceil_mb(v1["required_bytes"][i]["ep"])


def test_sweep_vs_ep_and_across_rule_sets():
    # A3 hierarchy does not exist in 8.5: that series is not computable (None)
    out = sweep("--ep", "16:64:16", "--bs", "64", "--comm-alg", "hierarchy", "--rulesets", "8.5,9.0", "--format", "json")
    data = json.loads(out.output)
    assert data["vs"] == "ep_world_size" and data["fixed"] == {"bs": 64}
    r85, r90 = data["series"]
    assert r85["required_mb"] == [None] * 4
    assert r90["required_bytes"][0]["ep"] == fx.a3_hierarchy_window_bytes(7168, 8, 256, 64)


def test_limits_configured_buffer_and_device_memory():
    data = json.loads(sweep("--ep", "32", "--bs", "8,16", "--buffer", "1024", "--format", "json").output)
    limits = data["limits_mb"]
    assert limits["configured buffer"] == 1024
    [(name, mb)] = [(k, v) for k, v in limits.items() if k.startswith("device memory")]
    assert mb == 64 * 1024 // 2  # 64 GB per die, 2 buffers (send + receive) of the EP communicator


def test_text_chart_draws_the_limit_line():
    out = sweep("--ep", "32", "--bs", "1:512", "--buffer", "1024")
    assert out.exit_code == 0
    assert "| configured buffer = 1024 MB" in out.output
    assert "off the scale" in out.output  # 32768 MB device line far above a 3.8 GB maximum
    bars = [line for line in out.output.splitlines() if "|" in line and "█" in line]
    assert bars


def test_one_axis_only():
    out = sweep("--ep", "16:32", "--bs", "1:8")
    assert out.exit_code == 2 and "one axis" in out.output


def test_unknown_rule_set():
    out = sweep("--ep", "32", "--bs", "8", "--rulesets", "7.0")
    assert out.exit_code == 2 and "rule set '7.0'" in out.output


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is not None, reason="matplotlib installed")
def test_plot_without_matplotlib_is_a_clear_usage_error(tmp_path):
    out = sweep("--ep", "32", "--bs", "1:8", "--plot", str(tmp_path / "x.svg"))
    assert out.exit_code == 2 and "pip install 'moecfg[plot]'" in out.output


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="matplotlib not installed")
def test_plot_writes_svg(tmp_path):
    path = tmp_path / "x.svg"
    assert sweep("--ep", "32", "--bs", "1:64", "--buffer", "512", "--plot", str(path)).exit_code == 0
    assert path.read_text().lstrip().startswith("<?xml")
