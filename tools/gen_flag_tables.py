#!/usr/bin/env python3
"""Generate moecfg's vLLM / SGLang flag tables from the frameworks' released argument code.

For each release the script reads a few Python files of the released wheel (never imports them) and walks the
functions that build the argparse parser (vLLM: `make_arg_parser` -> `FrontendArgs.add_cli_args`,
`AsyncEngineArgs.add_cli_args` -> `EngineArgs.add_cli_args`, whose `**get_kwargs(Config)["field"]` follow
`vllm/engine/arg_utils.py` `_compute_kwargs`; SGLang: `ServerArgs.add_cli_args`). Each `add_argument` becomes one
row: option strings, how argparse reads it (kind), value type, default.

    python tools/gen_flag_tables.py --framework sglang --versions 0.5.8 0.5.9 --download
    python tools/gen_flag_tables.py --framework vllm --tree /tmp/src/vllm   # trees of extracted wheels, one per version
    python tools/gen_flag_tables.py --framework vllm --tree /tmp/src/vllm --update  # only those versions replaced
    python tools/gen_flag_tables.py --framework sglang --fork sglang-kt --tree /tmp/src/sglang-kt  # a fork's wheel

Writes moecfg/frameworks/flag_tables/<framework>.json: {"releases": [...], "rows": [[names, kind, type, default,
"0-4,7"], ...]} where the last field lists the releases (indexes) whose parser has that row: identical rows are
stored once, so the file stays small however many releases it covers. No download happens at run time or in CI.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile

OUT = os.path.join(os.path.dirname(__file__), "..", "moecfg", "frameworks", "flag_tables")
# files the parsers are built from (prefix match inside the wheel)
FILES = {
    "vllm": ("vllm/engine/arg_utils.py", "vllm/config/", "vllm/config.py", "vllm/entrypoints/"),
    "sglang": ("sglang/srt/server_args.py", "sglang/srt/arg_groups/"),
}
ENTRY = {"vllm": "make_arg_parser", "sglang": "ServerArgs.add_cli_args"}
NO_VALUE = ("store_true", "store_false", "store_const", "count", "help", "version")


# ---------------------------------------------------------------- reading a release

def wheel_sources(path: str, framework: str) -> dict[str, str]:
    with zipfile.ZipFile(path) as z:
        return {n: z.read(n).decode("utf-8", "replace") for n in z.namelist()
                if n.endswith(".py") and n.startswith(FILES[framework])}


def tree_sources(root: str, framework: str) -> dict[str, str]:
    out = {}
    for dirpath, _, names in os.walk(root):
        for n in names:
            rel = os.path.relpath(os.path.join(dirpath, n), root).replace(os.sep, "/")
            if rel.endswith(".py") and rel.startswith(FILES[framework]):
                with open(os.path.join(dirpath, n), encoding="utf-8", errors="replace") as fh:
                    out[rel] = fh.read()
    return out


def download(framework: str, version: str, dest: str) -> str:
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", f"{framework}=={version}", "-d", dest],
                   check=True)
    return next(os.path.join(dest, n) for n in os.listdir(dest) if n.endswith(".whl"))


# ---------------------------------------------------------------- the program model

class Program:
    """Classes (fields, methods), functions and type aliases of the files read."""

    def __init__(self, sources: dict[str, str]):
        self.classes: dict[str, ast.ClassDef] = {}
        self.functions: dict[str, ast.FunctionDef] = {}
        self.aliases: dict[str, str] = {}
        for path in sorted(sources):
            try:
                tree = ast.parse(sources[path])
            except SyntaxError:
                continue
            for node in tree.body:
                if isinstance(node, ast.ClassDef):
                    self.classes.setdefault(node.name, node)
                elif isinstance(node, ast.FunctionDef):
                    self.functions.setdefault(node.name, node)
                elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                    self.aliases.setdefault(node.targets[0].id, ast.unparse(node.value))
                elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                    if "TypeAlias" in ast.unparse(node.annotation):
                        self.aliases.setdefault(node.target.id, ast.unparse(node.value))
                elif type(node).__name__ == "TypeAlias":  # `type X = ...` (Python 3.12)
                    self.aliases.setdefault(node.name.id, ast.unparse(node.value))

    def fields(self, cls: str, seen=()) -> dict[str, ast.AnnAssign]:
        node = self.classes.get(cls)
        if node is None or cls in seen:
            return {}
        out: dict[str, ast.AnnAssign] = {}
        for base in node.bases:
            out.update(self.fields(ast.unparse(base).split("[")[0].rsplit(".", 1)[-1], seen + (cls,)))
        for st in node.body:
            if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and "ClassVar" not in \
                    ast.unparse(st.annotation):
                out[st.target.id] = st
        return out

    def method(self, cls: str, name: str) -> ast.FunctionDef | None:
        node = self.classes.get(cls)
        if node is None:
            return None
        for st in node.body:
            if isinstance(st, ast.FunctionDef) and st.name == name:
                return st
        for base in node.bases:
            found = self.method(ast.unparse(base).rsplit(".", 1)[-1], name)
            if found is not None:
                return found
        return None

    def expand(self, text: str, depth: int = 0) -> str:
        """A type annotation with the module-level aliases it names written out (a few levels)."""
        if depth > 4:
            return text

        def repl(m):
            name = m.group(0)
            return "(" + self.expand(self.aliases[name], depth + 1) + ")" if name in self.aliases else name
        return re.sub(r"\b[A-Z][A-Za-z0-9_]*\b", repl, text)

    def is_dict_subclass(self, name: str, seen=()) -> bool:
        """A class deriving from `dict` (`class MultiModalDummyOptions(dict[str, ...])`), TypedDicts excluded, as
        vLLM's arg_utils.py is_dict_subclass (0.31.0+) decides."""
        node = self.classes.get(name)
        if node is None or name in seen:
            return False
        bases = [ast.unparse(b).split("[")[0].rsplit(".", 1)[-1] for b in node.bases]
        if "TypedDict" in bases:
            return False
        return any(b in ("dict", "Dict") or self.is_dict_subclass(b, seen + (name,)) for b in bases)

    def is_dataclass(self, name: str) -> bool:
        node = self.classes.get(name)
        return node is not None and any("dataclass" in ast.unparse(d) or "config" == ast.unparse(d)
                                        for d in node.decorator_list)

    def default(self, node, depth: int = 0):
        """A JSON-able default from an expression (None when not a literal or a field of a known class)."""
        if node is None or depth > 5:
            return None
        if isinstance(node, ast.Constant):
            return node.value if isinstance(node.value, (int, float, str, bool)) or node.value is None else None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
            v = node.operand.value
            return -v if isinstance(v, (int, float)) and not isinstance(v, bool) else None
        if isinstance(node, (ast.List, ast.Tuple)):
            items = [self.default(e, depth + 1) for e in node.elts]
            return items if all(isinstance(i, (int, float, str)) for i in items) else None
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):  # ServerArgs.tp_size
            f = self.fields(node.value.id).get(node.attr)
            return self.field_default(f, depth + 1) if f is not None else None
        if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("get_field") and len(node.args) == 2:
            cls, name = node.args
            if isinstance(cls, ast.Name) and isinstance(name, ast.Constant):
                return self.field_default(self.fields(cls.id).get(name.value), depth + 1)
        return None

    def field_default(self, f: ast.AnnAssign | None, depth: int = 0):
        if f is None or f.value is None:
            return None
        v = f.value
        if isinstance(v, ast.Call) and ast.unparse(v.func) in ("field", "dataclasses.field", "Field"):
            for kw in v.keywords:
                if kw.arg == "default":
                    return self.default(kw.value, depth)
            return None
        return self.default(v, depth)


