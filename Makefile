# gpuvet: one Makefile for the host program, the optional GPU backend and the tests.
#
#   make                 build build/<variant>/gpuvet (variant: cpu, cuda, hip; -asan/-tsan with SAN=)
#   make run             install missing packages, build, run `gpuvet all`
#   make test            install missing packages, build, run the whole test suite
#                        (both print one line per stage; the compiler's output goes to
#                        build/logs/build-<variant>.log, apt's to build/logs/bootstrap.log)
#   make asan            the test suite under AddressSanitizer + UBSan
#   make GPU=cuda        build the CUDA backend (GPU=auto, the default, picks CUDA when nvcc exists)
#   make GPU=hip         build the HIP backend (AMD), HIP_ARCH=gfxNNNN overrides rocminfo
#   make hip-check       compile every .cu file with hipcc for gfx1030 (what CI does)
#   make fuzz-nes, fuzz-gb, fuzz-snes, fuzz-safetensors, fuzz-drop7_data, fuzz   libFuzzer runs of the loaders (FUZZ_SECONDS=600 each)
#   make fuzz-snes-chips   the SNES ROM target as Super FX, SA-1 and MSU-1 cartridges (FUZZ_SECONDS each)
#   make drop7-acceptance  the fast Drop7 game against the reference on 10 million random positions
#   make libretro        the consoles as libretro cores: build/libretro/gpuvet_<console>_libretro.so + .info
#   make install         the binary and the shipped networks under PREFIX (/usr/local; DESTDIR too)
#   make python          the Python package (python/) installed into build/python-venv (docs/PYTHON.md)
#
# Variables: GPU=auto|cpu|cuda|hip, CUDA_ARCH=90 (else detected with nvidia-smi),
# HIP_ARCH=gfx1030 (else detected with rocminfo), WERROR=1 (CI), SAN=address|thread (1 = address), CC, NVCC, HIPCC,
# V=1 (every command and all output). make, make run and make test use every core unless -j is given.

GPU       ?= auto
SAN       ?=
WERROR    ?= 0
CC        ?= cc
CUDA_HOME ?= $(firstword $(wildcard /usr/local/cuda) $(patsubst %/bin/nvcc,%,$(shell command -v nvcc 2>/dev/null)))
NVCC      ?= $(firstword $(shell command -v nvcc 2>/dev/null) $(wildcard $(CUDA_HOME)/bin/nvcc))
HIPCC     ?= $(shell command -v hipcc 2>/dev/null)
PYTHON    ?= $(shell scripts/find-python 2>/dev/null)

# ---- which GPU backend --------------------------------------------------------------
ifeq ($(GPU),auto)
  ifneq ($(NVCC),)
    GPU_KIND := cuda
  else
    GPU_KIND := cpu
  endif
else
  GPU_KIND := $(GPU)
endif
ifeq ($(filter $(GPU_KIND),cpu cuda hip),)
  $(error GPU must be auto, cpu, cuda or hip (got '$(GPU)'))
endif

ifeq ($(SAN),1)
  override SAN := address
endif
ifneq ($(filter-out address thread,$(SAN)),)
  $(error SAN must be address (or 1) or thread (got '$(SAN)'))
endif
VARIANT := $(GPU_KIND)$(if $(SAN),-$(if $(filter thread,$(SAN)),tsan,asan))
BUILD   ?= build/$(VARIANT)

# ---- flags --------------------------------------------------------------------------
PKGS     := openblas libcjson libxxhash libpng zlib
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

CFLAGS_BASE := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wshadow -Wno-unused-parameter \
               -Isrc -fopenmp -MMD -MP $(PKG_CFLAGS)
ifeq ($(WERROR),1)
  CFLAGS_BASE += -Werror
endif
# -march only where the machine is x86-64 (SSE4.2/POPCNT baseline); other machines get the
# compiler's default for their architecture.
MARCH := $(if $(filter x86_64,$(shell $(firstword $(CC)) -dumpmachine 2>/dev/null | cut -d- -f1)),-march=x86-64-v2)
ifeq ($(SAN),address)
  OPT := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
