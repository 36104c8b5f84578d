# debugfs files of Debian's notifier-error-inject modules, as sysctls
# under debug.: reading one runs the module's file operations (Linux's
# simple_attr_open/read/release here), setting one its write, whose
# value the module checks itself (out of range: clamped to 0; not a
# number: Linux's -EINVAL).  Memory hotplug and suspend never happen in
# this kernel, so their notifier chains hold the modules' blocks and are
# never called.  The entries go with the modules.
# arch: x86_64
# status: 1
# args: -m $LINUX
minikern> modprobe pm-notifier-error-inject
notifier-error-inject.ko: module verification failed: no trusted key to check its signature - tainting kernel
minikern> modprobe memory-notifier-error-inject
minikern> sysctl debug
debug.notifier-error-inject.memory.actions.MEM_GOING_OFFLINE.error: 0
debug.notifier-error-inject.memory.actions.MEM_GOING_ONLINE.error: 0
debug.notifier-error-inject.pm.actions.PM_HIBERNATION_PREPARE.error: 0
debug.notifier-error-inject.pm.actions.PM_RESTORE_PREPARE.error: 0
debug.notifier-error-inject.pm.actions.PM_SUSPEND_PREPARE.error: 0
minikern> sysctl debug.notifier-error-inject.pm.actions.PM_SUSPEND_PREPARE.error=-12
debug.notifier-error-inject.pm.actions.PM_SUSPEND_PREPARE.error: 0 -> -12
minikern> sysctl debug.notifier-error-inject.pm.actions.PM_SUSPEND_PREPARE.error
debug.notifier-error-inject.pm.actions.PM_SUSPEND_PREPARE.error: -12
minikern> sysctl debug.notifier-error-inject.pm.actions.PM_SUSPEND_PREPARE.error=12
debug.notifier-error-inject.pm.actions.PM_SUSPEND_PREPARE.error: -12 -> 0
minikern> sysctl debug.notifier-error-inject.memory.actions.MEM_GOING_ONLINE.error=x
sysctl: debug.notifier-error-inject.memory.actions.MEM_GOING_ONLINE.error: write: error -22
minikern> modprobe -r pm-notifier-error-inject
minikern> sysctl debug
debug.notifier-error-inject.memory.actions.MEM_GOING_OFFLINE.error: 0
debug.notifier-error-inject.memory.actions.MEM_GOING_ONLINE.error: 0
minikern> modprobe -r memory-notifier-error-inject
minikern> sysctl debug
sysctl: unknown oid 'debug'
