# kcbp: `make` builds the kcbp program and libkcbp.a; `make test` runs the
# suite; `make bench` builds the benchmark programs (needs FCL and libccd).
CC ?= cc
CXX ?= c++
PKG_CONFIG ?= pkg-config
LIB_PKGS := qhull_r libcjson
OPT ?= -O2 -g
CPPFLAGS += -D_GNU_SOURCE -Ilib
CFLAGS += -std=c11 -Wall -Wextra -Werror $(OPT) $(shell $(PKG_CONFIG) --cflags $(LIB_PKGS))
LDLIBS += $(shell $(PKG_CONFIG) --libs $(LIB_PKGS)) -lm -lpthread
B := build

LIB_SRC := $(wildcard lib/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(B)/%.o)
CLI_SRC := $(wildcard cli/*.c)
CLI_OBJ := $(CLI_SRC:%.c=$(B)/%.o)
TEST_SRC := $(wildcard tests/test_*.c)
TEST_BIN := $(TEST_SRC:tests/%.c=$(B)/tests/%)
TEST_SUPPORT := $(filter-out $(TEST_SRC),$(wildcard tests/*.c))

.PHONY: all test demo bench clean
all: kcbp libkcbp.a

libkcbp.a: $(LIB_OBJ)
	$(AR) rcs $@ $^

kcbp: $(CLI_OBJ) libkcbp.a
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) libkcbp.a $(LDLIBS)

$(B)/%.o: %.c $(wildcard lib/*.h cli/*.h) Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(B)/tests/%: tests/%.c $(TEST_SUPPORT) $(wildcard lib/*.h tests/*.h) libkcbp.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(shell $(PKG_CONFIG) --cflags cmocka) -o $@ $< $(TEST_SUPPORT) libkcbp.a \
		$(LDLIBS) $(shell $(PKG_CONFIG) --libs cmocka)

test: kcbp $(TEST_BIN)
	@scripts/run_tests.sh $(TEST_BIN)

demo: kcbp
	@scripts/demo.sh

bench: kcbp libkcbp.a
	$(MAKE) -C bench

clean:
	rm -rf $(B) kcbp libkcbp.a
	-$(MAKE) -C bench clean
