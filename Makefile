# nb: a boring Makefile.  ./build.sh installs dependencies and builds the
# static libZydis this file links against (ZYDIS_DIR).
CC      ?= gcc
ZYDIS_DIR ?= build/zydis
BUILD   ?= build
CFLAGS_BASE = -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g \
              -DZYDIS_STATIC_BUILD -I$(ZYDIS_DIR)/include -Isrc -I$(BUILD)/gen
CFLAGS  ?=
ALL_CFLAGS = $(CFLAGS_BASE) $(CFLAGS)
ZYDIS_LIB = $(ZYDIS_DIR)/libZydis.a
STATIC  ?= -static

SRC     := $(wildcard src/*.c src/*/*.c)
GEN_SRC := $(if $(wildcard gen/gentables.c),$(BUILD)/gen/evtables.c)
OBJ     := $(patsubst %.c,$(BUILD)/obj/%.o,$(SRC)) \
           $(patsubst $(BUILD)/gen/%.c,$(BUILD)/obj/gen/%.o,$(GEN_SRC))
LIBOBJ  := $(filter-out $(BUILD)/obj/src/main.o,$(OBJ))
TESTS   := $(patsubst tests/%.c,$(BUILD)/tests/%,$(wildcard tests/test_*.c))
DATA    := $(sort $(wildcard data/*.txt))

.PHONY: all test test-deps hwcheck unit cli asan clang-test fuzz clean golden check-data bench lint valgrind valgrind-run
all: $(BUILD)/nb

$(ZYDIS_LIB):
	@echo "missing $(ZYDIS_LIB): run ./build.sh first" >&2; exit 1

$(BUILD)/obj/%.o: %.c | $(ZYDIS_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

# Build-time generator: data/*.txt -> const C tables.
# It links src/events/config.c, the run-time parser, so data files and -config files
# share one grammar.
$(BUILD)/gentables: gen/gentables.c src/events/config.c src/sys/error.c src/sys/fileio.c src/lib/escape.c src/events/config.h src/events/evdb_tables.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -Isrc gen/gentables.c src/events/config.c src/sys/error.c src/sys/fileio.c src/lib/escape.c -o $@

$(BUILD)/gen/evtables.c: $(BUILD)/gentables $(DATA)
	@mkdir -p $(dir $@)
	$(BUILD)/gentables -o $@ $(DATA)

# The names of the x86-64 system calls, for reports of a system call made by
# the benchmark code (sandbox.c), from the kernel headers the C library was
# built with.  Without them the table is empty and reports give numbers only.
$(BUILD)/gen/syscall_names.h:
	@mkdir -p $(dir $@)
	@echo '#include <asm/unistd_64.h>' | $(CC) -E -dM -x c - 2>/dev/null \
	    | sed -n 's/^#define __NR_\([A-Za-z0-9_]*\) \([0-9][0-9]*\)$$/    {\2, "\1"},/p' \
	    | sort -t, -k1.6n > $@.tmp; mv $@.tmp $@

$(BUILD)/obj/src/measure/sandbox.o: | $(BUILD)/gen/syscall_names.h

# evdb.c needs the generated tables to exist before its objects link; the
# header it includes is hand-written, so only ordering matters here.
$(BUILD)/obj/src/events/evdb.o: | $(BUILD)/gen/evtables.c

$(BUILD)/nb: $(OBJ) $(ZYDIS_LIB)
	$(CC) $(STATIC) $(ALL_CFLAGS) $(OBJ) $(ZYDIS_LIB) -lm -o $@

$(BUILD)/tests/%: tests/%.c $(LIBOBJ) $(ZYDIS_LIB) | test-deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests $< $(LIBOBJ) $(ZYDIS_LIB) -lcmocka -lm -o $@

# The unit tests need cmocka, which the plain ./build.sh does not install
# (building nb does not need it): say so instead of a compiler error.
test-deps:
	@printf '#include <stdarg.h>\n#include <stddef.h>\n#include <setjmp.h>\n#include <stdint.h>\n#include <cmocka.h>\n' \
	    | $(CC) -E -x c - > /dev/null 2>&1 || { echo "make test needs libcmocka-dev (and python3-jsonschema for the" \
	    "output checks): run ./build.sh --dev, which installs the test tools" >&2; exit 1; }

# A check of the perf and msr backends on real hardware, run by hand
# (tests/pmu/hwcheck.c); make test builds it so that it keeps linking.
hwcheck: $(BUILD)/hwcheck
$(BUILD)/hwcheck: tests/pmu/hwcheck.c $(LIBOBJ) $(ZYDIS_LIB)
	$(CC) $(STATIC) $(ALL_CFLAGS) $< $(LIBOBJ) $(ZYDIS_LIB) -lm -o $@

# make test: every cmocka unit test, then the command-line tests.
test: $(BUILD)/nb $(TESTS) $(BUILD)/hwcheck
	@NB=$(BUILD)/nb BUILD=$(BUILD) tests/run_all.sh $(TESTS)

# ASan + UBSan build of everything, then the same tests.
asan:
	$(MAKE) BUILD=build/asan CFLAGS="-O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	    STATIC= test

# The same build and tests with clang (its -Wall -Wextra -Werror finds other
# things than gcc's), dynamically linked, into build/clang.  Not part of
# `make test`, which stays one quick build; .ci/run runs both.
clang-test:
	$(MAKE) BUILD=build/clang CC=clang STATIC= test

fuzz:
	@tests/fuzz/run.sh $(BUILD) $(ZYDIS_DIR) $${FUZZ_SECONDS:-60}

# Static analysis, not part of `make test` (clang-tidy takes a minute or
# two).  Any finding of either tool fails; both always run, so one run shows
# everything.  Checks that are wrong for nb are turned off in .clang-tidy or
# by a NOLINT(check) comment at the line, each with its reason.
LINT_SRC = $(wildcard src/*.c src/*/*.c)
lint: $(BUILD)/nb
	@status=0; \
	cppcheck -q --enable=warning,performance,portability --error-exitcode=1 \
	    -D_GNU_SOURCE -I src -I $(BUILD)/gen src || status=1; \
	clang-tidy -quiet --warnings-as-errors='*' $(LINT_SRC) -- -std=c11 -D_GNU_SOURCE \
	    -DZYDIS_STATIC_BUILD -I$(ZYDIS_DIR)/include -Isrc -I$(BUILD)/gen || status=1; \
	if [ $$status -ne 0 ]; then echo "lint: findings above" >&2; else echo "lint: clean"; fi; \
	exit $$status

# Every unit test and command-line test under valgrind (memcheck): any error
# or leak fails.  Built dynamically (valgrind cannot see malloc in a static
# binary) into build/vg.
valgrind:
	$(MAKE) BUILD=build/vg STATIC= valgrind-run
valgrind-run: $(BUILD)/nb $(TESTS)
	@BUILD=$(BUILD) tests/valgrind.sh $(TESTS)

# Regenerate the expected bytes of the golden corpus with GNU as (test-only).
golden:
	tests/asm/regen_golden.sh

check-data:
	gen/check_data.sh

bench: $(BUILD)/nb
	@for b in bench/*; do [ -x "$$b" ] && BUILD=$(BUILD) ZYDIS_DIR=$(ZYDIS_DIR) CC=$(CC) "$$b"; done

clean:
	rm -rf $(BUILD)/obj $(BUILD)/tests $(BUILD)/gen $(BUILD)/nb $(BUILD)/hwcheck $(BUILD)/gentables build/asan build/clang build/fuzz build/vg

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
