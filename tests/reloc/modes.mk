# Module builds in every compile mode, for the relocation regression
# (tests/reloc/run).  Included by the top-level Makefile; the rules exist
# only when a reloc-* goal is asked for, so other builds do not pay for them.
#
#   make ARCH=A reloc-modules     build/A/reloc-modes/<module>-<cc>-<mode>-<O>.ko
#                                 (every module of modules/, every combination)
#   make ARCH=A reloc-selfcheck   build/A/reloc-selfcheck/selfcheck_<tag>.ko and
#                                 sclib_<tag>.ko, <tag> = <cc>_<mode>_<O> with _
#   make ARCH=A reloc-build       both, and build/tools/mk-link
#   make ARCH=A reloc-variants    print the self-check variants' tags
#   make reloc-report             per architecture: the relocation types the
#                                 loader supports and the corpus fields verified
#
# Compilers: gcc and clang.  Optimisation: -O0, -O2, -Os.  Modes: -fno-pic,
# -fpie, -fpic, -fpic -fno-plt, and on x86_64 -mcmodel=large with -fno-pic
# and with -fpic.  Flags are the top-level Makefile's MOD_COMMON (and
# MOD_CXX for C++), with the compiler's own include directory swapped in.

RELOC_GOALS := reloc-modules reloc-selfcheck reloc-build reloc-variants reloc-report
.PHONY: $(RELOC_GOALS)

ifneq ($(filter $(RELOC_GOALS),$(MAKECMDGOALS)),)

RELOC_MODES_DIR := $(BUILD)/reloc-modes
RELOC_SC_DIR := $(BUILD)/reloc-selfcheck
RELOC_SC_SRC := $(TOP)/tests/reloc/selfcheck

RELOC_CCS := gcc clang
RELOC_OPTS := O0 O2 Os
RELOC_MODES_x86_64 := fno-pic fpie fpic fpic-fno-plt large large-fpic
RELOC_MODES_i386 := fno-pic fpie fpic fpic-fno-plt
RELOC_MODES := $(RELOC_MODES_$(ARCH))

RELOC_FLAGS_fno-pic := -fno-pic
RELOC_FLAGS_fpie := -fpie
RELOC_FLAGS_fpic := -fpic
RELOC_FLAGS_fpic-fno-plt := -fpic -fno-plt
RELOC_FLAGS_large := -mcmodel=large -fno-pic
RELOC_FLAGS_large-fpic := -mcmodel=large -fpic

