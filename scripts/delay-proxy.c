// A TCP proxy that adds a fixed delay each way, for benchmarks only (never part of Tollgate):
// `delay-proxy LISTEN_PORT TARGET_HOST TARGET_PORT RTT_MS` forwards every connection made to
// 127.0.0.1:LISTEN_PORT to TARGET, holding each chunk RTT_MS/2 before passing it on, in each
// direction, in order, as if PostgreSQL ran on another machine. Chunks are read as soon as they
// arrive and written when due, so the delay is added once per trip and pipelined messages stay
// pipelined. One thread on epoll with a timerfd (nanosecond deadlines): it replaces
// scripts/delay_proxy.py, whose Python loop cost more CPU than the round trips it delayed when
// the machine was loaded (docs/BENCHMARKS.md). The kernel's netem would be better still; this
// machine's kernel has no sch_netem. Prints "ready" once it listens; runs until killed.
// Built by scripts/bench-postgres with the C compiler the Swift toolchain brings.
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

// One chunk on its way: due at `due` (CLOCK_MONOTONIC ns), to `target`; length 0 is the sender's end.
typedef struct Chunk {
    uint64_t due;
    int target;
    size_t length, sent;
    struct Chunk *next;
    char bytes[];
} Chunk;

static Chunk *head, *tail; // one delay for all, so arrival order is due order
static int peer_of[65536]; // socket -> the socket its bytes go to (-1: none)
static char read_done[65536], write_done[65536]; // a socket is closed once both are set

static void close_when_done(int fd) {
    if (read_done[fd] && write_done[fd]) {
        close(fd);
        read_done[fd] = write_done[fd] = 0;
    }
}

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void die(const char *what) {
    perror(what);
    exit(1);
}

static void watch(int epoll, int fd) {
    struct epoll_event event = {.events = EPOLLIN, .data.fd = fd};
    if (epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event) < 0) die("epoll_ctl");
}

static void arm(int timer) {
    struct itimerspec when = {0};
    if (head) {
        uint64_t due = head->due;
        when.it_value.tv_sec = (time_t)(due / 1000000000u);
        when.it_value.tv_nsec = (long)(due % 1000000000u);
        if (when.it_value.tv_sec == 0 && when.it_value.tv_nsec == 0) when.it_value.tv_nsec = 1;
    }
    if (timerfd_settime(timer, TFD_TIMER_ABSTIME, &when, NULL) < 0) die("timerfd_settime");
}

// Writes every chunk that is due, in order. A target that cannot take more now (its buffer is
// full) keeps the rest queued; the writes are blocking sockets, so that only happens on error.
static void deliver(void) {
    uint64_t now = now_ns();
    while (head && head->due <= now) {
        Chunk *chunk = head;
        if (chunk->length == 0) {
            shutdown(chunk->target, SHUT_WR);
            write_done[chunk->target] = 1;
            close_when_done(chunk->target);
        } else {
            while (chunk->sent < chunk->length) {
                ssize_t n = send(chunk->target, chunk->bytes + chunk->sent, chunk->length - chunk->sent, MSG_NOSIGNAL);
                if (n <= 0) break; // the target is gone: drop what it would have had
                chunk->sent += (size_t)n;
            }
        }
        head = chunk->next;
        if (!head) tail = NULL;
        free(chunk);
    }
}

static void enqueue(int target, const char *bytes, size_t length, uint64_t due) {
    Chunk *chunk = malloc(sizeof(Chunk) + length);
    if (!chunk) die("malloc");
    chunk->due = due;
    chunk->target = target;
    chunk->length = length;
    chunk->sent = 0;
    chunk->next = NULL;
    memcpy(chunk->bytes, bytes, length);
    if (tail) tail->next = chunk; else head = chunk;
    tail = chunk;
}

static int connect_to(const char *host, const char *port) {
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *found;
    if (getaddrinfo(host, port, &hints, &found) != 0) return -1;
    int fd = socket(found->ai_family, found->ai_socktype | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, found->ai_addr, found->ai_addrlen) < 0) {
        close(fd);
        fd = -1;
    }
    freeaddrinfo(found);
    return fd;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: delay-proxy LISTEN_PORT TARGET_HOST TARGET_PORT RTT_MS\n");
        return 64;
    }
    uint64_t delay = (uint64_t)(atof(argv[4]) * 1000000.0 / 2.0);
    memset(peer_of, -1, sizeof peer_of);
    int server = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
    setsockopt(server, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[1])),
                                  .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (bind(server, (struct sockaddr *)&address, sizeof address) < 0 || listen(server, 512) < 0) die("listen");
    int epoll = epoll_create1(EPOLL_CLOEXEC), timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    if (epoll < 0 || timer < 0) die("epoll/timerfd");
    watch(epoll, server);
    watch(epoll, timer);
    printf("ready\n");
    fflush(stdout);
    static char buffer[262144];
    struct epoll_event events[64];
    for (;;) {
        int count = epoll_wait(epoll, events, 64, -1);
        if (count < 0 && errno == EINTR) continue;
        if (count < 0) die("epoll_wait");
        uint64_t now = now_ns();
        for (int i = 0; i < count; i++) {
            int fd = events[i].data.fd;
            if (fd == timer) {
                uint64_t expirations;
                (void)!read(timer, &expirations, sizeof expirations);
            } else if (fd == server) {
                int client = accept4(server, NULL, NULL, SOCK_CLOEXEC);
                if (client < 0) continue;
                int upstream = connect_to(argv[2], argv[3]);
                if (upstream < 0 || client >= 65536 || upstream >= 65536) {
                    close(client);
                    if (upstream >= 0) close(upstream);
                    continue;
                }
                setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                setsockopt(upstream, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                peer_of[client] = upstream;
                peer_of[upstream] = client;
                watch(epoll, client);
                watch(epoll, upstream);
            } else if (peer_of[fd] >= 0) {
                ssize_t n = recv(fd, buffer, sizeof buffer, 0);
                if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
                enqueue(peer_of[fd], buffer, n > 0 ? (size_t)n : 0, now + delay);
                if (n <= 0) { // this side is done sending: stop reading it (its peer closes it when it ends too)
                    epoll_ctl(epoll, EPOLL_CTL_DEL, fd, NULL);
                    peer_of[fd] = -1;
                    read_done[fd] = 1;
                    close_when_done(fd);
                }
            }
        }
        deliver();
        arm(timer);
    }
}
