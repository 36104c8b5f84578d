# minikern: the one entry point.
#
#   make                 build the kernel, modules and unit tests for ARCH
#   make run             install what is missing, build, boot the shell
#   make test            install what is missing, build both arches, run every test
#   make bench           build and run the benchmarks
#   make ARCH=i386       the same for the i386 kernel
#   make -C <minikern> M=<dir>   build the module in <dir> out of tree
#   make SDT_STYLE=asmgoto   probe sites as asm goto (kernel image and
#                        modules, into build/ARCH-asmgoto; with M=, the module)
#
ARCH ?= x86_64
VERSION := 0.1.0
TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
# The sanitizer build's tree (scripts/san-tree) says so in a file of its
# own, so that any make there (a suite's own, tests/reloc/run's) builds
# what it rebuilds with the sanitizers too.
-include $(TOP)/build/san-tree.mk

# The probe site style of <sys/sdt.h>: illumos call sites (the default) or
# FreeBSD's asm-goto sites.  The kernel image's objects differ between the
# styles, so an asm-goto build has a tree of its own; a module may pick its
# own style (SDT_STYLE_<module> in a flags.mk).
SDT_STYLE ?= call
ifeq ($(SDT_STYLE),call)
  BUILD := $(TOP)/build/$(ARCH)
else ifeq ($(SDT_STYLE),asmgoto)
  BUILD := $(TOP)/build/$(ARCH)-asmgoto
else
  $(error SDT_STYLE must be call or asmgoto)
endif
sdt_style_flags = $(if $(filter asmgoto,$(1)),-DSDT_STYLE_ASMGOTO)
# The site recorder (sdt/record/): kernel objects and some modules pass
# through it.
SDT_RECORD := $(TOP)/build/tools/sdt-record

# make test SANITIZE=address,undefined: everything built with those
# sanitizers and every suite run against it, in build/san/ (a tree of
# links to the sources with a build/ of its own, so the suites' scripts,
# which find binaries under ROOT/build/, run unchanged and the normal
# build is never touched).  Reports halt the program (no recovery).
SAN_TOP := $(TOP)/build/san
ifneq ($(SANITIZE),)
ifeq ($(MK_IN_SAN_TREE),)
SAN_DELEGATE := 1
endif
endif

ifeq ($(SAN_DELEGATE),1)
.PHONY: all test kernel unit modules test-modules tools run-sanitized
.DEFAULT_GOAL := all
all test kernel unit modules test-modules tools:
	@$(TOP)/scripts/san-tree $(SAN_TOP)
	@$(MAKE) --no-print-directory -C $(SAN_TOP) SANITIZE=$(SANITIZE) MK_IN_SAN_TREE=1 $@
else

CC := gcc
NPROC := $(shell nproc 2>/dev/null || echo 2)
CXX := g++
ifeq ($(ARCH),x86_64)
  MFLAG := -m64
  LDEMU := elf_x86_64
  LIBS := -lelf -lboost_program_options -lreadline -lcapstone -lurcu-memb -lpthread \
          -lcrypto -llz4 -lxxhash -lz -l:libzstd.a
  # libzstd's static archive: the Linux API's FSE_readNCount and
  # HUF_readStats, which the shared library hides (kernel/linuxkpi/lib.cpp).
  # Module signatures (kernel/module_sig.cpp) use OpenSSL's CMS.  Not in the
  # i386 build: libssl3:i386 must be the very version of the amd64 one, which
  # Debian's mirrors do not always offer together (see docs/robustness.md).
  SIGFLAGS := -DMK_HAVE_OPENSSL=1
else ifeq ($(ARCH),i386)
  MFLAG := -m32
  LDEMU := elf_i386
  # The i386 runtime libraries, linked by path: their -dev packages may not
  # be installable beside the amd64 ones, and the headers are shared.
  L32 := /usr/lib/i386-linux-gnu
  LIBS := $(L32)/libelf.so.1 $(L32)/libboost_program_options.so.1.74.0 \
          $(L32)/libreadline.so.8 $(L32)/libcapstone.so.4 \
          $(L32)/liburcu-memb.so.8 $(L32)/liblz4.so.1 $(L32)/libxxhash.so.0 \
          $(L32)/libz.so.1 -lpthread
else
  $(error ARCH must be x86_64 or i386)
endif

