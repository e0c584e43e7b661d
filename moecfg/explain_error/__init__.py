"""`moecfg explain-error LOG`: a failed launch's error text -> the rule, the values in the text, the cause in the
user's flags (where the log shows them) and the fix. patterns.py is the one table; match.py applies it with
bounded input and bounded regexes; render.py prints through render/escape.py (log text is untrusted)."""
