// Preloaded into the server only under valgrind (scripts/bench-instructions), never in a build
// of Tollgate. An async `main` ends in libdispatch's dispatch_main, whose signal thread calls
// sigsuspend with a mask in read-only memory (`static const sigset_t`); Valgrind 3.19 (Debian
// 12) edits that mask in place and dies of SIGSEGV. This sigsuspend passes a copy on the stack,
// which the kernel treats the same.
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

int sigsuspend(const sigset_t *mask) {
    sigset_t copy = *mask;
    return (int)syscall(SYS_rt_sigsuspend, &copy, (size_t)(_NSIG / 8));
}
