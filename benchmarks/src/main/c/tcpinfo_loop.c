/*
 * The floor for sampling: a plain C loop of getsockopt(TCP_INFO) over N loopback sockets
 * (N/2 connected pairs, both ends sampled, like the JMH benchmark), with no JVM involved; then
 * the same loop with the fstat that the batched sampler makes per socket for its inode; then one
 * sock_diag (inet_diag) dump of the same sockets, tcp_info and inode of each in netlink messages,
 * filtered in the kernel to the listener's port at either end.
 * Usage: tcpinfo-loop N [repetitions]; prints nanoseconds per socket for each.
 */
#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
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
#define DUMP_CHUNK 65536

/* One dump of the established TCP sockets with the port at either end; returns the sockets seen with their
 * tcp_info, or -1. The kernel filter keeps the dump to the listener's connections, as the agent's would. */
static int diag_dump(int port, unsigned char *chunk) {
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (fd < 0) {
        return -1;
    }
    struct {
        struct nlmsghdr header;
        struct inet_diag_req_v2 request;
        struct nlattr filter_attr;
        struct inet_diag_bc_op filter[6];
    } message;
    memset(&message, 0, sizeof message);
    /* sport == port, else dport == port: an op jumps by "yes" bytes when it holds, else by "no"; the end is
     * a match, 4 bytes past it a miss (the kernel's audit allows no further) */
    struct inet_diag_bc_op *op = message.filter;
    op[0] = (struct inet_diag_bc_op){INET_DIAG_BC_S_EQ, sizeof(struct inet_diag_bc_op) * 2, sizeof(struct inet_diag_bc_op) * 4};
    op[1] = (struct inet_diag_bc_op){INET_DIAG_BC_NOP, 0, (unsigned short) port};
    op[2] = (struct inet_diag_bc_op){INET_DIAG_BC_JMP, sizeof(struct inet_diag_bc_op) * 2, sizeof(struct inet_diag_bc_op) * 4};
    op[3] = (struct inet_diag_bc_op){INET_DIAG_BC_NOP, 0, 0};
    op[4] = (struct inet_diag_bc_op){INET_DIAG_BC_D_EQ, sizeof(struct inet_diag_bc_op) * 2, sizeof(struct inet_diag_bc_op) * 3};
    op[5] = (struct inet_diag_bc_op){INET_DIAG_BC_NOP, 0, (unsigned short) port};
    message.filter_attr.nla_len = NLA_HDRLEN + sizeof message.filter;
    message.filter_attr.nla_type = INET_DIAG_REQ_BYTECODE;
    message.header.nlmsg_len = sizeof message;
    message.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    message.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    message.request.sdiag_family = AF_INET;
    message.request.sdiag_protocol = IPPROTO_TCP;
    message.request.idiag_states = 1 << 1; /* TCP_ESTABLISHED */
    message.request.idiag_ext = 1 << (INET_DIAG_INFO - 1);
    struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
    if (sendto(fd, &message, sizeof message, 0, (struct sockaddr *) &kernel, sizeof kernel) < 0) {
        close(fd);
        return -1;
    }
    int sockets = 0;
    for (;;) {
        ssize_t got = recv(fd, chunk, DUMP_CHUNK, 0);
        if (got <= 0) {
            close(fd);
            return -1;
        }
        int remaining = (int) got;
        for (struct nlmsghdr *h = (struct nlmsghdr *) chunk; NLMSG_OK(h, (unsigned) remaining); h = NLMSG_NEXT(h, remaining)) {
            if (h->nlmsg_type == NLMSG_DONE) {
                close(fd);
                return sockets;
            }
            if (h->nlmsg_type == NLMSG_ERROR) {
                close(fd);
                return -1;
            }
            struct inet_diag_msg *socket_message = NLMSG_DATA(h);
            int attributes = (int) (h->nlmsg_len - NLMSG_LENGTH(sizeof *socket_message));
            for (struct nlattr *a = (struct nlattr *) (socket_message + 1); attributes >= (int) sizeof *a && a->nla_len >= sizeof *a;
                 attributes -= NLA_ALIGN(a->nla_len), a = (struct nlattr *) ((char *) a + NLA_ALIGN(a->nla_len))) {
                if (a->nla_type == INET_DIAG_INFO && socket_message->idiag_inode != 0) {
                    sockets++;
                }
            }
        }
    }
}

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
    unsigned char *chunk = malloc(DUMP_CHUNK);
    int port = ntohs(address.sin_port);
    int seen = diag_dump(port, chunk);
    start = now_ns();
    for (int r = 0; r < reps; r++) {
        diag_dump(port, chunk);
    }
    per_socket = (now_ns() - start) / ((double) reps * n);
    printf("diag-dump sockets=%d seen=%d ns_per_socket=%.1f\n", n, seen, per_socket);
    return 0;
}
