"""tools/gen_lmdeploy_flags.py on small hand-written sources shaped like lmdeploy/cli/serve.py and cli/utils.py (no
wheel, no download): direct add_argument calls and ArgumentHelper methods, keyword defaults bound as the call binds
them, releases merged into one row per identical argument."""
from __future__ import annotations

import importlib.util
from pathlib import Path

_SPEC = importlib.util.spec_from_file_location("gen", Path(__file__).resolve().parents[2] / "tools/gen_lmdeploy_flags.py")
gen = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(gen)

UTILS = '''
class ArgumentHelper:
    @staticmethod
    def tp(parser):
        return parser.add_argument('--tp', type=int, default=1, help='tp')

    @staticmethod
    def device(parser, default: str = 'cuda', choices=['cuda', 'ascend']):
        return parser.add_argument('--device', type=str, default=default, choices=choices)

    @staticmethod
    def eager_mode(parser):
        return parser.add_argument('--eager-mode', action='store_true', default=False)

    @staticmethod
    def add_spec_group(parser):
        g = parser.add_argument_group('spec')
        g.add_argument('--speculative-num-draft-tokens', type=int, default=1)
        return g

    @staticmethod
    def unused(parser):
        return parser.add_argument('--not-in-api-server')
'''


def serve(extra: str = "") -> str:
    return f'''
class SubCliServe:
    @staticmethod
    def add_parser_api_server():
        parser = SubCliServe.subparsers.add_parser('api_server')
        parser.add_argument('model_path', type=str)
        parser.add_argument('--allow-origins', nargs='+', type=str, default=['*'])
        ArgumentHelper.tp(parser)
        ArgumentHelper.device(pt_group, default='ascend')
        ArgumentHelper.eager_mode(pt_group)
        ArgumentHelper.add_spec_group(parser)
        {extra}
'''


def test_rows_of_one_release():
    rows = {r[0]: r[1:] for r in gen.api_server_rows({"lmdeploy/cli/utils.py": UTILS, "lmdeploy/cli/serve.py": serve()})}
    assert rows[("--tp",)] == ("value", 1) and rows[("--eager-mode",)] == ("flag", False)
    assert rows[("--device",)] == ("value", "ascend")  # the call's keyword wins over the helper's default
    assert rows[("--allow-origins",)] == ("list", ["*"]) and rows[("--speculative-num-draft-tokens",)] == ("value", 1)
    assert ("model_path",) in rows and ("--not-in-api-server",) not in rows


def test_releases_merge_into_ranges():
    a = {"lmdeploy/cli/utils.py": UTILS, "lmdeploy/cli/serve.py": serve()}
    b = {"lmdeploy/cli/utils.py": UTILS, "lmdeploy/cli/serve.py": serve("parser.add_argument('--ep', type=int, default=1)")}
    data = gen.table([("0.12.1", a, "x"), ("0.13.0", a, "y"), ("0.14.0", b, "z")])
    where = {tuple(r[0]): r[3] for r in data["rows"]}
    assert where[("--tp",)] == "0-2" and where[("--ep",)] == "2"
    assert data["releases"] == ["0.12.1", "0.13.0", "0.14.0"] and data["sources"]["0.13.0"] == "y"
