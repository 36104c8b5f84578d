# A module that overwrites its callers' frames with addresses inside
# itself, then panics: every word of the stack looks like a return
# address, and the backtrace stops at its limit of 48 frames; the kernel
# exits with status 3.
# status: 3
minikern> kldload stackwreck
minikern> stackwreck fill
stackwreck: overwriting 96 words above this frame
panic: stackwreck: 96 words of the stack overwritten
called from: {{0x[0-9a-f]+}} stackwreck`stackwreck_fill+0x{{[0-9a-f]+}}
thread: shell (tid {{[0-9]+}})
backtrace:
  #0 {{0x[0-9a-f]+}} kernel`vpanic_at+0x{{[0-9a-f]+}}
  #1 {{0x[0-9a-f]+}} kernel`kern_panic+0x{{[0-9a-f]+}}
  #2 {{0x[0-9a-f]+}} stackwreck`stackwreck_fill+0x{{[0-9a-f]+}}
...
  #46 {{0x[0-9a-f]+}} stackwreck`stackwreck_target+0x1
  #47 {{0x[0-9a-f]+}} stackwreck`stackwreck_target+0x1
dmesg (last lines):
...
panic: kernel stopped (exit status 3)
