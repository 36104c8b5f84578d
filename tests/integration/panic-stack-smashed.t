# A module command that writes over its caller's frame and returns: the
# kernel calls module code through a gate whose guard words sit above the
# callee's return address, and a changed word is a panic naming the
# function called (status 3), not a kernel running on with its own locals
# overwritten.
# status: 3
minikern> kldload stackwreck
minikern> stackwreck caller
stackwreck: writing over the caller's frame
panic: stack smashed: stackwreck`stackwreck_cmd wrote over its caller's frame ({{[0-9]+}} bytes above its return address)
called from: {{0x[0-9a-f]+}} kernel`mk_module_stack_smashed+0x{{[0-9a-f]+}}
thread: shell (tid {{[0-9]+}})
backtrace:
  #0 {{0x[0-9a-f]+}} kernel`vpanic_at+0x{{[0-9a-f]+}}
  #1 {{0x[0-9a-f]+}} kernel`panic+0x{{[0-9a-f]+}}
  #2 {{0x[0-9a-f]+}} kernel`mk_module_stack_smashed+0x{{[0-9a-f]+}}
  #3 {{0x[0-9a-f]+}} kernel`mk_module_call+0x{{[0-9a-f]+}}
...
dmesg (last lines):
...
panic: kernel stopped (exit status 3)
