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

.PHONY: all test sanitize demo bench clean
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
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $(shell $(PKG_CONFIG) --cflags cmocka) -o $@ $< $(TEST_SUPPORT) $(LIBA) \
		$(LDLIBS) $(shell $(PKG_CONFIG) --libs cmocka)

test: $(KCBP) $(TEST_BIN)
	@KCBP_EXE=./$(KCBP) scripts/run_tests.sh $(TEST_BIN)

# The whole suite built with AddressSanitizer and UndefinedBehaviorSanitizer
# (clang; any report ends the program with an error) in its own directory.
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_CC ?= clang
sanitize:
	$(MAKE) B=$(B)/san KCBP=$(B)/san/kcbp LIBA=$(B)/san/libkcbp.a CC=$(SAN_CC) OPT="-O1 -g $(SAN_FLAGS)" \
		LDFLAGS="$(SAN_FLAGS)" test

demo: kcbp
	@scripts/demo.sh

bench: kcbp libkcbp.a
	$(MAKE) -C bench

clean:
	rm -rf $(B) kcbp libkcbp.a
	-$(MAKE) -C bench clean
