// Child-process workers for sweeps (studies/sweep_runner.h): each task runs in
// a forked child, which sends its result back through a pipe. Processes
// isolate the runs from each other: a run that crashes (a signal, an
// abort) becomes a failed task instead of ending the sweep, and libraries
// that are not thread-safe (Debian's serial OpenBLAS under CHOLMOD's
// supernodal factorization: concurrent factorizations in one process gave
// wrong, non-positive-definite results) are never called concurrently in
// one address space. POSIX only.
#pragma once

#include <functional>
#include <string>

namespace sapcontact {

/// Runs task(i) for i = 0..count-1, each in a forked child process, at
/// most `jobs` (>= 1) at a time, from the calling thread (which must be
/// the process's only thread: fork copies only it). In the parent,
/// done(i, output, failure) is called once per task as it finishes:
/// `output` is what task(i) returned in the child; `failure` is empty, or
/// says why the child produced no result ("killed by signal 6 (Aborted)",
/// "exited with status 3", "task threw: ..."). stdout and stderr are
/// flushed before each fork. On Linux a child dies with its parent
/// (PR_SET_PDEATHSIG). When done() throws, the running children are killed
/// and the exception is passed on.
/// @throws std::runtime_error when a pipe or process cannot be created.
void RunInChildProcesses(int count, int jobs,
                         const std::function<std::string(int)>& task,
                         const std::function<void(int, const std::string&,
                                                  const std::string&)>& done);

}  // namespace sapcontact