# ---------------------------------------------------------------- vLLM get_kwargs(Config) as _compute_kwargs does

class Expr(str):
    """The source text of an expression the walker does not evaluate (`optional_type(json.loads)`)."""


def members(prog: Program, node, depth: int = 0) -> list:
    """Top-level members of a type annotation: Optional / Union / `|` / Annotated unwrapped, aliases expanded."""
    if depth > 6 or node is None:
        return []
    if isinstance(node, ast.Constant) and isinstance(node.value, str):  # a string annotation
        try:
            return members(prog, ast.parse(node.value, mode="eval").body, depth + 1)
        except SyntaxError:
            return []
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return members(prog, node.left, depth + 1) + members(prog, node.right, depth + 1)
    if isinstance(node, ast.Subscript):
        origin = ast.unparse(node.value).rsplit(".", 1)[-1]
        inner = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if origin in ("Optional", "Union"):
            return [m for e in inner for m in members(prog, e, depth + 1)] + (["None"] if origin == "Optional" else [])
        if origin in ("Annotated", "SkipValidation", "Required", "NotRequired", "Final"):
            return members(prog, inner[0], depth + 1)
        return [(origin, inner)]
    name = ast.unparse(node).rsplit(".", 1)[-1]
    if name in prog.aliases:
        try:
            return members(prog, ast.parse(prog.aliases[name], mode="eval").body, depth + 1)
        except SyntaxError:
            return [name]
    return [name]


