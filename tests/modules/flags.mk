# Per-module compile flags for test modules (the default is -fno-pic -O2).
#
# These modules list things in an order that matters to the test: linker-set
# entries registered before a clashing one, or dependencies in .modinfo.
# gcc normally emits file-scope objects in reverse; -fno-toplevel-reorder
# keeps them in source order.
MODULE_CFLAGS_dup_sysctl := -fno-pic -O2 -fno-toplevel-reorder
MODULE_CFLAGS_dup_command := -fno-pic -O2 -fno-toplevel-reorder
MODULE_CFLAGS_dep_missing := -fno-pic -O2 -fno-toplevel-reorder

# Probe site styles: these modules are built with asm-goto sites whatever
# the build's SDT_STYLE.
SDT_STYLE_tp_goto := asmgoto
SDT_STYLE_tp_gotohot := asmgoto
