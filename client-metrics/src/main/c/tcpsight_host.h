/*
 * Host counters read with a kernel call (rtnetlink, the ethtool ioctl) and the one write the
 * agent may do on a user's opt-in (a deeper listen backlog). Failures are negative errno values.
 */
#ifndef TCPSIGHT_HOST_H
#define TCPSIGHT_HOST_H

/* The netlink messages of an RTM_GETQDISC dump of this network namespace, as the kernel sent
 * them (NLMSG_DONE left out), into out. Returns the bytes filled, -ENOBUFS when they do not fit. */
int tcpsight_qdisc_dump(unsigned char *out, int capacity);

/* A device's driver statistics: uint32 count, count names of 32 bytes (NUL-padded), count
 * uint64 values, all in host byte order. Returns the bytes filled or -errno (EOPNOTSUPP: the
 * driver has none, ENODEV: no such device). */
int tcpsight_ethtool_stats(const char *device, unsigned char *out, int capacity);

/* listen(2) again on a listening socket: Linux takes the new backlog. 0 or -errno. */
int tcpsight_listen(int fd, int backlog);

#endif
