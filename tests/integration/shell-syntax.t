# The shell's syntax: several commands on a line separated by ';', quoting
# with '...' and "..." (where \" and \\ are escapes), a backslash escaping
# one character, '#' starting a comment; unknown commands and unterminated
# quotes are errors; help lists the commands or shows one's usage.
# status: 1
minikern> echo one; echo two ;echo three
one
two
three
minikern> echo "a;b" 'c  d' e\ f "say \"hi\" \\ back"
a;b c  d e f say "hi" \ back
minikern> echo shown # echo not shown; echo not shown either
shown
minikern> echo not#a#comment
not#a#comment
minikern> nosuchcommand
nosuchcommand: command not found
minikern> echo "unterminated
shell: unterminated double quote
minikern> echo 'unterminated
shell: unterminated single quote
minikern> ; ; echo empty commands are skipped
empty commands are skipped
minikern> help kldstat
usage: kldstat [-v] [-i id] [-n name]
  list loaded files
minikern> help nosuch
help: no such command: nosuch
minikern> # help lists every command in name order (other subsystems add more)
minikern> help
  cat /dev/NAME ...                        read a Linux device as read(2) would
  dmesg [-c]                               print (and clear) the kernel message buffer
...
  echo [word ...]                          print the words
  halt                                     unload every module and stop the kernel
  help [command]                           list commands or show one's usage
  insmod FILE [name=value ...]             load a module (Linux)
  kldload [-v] file ...                    load a module (path or name)
  kldstat [-v] [-i id] [-n name]           list loaded files
  kldunload [-v] name | id ...             unload a module
  lsdev                                    list the Linux devices modules registered
  lsmod                                    list loaded modules (Linux)
  modinfo [-F field] FILE|NAME             show a module's information without loading it
  modprobe [-r] NAME [name=value ...]      load a module and its dependencies by name, or unload (Linux)
  rmmod MODULE ...                         unload a module (Linux)
  sleep MILLISECONDS                       pause the shell
  sysctl [-adn] [name[=value] ...]         read or set kernel variables
  vmstat -m                                memory in use by the kernel and each module
minikern> sleep soon
sleep: usage: sleep MILLISECONDS
