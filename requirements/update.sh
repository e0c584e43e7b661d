#!/usr/bin/env bash
# Regenerates the CI locks from pyproject.toml: `bash requirements/update.sh` (needs network; installs uv in a
# throwaway venv). ci.lock = the newest releases today, pinned (what `bash .ci/run` installs);
# ci-lowest.lock = the lowest releases pyproject.toml allows for direct dependencies (MOECFG_CI_LOWEST=1).
# Both are universal (Python >= 3.10, every platform): environment markers select per interpreter.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m venv "$tmp/uv" && "$tmp/uv/bin/pip" install -q uv
compile() { "$tmp/uv/bin/uv" pip compile pyproject.toml --extra test --universal --python-version 3.10 -q "$@"; }
compile --no-header -o requirements/ci.lock
compile --no-header --no-annotate --resolution lowest-direct -o requirements/ci-lowest.lock
echo "wrote requirements/ci.lock and requirements/ci-lowest.lock; run bash .ci/run (and MOECFG_CI_LOWEST=1) before committing"
