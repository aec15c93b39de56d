#!/usr/bin/env bash
# Build the reference library's virtual environment (bench/.venv-ref), once.
#
# The reference library `synalinks` needs Python >= 3.12; our own venv is 3.11, so it
# gets its own interpreter and venv. The venv is cached: a stamp file records the
# pinned versions, and the script does nothing when the stamp matches.
#
# litellm is pinned to the version optimizer_core pins (pyproject.toml), so both
# sides of the benchmark talk HTTP through the same litellm; synalinks 0.10.14
# accepts it (it asks for litellm>=1.106.0). pip would otherwise pick the newest.
#
# Usage: bench/common/setup_reference.sh   (from anywhere; ~2 min, ~1.6 GB)
#        The benchmark runners call it through bench.common.reference.setup_reference().
# Env:   REF_PYTHON  the interpreter to build the venv with
#                    (default /root/.pyenv/versions/3.12.1/bin/python)
set -euo pipefail

SYNALINKS_VERSION="0.10.14"
LITELLM_VERSION="1.106.2"
PINS=("synalinks==${SYNALINKS_VERSION}" "litellm==${LITELLM_VERSION}")
BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${BENCH_DIR}/.venv-ref"
STAMP="${VENV}/.bench-pins"
REF_PYTHON="${REF_PYTHON:-/root/.pyenv/versions/3.12.1/bin/python}"

if [[ -f "${STAMP}" && "$(cat "${STAMP}")" == "${PINS[*]}" ]]; then
    echo "reference venv ready: ${VENV} (${PINS[*]})"
    exit 0
fi

if [[ ! -x "${REF_PYTHON}" ]]; then
    echo "error: ${REF_PYTHON} not found; set REF_PYTHON to a Python >= 3.12" >&2
    exit 1
fi
if ! "${REF_PYTHON}" -c 'import sys; sys.exit(sys.version_info < (3, 12))'; then
    echo "error: ${REF_PYTHON} is older than Python 3.12, which synalinks needs" >&2
    exit 1
fi

echo "building reference venv ${VENV} (${PINS[*]}) ..."
start=$(date +%s)
rm -rf "${VENV}"
"${REF_PYTHON}" -m venv "${VENV}"
# This machine's pip config lists local indexes that do not exist; drop those warnings.
set +e
"${VENV}/bin/python" -m pip install --quiet --disable-pip-version-check "${PINS[@]}" 2>&1 \
    | grep -v "is ignored: it is neither a file nor a directory"
status=${PIPESTATUS[0]}
set -e
if [[ ${status} -ne 0 ]]; then
    echo "error: pip install failed (exit ${status})" >&2
    exit "${status}"
fi
"${VENV}/bin/python" -m pip freeze --disable-pip-version-check > "${VENV}/pip-freeze.txt" 2>/dev/null
echo "${PINS[*]}" > "${STAMP}"
end=$(date +%s)
echo "reference venv built in $((end - start)) s: ${VENV} ($(du -sh "${VENV}" | cut -f1))"