else ifeq ($(SAN),thread)
  OPT := -O1 -g -fno-omit-frame-pointer -fsanitize=thread
else
  OPT := -O2 -g $(MARCH)
endif
LDLIBS := $(PKG_LIBS) -lm -lpthread -ldl -fopenmp

GPU_DEFS :=
GPU_OBJS :=
CU_SRC   := $(shell find src -name '*.cu' | sort)

ifeq ($(GPU_KIND),cuda)
  ifeq ($(NVCC),)
    $(error GPU=cuda but nvcc was not found: install the CUDA toolkit or set NVCC=/path/to/nvcc)
  endif
  # The device's architecture comes from the driver; CUDA_ARCH overrides it for cross-builds.
  CUDA_ARCH ?= $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d ' .')
  ifeq ($(strip $(CUDA_ARCH)),)
    CUDA_ARCH_USED := 80
    $(info note: no NVIDIA GPU visible; building CUDA code for sm_80 with PTX (set CUDA_ARCH=90 for an H100/H200))
  else
    # Hopper (9.0) builds for sm_90a, the target that has wgmma (src/nn/gpu/conv_mma.cu); its
    # code runs on sm_90 devices only, which is what CUDA_ARCH names.
    CUDA_ARCH_USED := $(if $(filter 90,$(CUDA_ARCH)),90a,$(CUDA_ARCH))
  endif
  GPU_DEFS  := -DGV_GPU_CUDA=1 -DGV_HAVE_GPU=1 -DGV_CUDA_ARCH=$(subst a,,$(CUDA_ARCH_USED))
  # cuDNN is loaded at run time (src/nn/gpu/conv_cudnn.cu): only its header is needed here,
  # and without it the own convolution kernels are all there is.
  CUDNN_DEFS := $(if $(wildcard $(CUDA_HOME)/include/cudnn.h),-DGV_HAVE_CUDNN=1)
  NVFLAGS   := -O3 -std=c++17 -Isrc -gencode arch=compute_$(CUDA_ARCH_USED),code=[sm_$(CUDA_ARCH_USED),compute_$(CUDA_ARCH_USED)] \
               -Xcompiler -fPIC,-Wall -lineinfo $(GPU_DEFS) $(CUDNN_DEFS) $(if $(WERROR:0=),-Werror all-warnings)
  LDLIBS    += -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcublasLt -lcublas -lnvrtc -lcudart_static -lrt -lstdc++
  GPU_OBJS  := $(patsubst src/%.cu,$(BUILD)/obj/%.o,$(CU_SRC))
