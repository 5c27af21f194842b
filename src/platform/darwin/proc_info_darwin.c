/* Per-process reads through libproc and sysctl (macOS only): start times
 * (KERN_PROC_PID, any process), the executable, arguments and environment
 * (KERN_PROCARGS2: own processes, root all), the working folder
 * (PROC_PIDVNODEPATHINFO), mapped files (PROC_PIDREGIONPATHINFO walked
 * region by region: xnu's bsd/kern/proc_info.c returns the region at or
 * after the address asked), the graphics ledger (task_info TASK_VM_INFO)
 * and the listening TCP sockets (PROC_PIDLISTFDS + PROC_PIDFDSOCKETINFO).
 * Nothing here opens a file: mapped paths inside other apps' sandbox
 * containers are dropped unseen, since opening one later (a model's
 * header) would stop on a privacy prompt. */
#include "proc_info_darwin.h"

#include <arpa/inet.h>
#include <errno.h>
#include <libproc.h>
#include <mach/mach.h>
#include <stdlib.h>
#include <string.h>
#include <sys/proc_info.h>
#include <sys/sysctl.h>

#include "core/util.h"
#include "procargs.h"

uint64_t darwin_ticks_of(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * DARWIN_TICKS_PER_SECOND + (uint64_t)tv->tv_usec / (1000000 / DARWIN_TICKS_PER_SECOND);
}

uint64_t darwin_proc_start_time(uint32_t pid)
{
	int mib[4] = {CTL_KERN, KERN_PROC, KERN_PROC_PID, (int)pid};
	struct kinfo_proc kp;
	size_t len = sizeof kp;
	if (sysctl(mib, 4, &kp, &len, NULL, 0) != 0 || len < sizeof kp || kp.kp_proc.p_pid != (pid_t)pid)
		return 0;
	return darwin_ticks_of(&kp.kp_proc.p_starttime);
}

enum darwin_gfx darwin_graphics_footprint(uint32_t pid, uint64_t *bytes)
{
	mach_port_t task = MACH_PORT_NULL;
	if (task_name_for_pid(mach_task_self(), (int)pid, &task) != KERN_SUCCESS)
		return darwin_proc_start_time(pid) ? DARWIN_GFX_DENIED : DARWIN_GFX_GONE;
	task_vm_info_data_t vi;
	mach_msg_type_number_t count = TASK_VM_INFO_COUNT;
	kern_return_t kr = task_info(task, TASK_VM_INFO, (task_info_t)&vi, &count);
	mach_port_deallocate(mach_task_self(), task);
	if (kr != KERN_SUCCESS)
		return DARWIN_GFX_GONE;
	if (count < TASK_VM_INFO_REV3_COUNT)
		return DARWIN_GFX_UNSUPPORTED;
	*bytes = (uint64_t)vi.ledger_tag_graphics_footprint;
	return DARWIN_GFX_OK;
}

bool darwin_proc_args(uint32_t pid, struct gtm_proc_detail *d, bool want_env)
{
	int mib[3] = {CTL_KERN, KERN_PROCARGS2, (int)pid}, max_mib[2] = {CTL_KERN, KERN_ARGMAX};
	int argmax = 0;
	size_t len = sizeof argmax;
	if (sysctl(max_mib, 2, &argmax, &len, NULL, 0) != 0 || argmax <= 0)
		argmax = 1 << 20;
	char *buf = xmalloc((size_t)argmax);
	len = (size_t)argmax;
	struct procargs a;
	if (sysctl(mib, 3, buf, &len, NULL, 0) != 0 || procargs_parse(buf, len, PROC_ENVIRON_MAX, &a) != 0) {
		free(buf);
		return false;
	}
	d->argv = a.argv;
	d->argc = a.argc;
	a.argv = NULL;
	a.argc = 0;
	if (want_env)
		proc_detail_set_environ(d, a.env, a.env_len);
	free(buf);
	return true;
}

/* A mapped path gputaskman keeps: none inside another app's sandbox. */
static bool path_kept(const char *p)
{
	return p[0] == '/' && !strstr(p, "/Library/Containers/") && !strstr(p, "/Library/Group Containers/");
}

#define MAX_REGIONS 65536 /* MLX jobs hold ~6k regions; a bound against a runaway walk */
#define MAX_MAPS 4096

