"""The Markdown block structure, from markdown-it-py (CommonMark): code fences with their info string and line
maps, headings, indented code. Built once, and only when a Markdown text is at hand (a YAML or shell check never
imports markdown-it). Only block rules run: inline Markdown (emphasis, links) is never needed here."""
from __future__ import annotations

_PARSER = None


def parser():
    global _PARSER
    if _PARSER is None:
        from markdown_it import MarkdownIt

        md = MarkdownIt("commonmark")
        md.disable("inline")  # block structure only: fences, headings, lists, quotes
        _PARSER = md
    return _PARSER


def tokens(text: str) -> list:
    """markdown-it's block tokens of `text`; each `map` is [first line, line after] (0-based, `\\n` lines)."""
    return parser().parse(text)


def has_fence(text: str) -> bool:
    """`text` holds a fenced code block (``` or ~~~, as CommonMark reads it)."""
    if "```" not in text and "~~~" not in text:  # no fence marker: no parse
        return False
    return any(t.type == "fence" for t in tokens(text))
