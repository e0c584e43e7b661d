"""Documents: the classification of every file (moecfg document, launches, skipped, problem) and the
Markdown/rST reader of launch commands in code fences."""
