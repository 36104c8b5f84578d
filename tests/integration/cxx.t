# A C++ module: its global object is constructed before MOD_LOAD and
# destroyed after MOD_UNLOAD (through __cxa_atexit and the module's
# __dso_handle); virtual calls through base-class pointers reach each
# class's override; new and delete are charged to the module.
minikern> kldload shapes
shapes: global constructor
shapes: rectangle with 4 sides, area 12
shapes: square with 4 sides, area 25
shapes: triangle with 3 sides, area 9
shapes: 3 shapes, total area 46
minikern> sysctl shapes.count
shapes.count: 3
minikern> vmstat -m
         Type InUse MemUse Requests
       shapes     3     1K        3
minikern> kldunload shapes
shapes: unloading with 3 shapes
shapes: global destructor
minikern> vmstat -m
         Type InUse MemUse Requests
minikern> sysctl kern.malloc.memuse vm.arena.used
kern.malloc.memuse: 0
vm.arena.used: 0
minikern> kldload shapes
shapes: global constructor
shapes: rectangle with 4 sides, area 12
shapes: square with 4 sides, area 25
shapes: triangle with 3 sides, area 9
shapes: 3 shapes, total area 46
minikern> halt
shapes: unloading with 3 shapes
shapes: global destructor
