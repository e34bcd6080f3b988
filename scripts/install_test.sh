#!/usr/bin/env bash
# The installed library, as a user gets it: `make install` into a temporary
# DESTDIR, then
#   1. tests/install/contract.c built with `pkg-config --cflags --libs kcbp`
#      against the shared library, run;
#   2. the same built against the static library (pkg-config --static), run,
#      and checked not to need libkcbp.so;
#   3. every public header compiled alone as C99 and as C++17 (-Wall -Wextra
#      -Werror -pedantic), with no include path but the installed one: no
#      cJSON, no qhull, nothing of src/;
#   4. the man pages are installed and render without a warning (groff);
#   4b. the Python package imports from there with Debian's python3;
#   5. `make uninstall` leaves nothing behind.
# Prints cmocka-style lines so that scripts/run_tests.sh counts them.
set -uo pipefail
cd "$(dirname "$0")/.."
MAKE=${KCBP_MAKE:-make}
CC=${CC:-cc}
CXX=${CXX:-c++}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { echo "[       OK ] install: $1"; passed=$((passed + 1)); }
ko() { echo "[  FAILED  ] install: $1"; failed=$((failed + 1)); }
check() { local name=$1; shift; if "$@" >"$tmp/log" 2>&1; then ok "$name"; else ko "$name"; cat "$tmp/log"; fi; }

dest=$tmp/root prefix=/opt/kcbp-test
echo "[==========] install: DESTDIR=$dest PREFIX=$prefix"
check "make install" $MAKE -s install DESTDIR="$dest" PREFIX="$prefix"
export PKG_CONFIG_PATH="$dest$prefix/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$dest"
libdir=$dest$prefix/lib
check "pkg-config finds kcbp" pkg-config --exists kcbp
major=$(sed -n 's/^#define KCBP_VERSION_MAJOR \([0-9]*\)/\1/p' include/kcbp/base.h)
# The installed program finds the installed library by its run path
# ($ORIGIN/../lib), whatever the prefix.
program() {
    "$dest$prefix/bin/kcbp" --version | grep -q "^kcbp " &&
        ldd "$dest$prefix/bin/kcbp" | grep "libkcbp.so.$major => $dest$prefix/" >/dev/null
}
check "the installed kcbp runs on the installed libkcbp.so.$major" program
shared() {
    # shellcheck disable=SC2046
    $CC -std=c11 -Wall -Wextra -Werror -o "$tmp/contract" tests/install/contract.c $(pkg-config --cflags --libs kcbp) &&
        LD_LIBRARY_PATH="$libdir" "$tmp/contract" tests/install/cube.obj &&
        LD_LIBRARY_PATH="$libdir" ldd "$tmp/contract" | grep "libkcbp.so.$major => $libdir" >/dev/null
}
check "shared: build with pkg-config, run" shared
static() {
    # shellcheck disable=SC2046
    $CC -std=c11 -Wall -Wextra -Werror -o "$tmp/contract_static" tests/install/contract.c \
        $(pkg-config --cflags kcbp) -L"$libdir" -l:libkcbp.a $(pkg-config --static --libs kcbp | sed 's/-lkcbp//') &&
        "$tmp/contract_static" tests/install/cube.obj && ! ldd "$tmp/contract_static" | grep libkcbp >/dev/null
}
check "static: build with pkg-config --static, run" static
headers() {
    local lang=$1 h
    for h in "$dest$prefix"/include/kcbp/*.h; do
        h=kcbp/$(basename "$h")
        if [[ $lang == c99 ]]; then
            printf '#include <%s>\nint main(void) { return 0; }\n' "$h" |
                $CC -std=c99 -pedantic -Wall -Wextra -Werror -I"$dest$prefix/include" -x c -c -o /dev/null - ||
                { echo "$h: not C99"; return 1; }
        else
            printf '#include <%s>\nint main() { return 0; }\n' "$h" |
                $CXX -std=c++17 -pedantic -Wall -Wextra -Werror -I"$dest$prefix/include" -x c++ -c -o /dev/null - ||
                { echo "$h: not C++17"; return 1; }
        fi
    done
}
check "public headers compile alone as C99" headers c99
check "public headers compile alone as C++17" headers cxx
check "man pages installed" test -n "$(ls "$dest$prefix"/share/man/man1/kcbp*.1 2>/dev/null)"
manpages() {
    local p out bad=0
    for p in "$dest$prefix"/share/man/man1/kcbp*.1; do
        out=$(groff -man -Tutf8 -ww -z "$p" 2>&1) && [[ -z $out ]] || { echo "$p: ${out:-groff failed}"; bad=1; }
    done
    return $bad
}
check "man pages render without warnings" manpages
python_import() {
    # Debian's python3, the package where `make install` put it, libkcbp.so.1
    # found beside it (no LD_LIBRARY_PATH, no build tree).
    (cd "$tmp" && env -u KCBP_LIBRARY PYTHONPATH="$(echo "$dest$prefix"/lib/python3*/dist-packages)" PYTHONDONTWRITEBYTECODE=1 \
        "${PYTHON:-/usr/bin/python3}" -c '
import os, sys, kcbp
lib = os.path.realpath(kcbp._lib.lib._name)
assert lib.startswith(sys.argv[1]), lib
assert kcbp.collide(kcbp.load(sys.argv[2]), kcbp.load(sys.argv[2]))["collide"]
' "$(realpath "$libdir")" "$OLDPWD/tests/install/cube.obj")
}
check "python package installed, imports and runs" python_import
check "make uninstall" $MAKE -s uninstall DESTDIR="$dest" PREFIX="$prefix"
leftover() { [[ -z $(find "$dest" -type f -o -type l) ]] || { find "$dest" -type f -o -type l; return 1; }; }
check "uninstall leaves no file" leftover
echo "[==========] install: $((passed + failed)) test(s) run."
echo "[  PASSED  ] $passed test(s)."
[[ $failed -gt 0 ]] && echo "[  FAILED  ] $failed test(s)."
[[ $failed -eq 0 ]]
