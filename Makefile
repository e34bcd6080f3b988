# kcbp: `make` builds the kcbp program, libkcbp.a and libkcbp.so; `make test`
# runs the suite; `make install` / `make uninstall` (PREFIX, DESTDIR);
# `make bench` builds the benchmark programs (needs FCL and libccd);
# `make sanitize`, `make valgrind`, `make fuzz-ci`, `make stress-ci` are the
# hardening checks of HARDENING.md (./scripts/setup.sh --harden).
#
# Layout: include/kcbp/ the public headers, src/ the library (internal
# headers beside their sources), eval/ the bounding-volume benchmarking unit
# (libkcbp_eval.a: kcbp bench, bench/ and tests; not installed), cli/ the
# program, tests/, bench/, man/.
CC ?= cc
CXX ?= c++
PKG_CONFIG ?= pkg-config
LIB_PKGS := qhull_r libcjson gmp
OPT ?= -O2 -g
# WERROR=1 turns warnings into errors (CI sets it); off by default so that a
# newer compiler's new warning does not break a user's build.
WERROR ?=
WARN := -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror)
CPPFLAGS += -D_GNU_SOURCE -Iinclude
# -ffp-contract=off: no compiler may fuse a*b+c into one rounding. The exact
# predicates' error bounds and expansions (src/geom/predicates.c) and the
# documented roundings (include/kcbp/pose.h) assume every operation rounds;
# clang contracts by default and folds constants with fused rounding.
CFLAGS += -std=c11 -ffp-contract=off $(WARN) $(OPT) -MMD -MP
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(LIB_PKGS))
LDLIBS += $(shell $(PKG_CONFIG) --libs $(LIB_PKGS)) -lm -lpthread
B := build
# Where the program and the libraries go (the sanitizer build puts them in
# its own build directory); tests run the program named by KCBP_EXE.
KCBP := $(B)/kcbp
LIBA := $(B)/libkcbp.a
EVALA := $(B)/libkcbp_eval.a

VERSION := $(shell sed -n 's/^\#define KCBP_VERSION_STRING "\(.*\)"/\1/p' include/kcbp/base.h)
SOMAJOR := $(firstword $(subst ., ,$(VERSION)))
SONAME := libkcbp.so.$(SOMAJOR)
LIBSO := $(B)/libkcbp.so.$(VERSION)

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
# The Python package (python/kcbp): where Debian's python3 finds it
# ($(PREFIX)/lib/python3.X/dist-packages, on its path for /usr and /usr/local).
PYTHON ?= /usr/bin/python3
PYTHONDIR ?= $(PREFIX)/lib/$(shell $(PYTHON) -c 'import sys; print("python%d.%d" % sys.version_info[:2])' 2>/dev/null \
	|| echo python3)/dist-packages

