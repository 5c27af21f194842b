/* dirent.h for the Windows build (posix_dirent.c), found before mingw's:
 * mingw's opendir takes and readdir gives names in the ANSI code page, so a
 * folder named in letters outside it (C:\Users\Zoë, a model folder named in
 * CJK) could not be listed. This one lists through FindFirstFileW and
 * FindNextFileW and gives UTF-8 names, as every path inside gputaskman is.
 * Only what the portable layers use: opendir, readdir, closedir, d_name. */
#ifndef GTM_WIN_DIRENT_H
#define GTM_WIN_DIRENT_H

/* A name of at most MAX_PATH (260) UTF-16 units is at most 3 UTF-8 bytes a unit. */
#define GTM_DIRENT_NAME_MAX (260 * 3)

struct dirent {
	char d_name[GTM_DIRENT_NAME_MAX + 1];
};
typedef struct gtm_dir DIR;

/* Named apart from mingw's own (libmingwex), which a static link also holds. */
#define opendir gtm_opendir
#define readdir gtm_readdir
#define closedir gtm_closedir
DIR *opendir(const char *path);
struct dirent *readdir(DIR *d);
int closedir(DIR *d);

#endif
