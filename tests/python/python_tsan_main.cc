// python3 with ThreadSanitizer's runtime inside the executable, for the
// Python thread tests of scripts/test --tsan (docs/testing.md).
//
// TSan's shared runtime cannot be preloaded into the system python3: it
// depends on libstdc++, whose constructor calls the runtime's __cxa_atexit
// interceptor before the runtime has started. Linked statically here, the
// runtime starts first (.preinit_array) and exports its entry points to the
// instrumented extension module that python3 later loads.
#include <Python.h>

int main(int argc, char** argv) { return Py_BytesMain(argc, argv); }