def _origin(m) -> str:
    return m[0] if isinstance(m, tuple) else m


def _element_type(m) -> str:
    inner = m[1] if isinstance(m, tuple) and m[1] else []
    text = ast.unparse(inner[0]) if inner else "str"
    return "int" if text == "int" else "float" if text == "float" else "str"


# types whose __module__ is "builtins" (vLLM's is_not_builtin): dict with any other member is union_dict_and_str
_BUILTIN = ("dict", "Dict", "int", "float", "bool", "list", "List", "tuple", "Tuple", "set", "bytes", "None")


def field_kwargs(prog: Program, cls: str) -> dict[str, dict]:
    """{field: argparse kwargs} of a config dataclass, in the order of vLLM's get_kwargs (_compute_kwargs):
    dataclass -> JSON, bool -> BooleanOptionalAction, Literal -> choices, tuple / list -> nargs +, int, float,
    dict -> JSON, else str. From vLLM 0.31.0 (arg_utils.py defines is_dict_subclass) a subclass of dict counts as
    dict: `--limit-mm-per-prompt` (MultiModalDummyOptions) is JSON there, dotted sub-keys included."""
    out = {}
    dict_subclasses = "is_dict_subclass" in prog.functions
    union = "union_dict_and_str" in prog.functions
    for name, f in prog.fields(cls).items():
        ms = members(prog, f.annotation)
        origins = [_origin(m) for m in ms]
        if dict_subclasses:
            origins = ["dict" if prog.is_dict_subclass(o) else o for o in origins]
        kw: dict = {"default": prog.field_default(f)}
        if any(prog.is_dataclass(o) for o in origins):
            kw["type"] = "json"
        elif "bool" in origins:
            kw["action"] = "BooleanOptionalAction"
        elif "Literal" in origins:
            lits = [e for m in ms if _origin(m) == "Literal" for e in m[1]]
            kw["type"] = "int" if lits and all(isinstance(e, ast.Constant) and type(e.value) is int for e in lits) \
                else "str"
        elif any(o in ("tuple", "Tuple", "list", "List", "Sequence") for o in origins):
            m = next(m for m in ms if _origin(m) in ("tuple", "Tuple", "list", "List", "Sequence"))
            kw["type"], kw["nargs"] = _element_type(m), "+"
        elif "int" in origins:
            kw["type"] = "int"
        elif "float" in origins:
            kw["type"] = "float"
        elif any(o in ("dict", "Dict") for o in origins) and union and any(o not in _BUILTIN for o in origins):
            kw["type"] = "union_dict_and_str"  # `dict | str` (or a class): a plain string is taken as it is
        elif any(o in ("dict", "Dict") for o in origins):
            kw["type"] = "json"
        else:
            kw["type"] = "str"
        out[name] = kw
    return out


# ---------------------------------------------------------------- walking the parser-building code

