/* Live processes for bench/wddm's PDH counters to name:
 *   bench_procs.exe N SECONDS
 * starts N idle copies of itself, prints each one's PID (GetProcessId: the
 * Windows PID, which under Wine is not the Linux one), a line each, then
 * "ready", and sleeps SECONDS. The copies are in a job that ends them when
 * its last handle closes, so they go when this process ends or is killed;
 * each also ends by itself after SECONDS. With them the source holds a
 * handle on live processes, as on a machine whose counters list real
 * programs, instead of failing an OpenProcess on an invented PID. */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int idle(DWORD secs)
{
	Sleep(secs * 1000);
	return 0;
}

/* A job whose processes end when its last handle (ours) closes. */
static HANDLE kill_on_close_job(void)
{
	JOBOBJECT_EXTENDED_LIMIT_INFORMATION lim;
	HANDLE job = CreateJobObjectW(NULL, NULL);

	if (!job)
		return NULL;
	memset(&lim, 0, sizeof lim);
	lim.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
	if (!SetInformationJobObject(job, JobObjectExtendedLimitInformation, &lim, sizeof lim)) {
		CloseHandle(job);
		return NULL;
	}
	return job;
}

/* One idle copy in job: its PID, or 0. */
static DWORD start_copy(HANDLE job, const wchar_t *self, DWORD secs)
{
	wchar_t cmd[MAX_PATH + 64];
	STARTUPINFOW si = {.cb = sizeof si};
	PROCESS_INFORMATION pi;

	_snwprintf(cmd, sizeof cmd / sizeof cmd[0], L"\"%ls\" --idle %lu", self, (unsigned long)secs);
	cmd[sizeof cmd / sizeof cmd[0] - 1] = L'\0';
	if (!CreateProcessW(self, cmd, NULL, NULL, FALSE, CREATE_SUSPENDED, NULL, NULL, &si, &pi))
		return 0;
	if (!AssignProcessToJobObject(job, pi.hProcess)) {
		TerminateProcess(pi.hProcess, 1);
		CloseHandle(pi.hThread);
		CloseHandle(pi.hProcess);
		return 0;
	}
	ResumeThread(pi.hThread);
	CloseHandle(pi.hThread);
	CloseHandle(pi.hProcess);
	return pi.dwProcessId;
}

int main(int argc, char **argv)
{
	wchar_t self[MAX_PATH];
	DWORD secs = argc > 2 ? (DWORD)strtoul(argv[2], NULL, 10) : 600;

	if (argc > 2 && !strcmp(argv[1], "--idle"))
		return idle(secs);
	int n = argc > 1 ? atoi(argv[1]) : 200;
	HANDLE job = kill_on_close_job();
	DWORD len = GetModuleFileNameW(NULL, self, MAX_PATH);
	if (!job || len == 0 || len >= MAX_PATH) {
		fprintf(stderr, "bench_procs: no job object or no path of its own (error %lu)\n", GetLastError());
		return 1;
	}
	for (int i = 0; i < n; i++) {
		DWORD pid = start_copy(job, self, secs);
		if (!pid) {
			fprintf(stderr, "bench_procs: copy %d did not start (error %lu)\n", i + 1, GetLastError());
			return 1;
		}
		printf("%lu\n", (unsigned long)pid);
	}
	printf("ready\n");
	fflush(stdout);
	return idle(secs);
}