WARN := -Wall -Wextra -Wno-unused-parameter
# Debug info without gcc's variable-location tracking, which takes a fifth
# of the build's time (gdb then shows fewer locals of optimised code);
# `make OPT='-O2 -g'` for the full tracking.
OPT := -O2 -g -fno-var-tracking-assignments
ifneq ($(SANITIZE),)
# Halt on the first report; frames kept for readable stacks.  The kernel's
# remapping of its own text (sdt/patch.cpp) and the arena's memfd
# mappings are outside what ASan instruments; LeakSanitizer runs at exit.
SANFLAGS := -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer
WARN += $(SANFLAGS)
# -O1 and line tables, as the sanitizers' own documentation advises:
# reports still name file and line, and the tree builds in half the time
# of -O2 -g (instrumented code is three times as slow to compile).
OPT := -O1 -g1
endif
# The kernel is linked non-PIE at a fixed address, as a real kernel is: the
# module arena is placed within reach of its text.
CXXFLAGS := $(MFLAG) -std=c++20 $(OPT) $(WARN) $(SIGFLAGS) -fno-pie -MMD -MP \
            -I$(TOP)/kernel/include -DMINIKERN_VERSION='"$(VERSION)"' \
            $(call sdt_style_flags,$(SDT_STYLE))
LDFLAGS := $(MFLAG) -no-pie $(SANFLAGS)

# Modules: freestanding, the module ABI headers only, no PIC by default.
MODULE_CFLAGS ?= -fno-pic -O2

# Function-entry sites for the fbt provider (sdt/fbt.h), by how the
# compiler marks them: FBT=fentry (calls of __fentry__), mcount (-pg: calls
# of mcount after the prologue), mcount-loc (NOPs listed in __mcount_loc),
# patchable (-fpatchable-function-entry=5), none.  Per module:
# FBT_<module> := ... (modules/flags.mk, tests/modules/flags.mk).  Unset,
# the way is chosen from the compiler and the module's flags (fbt_default).
FBT ?=
CC_IS_CLANG := $(if $(shell $(CC) --version 2>/dev/null | grep -i clang),1)
# fentry works for every code model on x86_64 (gcc's large model calls
# through %r10, which the loader takes as a site and NOP padding), but gcc
# refuses -mfentry with -fpic on i386, and its -pg call there comes after
# the GOT set-up, not after the frame prologue: gcc's PIC on i386 takes
# patchable entries.  gcc builds PIE unless told -fno-pic or -fno-pie.
fbt_gcc_pic = $(if $(filter -fno-pic -fno-pie -fno-PIC -fno-PIE,$(lastword $(filter -fpic -fPIC -fpie -fPIE -fno-pic -fno-PIC -fno-pie -fno-PIE,$(1)))),,1)
fbt_default = $(if $(and $(filter i386,$(ARCH)),$(if $(CC_IS_CLANG),,$(call fbt_gcc_pic,$(1)))),patchable,fentry)
FBT_CFLAGS_fentry := -pg -mfentry
FBT_CFLAGS_mcount := -pg
# clang has no -mrecord-mcount on x86: it calls __fentry__ and the site
# recorder lists the calls in __mcount_loc (as Linux's recordmcount does).
FBT_CFLAGS_mcount-loc := -pg -mfentry $(if $(CC_IS_CLANG),,-mrecord-mcount -mnop-mcount)
FBT_RECORD_mcount-loc := $(if $(CC_IS_CLANG),1)
# gcc links every entry list of a file to its first function, which loses
# the lists when that function is a C++ inline copy the linker drops: its
# assembler is run through scripts/gcc-entries/as, which gives each
# function a list of its own.
FBT_CFLAGS_patchable := -fpatchable-function-entry=5 $(if $(CC_IS_CLANG),,-B$(TOP)/scripts/gcc-entries/)
FBT_CFLAGS_none :=
fbt_mode = $(or $(FBT_$(1)),$(FBT),$(call fbt_default,$(or $(MODULE_CFLAGS_$(1)),$(MODULE_CFLAGS))))
fbt_check = $(if $(filter fentry mcount mcount-loc patchable none,$(1)),,$(error FBT=$(1): use fentry, mcount, mcount-loc, patchable or none))
# The compile flags of module $(1); the recorder step after compiling $(2).
fbt_cflags = $(call fbt_check,$(call fbt_mode,$(1)))$(FBT_CFLAGS_$(call fbt_mode,$(1)))
fbt_post = $(if $(FBT_RECORD_$(call fbt_mode,$(1))),$(SDT_RECORD) --mcount-loc $(2) $(2))
# Unwind tables always (clang leaves them out of freestanding code): stack()
# walks module frames with them.
MOD_COMMON := $(MFLAG) -ffreestanding -nostdinc \
  -isystem $(shell $(CC) -print-file-name=include) -I$(TOP)/kernel/include \
  -fno-stack-protector -fasynchronous-unwind-tables \
  -Wall -Wextra -Wno-unused-parameter -MMD -MP
