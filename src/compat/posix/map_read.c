/* Read-only mappings of files that a shrinking file cannot kill us through
 * (map_read.h). A page of a mapping past the file's end raises SIGBUS on
 * touch; a model file rewritten in place (a download started again with
 * O_TRUNC) shrinks while its header is parsed. The handler covers the rest
 * of the mapping it faulted in with zero pages (mmap MAP_FIXED: a system
 * call, safe in a handler on Linux and macOS), marks the mapping and
 * returns, so the parse reads zeros and the caller, seeing the mark (and the
 * size changed), reports the file as changed while read. A SIGBUS anywhere
 * else goes to the handler that was there before (the live view's, which
 * restores the terminal), or kills as it would have; the next mapping puts
 * this handler back in front. */
#include "map_read.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The mapping this thread is reading (one at a time, between map and release). */
static _Thread_local struct os_map *active;
static struct sigaction previous;

static void on_sigbus(int sig, siginfo_t *info, void *uctx)
{
	struct os_map *m = active;
	uintptr_t at = (uintptr_t)info->si_addr, lo = m ? (uintptr_t)m->p : 0;

	if (m && at >= lo && at < lo + m->mapped) {
		uintptr_t page = at & ~((uintptr_t)m->page - 1);
		size_t rest = (size_t)(lo + m->mapped - page);
		if (mmap((void *)page, rest, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
			m->faulted = 1;
			return;
		}
	}
	/* Not ours (or the cover failed): the handler from before takes it, as
	 * the kernel would give it to it. It goes back in place; a fault then
	 * repeats on return and reaches it (the default: death), a SIGBUS sent
	 * by a process is raised again. No direct call: a handler that resets
	 * itself and raises (the live view's) would raise into this one again. */
	(void)uctx;
	sigaction(SIGBUS, &previous, NULL);
	if (info->si_code <= 0)
		raise(sig);
}

static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;

/* Ours unless someone installed another since (the live view installs its
 * fatal-signal handler when it starts): then ours goes in front of theirs. */
static bool install(void)
{
	struct sigaction now, ours;
	bool ok = true;

	pthread_mutex_lock(&install_lock);
	if (sigaction(SIGBUS, NULL, &now) == 0 && !((now.sa_flags & SA_SIGINFO) && now.sa_sigaction == on_sigbus)) {
		memset(&ours, 0, sizeof ours);
		ours.sa_sigaction = on_sigbus;
		ours.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
		sigemptyset(&ours.sa_mask);
		ok = sigaction(SIGBUS, &ours, &previous) == 0;
	}
	pthread_mutex_unlock(&install_lock);
	return ok;
}

bool os_map_read(int fd, size_t len, struct os_map *m)
{
	long page = sysconf(_SC_PAGESIZE);

	memset(m, 0, sizeof *m);
	if (len == 0 || page <= 0 || active || !install())
		return false;
	void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return false;
	m->p = p;
	m->len = len;
	m->page = (size_t)page;
	m->mapped = (len + (size_t)page - 1) & ~((size_t)page - 1);
	active = m;
	return true;
}

void os_map_release(struct os_map *m)
{
	if (!m->p)
		return;
	if (active == m)
		active = NULL;
	munmap((void *)m->p, m->mapped);
	m->p = NULL;
}
