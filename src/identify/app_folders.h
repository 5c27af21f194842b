/* The folders an app keeps for a process (its Ollama models, its HF cache,
 * Handy's data...), from the process's environment by the platform's rules
 * (platform_api.h: platform_folder_rules), so that no caller asks which OS
 * this is. */
#ifndef GTM_APP_FOLDERS_H
#define GTM_APP_FOLDERS_H

#include "core/snapshot.h"
#include "platform.h"

#define APP_FOLDER_MAX 4096
#define APP_FOLDERS_MAX_RULES 8 /* the most rules one folder has, on any OS */

/* The places folder f may be for process d, in the app's order: each rule
 * whose variable d's environment sets to an absolute path, with its tail
 * appended, and each fixed one. At most max of them into out; returns the
 * count. Whether they exist is the caller's question. */
int app_folders(const struct gtm_proc_detail *d, enum platform_folder f, char (*out)[APP_FOLDER_MAX], int max);

/* The first of them that exists as a folder, into out; false when none does. */
bool app_folder_existing(const struct gtm_proc_detail *d, enum platform_folder f, char *out, size_t n);

#endif