MOD_CXX := -fno-exceptions -fno-rtti -fno-threadsafe-statics -nostdinc++

LINKER_SRCS := $(wildcard $(TOP)/linker/*.cpp)
# The BPF engine (sdt/dtrace/bpf/) is self-contained: it includes nothing
# from kernel/.
BPF_SRCS := $(wildcard $(TOP)/sdt/dtrace/bpf/*.cpp)
KERNEL_SRCS := $(filter-out $(TOP)/kernel/main.cpp,$(wildcard $(TOP)/kernel/*.cpp)) \
               $(wildcard $(TOP)/sdt/*.cpp) $(wildcard $(TOP)/sdt/dtrace/*.cpp) \
               $(wildcard $(TOP)/kernel/linuxkpi/*.cpp) \
               $(BPF_SRCS)
UNIT_SRCS := $(wildcard $(TOP)/tests/unit/*.cpp)

obj = $(patsubst $(TOP)/%.cpp,$(BUILD)/obj/%.o,$(1))
LINKER_OBJS := $(call obj,$(LINKER_SRCS))
KERNEL_OBJS := $(call obj,$(KERNEL_SRCS))
UNIT_OBJS := $(call obj,$(UNIT_SRCS))
# The test drivers (unit tests, fuzz replay) at -O0: the code under test
# keeps its flags, and test code gains nothing from optimisation but
# compiles in 40 to 60% less time and debugs best unoptimised.  Full debug
# information in the x86_64 tree, the one to debug in; line tables in the
# trees make test adds (i386, sanitized).
$(UNIT_OBJS) $(BUILD)/obj/tests/fuzz/%.o: \
  CXXFLAGS += -O0 $(if $(SANITIZE)$(filter i386,$(ARCH)),-g1,-g)

MODULE_DIRS := $(sort $(dir $(wildcard $(TOP)/modules/*/*.c $(TOP)/modules/*/*.cc)))
MODULES := $(foreach d,$(MODULE_DIRS),$(BUILD)/modules/$(notdir $(patsubst %/,%,$(d))).ko)
TMOD_DIRS := $(sort $(dir $(wildcard $(TOP)/tests/modules/*/*.c $(TOP)/tests/modules/*/*.cc $(TOP)/tests/modules/*/*.S)))
TMODULES := $(foreach d,$(TMOD_DIRS),$(BUILD)/test-modules/$(notdir $(patsubst %/,%,$(d))).ko)

DEPS_STAMP := $(TOP)/build/.deps-$(ARCH)

-include $(TOP)/tests/reloc/modes.mk

.PHONY: dlib tools replay fuzz fuzzers all kernel modules test-modules unit run test test-arch bench clean deps sdt-record-test
.DEFAULT_GOAL := all

