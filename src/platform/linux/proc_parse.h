/* Pure parsers for the /proc files the process scan reads. Each takes a
 * bounded byte buffer (pointer + length, no NUL needed) and never reads past
 * it; none allocates except proc_split_nul, which the caller frees.
 * Formats: proc(5) and the kernel's Documentation/filesystems/proc.rst;
 * /proc/net/tcp: Documentation/networking/proc_net_tcp.rst. */
#ifndef GTM_PROC_PARSE_H
#define GTM_PROC_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The fields of /proc/PID/stat the scan uses. */
struct proc_stat {
	uint32_t pid;            /* field 1 */
	char comm[64];           /* field 2, without the parentheses; cut to fit */
	char state;              /* field 3: R, S, D, Z, ... */
	uint32_t ppid;           /* field 4 */
	uint32_t flags;          /* field 9: PF_* (PF_KTHREAD = 0x00200000) */
	uint64_t start_time;     /* field 22: clock ticks after boot */
	uint64_t rss_pages;      /* field 24: resident set in pages */
	uint64_t start_code;     /* field 26: where the executable's text starts; 0 hidden or absent */
};

#define PROC_PF_KTHREAD 0x00200000u /* include/linux/sched.h */

/* Parses one /proc/PID/stat line. comm may hold spaces and ')' (a process can
 * name itself anything), so the fields resume after the LAST ')'. Returns 0,
 * or -1 when the line is malformed or cut before field 24 (start_code, after
 * it, is 0 when cut there). */
int proc_stat_parse(const char *buf, size_t len, struct proc_stat *out);

/* The fields of /proc/PID/status the scan uses. */
struct proc_status {
	bool has_tgid;
	uint32_t tgid;           /* differs from the PID for a thread's /proc/TID */
	bool has_uid;
	uid_t uid_real, uid_effective;
	bool has_vmrss;
	uint64_t vmrss_bytes;    /* "VmRSS:  N kB" */
};

/* Parses /proc/PID/status ("Key:\tvalue" lines). Returns 0 when at least one
 * wanted field was found, else -1. */
int proc_status_parse(const char *buf, size_t len, struct proc_status *out);

/* The path column of one /proc/PID/maps line ("start-end perms offset dev
 * inode   path"), or NULL for a mapping that names no file: anonymous, the
 * kernel's pseudo names ([heap], [stack], [vdso], [anon:x], ...), anon_inode:
 * and memfd: mappings. The path runs to the end of the line (it may hold
 * spaces); a " (deleted)" suffix is kept as the kernel wrote it, so a consumer
 * never opens whatever file now sits at that path. *path_len gets its length. */
const char *proc_maps_line_path(const char *line, size_t len, size_t *path_len);

/* Whether a mapping's path names a file someone could open: absolute, and
 * not a memfd, SysV segment, shared anonymous memory or AIO ring. */
bool proc_maps_path_is_file(const char *path, size_t n);
/* Whether a path from proc_maps_line_path ends in the kernel's " (deleted)". */
bool proc_maps_path_deleted(const char *path, size_t len);

/* Address classes of a TCP socket's local address. */
enum proc_addr_class { PROC_ADDR_OTHER = 0, PROC_ADDR_LOOPBACK, PROC_ADDR_ANY };

/* The class of an address given in network byte order: 4 bytes (IPv4) or 16
 * (IPv6, v4-mapped addresses classed as their IPv4 part). */
enum proc_addr_class proc_addr_classify(const uint8_t *addr, size_t len);

/* One row of /proc/net/tcp or /proc/net/tcp6. */
struct proc_tcp_row {
	enum proc_addr_class addr;  /* local address */
	uint16_t port;              /* local port */
	uint8_t state;              /* 0x0A = TCP_LISTEN */
	uint64_t inode;             /* socket inode, joins with "socket:[INODE]" */
};

#define PROC_TCP_LISTEN 0x0A /* include/net/tcp_states.h */

/* Parses one line of /proc/net/tcp or tcp6 (the header line and malformed
 * lines return -1). Addresses are the kernel's %08X of each 32-bit word in
 * host order: on a little-endian machine 127.0.0.1 is "0100007F" and ::1 is
 * "00000000000000000000000001000000". Loopback is 127.0.0.0/8, ::1 and
 * ::ffff:127.0.0.0/104; ANY is 0.0.0.0, :: and ::ffff:0.0.0.0. */
int proc_tcp_line_parse(const char *line, size_t len, struct proc_tcp_row *out);

/* Whether a row is a listening socket on a loopback address. */
bool proc_tcp_row_is_loopback_listener(const struct proc_tcp_row *r);

/* The inode of an fd link target "socket:[INODE]", or 0 when it is not one. */
uint64_t proc_socket_inode(const char *link, size_t len);

/* Splits a NUL-separated buffer (cmdline, environ) into a NULL-terminated
 * vector of malloc'd strings. A missing final NUL still ends the last string;
 * an empty buffer gives an empty vector. *n gets the count; at most max_items
 * strings are kept. */
char **proc_split_nul(const char *buf, size_t len, int max_items, int *n);

/* Finds uid in an /etc/passwd buffer ("name:x:uid:gid:..."). Copies the name
 * (cut to cap-1) and returns 0, or -1 when absent. */
int proc_passwd_lookup(const char *buf, size_t len, uid_t uid, char *name, size_t cap);

/* The static folders of /proc's root, from getdents64 records (struct
 * linux_dirent64: d_ino u64, d_off s64, d_reclen u16, d_type u8, d_name NUL-
 * ended): folders (DT_DIR) other than "." and ".." are counted until the
 * first PID's entry, which ends the static part (fs/proc/root.c
 * proc_root_readdir lists the static entries first, then the PIDs). Fed one
 * getdents64 buffer at a time; a record cut or overlong, or a name without
 * its NUL, makes the whole count bad. */
struct proc_root_dirs {
	unsigned dirs;
	bool pid_seen; /* the static part is over */
	bool bad;
};
void proc_root_dirs_feed(struct proc_root_dirs *d, const char *buf, size_t len);

#endif