RELOC_GCC_INC := $(shell $(CC) -print-file-name=include)
RELOC_CLANG_INC := $(shell clang -print-file-name=include 2>/dev/null)
# MOD_COMMON without gcc's include directory (each compiler gets its own)
# and without dependency files (the headers are listed instead).
RELOC_BASE := $(filter-out -isystem $(RELOC_GCC_INC) -MMD -MP,$(MOD_COMMON))
RELOC_CC_gcc := $(CC) -isystem $(RELOC_GCC_INC)
RELOC_CXX_gcc := $(CXX) -isystem $(RELOC_GCC_INC)
RELOC_CC_clang := clang -isystem $(RELOC_CLANG_INC)
RELOC_CXX_clang := clang++ -isystem $(RELOC_CLANG_INC)
RELOC_HDRS := $(wildcard $(TOP)/kernel/include/*.h $(TOP)/kernel/include/sys/*.h)

RELOC_COMBOS := $(foreach c,$(RELOC_CCS),$(foreach m,$(RELOC_MODES),$(foreach o,$(RELOC_OPTS),$(c):$(m):$(o))))
reloc_cc = $(word 1,$(subst :, ,$(1)))
reloc_mode = $(word 2,$(subst :, ,$(1)))
reloc_opt = $(word 3,$(subst :, ,$(1)))
reloc_tag = $(subst -,_,$(call reloc_cc,$(1))_$(call reloc_mode,$(1))_$(call reloc_opt,$(1)))

# One sample module in one combination.
#   $(1) module name, $(2) its source folder, $(3) cc, $(4) mode, $(5) O
define reloc_module_variant
RELOC_MODULE_KOS += $(RELOC_MODES_DIR)/$(1)-$(3)-$(4)-$(5).ko
$(RELOC_MODES_DIR)/$(1)-$(3)-$(4)-$(5).ko: $(patsubst $(2)/%,$(RELOC_MODES_DIR)/obj/$(1)-$(3)-$(4)-$(5)/%.o,$(basename $(wildcard $(2)/*.c $(2)/*.cc)))
	ld -r -m $(LDEMU) -o $$@ $$^
$(RELOC_MODES_DIR)/obj/$(1)-$(3)-$(4)-$(5)/%.o: $(2)/%.c $(RELOC_HDRS) | $(DEPS_STAMP)
	@mkdir -p $$(dir $$@)
	$(RELOC_CC_$(3)) $(RELOC_BASE) $(RELOC_FLAGS_$(4)) -$(5) -c $$< -o $$@
$(RELOC_MODES_DIR)/obj/$(1)-$(3)-$(4)-$(5)/%.o: $(2)/%.cc $(RELOC_HDRS) | $(DEPS_STAMP)
	@mkdir -p $$(dir $$@)
	$(RELOC_CXX_$(3)) $(RELOC_BASE) $(MOD_CXX) $(RELOC_FLAGS_$(4)) -$(5) -c $$< -o $$@
endef

# One self-check variant: the module and its library.
#   $(1) cc, $(2) mode, $(3) O, $(4) tag
define reloc_selfcheck_variant
RELOC_SC_KOS += $(RELOC_SC_DIR)/selfcheck_$(4).ko $(RELOC_SC_DIR)/sclib_$(4).ko
RELOC_SC_DEFS_$(4) := -DSC_TAG=$(4) -DSC_LABEL='"selfcheck-$(1)-$(2)-$(3)"' -I$(RELOC_SC_SRC)
$(RELOC_SC_DIR)/selfcheck_$(4).ko: $(RELOC_SC_DIR)/obj/$(4)/selfcheck.o $(RELOC_SC_DIR)/obj/$(4)/selfcheck_cxx.o
	ld -r -m $(LDEMU) -o $$@ $$^
$(RELOC_SC_DIR)/sclib_$(4).ko: $(RELOC_SC_DIR)/obj/$(4)/sclib.o
	ld -r -m $(LDEMU) -o $$@ $$^
$(RELOC_SC_DIR)/obj/$(4)/%.o: $(RELOC_SC_SRC)/%.c $(RELOC_SC_SRC)/selfcheck.h $(RELOC_HDRS) | $(DEPS_STAMP)
	@mkdir -p $$(dir $$@)
	$(RELOC_CC_$(1)) $(RELOC_BASE) $(RELOC_FLAGS_$(2)) -$(3) $$(RELOC_SC_DEFS_$(4)) -c $$< -o $$@
$(RELOC_SC_DIR)/obj/$(4)/%.o: $(RELOC_SC_SRC)/%.cc $(RELOC_SC_SRC)/selfcheck.h $(RELOC_HDRS) | $(DEPS_STAMP)
	@mkdir -p $$(dir $$@)
	$(RELOC_CXX_$(1)) $(RELOC_BASE) $(MOD_CXX) $(RELOC_FLAGS_$(2)) -$(3) $$(RELOC_SC_DEFS_$(4)) -c $$< -o $$@
endef

RELOC_MODULE_KOS :=
RELOC_SC_KOS :=
$(foreach d,$(MODULE_DIRS),$(foreach k,$(RELOC_COMBOS),$(eval $(call reloc_module_variant,$(notdir $(patsubst %/,%,$(d))),$(patsubst %/,%,$(d)),$(call reloc_cc,$(k)),$(call reloc_mode,$(k)),$(call reloc_opt,$(k))))))
$(foreach k,$(RELOC_COMBOS),$(eval $(call reloc_selfcheck_variant,$(call reloc_cc,$(k)),$(call reloc_mode,$(k)),$(call reloc_opt,$(k)),$(call reloc_tag,$(k)))))

reloc-modules: $(RELOC_MODULE_KOS)
reloc-selfcheck: $(RELOC_SC_KOS)
reloc-build: reloc-modules reloc-selfcheck $(TOP)/build/tools/mk-link

reloc-variants:
	@$(foreach k,$(RELOC_COMBOS),echo $(call reloc_tag,$(k)) selfcheck-$(subst :,-,$(k));)

# The report needs the loader's link-only entry point for both arches'
# probes, and the corpus (assembled at run time) for the counts.
reloc-report: $(TOP)/build/tools/mk-link
	@$(TOP)/tests/reloc/report x86_64 i386

endif