ifneq ($(M),)
# Out-of-tree module: every .c/.cc in $(M) joined into $(M)/<dirname>.ko.
MNAME := $(notdir $(abspath $(M)))
MSRCS := $(wildcard $(abspath $(M))/*.c $(abspath $(M))/*.cc)
MOBJS := $(patsubst %,%.o,$(basename $(MSRCS)))
all: $(abspath $(M))/$(MNAME).ko
$(abspath $(M))/$(MNAME).ko: $(MOBJS)
	ld -r -m $(LDEMU) -o $@ $^
$(abspath $(M))/%.o: $(abspath $(M))/%.c | $(SDT_RECORD)
	$(CC) $(MOD_COMMON) $(call sdt_style_flags,$(SDT_STYLE)) $(MODULE_CFLAGS) $(call fbt_cflags,$(MNAME)) -c $< -o $@
	$(call fbt_post,$(MNAME),$@)
$(abspath $(M))/%.o: $(abspath $(M))/%.cc | $(SDT_RECORD)
	$(CXX) $(MOD_COMMON) $(MOD_CXX) $(call sdt_style_flags,$(SDT_STYLE)) $(MODULE_CFLAGS) $(call fbt_cflags,$(MNAME)) -c $< -o $@
	$(call fbt_post,$(MNAME),$@)
else
all: kernel modules test-modules unit tools dlib replay linux-test-modules
endif

# install-deps runs only when a package is missing.
deps: $(DEPS_STAMP)
$(DEPS_STAMP): $(TOP)/scripts/install-deps
	@$(TOP)/scripts/install-deps --check --arch=$(ARCH) 2>/dev/null || \
	  $(TOP)/scripts/install-deps --arch=$(ARCH)
	@mkdir -p $(dir $@) && touch $@

# Linux 6.1 as Debian ships it (scripts/linux-modules): its modules in a
# cache (build/linux-modules), its headers installed (build/linux-headers),
# for the loader's Linux-format support; for the i386 kernel the 686
# flavour of the same release, both in the cache (build/linux-*-686).
LINUX_FLAVOUR := $(if $(filter i386,$(ARCH)),-686)
LINUX_MODULES := $(TOP)/build/linux-modules$(LINUX_FLAVOUR)
LINUX_HEADERS := $(TOP)/build/linux-headers$(LINUX_FLAVOUR)
LINUX_SYMVERS := $(LINUX_HEADERS)/Module.symvers
$(LINUX_SYMVERS): | $(DEPS_STAMP)
	@$(TOP)/scripts/linux-modules --arch=$(ARCH) >/dev/null
# Linux modules built out of tree with Debian's kbuild (tests/linux/NAME/,
# a Kbuild file and its sources), in a copy under build/ARCH/linux-test/.
# lkalt and lkfault are x86_64 assembly.
LINUX_TEST_DIRS := $(filter-out $(if $(filter i386,$(ARCH)),$(patsubst %,$(TOP)/tests/linux/%/,lkalt lkfault)),\
                     $(sort $(dir $(wildcard $(TOP)/tests/linux/*/Kbuild))))
