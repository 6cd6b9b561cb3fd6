#define _GNU_SOURCE
/*
 * The host's own counters that need a kernel call rather than a file: the qdiscs' statistics
 * (an rtnetlink dump, as `tc -s qdisc` reads them) and a device's driver statistics (the
 * ethtool ioctl, as `ethtool -S` reads them). Neither needs a privilege. Raw bytes out; Java
 * decodes them.
 */
#include "tcpsight_host.h"

#include <errno.h>
#include <linux/ethtool.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define DUMP_CHUNK 32768

/* Appends the chunk's messages to out; 1 when the dump is complete, 0 for more, -errno on error. */
static int take_chunk(const unsigned char *chunk, ssize_t length, unsigned char *out, int capacity, int *filled) {
    int complete = 0;
    int remaining = (int) length;
    for (const struct nlmsghdr *header = (const struct nlmsghdr *) chunk; NLMSG_OK(header, (unsigned) remaining);
         header = NLMSG_NEXT(header, remaining)) {
        if (header->nlmsg_type == NLMSG_DONE) {
            complete = 1;
            break;
        }
        if (header->nlmsg_type == NLMSG_ERROR) {
            const struct nlmsgerr *error = NLMSG_DATA(header);
            return error->error < 0 ? error->error : -EIO;
        }
        if (*filled + (int) header->nlmsg_len > capacity) {
            return -ENOBUFS;
        }
        memcpy(out + *filled, header, header->nlmsg_len);
        *filled += (int) header->nlmsg_len;
    }
    return complete;
}

int tcpsight_qdisc_dump(unsigned char *out, int capacity) {
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0) {
        return -errno;
    }
    struct timeval timeout = {1, 0}; /* never hang a sampling round on the kernel */
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    struct {
        struct nlmsghdr header;
        struct tcmsg message;
    } request;
    memset(&request, 0, sizeof request);
    request.header.nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg));
    request.header.nlmsg_type = RTM_GETQDISC;
    request.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    request.header.nlmsg_seq = 1;
    request.message.tcm_family = AF_UNSPEC;
    struct sockaddr_nl kernel;
    memset(&kernel, 0, sizeof kernel);
    kernel.nl_family = AF_NETLINK;
    if (sendto(fd, &request, request.header.nlmsg_len, 0, (struct sockaddr *) &kernel, sizeof kernel) < 0) {
        int error = errno;
        close(fd);
        return -error;
    }
    unsigned char *chunk = malloc(DUMP_CHUNK);
    if (chunk == NULL) {
        close(fd);
        return -ENOMEM;
    }
    int filled = 0;
    int result = 0;
    while (result == 0) {
        ssize_t got = recv(fd, chunk, DUMP_CHUNK, 0);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            result = got < 0 ? -errno : -EIO;
            break;
        }
        result = take_chunk(chunk, got, out, capacity, &filled);
    }
    free(chunk);
    close(fd);
    return result < 0 ? result : filled;
}

int tcpsight_ethtool_stats(const char *device, unsigned char *out, int capacity) {
    if (strlen(device) >= IFNAMSIZ) {
        return -EINVAL;
    }
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return -errno;
    }
    struct ifreq request;
    memset(&request, 0, sizeof request);
    strncpy(request.ifr_name, device, IFNAMSIZ - 1);

    struct {
        struct ethtool_sset_info info;
        uint32_t count;
    } sets;
    memset(&sets, 0, sizeof sets);
    sets.info.cmd = ETHTOOL_GSSET_INFO;
    sets.info.sset_mask = 1ULL << ETH_SS_STATS;
    request.ifr_data = (void *) &sets;
    if (ioctl(fd, SIOCETHTOOL, &request) != 0) {
        int error = errno;
        close(fd);
        return -error;
    }
    uint32_t count = sets.info.sset_mask ? sets.count : 0;
    size_t needed = 4 + (size_t) count * (ETH_GSTRING_LEN + 8);
    if (needed > (size_t) capacity) {
        close(fd);
        return -ENOBUFS;
    }
    memcpy(out, &count, 4);
    if (count == 0) {
        close(fd);
        return 4;
    }
    struct ethtool_gstrings *names = calloc(1, sizeof *names + (size_t) count * ETH_GSTRING_LEN);
    struct ethtool_stats *values = calloc(1, sizeof *values + (size_t) count * 8);
    int result = 0;
    if (names == NULL || values == NULL) {
        result = -ENOMEM;
    } else {
        names->cmd = ETHTOOL_GSTRINGS;
        names->string_set = ETH_SS_STATS;
        names->len = count;
        request.ifr_data = (void *) names;
        if (ioctl(fd, SIOCETHTOOL, &request) != 0) {
            result = -errno;
        } else {
            values->cmd = ETHTOOL_GSTATS;
            values->n_stats = count;
            request.ifr_data = (void *) values;
            if (ioctl(fd, SIOCETHTOOL, &request) != 0) {
                result = -errno;
            }
        }
    }
    if (result == 0) {
        /* The counts may have changed between the calls: only as many as both answered. */
        uint32_t answered = names->len < values->n_stats ? names->len : values->n_stats;
        answered = answered < count ? answered : count;
        memcpy(out, &answered, 4);
        memcpy(out + 4, names->data, (size_t) answered * ETH_GSTRING_LEN);
        memcpy(out + 4 + (size_t) answered * ETH_GSTRING_LEN, values->data, (size_t) answered * 8);
        result = 4 + (int) answered * (ETH_GSTRING_LEN + 8);
    }
    free(names);
    free(values);
    close(fd);
    return result;
}

int tcpsight_listen(int fd, int backlog) {
    return listen(fd, backlog) == 0 ? 0 : -errno;
}