class Walker:
    """Runs the statements of the parser-building functions abstractly and records every add_argument."""

    def __init__(self, prog: Program):
        self.prog = prog
        self.rows: list[dict] = []
        self.visited: set[str] = set()
        self.unresolved = 0

    def call_function(self, fn: ast.FunctionDef, key: str, env: dict | None = None) -> None:
        if key in self.visited:
            return
        self.visited.add(key)
        self.block(fn.body, dict(env or {}))

    def block(self, body, env: dict) -> None:
        for st in body:
            self.statement(st, env)

    def statement(self, st, env: dict) -> None:
        if isinstance(st, (ast.If, ast.Try, ast.With)):
            for part in ("body", "orelse", "finalbody"):
                self.block(getattr(st, part, []) or [], env)
            for h in getattr(st, "handlers", []) or []:
                self.block(h.body, env)
        elif isinstance(st, ast.For):
            for binding in self.iterate(st, env):
                self.block(st.body, {**env, **binding})
        elif isinstance(st, ast.Assign):
            self.assign(st, env)
        elif isinstance(st, ast.Delete):
            for t in st.targets:
                if isinstance(t, ast.Subscript):
                    target = self.value(t.value, env)
                    key = self.value(t.slice, env)
                    if isinstance(target, dict) and key in target:
                        del target[key]
        elif isinstance(st, (ast.Expr, ast.Return)) and st.value is not None:
            self.expression(st.value, env)

    def assign(self, st: ast.Assign, env: dict) -> None:
        self.expression(st.value, env)
        value = self.value(st.value, env)
        for t in st.targets:
            if isinstance(t, ast.Name):
                env[t.id] = value
            elif isinstance(t, ast.Subscript):  # frontend_kwargs["x"]["type"] = json.loads
                target = self.value(t.value, env)
                key = self.value(t.slice, env)
                if isinstance(target, dict) and isinstance(key, str):
                    target[key] = value if value is not None else Expr(_text(st.value))
                    if key == "default":
                        target["_default_node"] = st.value

    def iterate(self, st: ast.For, env: dict):
        it = st.iter
        names = [st.target.id] if isinstance(st.target, ast.Name) else \
            [e.id if isinstance(e, ast.Name) else None for e in getattr(st.target, "elts", [])]
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr == "items":
            d = self.value(it.func.value, env)
            if isinstance(d, dict):
                return [dict(zip(names, (k, v))) for k, v in d.items()]
        seq = self.value(it, env)
        if isinstance(seq, list):
            out = []
            for item in seq:
                vals = item if isinstance(item, tuple) and len(names) > 1 else (item,)
                out.append(dict(zip(names, vals)))
            return out
        self.unresolved += 1
        return []

    def value(self, node, env: dict):
        """Abstract value: str / int / dict (kwargs) / list / tuple / ('expr', text) / None."""
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return env.get(node.id, Expr(node.id))
        if isinstance(node, ast.JoinedStr):
            parts = []
            for v in node.values:
                if isinstance(v, ast.Constant):
                    parts.append(str(v.value))
                else:
                    inner = self.value(v.value, env)
                    if not isinstance(inner, str):
                        return None
                    parts.append(inner)
            return "".join(parts)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "replace":
            base = self.value(node.func.value, env)
            args = [self.value(a, env) for a in node.args]
            if isinstance(base, str) and len(args) == 2 and all(isinstance(a, str) for a in args):
                return base.replace(*args)
        if isinstance(node, ast.Call) and ast.unparse(node.func).rsplit(".", 1)[-1] == "get_kwargs" and node.args:
            cls = self.value(node.args[0], env) if isinstance(node.args[0], ast.Name) else None
            return field_kwargs(self.prog, str(cls) if isinstance(cls, str) else
                                ast.unparse(node.args[0]).rsplit(".", 1)[-1])
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "pop":
            base = self.value(node.func.value, env)
            key = self.value(node.args[0], env) if node.args else None
            if isinstance(base, dict):
                return base.pop(key, self.value(node.args[1], env) if len(node.args) > 1 else None)
        if isinstance(node, ast.Call) and node.args and isinstance(self.value(node.args[0], env), dict) and \
                "customize" in ast.unparse(node.func):
            return self.value(node.args[0], env)  # cls._customize_cli_kwargs(kwargs): edits and returns the dict
        if isinstance(node, ast.Subscript):
            base = self.value(node.value, env)
            key = self.value(node.slice, env)
            if isinstance(base, dict) and isinstance(key, str):
                return base.get(key)
            return None
        if isinstance(node, (ast.List, ast.Tuple)):
            items = [self.value(e, env) for e in node.elts]
            return items if isinstance(node, ast.List) else tuple(items)
        if isinstance(node, ast.Dict):
            out = {}
            for k, v in zip(node.keys, node.values):
                if k is None:
                    sub = self.value(v, env)
                    if isinstance(sub, dict):
                        out.update(sub)
                else:
                    out[self.value(k, env)] = self.value(v, env)
            return out
        if isinstance(node, ast.Call) and ast.unparse(node.func) in ("dict", "copy.deepcopy", "deepcopy"):
            base = self.value(node.args[0], env) if node.args else {}
            if isinstance(base, dict):
                base = json.loads(json.dumps(base, default=str))
                for kw in node.keywords:
                    base[kw.arg] = self.value(kw.value, env)
                return base
        return Expr(_text(node))

    def expression(self, node, env: dict) -> None:
        for call in [n for n in ast.walk(node) if isinstance(n, ast.Call)]:
            self.call(call, env)

    def call(self, call: ast.Call, env: dict) -> None:
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr == "add_argument":
            self.add_argument(call, env)
        elif ast.unparse(func).rsplit(".", 1)[-1] == "add_cli_args_from_dataclass" and len(call.args) >= 2:
            self.rows.extend(dataclass_rows(self.prog, ast.unparse(call.args[1]).rsplit(".", 1)[-1]))
        elif isinstance(func, ast.Attribute) and func.attr in ("add_cli_args", "_add_cli_args") and \
                isinstance(func.value, ast.Name):
            fn = self.prog.method(func.value.id, func.attr)
            if fn is not None:  # a classmethod inherited from a base: `cls` is the class it was called on
                self.call_function(fn, f"{func.value.id}.{func.attr}", {"cls": Expr(func.value.id)})
        elif isinstance(func, ast.Attribute) and func.attr == "add_cli_args" and isinstance(func.value, ast.Call) \
                and ast.unparse(func.value.func) == "super":
            pass  # the base's add_cli_args is reached by name where it is called
        elif isinstance(func, ast.Name) and func.id in self.prog.functions and (
                "arg" in func.id and "kwargs" not in func.id or "parser" in func.id):
            self.call_function(self.prog.functions[func.id], func.id)

    def add_argument(self, call: ast.Call, env: dict) -> None:
        names = []
        for a in call.args:
            v = self.value(a.value, env) if isinstance(a, ast.Starred) else self.value(a, env)
            names.extend(v if isinstance(a, ast.Starred) and isinstance(v, (list, tuple)) else
                         [] if isinstance(a, ast.Starred) and v is None else [v])
        if not names or not all(isinstance(n, str) for n in names):
            self.unresolved += 1
            return
        if not names[0].startswith("-"):
            return  # a positional (model_tag)
        kw: dict = {}
        for k in call.keywords:
            if k.arg is None:
                sub = self.value(k.value, env)
                if isinstance(sub, dict):
                    kw.update(sub)
                else:
                    self.unresolved += 1
            else:
                kw[k.arg] = self.value(k.value, env)
                if k.arg == "default":
                    kw["_default_node"] = k.value
        self.rows.append(row(self.prog, names, kw))


