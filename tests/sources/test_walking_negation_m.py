"""An inner .gitignore re-including a folder an outer one ignores (git's rule, as `git ls-files -co --exclude-standard`
walks it): NVIDIA/Megatron-LM@d98e8a6 .gitignore:8 `slurm*` with examples/post_training/modelopt/.gitignore:1 `!slurm*`
keeps examples/post_training/modelopt/slurm/env_setup_template.sh."""
from __future__ import annotations

from moecfg.sources.files import Walk, discover


def _walked(root) -> list[str]:
    return sorted(str(e.path)[len(str(root)) + 1:] for e in discover([str(root)], Walk()))


def _tree(root, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_an_inner_negation_re_includes_the_folder_and_its_files(tmp_path):
    _tree(tmp_path, {".gitignore": "slurm*\n", "modelopt/.gitignore": "!slurm*\n",
                     "modelopt/slurm/env_setup_template.sh": "EP=1\n", "other/slurm/job.sh": "EP=1\n",
                     "modelopt/run.sh": "EP=1\n"})
    assert _walked(tmp_path) == ["modelopt/run.sh", "modelopt/slurm/env_setup_template.sh"]


def test_a_file_in_an_ignored_folder_stays_ignored(tmp_path):
    # git cannot re-include a file whose folder is excluded: the walk does not enter the folder
    _tree(tmp_path, {".gitignore": "build2/\n", "build2/.gitignore": "!x.sh\n", "build2/x.sh": "EP=1\n",
                     "keep/logs.sh": "EP=1\n", "keep/.gitignore": "*.sh\n!logs.sh\n", "keep/drop.sh": "EP=1\n"})
    assert _walked(tmp_path) == ["keep/logs.sh"]
