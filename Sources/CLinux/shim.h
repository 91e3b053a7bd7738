#ifndef TOLLGATE_CLINUX_SHIM_H
#define TOLLGATE_CLINUX_SHIM_H
/* Linux and glibc headers that Swift's Glibc module does not export: epoll, eventfd, malloc
   tuning, thread names. Header-only: everything here is in libc. */
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <malloc.h>
#include <sys/prctl.h>

/* accept4 is declared only under _GNU_SOURCE, which the Glibc module is not built with. */
extern int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags);

/* M_TRIM_THRESHOLD is a macro Swift imports only as a plain constant if at all. */
static inline int tollgate_malloc_trim_threshold(int bytes) { return mallopt(M_TRIM_THRESHOLD, bytes); }
/* prctl is variadic, which Swift cannot call: names the calling thread (15 bytes show). */
static inline int tollgate_name_this_thread(const char *name) { return prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL); }
#endif