def record_fields(prog: Program, cls: str) -> dict[str, ast.AnnAssign]:
    """Fields of SGLang's ServerArgs: its own, or (0.5.21+) those of the `_INPUT_NAMESPACES` classes it is
    assembled from (server_args.py collect_input_fields)."""
    spaces = prog.aliases.get("_INPUT_NAMESPACES") if cls == "ServerArgs" else None
    out: dict[str, ast.AnnAssign] = {}
    if spaces:
        for name in re.findall(r"\w+", spaces):
            out.update(prog.fields(name))
    out.update(prog.fields(cls))
    return out


def _arg_meta(node) -> dict | None:
    """SGLang `A[T, "help"]` / `A[T, Arg(...)]` metadata: {keyword: AST}, or None (no CLI metadata)."""
    for meta in node:
        if isinstance(meta, ast.Constant) and isinstance(meta.value, str):
            return {}
        if isinstance(meta, ast.Call) and ast.unparse(meta.func).rsplit(".", 1)[-1] == "Arg":
            return {k.arg: k.value for k in meta.keywords if k.arg}
    return None


def dataclass_rows(prog: Program, cls: str) -> list:
    """Rows of sglang/srt/arg_groups/arg_utils.py add_cli_args_from_dataclass (0.5.14+): per annotated field, action
    -> as given; Literal -> one value; list (no type_parser) -> nargs +; bool -> store_true; else one value."""
    rows = []
    for name, f in record_fields(prog, cls).items():
        ann = f.annotation
        if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
            ann = ast.parse(ann.value, mode="eval").body
        if not (isinstance(ann, ast.Subscript) and ast.unparse(ann.value).rsplit(".", 1)[-1] in ("A", "Annotated")
                and isinstance(ann.slice, ast.Tuple)):
            continue
        inner, *metas = ann.slice.elts
        meta = _arg_meta(metas)
        if meta is None or isinstance(meta.get("no_cli"), ast.Constant) and meta["no_cli"].value is True:
            continue
        cli = meta["cli_name"].value if isinstance(meta.get("cli_name"), ast.Constant) else \
            "--" + name.replace("_", "-")
        aliases = [e.value for e in getattr(meta.get("aliases"), "elts", []) if isinstance(e, ast.Constant)]
        ms = [m for m in members(prog, inner) if m != "None"]
        origins = [_origin(m) for m in ms]
        kw: dict = {"_default_node": f.value} if f.value is not None else {}
        if "action" in meta:
            kw["action"] = Expr(_text(meta["action"]))
            kw.update({k.value: Expr(_text(v)) for k, v in zip(getattr(meta.get("action_kwargs"), "keys", []),
                                                               getattr(meta.get("action_kwargs"), "values", []))
                       if isinstance(k, ast.Constant)})
        elif "Literal" in origins and len(ms) == 1:
            lits = ms[0][1]
            kw["type"] = "int" if lits and isinstance(lits[0], ast.Constant) and type(lits[0].value) is int else "str"
        elif origins[:1] in (["list"], ["List"]) and len(ms) == 1 and "type_parser" not in meta:
            kw["type"], kw["nargs"] = _element_type(ms[0]), _text(meta["nargs"]).strip("'\"") \
                if "nargs" in meta else "+"
        elif origins == ["bool"]:
            kw["action"] = "store_true"
        else:
            kw["type"] = _text(meta["type_parser"]) if "type_parser" in meta else \
                origins[0] if len(origins) == 1 else "str"
            if "nargs" in meta:
                kw["nargs"] = _text(meta["nargs"]).strip("'\"")
        rows.append(row(prog, [cli] + aliases, kw))
    return rows


