# An unknown option is one error line, then the usage; exit status 2.
# args: --bogus
# status: 2
kernel: unrecognised option '--bogus'
Usage: kernel [options]
Options:
...
