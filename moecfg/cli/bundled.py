"""`moecfg docs` and `moecfg examples`: the documentation pages and example files shipped inside the package
(package-data: moecfg/docs and moecfg/examples, links to the repository's docs/ and examples/ in a checkout), so a
message can name a page and a newcomer can try moecfg from a wheel, with no checkout at hand."""
from __future__ import annotations

import os
import shutil
import sys
from importlib.resources import as_file, files

import click


def _tree(name: str):
    return files("moecfg").joinpath(name)


def _pages() -> dict:
    """page name -> Traversable: `preflight`, `frameworks/mindie`, and a subfolder page's own name (`mindie`) too."""
    out, short = {}, {}
    root = _tree("docs")
    stack = [(root, "")]
    while stack:
        folder, prefix = stack.pop()
        for item in folder.iterdir():
            if item.is_dir():
                stack.append((item, f"{prefix}{item.name}/"))
            elif item.name.endswith(".md"):
                name = prefix + item.name[:-3]
                out[name] = item
                short.setdefault(item.name[:-3], []).append(name)
    for base, full in short.items():
        if len(full) == 1 and base not in out:
            out[base] = out[full[0]]
    return dict(sorted(out.items()))


def _title(page) -> str:
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            return line.lstrip("# ").strip()
    return ""


@click.command(name="docs", short_help="Print a documentation page shipped with moecfg.")
@click.argument("page", required=False)
def docs_page(page):
    """Print PAGE (markdown) of the documentation installed with moecfg; no PAGE: list the pages."""
    pages = _pages()
    if page is None:
        width = max(len(n) for n in pages)
        sys.stdout.write("".join(f"{name:<{width}}  {_title(p)}\n" for name, p in pages.items() if "/" not in name
                                 or name.split("/")[-1] not in pages))
        return
    key = page.strip().removesuffix(".md").removeprefix("docs/")
    if key not in pages:
        from moecfg.core.fields import suggest

        raise click.UsageError(f"no page {page!r}{suggest(key, list(pages))}; `moecfg docs` lists them")
    sys.stdout.write(pages[key].read_text(encoding="utf-8"))


def _examples() -> list:
    """(relative name, Traversable) of every bundled example, sorted."""
    out, stack = [], [(_tree("examples"), "")]
    while stack:
        folder, prefix = stack.pop()
        for item in folder.iterdir():
            if item.is_dir():
                stack.append((item, f"{prefix}{item.name}/"))
            elif item.name.endswith((".yaml", ".yml", ".sh")):
                out.append((prefix + item.name, item))
    return sorted(out, key=lambda e: e[0])


def _summary(item) -> str:
    """The example's first comment line (what it deploys)."""
    for line in item.read_text(encoding="utf-8").splitlines()[:3]:
        text = line.lstrip("#").strip()
        if line.startswith("#") and text and not text.startswith("!"):
            return text
    return ""


@click.command(name="examples", short_help="List the bundled examples, or copy them to try check on.")
@click.option("--copy", "target", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Copy every example into DIR (created; an existing file is never overwritten).")
def examples(target):
    """List the example deployment files and launches installed with moecfg, or copy them into DIR so that
    `moecfg check DIR` shows what moecfg reports."""
    found = _examples()
    if target is None:
        width = max(len(n) for n, _ in found)
        sys.stdout.write("".join(f"{name:<{width}}  {_summary(item)}\n" for name, item in found))
        return
    clash = [name for name, _ in found if os.path.lexists(os.path.join(target, name))]
    if clash:
        raise click.UsageError(f"{target}: {clash[0]} exists already (nothing copied); copy into an empty folder")
    for name, item in found:
        dest = os.path.join(target, name)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with as_file(item) as src:
            shutil.copyfile(src, dest)
    click.echo(f"copied {len(found)} examples into {target}; next: moecfg check {target}")