LINUX_TEST_KOS := $(foreach d,$(LINUX_TEST_DIRS),$(BUILD)/linux-test/$(notdir $(patsubst %/,%,$(d))).ko)
.PHONY: linux-test-modules
linux-test-modules: $(LINUX_TEST_KOS)
define linux_test_rule
$(BUILD)/linux-test/$(1).ko: $(wildcard $(TOP)/tests/linux/$(1)/*) $(LINUX_SYMVERS)
	@rm -rf $(BUILD)/linux-test/obj/$(1)
	@mkdir -p $(BUILD)/linux-test/obj/$(1)
	cp $(TOP)/tests/linux/$(1)/* $(BUILD)/linux-test/obj/$(1)/
	$(MAKE) -s -C $(LINUX_HEADERS) M=$(BUILD)/linux-test/obj/$(1) modules \
	  >$(BUILD)/linux-test/obj/$(1).log 2>&1 || { cat $(BUILD)/linux-test/obj/$(1).log; exit 1; }
	@grep -v 'Skipping BTF generation' $(BUILD)/linux-test/obj/$(1).log || true
	cp $(BUILD)/linux-test/obj/$(1)/$(1).ko $$@
endef
$(foreach d,$(LINUX_TEST_DIRS),$(eval $(call linux_test_rule,$(notdir $(patsubst %/,%,$(d))))))

kernel: $(BUILD)/kernel
modules: $(MODULES)
test-modules: $(TMODULES)
unit: $(BUILD)/unit-tests

$(BUILD)/kernel: $(BUILD)/obj/kernel/main.o $(KERNEL_OBJS) $(LINKER_OBJS)
	$(CXX) $(LDFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/unit-tests: $(UNIT_OBJS) $(KERNEL_OBJS) $(LINKER_OBJS)
	$(CXX) $(LDFLAGS) -o $@ $^ $(LIBS)

# The host tools (build/tools/: the site recorder, mk-link, mk-bpf-run,
# bpf-dlib-check) are x86_64 programs whatever ARCH is.  Their objects are
# compiled once each, in parallel, into build/tools/obj/ and shared by the
# tools that link the same sources.
TOOL_OBJDIR := $(TOP)/build/tools/obj
tool_obj = $(patsubst $(TOP)/%.cpp,$(TOOL_OBJDIR)/%.o,$(1))
tool_link = $(CXX) $(WARN) -o $@ $^ -lelf
$(TOOL_OBJDIR)/%.o: $(TOP)/%.cpp | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CXX) -std=c++20 $(OPT) $(WARN) -I$(TOP)/kernel/include -MMD -MP -c $< -o $@
-include $(shell find $(TOOL_OBJDIR) -name '*.d' 2>/dev/null)

# Kernel objects pass through the site recorder: probe sites become NOP
# sleds and site records before the final link (sdt/record/sdt_record.cpp).
RECORD_SRCS := $(TOP)/sdt/record/sdt_record.cpp $(TOP)/sdt/site.cpp \
  $(TOP)/sdt/x86.cpp $(TOP)/linker/base.cpp $(TOP)/linker/arch.cpp \
  $(TOP)/linker/arch_x86_64.cpp $(TOP)/linker/arch_i386.cpp $(TOP)/linker/arch_bpf.cpp \
  $(TOP)/linker/object.cpp $(TOP)/linker/modsig.cpp
$(SDT_RECORD): $(call tool_obj,$(RECORD_SRCS))
	$(tool_link)

$(BUILD)/obj/%.o: $(TOP)/%.cpp $(SDT_RECORD) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) $(KERNEL_FBT) -MT $@ -MF $(@:.o=.d) -c $< -o $@.raw
	$(SDT_RECORD) $@.raw $@
	@rm -f $@.raw

# The kernel image has an fbt entry site in every function (calls of
# __fentry__, which the site recorder turns into NOPs and records) except
# the probe machinery: what a firing runs (the registry's firing path, the
# trampolines' C++ half, the signal handlers, the stack walker, the D
# consumer's hot path) and the patch engine that enables sites.  Single
# functions elsewhere are marked MK_NOTRACE.  The BPF engine's run time
# (interpreter, JIT'd code's entry, maps) is the consumer's hot path once D
# runs on it.
NOTRACE_SRCS := sdt/registry.cpp sdt/patch.cpp sdt/trampoline.cpp sdt/x86.cpp \
  sdt/fbt.cpp sdt/profile.cpp sdt/unwind.cpp sdt/codemap.cpp \
  sdt/dtrace/consumer.cpp sdt/dtrace/fire.cpp sdt/dtrace/interp.cpp \
  sdt/dtrace/bpf/interp.cpp \
  sdt/dtrace/bpf/jit_x86_64.cpp sdt/dtrace/bpf/maps.cpp \
  sdt/dtrace/bpf/program.cpp
$(filter-out $(call obj,$(addprefix $(TOP)/,$(NOTRACE_SRCS))),$(KERNEL_OBJS) $(LINKER_OBJS)) \
  $(BUILD)/obj/kernel/main.o: KERNEL_FBT := -pg -mfentry

# The D consumer's probe callback keeps the vector registers (fire.cpp):
# optimised x86_64 builds only, where nothing in it is a call but the one
# that saves them.  (-O0, the sanitizers' instrumentation, and i386 leave
# it an ordinary callback, which fbt saves the registers around.)
ifeq ($(ARCH)$(SANITIZE),x86_64)
$(BUILD)/obj/sdt/dtrace/fire.o: CXXFLAGS += -mgeneral-regs-only -DMK_KEEPS_VECTOR=1
endif

# The D library's object is embedded in the kernel image (dlib_embed.cpp).
$(BUILD)/obj/sdt/dtrace/dlib_embed.o: CXXFLAGS += -DMK_DLIB_PATH='"$(BUILD)/dtrace/bpf_dlib.o"'
$(BUILD)/obj/sdt/dtrace/dlib_embed.o: $(BUILD)/dtrace/bpf_dlib.o

# The probe firing path reads liburcu's thread-local reader state: it is C,
# so no C++ TLS init function can exist for it, and the checks for one
# would only cost the firing path.
$(BUILD)/obj/sdt/registry.o: CXXFLAGS += -fno-extern-tls-init

# The Linux API is called from Linux modules, which keep the stack only
# 8-byte aligned (-mpreferred-stack-boundary=3) and leave %al unset before
# a variadic call (-mskip-rax-setup): each function there realigns the
# stack it is entered with, so its SSE spills (a variadic prologue saves
# %xmm0-7 with movaps) and everything it calls get the 16 bytes the x86_64
# ABI promises.  On i386 Linux keeps it 4-byte aligned
# (-mpreferred-stack-boundary=2), and its calls come through the export
# adapters (kernel/linuxkpi/lkpi_export.h).
ifeq ($(ARCH),x86_64)
$(call obj,$(wildcard $(TOP)/kernel/linuxkpi/*.cpp)): CXXFLAGS += -mincoming-stack-boundary=3
else
$(call obj,$(wildcard $(TOP)/kernel/linuxkpi/*.cpp)): CXXFLAGS += -mincoming-stack-boundary=2
endif

# Linux's OID registry, numbered as the installed headers number it
# (look_up_OID() in kernel/linuxkpi/asn1.cpp): the enum's order is the ABI
# a module compiled against them compares with.
LINUX_OIDS := $(TOP)/build/gen/linux_oids.inc
$(LINUX_OIDS): $(TOP)/scripts/linux-oids | $(LINUX_SYMVERS)
	@mkdir -p $(dir $@)
	@h=$$(readlink -f $(TOP)/build/linux-headers) && \
	  $(TOP)/scripts/linux-oids $${h%-*}-common/include/linux/oid_registry.h >$@.tmp && mv $@.tmp $@
$(BUILD)/obj/kernel/linuxkpi/asn1.o: $(LINUX_OIDS)
$(BUILD)/obj/kernel/linuxkpi/asn1.o: CXXFLAGS += -I$(TOP)/build/gen

# A module is every source in its folder, compiled and joined with ld -r.
define module_rules
$(1)/$(2).ko: $(patsubst $(3)/%,$(1)/obj/$(2)/%.o,$(basename $(wildcard $(3)/*.c $(3)/*.cc $(3)/*.S)))
	ld -r -m $(LDEMU) -o $$@ $$^
$(1)/obj/$(2)/%.o: $(3)/%.c | $(DEPS_STAMP) $(SDT_RECORD)
	@mkdir -p $$(dir $$@)
	$(CC) $(MOD_COMMON) $$(call sdt_style_flags,$$(or $$(SDT_STYLE_$(2)),$(SDT_STYLE))) $$(or $$(MODULE_CFLAGS_$(2)),$(MODULE_CFLAGS)) $$(call fbt_cflags,$(2)) -c $$< -o $$@
	$$(call fbt_post,$(2),$$@)
$(1)/obj/$(2)/%.o: $(3)/%.cc | $(DEPS_STAMP) $(SDT_RECORD)
	@mkdir -p $$(dir $$@)
	$(CXX) $(MOD_COMMON) $(MOD_CXX) $$(call sdt_style_flags,$$(or $$(SDT_STYLE_$(2)),$(SDT_STYLE))) $$(or $$(MODULE_CFLAGS_$(2)),$(MODULE_CFLAGS)) $$(call fbt_cflags,$(2)) -c $$< -o $$@
	$$(call fbt_post,$(2),$$@)
$(1)/obj/$(2)/%.o: $(3)/%.S | $(DEPS_STAMP)
	@mkdir -p $$(dir $$@)
	$(CC) $(MFLAG) -c $$< -o $$@
endef
$(foreach d,$(MODULE_DIRS),$(eval $(call module_rules,$(BUILD)/modules,$(notdir $(patsubst %/,%,$(d))),$(patsubst %/,%,$(d)))))
$(foreach d,$(TMOD_DIRS),$(eval $(call module_rules,$(BUILD)/test-modules,$(notdir $(patsubst %/,%,$(d))),$(patsubst %/,%,$(d)))))

# Per-module compile flags (the rest use MODULE_CFLAGS).
-include $(TOP)/modules/flags.mk
-include $(TOP)/tests/modules/flags.mk

# Debian's Linux modules and the kbuild-built ones on the path too.
run: all
	@$(TOP)/scripts/runs-here $(ARCH) $(BUILD)/kernel
	$(BUILD)/kernel -m $(BUILD)/modules -m $(LINUX_MODULES) -m $(BUILD)/linux-test

# Every test of both architectures, then the suites of SAN_TEST_ARCHS
# again against a build with AddressSanitizer and UBSan (build/san, as
# `make test SANITIZE=...` builds it; `make test SAN_TEST_ARCHS=` leaves
# that run out).  x86_64 only by default: the sanitized build of a second
# architecture would add about ten minutes to CI for the same C++ code.
# The last line is the summary CI reads.
SAN_TEST_ARCHS ?= x86_64
#
# The x86_64 tree is built first (it makes the host tools, build/tools/,
# that the others use); then the i386 tree and the sanitized trees are
# built side by side, sharing one make's $(NPROC) jobs, so that neither
# build's serial tail (its last links) leaves a CPU idle.
test:
	@$(MAKE) --no-print-directory -j$(NPROC) ARCH=x86_64 all
	@$(MAKE) --no-print-directory -j$(NPROC) test-trees
ifeq ($(MK_IN_SAN_TREE),)
	@$(TOP)/scripts/run-tests x86_64 i386 $(addprefix san:,$(SAN_TEST_ARCHS))
else
	@$(TOP)/scripts/run-tests x86_64 i386
endif

.PHONY: test-trees test-tree-i386 $(addprefix test-tree-san-,$(SAN_TEST_ARCHS))
test-trees: test-tree-i386 $(if $(MK_IN_SAN_TREE),,$(addprefix test-tree-san-,$(SAN_TEST_ARCHS)))
# Where this machine cannot run i386 programs (scripts/runs-here), only what
# a user of the i386 kernel gets is built (the kernel and its modules), not
# the test programs that would not run.
test-tree-i386:
	@$(MAKE) --no-print-directory ARCH=i386 kernel
	@if $(TOP)/scripts/runs-here i386 $(TOP)/build/i386/kernel 2>/dev/null; then \
	  $(MAKE) --no-print-directory ARCH=i386 all; \
	else \
	  $(MAKE) --no-print-directory ARCH=i386 modules test-modules; \
	fi
$(addprefix test-tree-san-,$(SAN_TEST_ARCHS)): test-tree-san-%:
	@$(TOP)/scripts/san-tree $(SAN_TOP)
	@$(MAKE) --no-print-directory -C $(SAN_TOP) SANITIZE=address,undefined MK_IN_SAN_TREE=1 \
	  ARCH=$* all

bench: kernel modules
	@$(TOP)/scripts/runs-here $(ARCH) $(BUILD)/kernel
	@$(MAKE) --no-print-directory -C $(TOP)/tests/bench ARCH=$(ARCH) BUILD=$(BUILD) TOP=$(TOP) \
	  KOBJS="$(KERNEL_OBJS) $(LINKER_OBJS)" LIBS="$(LIBS)" MODULE_CFLAGS="$(MODULE_CFLAGS)" run

clean:
	rm -rf $(TOP)/build

# The loader's link-only entry point for the regression harness.
MK_LINK := $(TOP)/build/tools/mk-link
MK_LINK_SRCS := $(TOP)/linker/tools/mk_link.cpp $(filter-out %/tools/mk_link.cpp,$(wildcard $(TOP)/linker/*.cpp))
$(MK_LINK): $(call tool_obj,$(MK_LINK_SRCS))
	$(tool_link)
# The D library: C compiled once to BPF and joined into one object that
# the D linker copies functions from (sdt/dtrace/dlib/dlib.h).  cpu v3:
# what the host kernel's verifier and clang 14 both accept.
DLIB_SRCS := $(wildcard $(TOP)/sdt/dtrace/dlib/*.c)
DLIB_OBJS := $(patsubst $(TOP)/sdt/dtrace/dlib/%.c,$(BUILD)/dtrace/dlib/%.o,$(DLIB_SRCS))
DLIB := $(BUILD)/dtrace/bpf_dlib.o
BPF_CFLAGS := -target bpf -mcpu=v3 -O2 -Wall -Wextra -nostdinc
$(BUILD)/dtrace/dlib/%.o: $(TOP)/sdt/dtrace/dlib/%.c $(TOP)/sdt/dtrace/dlib/dlib.h | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	clang $(BPF_CFLAGS) -c $< -o $@
$(DLIB): $(DLIB_OBJS)
	bpf-ld -r -o $@ $^
dlib: $(DLIB)

# The BPF engine behind the ISA conformance suites' plugin protocol.
MK_BPF_RUN := $(TOP)/build/tools/mk-bpf-run
BPF_ENGINE_SRCS := $(filter-out %/proglink.cpp,$(BPF_SRCS))
$(MK_BPF_RUN): $(call tool_obj,$(TOP)/sdt/dtrace/bpf/tools/mk_bpf_run.cpp \
    $(BPF_ENGINE_SRCS) $(TOP)/linker/base.cpp)
	$(tool_link)
# The D library's functions run by the interpreter, the JIT and the host
# kernel (tests/bpf/dlib_check.cpp).
BPF_DLIB_CHECK := $(TOP)/build/tools/bpf-dlib-check
$(BPF_DLIB_CHECK): $(call tool_obj,$(TOP)/tests/bpf/dlib_check.cpp $(BPF_SRCS) $(LINKER_SRCS))
	$(tool_link)
# The sanitized tree's suites never run bpf-dlib-check (scripts/run-tests
# runs the plain one), so that tree does not build it: its two largest
# sources under ASan alone took 40 s of a CI run.
tools: $(SDT_RECORD) $(MK_LINK) $(MK_BPF_RUN) $(if $(MK_IN_SAN_TREE),,$(BPF_DLIB_CHECK))

# ---- fuzzing (tests/fuzz/) --------------------------------------------------
#
# Each target's LLVMFuzzerTestOneInput, linked with tests/fuzz/replay.cpp,
# is a replay driver in every build (make test replays the committed
# regression inputs, tests/fuzz/regress/TARGET/).  `make fuzz` builds the
# same targets with clang's libFuzzer, ASan and UBSan into build/fuzz/
# (x86_64) and runs each for FUZZ_SECONDS from a seed corpus of the test
# modules, the relocation corpus and the D programs of the tests.
FUZZ_TARGETS := object kldload dtrace bpf modrun asn1
REPLAY := $(foreach t,$(FUZZ_TARGETS),$(BUILD)/fuzz/replay-$(t))
replay: $(REPLAY)
$(BUILD)/fuzz/replay-%: $(BUILD)/obj/tests/fuzz/fuzz_%.o $(BUILD)/obj/tests/fuzz/replay.o \
    $(KERNEL_OBJS) $(LINKER_OBJS)
	@mkdir -p $(dir $@)
	$(CXX) $(LDFLAGS) -o $@ $^ $(LIBS)

FUZZ_BUILD := $(TOP)/build/fuzz
FUZZ_SECONDS ?= 60
# FUZZ_RUNS=N: also stop each target after N executions.
export FUZZ_RUNS
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CXXFLAGS := -m64 -std=c++20 -O1 -g -fno-omit-frame-pointer $(WARN) -fno-pie \
  -MMD -MP -I$(TOP)/kernel/include -DMINIKERN_VERSION='"$(VERSION)"' \
  -fsanitize=fuzzer-no-link $(FUZZ_SAN)
fobj = $(patsubst $(TOP)/%.cpp,$(FUZZ_BUILD)/obj/%.o,$(1))
FUZZ_KOBJS := $(call fobj,$(KERNEL_SRCS) $(LINKER_SRCS))
FUZZERS := $(foreach t,$(FUZZ_TARGETS),$(FUZZ_BUILD)/fuzz-$(t))
$(FUZZ_BUILD)/obj/%.o: $(TOP)/%.cpp $(SDT_RECORD) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	clang++ $(FUZZ_CXXFLAGS) -MT $@ -MF $(@:.o=.d) -c $< -o $@.raw
	$(SDT_RECORD) $@.raw $@
	@rm -f $@.raw
$(FUZZ_BUILD)/obj/kernel/linuxkpi/asn1.o: $(LINUX_OIDS)
$(FUZZ_BUILD)/obj/kernel/linuxkpi/asn1.o: FUZZ_CXXFLAGS += -I$(TOP)/build/gen
# The D library embedded as in the kernel (the x86_64 build's).
$(FUZZ_BUILD)/obj/sdt/dtrace/dlib_embed.o: FUZZ_CXXFLAGS += \
  -DMK_DLIB_PATH='"$(TOP)/build/x86_64/dtrace/bpf_dlib.o"'
$(FUZZ_BUILD)/obj/sdt/dtrace/dlib_embed.o: $(TOP)/build/x86_64/dtrace/bpf_dlib.o
$(FUZZ_BUILD)/fuzz-%: $(FUZZ_BUILD)/obj/tests/fuzz/fuzz_%.o $(FUZZ_KOBJS)
	clang++ -m64 -no-pie -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ $(LIBS)
fuzzers: $(FUZZERS)
# Objects only pattern rules ask for are not to be deleted as intermediate.
.SECONDARY:
fuzz:
	@$(MAKE) --no-print-directory -j$(NPROC) ARCH=x86_64 all
	@$(MAKE) --no-print-directory -j$(NPROC) ARCH=x86_64 fuzzers
	@$(TOP)/scripts/fuzz-run $(FUZZ_SECONDS) $(FUZZ_TARGETS)
-include $(shell find $(FUZZ_BUILD) -name '*.d' 2>/dev/null)

# The site recorder's own test (tests/sdt-record/run).
sdt-record-test: $(SDT_RECORD)
	@$(TOP)/tests/sdt-record/run

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

endif # SAN_DELEGATE