void darwin_proc_maps(uint32_t pid, struct gtm_proc_detail *d)
{
	struct proc_regionwithpathinfo ri;
	uint64_t addr = 0;
	size_t cap = 0;
	for (int i = 0; i < MAX_REGIONS && d->n_maps < MAX_MAPS; i++) {
		memset(&ri, 0, sizeof ri);
		int n = proc_pidinfo((int)pid, PROC_PIDREGIONPATHINFO, addr, &ri, (int)sizeof ri);
		if (n < (int)sizeof ri)
			break;
		uint64_t next = ri.prp_prinfo.pri_address + ri.prp_prinfo.pri_size;
		if (next <= addr)
			break;
		addr = next;
		const char *p = ri.prp_vip.vip_path;
		if (!p[0] || !path_kept(p))
			continue;
		bool seen = false;
		for (size_t k = d->n_maps; k-- > 0 && !seen;)
			seen = strcmp(d->maps[k], p) == 0;
		if (seen)
			continue;
		d->maps = grow_array(d->maps, sizeof *d->maps, &cap, d->n_maps);
		d->maps[d->n_maps++] = xstrdup(p);
	}
}

char *darwin_proc_cwd(uint32_t pid)
{
	struct proc_vnodepathinfo vi;
	if (proc_pidinfo((int)pid, PROC_PIDVNODEPATHINFO, 0, &vi, (int)sizeof vi) != (int)sizeof vi ||
	    !vi.pvi_cdir.vip_path[0])
		return NULL;
	return xstrdup(vi.pvi_cdir.vip_path);
}

char *darwin_proc_exe(uint32_t pid)
{
	char path[PROC_PIDPATHINFO_MAXSIZE];
	return proc_pidpath((int)pid, path, sizeof path) > 0 ? xstrdup(path) : NULL;
}

bool darwin_proc_rss(uint32_t pid, uint64_t *rss)
{
	struct proc_taskinfo ti;
	if (proc_pidinfo((int)pid, PROC_PIDTASKINFO, 0, &ti, (int)sizeof ti) != (int)sizeof ti)
		return false;
	*rss = ti.pti_resident_size;
	return true;
}

/* Whether a listening socket is one the probe reaches on loopback. */
static bool loopback_or_any(const struct in_sockinfo *in)
{
	if (in->insi_vflag & INI_IPV4) {
		uint32_t a = ntohl(in->insi_laddr.ina_46.i46a_addr4.s_addr);
		return a == 0 || a == 0x7f000001u;
	}
	static const uint8_t any[16], lo[16] = {[15] = 1};
	const uint8_t *a = in->insi_laddr.ina_6.s6_addr;
	return memcmp(a, any, 16) == 0 || memcmp(a, lo, 16) == 0;
}

int darwin_proc_ports(uint32_t pid, uint16_t *ports, int cap)
{
	int bytes = proc_pidinfo((int)pid, PROC_PIDLISTFDS, 0, NULL, 0);
	if (bytes <= 0)
		return -1;
	struct proc_fdinfo *fds = xmalloc((size_t)bytes);
	bytes = proc_pidinfo((int)pid, PROC_PIDLISTFDS, 0, fds, bytes);
	int n = 0;
	for (int i = 0; bytes > 0 && i < bytes / (int)sizeof *fds && n < cap; i++) {
		struct socket_fdinfo si;
		if (fds[i].proc_fdtype != PROX_FDTYPE_SOCKET ||
		    proc_pidfdinfo((int)pid, fds[i].proc_fd, PROC_PIDFDSOCKETINFO, &si, (int)sizeof si) != (int)sizeof si)
			continue;
		const struct tcp_sockinfo *t = &si.psi.soi_proto.pri_tcp;
		if (si.psi.soi_kind != SOCKINFO_TCP || t->tcpsi_state != TSI_S_LISTEN || !loopback_or_any(&t->tcpsi_ini))
			continue;
		uint16_t port = ntohs((uint16_t)t->tcpsi_ini.insi_lport);
		bool dup = false;
		for (int k = 0; k < n && !dup; k++)
			dup = ports[k] == port;
		if (!dup)
			ports[n++] = port;
	}
	free(fds);
	return bytes > 0 ? n : -1;
}
