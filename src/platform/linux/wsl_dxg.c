/* The processes of this distro holding /dev/dxg (dxgkrnl's device: its first
 * open by a thread group creates the host-side process, platforms.md 2.4),
 * from the fd links of the root-prefixed /proc, with (pid, start time), comm,
 * and whether any runtime that allocates (CUDA, D3D12, DirectML) is mapped:
 * without one, NVML's own context holds no byte (matching rule c). */
#include "wsl_dxg.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "core/sysroot.h"
#include "core/util.h"
#include "proc_lex.h"
#include "proc_parse.h"

#define MAPS_MAX (8u << 20)

/* Libraries that allocate GPU memory through dxgkrnl (/usr/lib/wsl/lib). */
static const char *const alloc_libs[] = {"libcuda.so", "libd3d12.so", "libd3d12core.so", "libdirectml.so",
					 "libnvcuda.so", "libnvwgf2umx.so"};

/* "/dev/dxg", or under GPUTASKMAN_ROOT the tree's /dev/dxg as this kernel
 * names it (a stand-in process holding ROOT/dev/dxg open). */
static bool is_dxg(const char *link)
{
	const char *root = sysroot_prefix();
	size_t n = strlen(root);

	if (!strcmp(link, "/dev/dxg"))
		return true;
	return n && !strncmp(link, root, n) && !strcmp(link + n, "/dev/dxg");
}

static bool holds_dxg(uint32_t pid)
{
	DIR *d = sysroot_opendir("/proc/%u/fd", pid);
	struct dirent *e;
	char link[4096];
	bool found = false;

	if (!d)
		return false;
	while (!found && (e = readdir(d)))
		if (e->d_name[0] != '.' && sysroot_readlink(link, sizeof link, "/proc/%u/fd/%s", pid, e->d_name) > 0)
			found = is_dxg(link);
	closedir(d);
	return found;
}

static bool maps_allocating_runtime(uint32_t pid)
{
	size_t len;
	char *maps = sysroot_slurp(MAPS_MAX, &len, "/proc/%u/maps", pid);
	bool any = false;

	for (size_t i = 0; maps && !any && i < sizeof alloc_libs / sizeof alloc_libs[0]; i++)
		any = strstr(maps, alloc_libs[i]) != NULL;
	free(maps);
	return any;
}

/* The CPU time of a process's live threads (the first field of each
 * /proc/PID/task/TID/schedstat, in ns, not clock ticks: a short ioctl shows)
 * and their count: the matcher's evidence that it ran (a size that moves with
 * one process). Not known when a thread's file cannot be read. */
static void read_run(uint32_t pid, struct wsl_proc *out)
{
	DIR *d = sysroot_opendir("/proc/%u/task", pid);
	struct dirent *e;
	char buf[128];
	uint64_t sum = 0, ns;
	uint32_t n = 0;
	bool ok = d != NULL;

	while (ok && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		ssize_t len = sysroot_read(buf, sizeof buf, "/proc/%u/task/%s/schedstat", pid, e->d_name);
		struct lex l = {buf, buf + (len > 0 ? len : 0)};
		ok = len > 0 && lex_u64(&l, &ns) && ns <= UINT64_MAX - sum;
		sum += ok ? ns : 0;
		n++;
	}
	if (d)
		closedir(d);
	out->run_known = ok && n > 0;
	out->run_ns = out->run_known ? sum : 0;
	out->n_tasks = out->run_known ? n : 0;
}

static int add_holder(uint32_t pid, struct wsl_proc *out)
{
	char buf[1024];
	struct proc_stat st;
	ssize_t n = sysroot_read(buf, sizeof buf, "/proc/%u/stat", pid);

	if (n <= 0 || proc_stat_parse(buf, (size_t)n, &st) != 0)
		return -1; /* exited meanwhile */
	*out = (struct wsl_proc){.pid = pid, .start = st.start_time};
	str_copy(out->comm, st.comm, sizeof out->comm);
	out->nvml_only = !maps_allocating_runtime(pid);
	read_run(pid, out);
	return 0;
}

int wsl_dxg_holders(struct wsl_proc *out, int max)
{
	DIR *d = sysroot_opendir("/proc");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while (n < max && (e = readdir(d))) {
		char *end;
		unsigned long pid = strtoul(e->d_name, &end, 10);
		if (*end || pid == 0 || pid > UINT32_MAX)
			continue;
		if (holds_dxg((uint32_t)pid) && add_holder((uint32_t)pid, &out[n]) == 0)
			n++;
	}
	closedir(d);
	return n;
}