def _text(node) -> str:
    return ast.unparse(node)


def _kw_text(kw: dict, key: str) -> str | None:
    v = kw.get(key)
    return None if v is None else str(v)


def action_nargs(prog: Program, action: str) -> str | None:
    """nargs a custom argparse.Action class fixes (`super().__init__(..., nargs=0)`), or None."""
    node = prog.classes.get(action)
    if node is None:
        return None
    for n in ast.walk(node):
        if isinstance(n, ast.keyword) and n.arg == "nargs" and isinstance(n.value, ast.Constant):
            return str(n.value.value)
        if isinstance(n, ast.arguments):
            names = [a.arg for a in n.args + n.kwonlyargs]
            defaults = [None] * (len(n.args) - len(n.defaults)) + list(n.defaults) + list(n.kw_defaults)
            for name, d in zip(names, defaults):
                if name == "nargs" and isinstance(d, ast.Constant) and d.value is not None:
                    return str(d.value)
    return None


def row(prog: Program, names: list[str], kw: dict) -> list:
    """[names, kind, type, default]: kind is flag (no value), bool (--x / --no-x), value, list (nargs + / *),
    optional (nargs ?), json (a JSON object, dotted sub-flags allowed; type json|str: a plain string too)."""
    action = (_kw_text(kw, "action") or "").rsplit(".", 1)[-1]
    nargs = _kw_text(kw, "nargs") or action_nargs(prog, action)
    if nargs == "0":
        action = "store_true"
    typ = _kw_text(kw, "type") or "str"
    if "BooleanOptionalAction" in action:
        kind, typ = "bool", "bool"
    elif action in NO_VALUE:
        kind, typ = "flag", "bool"
    elif nargs in ("+", "*") or (nargs or "").isdigit() and nargs != "1":
        kind = "list"
    elif nargs == "?":
        kind = "optional"
    else:
        kind = "value"
    if "json" in typ.lower() or "parse_dataclass" in typ or "union_dict_and_str" in typ:
        # union_dict_and_str parses `{...}` as JSON and keeps any other text as a string (vllm/engine/arg_utils.py)
        typ = "json|str" if "union_dict_and_str" in typ else "json"
        kind = "json" if kind == "value" else kind
    elif re.search(r"\bint\b|human_readable_int", typ):
        typ = "int"
    elif re.search(r"\bfloat\b", typ):
        typ = "float"
    elif typ not in ("bool",):
        typ = "str"
    d = kw.get("default")
    if isinstance(d, Expr) or "_default_node" in kw and not isinstance(d, (int, float, str, bool, list)):
        d = prog.default(kw["_default_node"]) if "_default_node" in kw else None
    elif not isinstance(d, (int, float, str, bool, list)):
        d = None
    if action == "store_true" and d is None:
        d = False
    return [names, kind, typ, d]


