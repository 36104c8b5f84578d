# An object with no module metadata at all loads as a module named after its
# file.  Its constructors run at load (priority 101 before the default) and
# its destructors at unload, in the opposite order.  An object straight
# from the assembler loads the same way.
# setup: printf '.data\n.globl answer\nanswer: .long 42\n' > answer.s
# setup: if [ "$ARCH" = x86_64 ]; then w=--64; else w=--32; fi; as $w -o answer.o answer.s
minikern> kldload plain
plain: constructor (priority 101), step 1
plain: constructor, step 2
minikern> kldstat -v -n plain
Id Refs {{ +}}Address     Size Name
 2    1 {{ *0x[0-9a-f]+}}     3000 plain.ko ($MODULES/plain.ko)
	Contains modules:
		 Id Name
		  2 plain
minikern> lsmod
Module                  Size  Used by
plain                  12288  0
minikern> kldunload plain
plain: destructor, step 3
plain: destructor (priority 101), step 4
minikern> kldload $TMP/answer.o
minikern> kldstat -v -n answer
Id Refs {{ +}}Address     Size Name
 3    1 {{ *0x[0-9a-f]+}}     1000 answer.o ($TMP/answer.o)
	Contains modules:
		 Id Name
		  3 answer
minikern> kldunload answer
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    1 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
