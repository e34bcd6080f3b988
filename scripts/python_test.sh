#!/usr/bin/env bash
# The Python package's tests (python/tests, pytest) against the package as a
# user installs it: a throwaway virtual environment (with Debian's
# python3-numpy and python3-pytest through --system-site-packages), then
#   pip install --no-build-isolation --no-index .
# offline, which builds libkcbp from the sources (setup.py runs `make
# shared` in build/python/temp.*/libkcbp, so a second run recompiles nothing) and
# bundles it in the package; the tests then run from another directory, and
# check that they import that installed package, not python/ of the tree.
# Debian's python3 (PYTHON overrides it: a pyenv python3 lacks Debian's
# numpy, pytest and setuptools). Prints cmocka-style lines so that
# scripts/run_tests.sh counts them; a missing Python, numpy, pytest, venv or
# setuptools is a failure (scripts/setup.sh installs them).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
PY=${PYTHON:-/usr/bin/python3}
export PYTHONDONTWRITEBYTECODE=1
echo "[==========] python: pip install into a venv, then pytest python/tests"
fail() {
    echo "[  FAILED  ] python: $1"
    [[ -n ${2:-} ]] && cat "$2"
    echo "[  FAILED  ] 1 test(s)."
    exit 1
}
if ! "$PY" -c 'import numpy, pytest, setuptools, venv' 2>/dev/null; then
    fail "$PY with numpy, pytest, setuptools and venv is needed (scripts/setup.sh installs python3-numpy python3-pytest python3-setuptools python3-venv)"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$PY" -m venv --system-site-packages "$tmp/venv" >"$tmp/log" 2>&1 || fail "cannot make a venv" "$tmp/log"
vpy=$tmp/venv/bin/python
# No network (--no-index), the build backend of the system (--no-build-isolation).
if ! "$vpy" -m pip install --no-build-isolation --no-index --disable-pip-version-check -q "$root" >"$tmp/log" 2>&1; then
    fail "pip install --no-build-isolation --no-index . failed" "$tmp/log"
fi
echo "[       OK ] python: pip install --no-build-isolation --no-index ."
mkdir "$tmp/elsewhere"
exe=${KCBP_EXE:-kcbp}
[[ $exe == /* ]] || exe=$root/$exe
# The tests run from elsewhere, against the installed package (KCBP_TEST_INSTALLED
# makes them check that), with the program and meshes of this tree.
out=$(cd "$tmp/elsewhere" && env -u KCBP_LIBRARY -u PYTHONPATH KCBP_TEST_INSTALLED=1 KCBP_EXE="$exe" \
    "$vpy" -m pytest -v -p no:cacheprovider --rootdir "$root/python/tests" "$root/python/tests" 2>&1)
rc=$?
passed=$(printf '%s\n' "$out" | grep -c ' PASSED')
failed=$(printf '%s\n' "$out" | grep -Ec ' (FAILED|ERROR)')
printf '%s\n' "$out" | sed -n 's/^.*python\/tests\/\(.*\) PASSED.*/[       OK ] python: \1/p'
if [[ $rc -ne 0 ]]; then
    printf '%s\n' "$out"
    [[ $failed -eq 0 ]] && failed=1 # pytest itself failed (collection, import)
fi
passed=$((passed + 1)) # the install
echo "[==========] python: $((passed + failed)) test(s) run."
echo "[  PASSED  ] $passed test(s)."
[[ $failed -gt 0 ]] && echo "[  FAILED  ] $failed test(s)."
[[ $failed -eq 0 ]]