LIB_SRC := $(wildcard src/*/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(B)/%.o)
EVAL_SRC := $(wildcard eval/*.c)
EVAL_OBJ := $(EVAL_SRC:%.c=$(B)/%.o)
CLI_SRC := $(wildcard cli/*.c)
CLI_OBJ := $(CLI_SRC:%.c=$(B)/%.o) $(B)/cli/viewer_assets.o
# The --html page's scripts and style, compiled into the program: three.js
# and its OrbitControls from Debian's libjs-three (a build dependency), and
# the viewer's own cli/viewer/viewer.js and viewer.css.
HOST_CC ?= $(CC)
THREE_DIR ?= /usr/share/javascript/three
THREE_JS := $(THREE_DIR)/three.min.js
THREE_ORBIT := $(THREE_DIR)/examples/js/controls/OrbitControls.js
VIEWER_ASSETS := $(THREE_JS) $(THREE_ORBIT) cli/viewer/viewer.js cli/viewer/viewer.css
TEST_SRC := $(wildcard tests/test_*.c)
TEST_BIN := $(TEST_SRC:tests/%.c=$(B)/tests/%)
TEST_SUPPORT := $(filter-out $(TEST_SRC),$(wildcard tests/*.c))
MAN_PAGES := $(wildcard man/*.1)

.PHONY: all shared test sanitize fuzz fuzz-programs fuzz-ci valgrind stress stress-ci demo bench clean install \
	uninstall install-test abi-check abi-baseline picture
all: $(KCBP) $(LIBA) shared kcbp
shared: $(LIBSO)

# The library: position-independent (one set of objects for both
# libraries), only KCBP_API symbols visible in the shared one.
$(B)/src/%.o: src/%.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Isrc $(CFLAGS) $(PKG_CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<
# eval/ and the program see only the public headers (include/kcbp/) and
# their own.
$(B)/eval/%.o: eval/%.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Ieval $(CFLAGS) $(PKG_CFLAGS) -c -o $@ $<
$(B)/cli/%.o: cli/%.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Ieval -Icli $(CFLAGS) $(PKG_CFLAGS) -c -o $@ $<

$(B)/embed: cli/viewer/embed.c
	@mkdir -p $(dir $@)
	$(HOST_CC) -O1 -o $@ $<
$(THREE_JS) $(THREE_ORBIT):
	@echo "kcbp: $@ is missing: install Debian's libjs-three (./scripts/setup.sh), or set THREE_DIR" >&2; exit 1
$(B)/cli/viewer_assets.c: $(B)/embed $(VIEWER_ASSETS)
	$(B)/embed $@ kcbp_asset_three=$(THREE_JS) kcbp_asset_orbit=$(THREE_ORBIT) \
		kcbp_asset_viewer_js=cli/viewer/viewer.js kcbp_asset_viewer_css=cli/viewer/viewer.css
$(B)/cli/viewer_assets.o: $(B)/cli/viewer_assets.c
	$(CC) -c -o $@ $<

$(LIBA): $(LIB_OBJ)
	rm -f $@
	$(AR) rcs $@ $^
$(EVALA): $(EVAL_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^
$(LIBSO): $(LIB_OBJ)
	$(CC) $(LDFLAGS) -shared -Wl,-soname,$(SONAME) -Wl,-Bsymbolic-functions -o $@ $^ $(LDLIBS)
	ln -sf $(notdir $@) $(B)/$(SONAME)
	ln -sf $(SONAME) $(B)/libkcbp.so

# The program links the shared library (KCBP_LINK=static: libkcbp.a, as
# the sanitizer and fuzz builds do). Its run path finds the library beside
# it (build/) and, installed, in ../lib, for any PREFIX.
KCBP_LINK ?= shared
ifeq ($(KCBP_LINK),static)
$(KCBP): $(CLI_OBJ) $(EVALA) $(LIBA)
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(EVALA) $(LIBA) $(LDLIBS)
else
$(KCBP): $(CLI_OBJ) $(EVALA) $(LIBSO)
	$(CC) $(LDFLAGS) -Wl,-rpath,'$$ORIGIN:$$ORIGIN/../lib' -o $@ $(CLI_OBJ) $(EVALA) $(LIBSO) $(LDLIBS)
endif
# ./kcbp, the program as the README and users' scripts call it.
kcbp: $(KCBP)
	ln -sf $(KCBP) $@

# The pc file is written at install time, for the PREFIX and LIBDIR given.
PC_SED := 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(LIBDIR)|; s|@INCLUDEDIR@|$(INCLUDEDIR)|; s|@VERSION@|$(VERSION)|'

TEST_CPPFLAGS = $(CPPFLAGS) -Isrc -Ieval -Icli -Itests
$(B)/tests/%: tests/%.c $(TEST_SUPPORT) $(EVALA) $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CPPFLAGS) $(CFLAGS) $(PKG_CFLAGS) $(LDFLAGS) $(shell $(PKG_CONFIG) --cflags cmocka) -o $@ $< \
		$(TEST_SUPPORT) $(TEST_EXTRA) $(EVALA) $(LIBA) $(LDLIBS) $(shell $(PKG_CONFIG) --libs cmocka)

# The fuzz targets, replayed on their corpus by a normal test.
FUZZ_TARGETS := obj scene pose collide stl ply off geojson svg
FUZZ_SRC := tests/fuzz/targets.c tests/fuzz/targets2d.c
$(B)/tests/test_fuzz_corpus: $(FUZZ_SRC) tests/fuzz/targets.h
$(B)/tests/test_fuzz_corpus: TEST_EXTRA = $(FUZZ_SRC)
# The JSON line writer is the program's (cli/json_line.c): linked into its test.
$(B)/tests/test_json_line: cli/json_line.c cli/json_line.h
$(B)/tests/test_json_line: TEST_EXTRA = cli/json_line.c
$(B)/tests/test_progress: TEST_EXTRA = cli/progress.c
# GEOS (libgeos-dev, optional: setup.sh --bench) as test_geos2d's oracle; skipped without it.
GEOS_TEST := $(shell $(PKG_CONFIG) --exists geos && echo "-DKCBP_HAVE_GEOS $$($(PKG_CONFIG) --cflags --libs geos)")
$(B)/tests/test_geos2d: TEST_EXTRA = $(GEOS_TEST)

test: all $(TEST_BIN)
	@KCBP_EXE=./$(KCBP) KCBP_MAKE="$(MAKE)" scripts/run_tests.sh $(TEST_BIN) tests/plot_test.sh tests/test_html.sh tests/test_html2d.sh tests/test_interrupt.py tests/doc_examples.py scripts/python_test.sh scripts/install_test.sh

# Installs into a temporary DESTDIR, builds a program against it with
# pkg-config (shared and static) and compiles the public headers as C99 and
# C++17 (also the last step of `make test`).
install-test: all
	scripts/install_test.sh

# The whole suite built with AddressSanitizer and UndefinedBehaviorSanitizer
# (clang; any report ends the program with an error) in its own directory,
# with the library's invariant checks (KCBP_ASSERT) on.
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_CC ?= clang
ASSERTS := -DKCBP_ENABLE_ASSERTS
sanitize:
	$(MAKE) B=$(B)/san KCBP=$(B)/san/kcbp LIBA=$(B)/san/libkcbp.a KCBP_LINK=static CC=$(SAN_CC) OPT="-O1 -g $(SAN_FLAGS) $(ASSERTS)" \
		LDFLAGS="$(SAN_FLAGS)" san-test
.PHONY: san-test
san-test: $(KCBP) $(TEST_BIN)
	@KCBP_EXE=./$(KCBP) KCBP_TEST_SLOWDOWN=4 scripts/run_tests.sh $(TEST_BIN)

# libFuzzer (clang): one program per target in build/fuzz, library built
# with ASan+UBSan, coverage and the invariant checks. `make fuzz-ci` runs
# each for FUZZ_SECONDS (35: nine targets share the 315 s that seven had at
# 45); scripts/fuzz.sh takes targets and longer times (HARDENING.md).
FUZZ_FLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_SECONDS ?= 35
fuzz:
	$(MAKE) B=$(B)/fuzz KCBP=$(B)/fuzz/kcbp LIBA=$(B)/fuzz/libkcbp.a KCBP_LINK=static CC=$(SAN_CC) OPT="-O1 -g $(FUZZ_FLAGS) $(ASSERTS)" \
		fuzz-programs
fuzz-programs: $(FUZZ_TARGETS:%=$(B)/fuzz_%)
$(B)/fuzz_%: tests/fuzz/fuzz_main.c $(FUZZ_SRC) tests/fuzz/targets.h $(EVALA) $(LIBA)
	$(CC) $(TEST_CPPFLAGS) $(CFLAGS) $(PKG_CFLAGS) -fsanitize=fuzzer -DKCBP_FUZZ_TARGET=kcbp_fuzz_$* -o $@ \
		tests/fuzz/fuzz_main.c $(FUZZ_SRC) $(EVALA) $(LIBA) $(LDLIBS)
# The programs' dependency files (-MMD) are included, so make would try to
# remake them with the rule above (a stem "obj.d"): they are made with them.
$(B)/fuzz_%.d: ;
fuzz-ci: fuzz
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz.sh

# Valgrind memcheck on the collide, cbp, scene and batch paths (bundled meshes).
valgrind: $(KCBP)
	scripts/valgrind.sh

# Geometry stress: Möller's test against CGAL's exact kernel, GJK/EPA against
# a qhull oracle, the 2D layer against CGAL's 2D predicates, the library's
# invariant checks on. `make stress` is the long
# run (10^6 triangle pairs, 10^5 polytope pairs); `make stress-ci` a shorter
# one for CI.
CGAL_LIBS := -lgmp -lmpfr
$(B)/stress/%.o: src/%.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Isrc $(CFLAGS) $(PKG_CFLAGS) $(ASSERTS) -c -o $@ $<
STRESS_LIBA := $(B)/stress/libkcbp.a
$(STRESS_LIBA): $(LIB_SRC:src/%.c=$(B)/stress/%.o)
	rm -f $@
	$(AR) rcs $@ $^
$(B)/tritri_exact: tests/stress/tritri_exact.cpp tests/stress/exact_shape.hpp $(STRESS_LIBA)
	$(CXX) -std=c++17 -O2 -frounding-math -DNDEBUG -Iinclude -o $@ $< $(STRESS_LIBA) $(CGAL_LIBS) -lm
$(B)/pose_exact: tests/stress/pose_exact.cpp tests/stress/exact_shape.hpp $(STRESS_LIBA)
	$(CXX) -std=c++17 -O2 -frounding-math -DNDEBUG -Iinclude -o $@ $< $(STRESS_LIBA) $(LDLIBS) $(CGAL_LIBS)
$(B)/solid_exact: tests/stress/solid_exact.cpp $(STRESS_LIBA)
	$(CXX) -std=c++17 -O2 -frounding-math -DNDEBUG -Iinclude -o $@ $< $(STRESS_LIBA) $(LDLIBS) $(CGAL_LIBS)
$(B)/gjk_stress: tests/stress/gjk_stress.c tests/cso_oracle.c tests/cso_oracle.h $(STRESS_LIBA)
	$(CC) $(TEST_CPPFLAGS) $(CFLAGS) $(PKG_CFLAGS) -o $@ $< tests/cso_oracle.c $(STRESS_LIBA) $(LDLIBS)
$(B)/tridist_exact: tests/stress/tridist_exact.cpp $(STRESS_LIBA)
	$(CXX) -std=c++17 -O2 -frounding-math -DNDEBUG -Iinclude -o $@ $< $(STRESS_LIBA) $(CGAL_LIBS) -lm
$(B)/twod_exact: tests/stress/twod_exact.cpp $(STRESS_LIBA)
	$(CXX) -std=c++17 -O2 -frounding-math -DNDEBUG -Iinclude -o $@ $< $(STRESS_LIBA) $(LDLIBS) $(CGAL_LIBS)
# Map-like parcels and nesting layouts against GEOS (the held-out hunt, bench/README.md).
$(B)/twod_geos: tests/stress/twod_geos.c $(STRESS_LIBA)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(PKG_CFLAGS) $(shell $(PKG_CONFIG) --cflags geos) -o $@ $< $(STRESS_LIBA) $(LDLIBS) -lgeos_c
# The second held-out hunt: islands in lakes, slivers, tiny against huge, against GEOS.
$(B)/twod_hunt2: tests/stress/twod_hunt2.c $(STRESS_LIBA)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(PKG_CFLAGS) $(shell $(PKG_CONFIG) --cflags geos) -o $@ $< $(STRESS_LIBA) $(LDLIBS) -lgeos_c
TRITRI_PAIRS ?= 1000000
GJK_PAIRS ?= 100000
POSE_DIRS ?= 40
TRIDIST_PAIRS ?= 300000
SOLID_POSES ?= 200
TRIGEOM_PAIRS ?= 1000000
TWOD_PAIRS ?= 20000
# Solids, contact geometry and self-intersection against CGAL: triangle
# intersections (points, segments, polygons) against its exact
# constructions, containment on the bundled
# closed meshes, self-intersection on every bundled mesh, as given and with
# its coordinates rounded to a coarse grid (coplanar and coincident cases).
stress: $(B)/tritri_exact $(B)/gjk_stress $(B)/pose_exact $(B)/tridist_exact $(B)/solid_exact $(B)/twod_exact
	$(B)/tritri_exact $(TRITRI_PAIRS) 1
	$(B)/twod_exact $(TWOD_PAIRS) 1
	$(B)/gjk_stress $(GJK_PAIRS) 10 1
	$(B)/pose_exact meshes/suzanne.obj meshes/woody.obj $(POSE_DIRS) 1
	$(B)/pose_exact meshes/bunny2.obj meshes/spot.obj $(POSE_DIRS) 2
	$(B)/tridist_exact $(TRIDIST_PAIRS) 1
	$(B)/solid_exact tri $(TRIGEOM_PAIRS) 1
	$(B)/solid_exact contain meshes/cow.obj meshes/spot.obj $(SOLID_POSES) 1
	$(B)/solid_exact contain meshes/rocker-arm.obj meshes/homer.obj $(SOLID_POSES) 2
	$(B)/solid_exact contain meshes/fandisk.obj meshes/cow.obj $(SOLID_POSES) 3
	for m in meshes/*.obj; do $(B)/solid_exact self $$m || exit 1; $(B)/solid_exact self $$m 64 || exit 1; done
stress-ci:
	$(MAKE) TRITRI_PAIRS=200000 GJK_PAIRS=50000 POSE_DIRS=10 TRIDIST_PAIRS=100000 SOLID_POSES=30 TRIGEOM_PAIRS=200000 \
		TWOD_PAIRS=4000 stress

demo: all
	@scripts/demo.sh

# docs/kcbp.png, the README's picture, rendered anew from a --html page.
picture: all
	@scripts/picture.sh

# The ABI of the shared library against the committed baseline
# (abi/libkcbp.abi, abidw of the last release): additions pass (minor
# versions may add), any incompatible change fails (only a new major
# version may break). `make abi-baseline` writes the baseline anew, for a
# release.
ABI_BASELINE := abi/libkcbp.abi
ABIDW_FLAGS := --no-corpus-path --no-comp-dir-path --headers-dir include/kcbp
abi-check: $(LIBSO)
	@scripts/abi_check.sh $(ABI_BASELINE) $(LIBSO)
abi-baseline: $(LIBSO)
	@mkdir -p $(dir $(ABI_BASELINE))
	abidw $(ABIDW_FLAGS) --out-file $(ABI_BASELINE) $(LIBSO)

bench: $(KCBP) $(LIBA) $(EVALA)
	$(MAKE) -C bench

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/kcbp $(DESTDIR)$(PKGCONFIGDIR) \
		$(DESTDIR)$(MANDIR)/man1
	install -m 755 $(KCBP) $(DESTDIR)$(BINDIR)/kcbp
	install -m 644 $(LIBA) $(DESTDIR)$(LIBDIR)/libkcbp.a
	install -m 755 $(LIBSO) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(LIBSO)) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libkcbp.so
	install -m 644 include/kcbp/*.h $(DESTDIR)$(INCLUDEDIR)/kcbp/
	sed -e $(PC_SED) kcbp.pc.in >$(DESTDIR)$(PKGCONFIGDIR)/kcbp.pc
	$(if $(MAN_PAGES),install -m 644 $(MAN_PAGES) $(DESTDIR)$(MANDIR)/man1/)
	install -d $(DESTDIR)$(PYTHONDIR)/kcbp
	install -m 644 python/kcbp/*.py $(DESTDIR)$(PYTHONDIR)/kcbp/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/kcbp $(DESTDIR)$(LIBDIR)/libkcbp.a $(DESTDIR)$(LIBDIR)/$(notdir $(LIBSO)) \
		$(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/libkcbp.so $(DESTDIR)$(PKGCONFIGDIR)/kcbp.pc \
		$(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MAN_PAGES)))
	rm -rf $(DESTDIR)$(INCLUDEDIR)/kcbp $(DESTDIR)$(PYTHONDIR)/kcbp

clean:
	rm -rf $(B) kcbp
	-$(MAKE) -C bench clean

-include $(shell find $(B) -name '*.d' 2>/dev/null)
