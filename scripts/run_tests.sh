#!/usr/bin/env bash
# Runs every cmocka test program given, prints their own output and a closing
# total. Exits non-zero if any test failed or any program crashed.
set -u
export CMOCKA_MESSAGE_OUTPUT=stdout
passed=0 failed=0 crashed=0
for t in "$@"; do
    out=$("$t" 2>&1); rc=$?
    printf '%s\n' "$out"
    p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
    f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
    passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
    if [[ $rc -ne 0 && -z "$f" ]]; then crashed=$((crashed + 1)); echo "$t: exited with status $rc" >&2; fi
done
failed=$((failed + crashed))
echo "tests: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
