# Firmware loading as Linux's selftest (tools/testing/selftests/firmware)
# drives Debian's test_firmware: its misc device's sysfs attributes are
# sysctls under dev.misc.test_firmware, and the device reads back the
# firmware it loaded.  The firmware directory is the test's own
# (module.firmware_class.path, searched before /lib/firmware).  A request
# loads the file's bytes; an absent file fails with -ENOENT and Linux's
# message; the nowait path runs on a CPU thread and calls the module back;
# batched requests run on kthreads (each on a per-CPU area of its own),
# into a buffer and partially from an offset; the platform fallback finds
# what the module put in the EFI embedded-firmware list.  A file larger
# than the buffer given is -EFBIG in its directory, said, and the search
# goes on as in Linux: the request fails with the last directory's
# -ENOENT.  A name that climbs out of the directories with ".." is
# -EINVAL.  Bad values are
# refused by the module's own parsers (kstrtou8, kstrtobool); the device
# goes with the module, leaving nothing behind.
# arch: x86_64
# status: 1
# args: -m $LINUX --cpus 2
# setup: mkdir -p fw && printf 'ABCD0123\n' > fw/test-firmware.bin
minikern> modprobe test_firmware
test_firmware.ko: module verification failed: no trusted key to check its signature - tainting kernel
test_firmware: interface ready
minikern> lsdev
Device    Class  Name                 Module
10:127    misc   test_firmware        test_firmware
minikern> sysctl module.firmware_class.path=$TMP/fw
module.firmware_class.path:  -> $TMP/fw
minikern> sysctl dev.misc.test_firmware.config
dev.misc.test_firmware.config: Custom trigger configuration for: test_firmware
name:	test-firmware.bin
num_requests:	4
send_uevent:		FW_ACTION_UEVENT
into_buf:		false
buf_size:	1024
file_offset:	0
partial:		false
sync_direct:		false
read_fw_idx:	0
upload_name:	EMTPY
minikern> sysctl dev.misc.test_firmware.trigger_request=test-firmware.bin
test_firmware: loading 'test-firmware.bin'
test_firmware: loaded: 9
dev.misc.test_firmware.trigger_request: -> test-firmware.bin
minikern> cat /dev/test_firmware
ABCD0123
minikern> sysctl dev.misc.test_firmware.trigger_request=nope-test-firmware.bin
test_firmware: loading 'nope-test-firmware.bin'
misc test_firmware: Direct firmware load for nope-test-firmware.bin failed with error -2
test_firmware: load of 'nope-test-firmware.bin' failed: -2
sysctl: dev.misc.test_firmware.trigger_request: write: error -2
minikern> cat /dev/test_firmware
minikern> sysctl dev.misc.test_firmware.trigger_request=../fw/test-firmware.bin
test_firmware: loading '../fw/test-firmware.bin'
test_firmware: load of '../fw/test-firmware.bin' failed: -22
sysctl: dev.misc.test_firmware.trigger_request: write: error -22
minikern> sysctl dev.misc.test_firmware.trigger_async_request=test-firmware.bin
test_firmware: loading 'test-firmware.bin'
test_firmware: loaded: 9
dev.misc.test_firmware.trigger_async_request: -> test-firmware.bin
minikern> cat /dev/test_firmware
ABCD0123
minikern> sysctl dev.misc.test_firmware.trigger_async_request=nope-test-firmware.bin
test_firmware: loading 'nope-test-firmware.bin'
misc test_firmware: Direct firmware load for nope-test-firmware.bin failed with error -2
test_firmware: failed to async load firmware
sysctl: dev.misc.test_firmware.trigger_async_request: write: error -12
minikern> sysctl dev.misc.test_firmware.trigger_batched_requests=1
test_firmware: batched sync firmware loading 'test-firmware.bin' 4 times
...
dev.misc.test_firmware.trigger_batched_requests: -> 1
minikern> sysctl dev.misc.test_firmware.test_result
dev.misc.test_firmware.test_result: 0
minikern> sysctl dev.misc.test_firmware.config_read_fw_idx=3
dev.misc.test_firmware.config_read_fw_idx: 0 -> 3
minikern> sysctl dev.misc.test_firmware.read_firmware
test_firmware: #3: loaded 9
dev.misc.test_firmware.read_firmware: ABCD0123
minikern> sysctl dev.misc.test_firmware.config_num_requests=2
test_firmware: Must call release_all_firmware prior to changing config
sysctl: dev.misc.test_firmware.config_num_requests: write: error -22
minikern> sysctl dev.misc.test_firmware.release_all_firmware=1
dev.misc.test_firmware.release_all_firmware: -> 1
minikern> sysctl dev.misc.test_firmware.config_num_requests=256
sysctl: dev.misc.test_firmware.config_num_requests: write: error -34
minikern> sysctl dev.misc.test_firmware.config_num_requests=2
dev.misc.test_firmware.config_num_requests: 4 -> 2
minikern> sysctl dev.misc.test_firmware.config_into_buf=maybe
sysctl: dev.misc.test_firmware.config_into_buf: write: error -22
minikern> sysctl dev.misc.test_firmware.config_into_buf=1 dev.misc.test_firmware.config_partial=y dev.misc.test_firmware.config_buf_size=4 dev.misc.test_firmware.config_file_offset=2
dev.misc.test_firmware.config_into_buf: 0 -> 1
dev.misc.test_firmware.config_partial: 0 -> 1
dev.misc.test_firmware.config_buf_size: 1024 -> 4
dev.misc.test_firmware.config_file_offset: 0 -> 2
minikern> sysctl dev.misc.test_firmware.trigger_batched_requests=1
test_firmware: batched sync firmware loading 'test-firmware.bin' 2 times
...
dev.misc.test_firmware.trigger_batched_requests: -> 1
minikern> sysctl dev.misc.test_firmware.config_read_fw_idx=1 dev.misc.test_firmware.read_firmware
dev.misc.test_firmware.config_read_fw_idx: 3 -> 1
test_firmware: #1: loaded 4
dev.misc.test_firmware.read_firmware: CD01
minikern> sysctl dev.misc.test_firmware.release_all_firmware=1 dev.misc.test_firmware.config_partial=0 dev.misc.test_firmware.config_file_offset=0
dev.misc.test_firmware.release_all_firmware: -> 1
dev.misc.test_firmware.config_partial: 1 -> 0
dev.misc.test_firmware.config_file_offset: 2 -> 0
minikern> sysctl dev.misc.test_firmware.trigger_batched_requests=1
test_firmware: batched sync firmware loading 'test-firmware.bin' 2 times
...
dev.misc.test_firmware.trigger_batched_requests: -> 1
minikern> sysctl dev.misc.test_firmware.test_result
dev.misc.test_firmware.test_result: -2
minikern> sysctl dev.misc.test_firmware.release_all_firmware=1 dev.misc.test_firmware.config_into_buf=0
dev.misc.test_firmware.release_all_firmware: -> 1
dev.misc.test_firmware.config_into_buf: 1 -> 0
minikern> sysctl dev.misc.test_firmware.trigger_batched_requests_async=1
test_firmware: batched loading 'test-firmware.bin' custom fallback mechanism 2 times
dev.misc.test_firmware.trigger_batched_requests_async: -> 1
minikern> sysctl dev.misc.test_firmware.read_firmware
test_firmware: #1: loaded 9
dev.misc.test_firmware.read_firmware: ABCD0123
minikern> sysctl dev.misc.test_firmware.trigger_request_platform=nope-platform.bin
test_firmware: inserting test platform fw 'nope-platform.bin'
test_firmware: loading 'nope-platform.bin'
test_firmware: loaded: 32
dev.misc.test_firmware.trigger_request_platform: -> nope-platform.bin
minikern> sysctl dev.misc.test_firmware.trigger_request
sysctl: oid 'dev.misc.test_firmware.trigger_request' is write only
minikern> cat /dev/nothing
cat: /dev/nothing: no such device (lsdev lists them)
minikern> rmmod test_firmware
test_firmware: removed interface
minikern> lsdev
Device    Class  Name                 Module
minikern> sysctl dev.misc
sysctl: unknown oid 'dev.misc'
