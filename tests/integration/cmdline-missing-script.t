# -f with a file that cannot be opened fails with exit status 1.
# args: -f $TMP/nosuch
# status: 1
kernel: $TMP/nosuch: cannot open
