# A module that calls panic() stops the kernel with its message, where it
# was called from, the backtrace from panic() down through the module to
# the shell, and the message buffer's last lines; exit status 3.
# status: 3
minikern> kldload crashme
minikern> crashme panic
panic: crashme: asked to panic (42)
called from: {{0x[0-9a-f]+}} crashme`crashme_cmd+0x{{[0-9a-f]+}}
thread: shell (tid {{[0-9]+}})
backtrace:
  #0 {{0x[0-9a-f]+}} kernel`vpanic_at+0x{{[0-9a-f]+}}
  #1 {{0x[0-9a-f]+}} kernel`kern_panic+0x{{[0-9a-f]+}}
  #2 {{0x[0-9a-f]+}} crashme`crashme_cmd+0x{{[0-9a-f]+}}
...
  #{{[0-9]+}} {{0x[0-9a-f]+}} kernel`Shell::run_line+0x{{[0-9a-f]+}}
...
dmesg (last lines):
...
  crashme.ko: loaded at {{0x[0-9a-f]+}}, {{[0-9]+}} bytes, {{[0-9]+}} relocations
panic: kernel stopped (exit status 3)
