/* dlopen over LoadLibraryW for the Windows build (posix_dlfcn.c): the
 * layers that load optional libraries at run time stay as they are. */
#ifndef GTM_WIN_DLFCN_H
#define GTM_WIN_DLFCN_H

#define RTLD_LAZY 1
#define RTLD_NOW 2
#define RTLD_LOCAL 0
#define RTLD_GLOBAL 0

void *dlopen(const char *file, int mode);
void *dlsym(void *handle, const char *name);
int dlclose(void *handle);
/* The last failure's text, once (then NULL), as POSIX says. */
char *dlerror(void);

#endif
