/* platform/platform_time.h on Windows: QueryPerformanceCounter, an SRW lock
 * with a condition variable waited on with a relative timeout
 * (SleepConditionVariableSRW), a waitable timer for the sleep. Nothing here
 * goes through winpthreads' clocks (platform_time.h says why). */
#include "platform/platform_time.h"

#include <windows.h>

#include <stdio.h>
#include <stdlib.h>

#include "core/util.h"

#ifndef CREATE_WAITABLE_TIMER_HIGH_RESOLUTION
#define CREATE_WAITABLE_TIMER_HIGH_RESOLUTION 0x00000002
#endif

/* The longest a sleep goes without looking at its stop flag. */
#define STOP_POLL_NS (100ull * 1000000ull)

struct os_monitor {
	SRWLOCK lock;
	CONDITION_VARIABLE cv;
};

uint64_t now_monotonic_ns(void)
{
	LARGE_INTEGER f, c;

	/* both always succeed since Windows XP; the tick count is the fallback */
	if (!QueryPerformanceFrequency(&f) || f.QuadPart <= 0 || !QueryPerformanceCounter(&c))
		return (uint64_t)GetTickCount64() * 1000000ull;
	uint64_t freq = (uint64_t)f.QuadPart, n = (uint64_t)c.QuadPart;
	/* split so that n * 1e9 cannot overflow */
	return n / freq * 1000000000ull + n % freq * 1000000000ull / freq;
}

struct os_monitor *os_monitor_new(char *why, size_t cap)
{
	struct os_monitor *m = calloc(1, sizeof *m);

	if (!m) {
		snprintf(why, cap, "out of memory for a lock");
		return NULL;
	}
	InitializeSRWLock(&m->lock); /* neither can fail */
	InitializeConditionVariable(&m->cv);
	return m;
}

void os_monitor_free(struct os_monitor *m)
{
	free(m); /* an SRW lock and a condition variable hold no resources */
}

void os_monitor_lock(struct os_monitor *m)
{
	AcquireSRWLockExclusive(&m->lock);
}

void os_monitor_unlock(struct os_monitor *m)
{
	ReleaseSRWLockExclusive(&m->lock);
}

void os_monitor_wake(struct os_monitor *m)
{
	WakeAllConditionVariable(&m->cv);
}

/* Milliseconds from now to the deadline, rounded up (a timeout rounded down
 * would wake before it and wait again for 0 ms), below INFINITE. */
static DWORD ms_until(uint64_t now, uint64_t deadline_ns)
{
	uint64_t ms = (deadline_ns - now + 999999ull) / 1000000ull;
	return ms >= INFINITE ? INFINITE - 1 : (DWORD)ms;
}

bool os_monitor_wait_until(struct os_monitor *m, uint64_t deadline_ns)
{
	uint64_t now = now_monotonic_ns();
	DWORD ms;

	if (deadline_ns != OS_WAIT_FOREVER && now >= deadline_ns)
		return true;
	ms = deadline_ns == OS_WAIT_FOREVER ? INFINITE : ms_until(now, deadline_ns);
	if (!SleepConditionVariableSRW(&m->cv, &m->lock, ms, 0) && GetLastError() != ERROR_TIMEOUT) {
		/* documented to fail only by timing out; should it fail otherwise,
		 * the time still passes outside the lock, so a loop cannot spin */
		ReleaseSRWLockExclusive(&m->lock);
		Sleep(ms < 100 ? ms : 100);
		AcquireSRWLockExclusive(&m->lock);
	}
	return deadline_ns != OS_WAIT_FOREVER && now_monotonic_ns() >= deadline_ns;
}

static HANDLE timer_new(void)
{
	HANDLE t = CreateWaitableTimerExW(NULL, NULL, CREATE_WAITABLE_TIMER_HIGH_RESOLUTION, TIMER_ALL_ACCESS);
	/* the high-resolution flag is Windows 10 1803's; older ones refuse it */
	return t ? t : CreateWaitableTimerExW(NULL, NULL, 0, TIMER_ALL_ACCESS);
}

/* One slice of a sleep on the timer (NULL: none could be made), or on
 * Sleep when the timer cannot be set or waited on. */
static void sleep_slice(HANDLE timer, uint64_t ns)
{
	DWORD ms = (DWORD)((ns + 999999ull) / 1000000ull);
	/* negative: relative, in 100 ns units, on the interrupt time (no clock jumps) */
	LARGE_INTEGER due = {.QuadPart = -(LONGLONG)((ns + 99ull) / 100ull)};

	if (timer && SetWaitableTimer(timer, &due, 0, NULL, NULL, FALSE)) {
		DWORD w = WaitForSingleObject(timer, ms + 1000);
		if (w == WAIT_OBJECT_0 || w == WAIT_TIMEOUT)
			return;
	}
	Sleep(ms);
}

bool os_sleep_until(uint64_t deadline_ns, const volatile sig_atomic_t *stop)
{
	HANDLE timer = timer_new();
	bool due = false;

	while (!*stop) {
		uint64_t now = now_monotonic_ns();
		if (now >= deadline_ns) {
			due = true;
			break;
		}
		uint64_t left = deadline_ns - now;
		sleep_slice(timer, left < STOP_POLL_NS ? left : STOP_POLL_NS);
	}
	if (timer)
		CloseHandle(timer);
	return due;
}