endif
ifeq ($(GPU_KIND),hip)
  ifeq ($(HIPCC),)
    $(error GPU=hip but hipcc was not found: install ROCm (or Debian's hipcc) or set HIPCC=/path/to/hipcc)
  endif
  HIP_ARCH ?= $(shell rocminfo 2>/dev/null | grep -o -m1 'gfx[0-9a-f]*')
  ifeq ($(strip $(HIP_ARCH)),)
    $(error no AMD GPU found by rocminfo: set HIP_ARCH=gfxNNNN for a cross-build)
  endif
  ROCM_PATH ?= /opt/rocm
  GPU_DEFS  := -DGV_GPU_HIP=1 -DGV_HAVE_GPU=1
  HIPFLAGS  := -O3 -std=c++17 -Wno-unused-result -Isrc --offload-arch=$(HIP_ARCH) -fPIC $(GPU_DEFS)
  LDLIBS    += -L$(ROCM_PATH)/lib -Wl,-rpath,$(ROCM_PATH)/lib -lhipblaslt -lhipblas -lhiprtc -lamdhip64 -lstdc++
  GPU_OBJS  := $(patsubst src/%.cu,$(BUILD)/obj/%.o,$(CU_SRC))
endif

CFLAGS := $(CFLAGS_BASE) $(OPT) $(GPU_DEFS) $(EXTRA_CFLAGS)

# ---- sources ------------------------------------------------------------------------
# Files named *_nogpu.c are the host-only side of a device feature: built only without a
# GPU backend. Every other .c file under src/ (outside src/cli/ and src/libretro/) goes into
# the library.
ALL_LIB_C := $(shell find src -name '*.c' -not -path 'src/cli/*' -not -path 'src/libretro/*' | sort)
ifeq ($(GPU_KIND),cpu)
  LIB_C := $(ALL_LIB_C)
  GPU_OBJS :=
else
  LIB_C := $(filter-out %_nogpu.c,$(ALL_LIB_C))
endif
CLI_C    := $(sort $(wildcard src/cli/*.c))
TEST_C   := $(shell find tests -name 'test_*.c' | sort)
LIB_OBJS := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(LIB_C)) $(GPU_OBJS)
CLI_OBJS := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(CLI_C))
TEST_BIN := $(addprefix $(BUILD)/tests/,$(basename $(notdir $(TEST_C))))
LIB      := $(BUILD)/libgpuvet.a
BIN      := $(BUILD)/gpuvet

.PHONY: python python-lib install all build run test asan tsan bootstrap bootstrap-test tests clean hip-check fuzz-nes fuzz-gb fuzz-snes fuzz-snes-chips fuzz help deps-check arm64-check arm64-objs drop7-acceptance libretro lr-deps-check
# A plain make builds with one job per core unless -j was given (on the command line or in
# MAKEFLAGS); $(jobs) is empty then and the sub-make shares the caller's job slots.
NPROC := $(shell nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
jobs   = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(NPROC))
all:
	@$(MAKE) --no-print-directory $(jobs) build
build: deps-check $(BIN) gpuvet

# Before compiling anything: the compiler and the libraries found with pkg-config, or one
# message saying what to install (a plain `make` on a fresh machine).
deps-check:
	@command -v $(firstword $(CC)) >/dev/null 2>&1 || { \
	  echo "make: the C compiler '$(CC)' is not installed. Run 'make run' (it installs what is missing as root)"; \
	  echo "      or install the build packages first: scripts/bootstrap.sh build  (Debian: gcc make pkg-config"; \
	  echo "      libopenblas-dev libcjson-dev libxxhash-dev libpng-dev zlib1g-dev)"; exit 2; }
	@pkg-config --exists $(PKGS) 2>/dev/null || { \
	  echo "make: missing development packages (pkg-config cannot find: $$(for p in $(PKGS); do pkg-config --exists $$p 2>/dev/null || printf '%s ' $$p; done))."; \
	  echo "      Run 'make run' (it installs what is missing as root) or scripts/bootstrap.sh build"; exit 2; }

help:
	@sed -n '2,21p' Makefile | sed 's/^# \{0,1\}//'

# ./gpuvet always points at the last default build, so the README's commands work from the top.
gpuvet: $(BIN)
	@ln -sf $(BIN) gpuvet

# V=1 shows the full commands.
Q   := $(if $(V),,@)
say  = $(if $(V),,@printf '  %-6s %s\n' $(1) $(2);)

# Objects are rebuilt when the flags here change, and none is compiled before deps-check.
$(LIB_OBJS) $(CLI_OBJS): Makefile | deps-check

# The emulator cores are interpreters: -O3 runs them about a third faster than -O2.
ifeq ($(SAN),)
$(BUILD)/obj/emu/%.o: CFLAGS += -O3
endif

$(BUILD)/obj/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/obj/%.o: src/%.cu
	@mkdir -p $(dir $@)
ifeq ($(GPU_KIND),cuda)
	$(call say,NVCC,$<)$(NVCC) $(NVFLAGS) -MMD -MP -MF $(@:.o=.d) -c $< -o $@
else
	$(call say,HIPCC,$<)$(HIPCC) $(HIPFLAGS) -MMD -MP -x hip -c $< -o $@
endif

$(LIB): $(LIB_OBJS)
	@rm -f $@
	$(call say,AR,$@)ar rcs $@ $^

$(BIN): $(CLI_OBJS) $(LIB)
	$(call say,LINK,$@)$(CC) $(CFLAGS) -o $@ $(CLI_OBJS) $(LIB) $(LDLIBS)

$(BUILD)/tests/%: $(BUILD)/testobj/%.o $(LIB)
	@mkdir -p $(dir $@)
	$(call say,LINK,$@)$(CC) $(CFLAGS) -o $@ $< $(LIB) $(LDLIBS)

$(BUILD)/testobj/%.o:
	@mkdir -p $(dir $@)
	$(call say,CC,$(filter %/$*.c,$(TEST_C)))$(CC) $(CFLAGS) -Itests -I$(LR_INC) -c $(filter %/$*.c,$(TEST_C)) -o $@

# test objects depend on their source wherever it lives under tests/
$(foreach t,$(TEST_C),$(eval $(BUILD)/testobj/$(basename $(notdir $(t))).o: $(t)))

tests: $(TEST_BIN)

# ---- the two commands of the README --------------------------------------------------
bootstrap:
	@V='$(V)' scripts/bootstrap.sh build

bootstrap-test:
	@V='$(V)' scripts/bootstrap.sh test

# make run and make test build in stages of one line each ("building ... done in N s"), the
# compiler's output in $(BUILD_LOG); a failed stage names it and shows its first errors
# (scripts/make-stage.sh). V=1 shows everything instead.
BUILD_LOG := build/logs/build-$(notdir $(BUILD)).log
stage      = @V='$(V)' scripts/make-stage.sh $(BUILD_LOG)
jobs_shown = $(or $(filter -j%,$(MAKEFLAGS)),-j$(NPROC))
new_log    = @mkdir -p $(dir $(BUILD_LOG)) && : >$(BUILD_LOG)
gpuvet_stage = "building gpuvet ($(VARIANT) build, $(words $(LIB_OBJS) $(CLI_OBJS)) files, $(jobs_shown))"

run: bootstrap
	$(new_log)
	$(stage) $(gpuvet_stage) $(MAKE) --no-print-directory $(jobs) build
	./gpuvet all $(RUN_ARGS)

test: bootstrap-test
	$(new_log)
	$(stage) $(gpuvet_stage) $(MAKE) --no-print-directory $(jobs) build
	$(stage) "building the test programs ($(words $(TEST_BIN)) programs, $(jobs_shown))" \
	  $(MAKE) --no-print-directory $(jobs) tests
	$(stage) "building the libretro cores ($(LR_CONSOLES), $(words $(LR_OBJS)) files, $(jobs_shown))" \
	  $(MAKE) --no-print-directory $(jobs) libretro
	$(stage) "building the Python package's library ($(words $(PY_OBJS)) files, $(jobs_shown))" \
	  $(MAKE) --no-print-directory $(jobs) python-lib
	@GPUVET=$(abspath $(BIN)) GV_BUILD=$(abspath $(BUILD)) GV_LIBRETRO=$(abspath $(LR_DIR)) GV_LIBRETRO_CONSOLES="$(LR_CONSOLES)" PYTHON="$$(scripts/find-python)" tests/run.sh $(TESTS)

asan:
	@$(MAKE) --no-print-directory SAN=address GPU=cpu test

# ThreadSanitizer over the suite (the CPU thread pools: emulator batches, BLAS, the trainer).
tsan:
	@$(MAKE) --no-print-directory SAN=thread GPU=cpu test

# ---- Drop7: the acceptance run of the fast game against the plain reference ----------
# (issue 17): every legal move of DROP7_POSITIONS random positions (default 10 million,
# about 67 million moves) and DROP7_GAMES whole games in lockstep; CI runs 100,000 in make test.
DROP7_POSITIONS ?= 10000000
DROP7_GAMES     ?= 20000
drop7-acceptance: $(BUILD)/tests/test_drop7_rules
	GV_DROP7_POSITIONS=$(DROP7_POSITIONS) GV_DROP7_GAMES=$(DROP7_GAMES) $(BUILD)/tests/test_drop7_rules

# ---- libretro cores ------------------------------------------------------------------
# One core per console from src/libretro/libretro_core.c over position-independent objects
# of the console code (src/core and src/emu, host renderers only: the device renderers do
# not run inside a frontend), whatever GPU backend the program was built with. Only the
# retro_* functions are exported. The API's header comes from Debian's retroarch-dev.
LR_CONSOLES := nes gb snes
LR_INC   := /usr/include/libretro-common
LR_DIR   := build/libretro
# Hidden symbols without interposition: the calls inside the console code stay direct and
# inlinable, as in the program (plain -fPIC made the Game Boy core a third slower).
LR_OPT   := -O2 -g $(MARCH) -fvisibility=hidden -fno-semantic-interposition
LR_C     := $(filter src/core/% src/emu/%,$(ALL_LIB_C))
LR_OBJS  := $(patsubst src/%.c,build/pic/obj/%.o,$(LR_C))
LR_CORES := $(foreach c,$(LR_CONSOLES),$(LR_DIR)/gpuvet_$(c)_libretro.so $(LR_DIR)/gpuvet_$(c)_libretro.info)

libretro: $(LR_CORES)

# each core's information file (RetroArch's .info) goes beside it
$(LR_DIR)/%.info: src/libretro/%.info
	@mkdir -p $(dir $@)
	@cp $< $@

lr-deps-check:
	@test -f $(LR_INC)/libretro.h || { echo "make libretro: $(LR_INC)/libretro.h is missing: install Debian's retroarch-dev (make bootstrap-test installs it)"; exit 2; }

$(LR_OBJS): Makefile | deps-check
build/pic/obj/emu/%.o: LR_OPT += -O3
build/pic/obj/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(call say,CC-PIC,$<)$(CC) $(CFLAGS_BASE) $(LR_OPT) $(EXTRA_CFLAGS) -fPIC -c $< -o $@

build/pic/libgpuvet_pic.a: $(LR_OBJS)
	@rm -f $@
	$(call say,AR,$@)ar rcs $@ $^

$(LR_DIR)/gpuvet_%_libretro.so: src/libretro/libretro_core.c src/libretro/libretro.map build/pic/libgpuvet_pic.a Makefile | lr-deps-check
	@mkdir -p $(dir $@)
	$(call say,CORE,$@)$(CC) $(CFLAGS_BASE) $(LR_OPT) -O3 $(EXTRA_CFLAGS) -I$(LR_INC) -fPIC -shared -DGV_LR_CONSOLE='"$*"' \
	  -o $@ $< build/pic/libgpuvet_pic.a $(LDLIBS) -Wl,--version-script=src/libretro/libretro.map -Wl,--no-undefined

# ---- the Python package (python/, docs/PYTHON.md) -----------------------------------
# Its C extension links a static library of position-independent objects of the layers it
# uses (core, dev, nn, drop7, emu). With GPU=cpu that is build/pic/libgpuvet_py.a, built beside
# the libretro cores' objects with their flags. With GPU=cuda (or hip) it is
# build/pic-<kind>/libgpuvet_py.a: the same C files compiled again with the GPU build's
# defines (the *_nogpu.c twins left out) and the .cu objects of those layers from
# $(BUILD)/obj (compiled with -fPIC already). python/setup.py runs `make GPU=<kind> python-lib`
# (cuda where build/cuda/libgpuvet.a exists, GPUVET_GPU overrides) and reads the compile and
# link flags from the .flags file beside the library (its `gpu` line names the variant).
# `make python` installs the package into build/python-venv, a virtual environment over
# Debian's python3 with --system-site-packages (numpy, torch), with pip --no-build-isolation
# --no-index: setuptools comes from Debian and nothing is downloaded.
PY_SYS  ?= $(firstword $(wildcard /usr/bin/python3) python3)
PY_LAYERS := core dev nn drop7 emu
ifeq ($(GPU_KIND),cpu)
  PY_DIR  := build/pic
  PY_C    := $(filter $(addprefix src/,$(addsuffix /%,$(PY_LAYERS))),$(ALL_LIB_C))
  PY_GOBJ :=
else
  PY_DIR  := build/pic-$(GPU_KIND)
  PY_C    := $(filter $(addprefix src/,$(addsuffix /%,$(PY_LAYERS))),$(LIB_C))
  PY_GOBJ := $(filter $(addprefix $(BUILD)/obj/,$(addsuffix /%,$(PY_LAYERS))),$(GPU_OBJS))
endif
PY_OBJS := $(patsubst src/%.c,$(PY_DIR)/obj/%.o,$(PY_C))
PY_LIB  := $(PY_DIR)/libgpuvet_py.a
PY_VENV := build/python-venv

$(PY_OBJS): Makefile | deps-check

ifneq ($(GPU_KIND),cpu)
$(PY_DIR)/obj/emu/%.o: LR_OPT += -O3
$(PY_DIR)/obj/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(call say,CC-PIC,$<)$(CC) $(CFLAGS_BASE) $(LR_OPT) $(GPU_DEFS) $(EXTRA_CFLAGS) -fPIC -c $< -o $@
endif

$(PY_LIB): $(PY_OBJS) $(PY_GOBJ)
	@rm -f $@
	$(call say,AR,$@)ar rcs $@ $^

$(PY_LIB).flags: Makefile
	@mkdir -p $(dir $@)
	@printf 'cflags %s\nlibs %s\ngpu %s\n' '$(strip $(PKG_CFLAGS) -fopenmp)' '$(strip $(LDLIBS))' '$(GPU_KIND)' >$@

python-lib: $(PY_LIB) $(PY_LIB).flags

python: deps-check
	@V='$(V)' scripts/bootstrap.sh python
	@$(MAKE) --no-print-directory $(jobs) python-lib
	@rm -rf $(PY_VENV)
	$(call say,VENV,$(PY_VENV))$(PY_SYS) -m venv --system-site-packages $(PY_VENV)
	$(call say,PIP,python/)$(PY_VENV)/bin/pip install -q --no-build-isolation --no-index ./python
	@echo "python: the package gpuvet is installed in $(PY_VENV) (try: $(PY_VENV)/bin/python -c 'import gpuvet')"

# ---- aarch64 compile check: every host object with Debian's cross compiler -----------
# (gcc-aarch64-linux-gnu, libc6-dev-arm64-cross): the tree builds without x86 flags.
ARM64_CC ?= aarch64-linux-gnu-gcc
arm64-check:
	@command -v $(ARM64_CC) >/dev/null 2>&1 || { echo "arm64-check: $(ARM64_CC) not found (Debian packages gcc-aarch64-linux-gnu libc6-dev-arm64-cross)"; exit 2; }
	@$(MAKE) --no-print-directory CC=$(ARM64_CC) GPU=cpu BUILD=build/arm64-check arm64-objs

arm64-objs: $(LIB_OBJS) $(CLI_OBJS)
	@echo "arm64-check: $(words $^) C files compiled for aarch64 with: $(OPT)"

# ---- HIP compile check: every .cu file with Debian's hipcc for gfx1030 ---------------
hip-check:
	@test -n "$(HIPCC)" || { echo "hip-check: hipcc not found (Debian package hipcc)"; exit 2; }
	@mkdir -p build/hip-check
	@set -e; n=0; for f in $(CU_SRC); do \
	  if grep -q 'hipblas/hipblas.h' $$f && ! echo '#include <hipblas/hipblas.h>' | $(HIPCC) -x hip -E - >/dev/null 2>&1; then \
	    echo "hipcc gfx1030 $$f: skipped, no hipBLAS headers here (the vendor BLAS calls live only in this file)"; continue; fi; \
	  echo "hipcc gfx1030 $$f"; \
	  $(HIPCC) --offload-arch=gfx1030 -std=c++17 -Isrc -DGV_GPU_HIP=1 -DGV_HIP_COMPILE_CHECK=1 -Wno-unused-result -x hip -c $$f -o build/hip-check/$$(basename $$f .cu).o; \
	  n=$$((n+1)); \
	done; echo "hip-check: $$n of $(words $(CU_SRC)) .cu files compiled for gfx1030"

# ---- fuzzing (not part of make test) -------------------------------------------------
FUZZ_SECONDS ?= 600
FUZZ_CC      ?= clang
# (the libretro core is a separate shared object with its own entry points: not linked here)
FUZZ_LIB_C   := $(filter-out %.cu,$(filter-out src/dev/cuda% src/libretro/%,$(shell find src -name '*.c' -not -path 'src/cli/*' | sort)))
# fuzz-nes: both NES targets (fuzz/fuzz_nes_rom.c, fuzz/fuzz_nes_state.c), FUZZ_SECONDS each.
fuzz-nes:
	@$(MAKE) --no-print-directory fuzz-nes_rom fuzz-nes_state FUZZ_SECONDS=$(FUZZ_SECONDS)

# fuzz-gb: both Game Boy targets (fuzz/fuzz_gb_rom.c, fuzz/fuzz_gb_state.c); fuzz: every target.
fuzz-gb:
	@$(MAKE) --no-print-directory fuzz-gb_rom fuzz-gb_state FUZZ_SECONDS=$(FUZZ_SECONDS)

# fuzz-snes: both SNES targets (fuzz/fuzz_snes_rom.c, fuzz/fuzz_snes_state.c).
fuzz-snes:
	@$(MAKE) --no-print-directory fuzz-snes_rom fuzz-snes_state FUZZ_SECONDS=$(FUZZ_SECONDS)

fuzz: fuzz-nes fuzz-gb fuzz-snes fuzz-safetensors fuzz-drop7_data
# fuzz-snes-chips: the SNES ROM target with every program a Super FX, SA-1 or MSU-1 cartridge
# (fuzz/fuzz_snes_gsu.c, fuzz_snes_sa1.c, fuzz_snes_msu.c), FUZZ_SECONDS each, from the chip
# test ROMs' seeds (fuzz/seeds/snes_rom).
fuzz-snes-chips:
	@$(MAKE) --no-print-directory fuzz-snes_gsu fuzz-snes_sa1 fuzz-snes_msu FUZZ_SECONDS=$(FUZZ_SECONDS)
FUZZ_SEEDS_snes_gsu := fuzz/seeds/snes_rom
FUZZ_SEEDS_snes_sa1 := fuzz/seeds/snes_rom
FUZZ_SEEDS_snes_msu := fuzz/seeds/snes_rom

# A target may link fewer sources (FUZZ_LIB_C_<name>): the dataset loader needs no emulator,
# and the emulator cores take many minutes to compile with the sanitizers.
FUZZ_LIB_C_drop7_data := $(filter-out src/emu/% src/app/% src/report/%,$(FUZZ_LIB_C))
fuzz-%: fuzz/fuzz_%.c
	@mkdir -p build/fuzz fuzz/corpus-$*
	$(FUZZ_CC) -std=c11 -D_GNU_SOURCE -g -O1 -Isrc -fsanitize=fuzzer,address,undefined $(PKG_CFLAGS) -fopenmp \
	  -o build/fuzz/fuzz_$* $< $(or $(FUZZ_LIB_C_$*),$(FUZZ_LIB_C)) $(LDLIBS)
	build/fuzz/fuzz_$* -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 fuzz/corpus-$* $(or $(FUZZ_SEEDS_$*),$(wildcard fuzz/seeds/$*))

# make install: the binary into $(DESTDIR)$(PREFIX)/bin, the shipped networks (models/) into
# $(DESTDIR)$(PREFIX)/share/gpuvet/models, where `--net default` looks beside bin/.
PREFIX ?= /usr/local
install: build
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/gpuvet/models
	install -m 755 $(BUILD)/gpuvet $(DESTDIR)$(PREFIX)/bin/gpuvet
	install -m 644 models/README.md $(wildcard models/*.st) $(DESTDIR)$(PREFIX)/share/gpuvet/models/

clean:
	rm -rf build gpuvet

-include $(shell find build -name '*.d' 2>/dev/null)
