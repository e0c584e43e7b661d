"""Readers of shell launch scripts: the script reader (tree-sitter-bash), words, arithmetic, arrays, values,
repairs, wrappers (env, nohup, mpirun, ...) and the files a script sources."""
