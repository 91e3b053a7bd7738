#ifndef TOLLGATE_CEPOLL_SHIM_H
#define TOLLGATE_CEPOLL_SHIM_H
/* Swift's Glibc module does not export the Linux-only epoll and eventfd headers. */
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

/* accept4 is declared only under _GNU_SOURCE, which the Glibc module is not built with. */
extern int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags);
#endif
