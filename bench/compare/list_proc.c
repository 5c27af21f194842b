/* The floor compare.py puts beside gputaskman and nvtop: a program that only
 * lists /proc (open, getdents64 to the end, close), which gputaskman does to
 * count the processes and nvtop does not do at all. The kernel's cost of a
 * listing grows with the processes (proc_pid_readdir looks each one's dentry
 * up), so the difference between the two programs is partly this. With an
 * argument it lists nothing: what starting and ending a program costs, to
 * take off the listing's figure. */
#include <dirent.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		return 0;
	DIR *d = opendir("/proc");
	unsigned n = 0;

	if (!d)
		return 1;
	while (readdir(d))
		n++;
	closedir(d);
	return n == 0;
}
