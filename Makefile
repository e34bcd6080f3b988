# kcbp: `make` builds the kcbp program and libkcbp.a; `make test` runs the
# suite; `make bench` builds the benchmark programs (needs FCL and libccd);
# `make sanitize`, `make valgrind`, `make fuzz-ci`, `make stress-ci` are the
# hardening checks of README.md ("Hardening"; ./scripts/setup.sh --harden).
CC ?= cc
CXX ?= c++
PKG_CONFIG ?= pkg-config
LIB_PKGS := qhull_r libcjson
OPT ?= -O2 -g
CPPFLAGS += -D_GNU_SOURCE -Ilib
CFLAGS += -std=c11 -Wall -Wextra -Werror $(OPT) $(shell $(PKG_CONFIG) --cflags $(LIB_PKGS))
LDLIBS += $(shell $(PKG_CONFIG) --libs $(LIB_PKGS)) -lm -lpthread
B := build
# Where the program and the library go (the sanitizer build puts them in its
# own build directory); tests run the program named by KCBP_EXE.
KCBP := kcbp
LIBA := libkcbp.a

LIB_SRC := $(wildcard lib/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(B)/%.o)
CLI_SRC := $(wildcard cli/*.c)
CLI_OBJ := $(CLI_SRC:%.c=$(B)/%.o)
TEST_SRC := $(wildcard tests/test_*.c)
TEST_BIN := $(TEST_SRC:tests/%.c=$(B)/tests/%)
TEST_SUPPORT := $(filter-out $(TEST_SRC),$(wildcard tests/*.c))

.PHONY: all test sanitize fuzz fuzz-programs fuzz-ci valgrind stress stress-ci demo bench clean
all: $(KCBP) $(LIBA)

$(LIBA): $(LIB_OBJ)
	$(AR) rcs $@ $^

$(KCBP): $(CLI_OBJ) $(LIBA)
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIBA) $(LDLIBS)

$(B)/%.o: %.c $(wildcard lib/*.h cli/*.h) Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(B)/tests/%: tests/%.c $(TEST_SUPPORT) $(wildcard lib/*.h tests/*.h) $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $(shell $(PKG_CONFIG) --cflags cmocka) -o $@ $< $(TEST_SUPPORT) $(TEST_EXTRA) $(LIBA) \
		$(LDLIBS) $(shell $(PKG_CONFIG) --libs cmocka)

# The fuzz targets, replayed on their corpus by a normal test.
FUZZ_TARGETS := obj scene pose collide
FUZZ_SRC := tests/fuzz/targets.c
$(B)/tests/test_fuzz_corpus: $(FUZZ_SRC) tests/fuzz/targets.h
$(B)/tests/test_fuzz_corpus: TEST_EXTRA = $(FUZZ_SRC)

test: $(KCBP) $(TEST_BIN)
	@KCBP_EXE=./$(KCBP) scripts/run_tests.sh $(TEST_BIN)

# The whole suite built with AddressSanitizer and UndefinedBehaviorSanitizer
# (clang; any report ends the program with an error) in its own directory.
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_CC ?= clang
sanitize:
	$(MAKE) B=$(B)/san KCBP=$(B)/san/kcbp LIBA=$(B)/san/libkcbp.a CC=$(SAN_CC) OPT="-O1 -g $(SAN_FLAGS)" \
		LDFLAGS="$(SAN_FLAGS)" test

# libFuzzer (clang): one program per target in build/fuzz, library built
# with ASan+UBSan and coverage. `make fuzz-ci` runs each for FUZZ_SECONDS;
# scripts/fuzz.sh takes targets and longer times (README, "Hardening").
FUZZ_FLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_SECONDS ?= 45
fuzz:
	$(MAKE) B=$(B)/fuzz KCBP=$(B)/fuzz/kcbp LIBA=$(B)/fuzz/libkcbp.a CC=$(SAN_CC) OPT="-O1 -g $(FUZZ_FLAGS)" \
		fuzz-programs
fuzz-programs: $(FUZZ_TARGETS:%=$(B)/fuzz_%)
$(B)/fuzz_%: tests/fuzz/fuzz_main.c $(FUZZ_SRC) tests/fuzz/targets.h $(LIBA)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fsanitize=fuzzer -DKCBP_FUZZ_TARGET=kcbp_fuzz_$* -o $@ tests/fuzz/fuzz_main.c \
		$(FUZZ_SRC) $(LIBA) $(LDLIBS)
fuzz-ci: fuzz
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz.sh

# Valgrind memcheck on the collide, cbp, scene and batch paths (bundled meshes).
valgrind: kcbp
	scripts/valgrind.sh

# Geometry stress: Möller's test against CGAL's exact kernel, GJK/EPA against
# a qhull oracle. `make stress` is the long run (10^6 triangle pairs, 10^5
# polytope pairs); `make stress-ci` a shorter one for CI.
CGAL_LIBS := -lgmp -lmpfr
$(B)/tritri_exact: tests/stress/tritri_exact.cpp lib/tritri.h lib/vec3.h $(LIBA)
	$(CXX) -std=c++17 -O2 -frounding-math -DNDEBUG -Ilib -o $@ $< $(LIBA) $(CGAL_LIBS) -lm
$(B)/gjk_stress: tests/stress/gjk_stress.c tests/cso_oracle.c tests/cso_oracle.h $(wildcard lib/*.h) $(LIBA)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< tests/cso_oracle.c $(LIBA) $(LDLIBS)
TRITRI_PAIRS ?= 1000000
GJK_PAIRS ?= 100000
stress: $(B)/tritri_exact $(B)/gjk_stress
	$(B)/tritri_exact $(TRITRI_PAIRS) 1
	$(B)/gjk_stress $(GJK_PAIRS) 10 1
stress-ci:
	$(MAKE) TRITRI_PAIRS=200000 GJK_PAIRS=50000 stress

demo: kcbp
	@scripts/demo.sh

bench: kcbp libkcbp.a
	$(MAKE) -C bench

clean:
	rm -rf $(B) kcbp libkcbp.a
	-$(MAKE) -C bench clean