# ---------------------------------------------------------------- one release, all releases

def release_rows(framework: str, sources: dict[str, str]) -> tuple[list, int]:
    prog = Program(sources)
    w = Walker(prog)
    if framework == "vllm":
        entry = prog.functions.get("make_arg_parser")
        if entry is None:
            raise SystemExit("make_arg_parser not found")
        w.call_function(entry, "make_arg_parser")
    else:
        fn = prog.method("ServerArgs", "add_cli_args")
        if fn is None:
            raise SystemExit("ServerArgs.add_cli_args not found")
        w.call_function(fn, "ServerArgs.add_cli_args")
    seen, rows = set(), []
    for r in w.rows:  # an option added twice (both branches of an if): the first definition
        if r[0][0] not in seen:
            seen.add(r[0][0])
            rows.append(r)
    return rows, w.unresolved


def _ranges(idx: list[int]) -> str:
    out, start = [], None
    for i, v in enumerate(idx):
        if start is None:
            start = v
        if i + 1 == len(idx) or idx[i + 1] != v + 1:
            out.append(str(start) if start == v else f"{start}-{v}")
            start = None
    return ",".join(out)


def version_key(v: str):
    parts = re.findall(r"\d+|[a-z]+", v)
    return [(0, int(p)) if p.isdigit() else (-1 if p in ("rc", "a", "b", "dev") else 1, p) for p in parts]


def build(framework: str, per_release: dict[str, list]) -> dict:
    releases = sorted(per_release, key=version_key)
    where: dict[str, list[int]] = {}
    order: list[str] = []
    for i, rel in enumerate(releases):
        for r in per_release[rel]:
            key = json.dumps(r, separators=(",", ":"))
            if key not in where:
                where[key] = []
                order.append(key)
            where[key].append(i)
    rows = [json.loads(k) + [_ranges(where[k])] for k in order]
    return {"framework": framework, "generated_by": "tools/gen_flag_tables.py", "releases": releases, "rows": rows}


def committed_releases(path: str) -> dict[str, list]:
    """{release: rows} of a table written by build() (its "0-4,7" ranges undone), for --update."""
    with open(path, encoding="utf-8") as fh:
        table = json.load(fh)
    per_release: dict[str, list] = {rel: [] for rel in table["releases"]}
    for *r, ranges in table["rows"]:
        for part in ranges.split(","):
            first, _, last = part.partition("-")
            for i in range(int(first), int(last or first) + 1):
                per_release[table["releases"][i]].append(r)
    return per_release


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--framework", choices=("vllm", "sglang"), required=True)
    ap.add_argument("--versions", nargs="*", default=[])
    ap.add_argument("--download", action="store_true", help="pip download each version's wheel (else --wheels/--tree)")
    ap.add_argument("--wheels", help="folder of downloaded wheels")
    ap.add_argument("--tree", help="folder with one extracted wheel per version: TREE/<version>/<package>/...")
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--fork", help="a fork published under another name, read as --framework (sglang-kt: "
                    "ktransformers' SGLang); writes <fork>.json")
    ap.add_argument("--update", action="store_true", help="keep the committed table's other releases as they are "
                    "and replace (or add) only the versions read now")
    a = ap.parse_args(argv)
    path = os.path.join(a.out, f"{a.fork or a.framework}.json")
    per_release = committed_releases(path) if a.update else {}
    versions = a.versions or (sorted((v for v in os.listdir(a.tree) if not v.endswith(".tmp")), key=version_key)
                              if a.tree else [])
    for v in versions:
        if a.tree:
            sources = tree_sources(os.path.join(a.tree, v), a.framework)
        elif a.wheels:
            wheel = next(os.path.join(a.wheels, n) for n in os.listdir(a.wheels)
                         if n.startswith(f"{a.framework}-{v}-") and n.endswith(".whl"))
            sources = wheel_sources(wheel, a.framework)
        else:
            with tempfile.TemporaryDirectory() as tmp:
                sources = wheel_sources(download(a.framework, v, tmp), a.framework)
        rows, unresolved = release_rows(a.framework, sources)
        print(f"{a.framework} {v}: {len(rows)} options" + (f", {unresolved} not resolved" if unresolved else ""),
              file=sys.stderr)
        per_release[v] = rows
    os.makedirs(a.out, exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(build(a.framework, per_release), fh, separators=(",", ":"))
        fh.write("\n")
    print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
