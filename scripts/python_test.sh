#!/usr/bin/env bash
# The Python package's tests (python/tests, pytest) against the library of the
# build tree, with Debian's python3 (PYTHON overrides it: a pyenv python3
# lacks Debian's numpy and pytest). Prints cmocka-style lines so that
# scripts/run_tests.sh counts them; a missing Python, numpy or pytest is a
# failure (scripts/setup.sh installs them).
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-/usr/bin/python3}
export PYTHONDONTWRITEBYTECODE=1
echo "[==========] python: $PY -m pytest python/tests"
if ! "$PY" -c 'import numpy, pytest' 2>/dev/null; then
    echo "[  FAILED  ] python: $PY with numpy and pytest is needed (scripts/setup.sh installs python3-numpy python3-pytest)"
    echo "[  FAILED  ] 1 test(s)."
    exit 1
fi
out=$("$PY" -m pytest -v -p no:cacheprovider python/tests 2>&1); rc=$?
passed=$(printf '%s\n' "$out" | grep -c ' PASSED')
failed=$(printf '%s\n' "$out" | grep -Ec ' (FAILED|ERROR)')
printf '%s\n' "$out" | sed -n 's/^python\/tests\/\([^ ]*\) PASSED.*/[       OK ] python: \1/p'
if [[ $rc -ne 0 ]]; then
    printf '%s\n' "$out"
    [[ $failed -eq 0 ]] && failed=1 # pytest itself failed (collection, import)
fi
echo "[==========] python: $((passed + failed)) test(s) run."
echo "[  PASSED  ] $passed test(s)."
[[ $failed -gt 0 ]] && echo "[  FAILED  ] $failed test(s)."
[[ $failed -eq 0 ]]
