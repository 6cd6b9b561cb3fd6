/*
 * The floor for sampling: a plain C loop of getsockopt(TCP_INFO) over N loopback sockets
 * (N/2 connected pairs, both ends sampled, like the JMH benchmark), with no JVM involved; then
 * the same loop with the fstat that the batched sampler makes per socket for its inode.
 * Usage: tcpinfo-loop N [repetitions]; prints nanoseconds per socket for both.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define INFO_CAPACITY 280

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    int reps = argc > 2 ? atoi(argv[2]) : 0;
    if (reps <= 0) {
        reps = n >= 10000 ? 300 : 3000000 / n;
    }
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof address;
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    if (bind(listener, (struct sockaddr *) &address, len) || listen(listener, 4096)
        || getsockname(listener, (struct sockaddr *) &address, &len)) {
        perror("listener");
        return 2;
    }
    int *fds = malloc(sizeof(int) * n);
    for (int i = 0; i + 1 < n; i += 2) {
        fds[i] = socket(AF_INET, SOCK_STREAM, 0);
        if (fds[i] < 0 || connect(fds[i], (struct sockaddr *) &address, sizeof address)) {
            perror("connect");
            return 2;
        }
        fds[i + 1] = accept(listener, NULL, NULL);
    }
    unsigned char *records = malloc((size_t) n * INFO_CAPACITY);
    for (int warm = 0; warm < reps / 10 + 1; warm++) {
        for (int i = 0; i < n; i++) {
            socklen_t info_len = INFO_CAPACITY;
            getsockopt(fds[i], IPPROTO_TCP, TCP_INFO, records + (size_t) i * INFO_CAPACITY, &info_len);
        }
    }
    double start = now_ns();
    for (int r = 0; r < reps; r++) {
        for (int i = 0; i < n; i++) {
            socklen_t info_len = INFO_CAPACITY;
            getsockopt(fds[i], IPPROTO_TCP, TCP_INFO, records + (size_t) i * INFO_CAPACITY, &info_len);
        }
    }
    double per_socket = (now_ns() - start) / ((double) reps * n);
    printf("c-loop sockets=%d ns_per_socket=%.1f\n", n, per_socket);
    struct stat status;
    start = now_ns();
    for (int r = 0; r < reps; r++) {
        for (int i = 0; i < n; i++) {
            socklen_t info_len = INFO_CAPACITY;
            getsockopt(fds[i], IPPROTO_TCP, TCP_INFO, records + (size_t) i * INFO_CAPACITY, &info_len);
            fstat(fds[i], &status);
        }
    }
    per_socket = (now_ns() - start) / ((double) reps * n);
    printf("c-loop-inode sockets=%d ns_per_socket=%.1f\n", n, per_socket);
    return 0;
}
