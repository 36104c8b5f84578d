# User copies as Linux's own test of them checks: Debian's test_user_copy
# maps user memory with vm_mmap(), copies into and out of it with
# copy_to_user/copy_from_user, get_user/put_user of every size (the
# register-convention helpers its inline assembly calls),
# check_zeroed_user and copy_struct_from_user, and expects every copy,
# get_user and put_user aimed at kernel memory (its kmalloc'd buffer) to
# fail with the destination zeroed.  Its init fails if one does not.
# arch: x86_64
# status: 0
# args: -m $LINUX
minikern> modprobe test_user_copy
test_user_copy.ko: module verification failed: no trusted key to check its signature - tainting kernel
test_user_copy: tests passed.
minikern> modprobe -r test_user_copy
test_user_copy: unloaded.
