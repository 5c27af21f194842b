/* A replay tree of chosen live processes. A GPUTASKMAN_ROOT never follows a
 * link out of itself, so a test that wants "this machine's /proc, but only
 * these PIDs" copies what gputaskman reads into the tree instead of linking
 * to /proc: files as files, links (exe, cwd, root, fd/N) as symlinks holding
 * the link's text, which the tree then resolves inside itself. */
#ifndef GTM_PROC_CAPTURE_H
#define GTM_PROC_CAPTURE_H

/* root/proc/PID from /proc/PID, replacing an older copy in one rename.
 * root must be under /tmp/gtm- (tu_rmrf's rule). Returns 0, or -1 when the
 * process is gone. */
int tu_capture_pid(const char *root, int pid);
/* /proc's system files (stat, version, uptime, meminfo, loadavg, net/tcp,
 * net/tcp6) and /etc/passwd, replacing older copies. */
void tu_capture_system(const char *root);

#endif
