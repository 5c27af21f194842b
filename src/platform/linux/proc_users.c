/* uid -> user name, cached: each uid is looked up once. Under a fixture root
 * only the tree's own etc/passwd answers (the host's users mean nothing
 * there: a uid it does not name is shown as the number); under "/" the C
 * library does (getpwuid_r: NSS, so LDAP users resolve too). */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sysroot.h"
#include "core/util.h"
#include "proc_internal.h"

#define PASSWD_MAX (4u * 1024u * 1024u)

static void lookup_system(uid_t uid, char *name, size_t cap)
{
	struct passwd pw, *res = NULL;
	char buf[4096];

	if (getpwuid_r(uid, &pw, buf, sizeof buf, &res) == 0 && res && res->pw_name && res->pw_name[0])
		str_copy(name, res->pw_name, cap);
}

static void lookup_tree(struct proc_users *u, uid_t uid, char *name, size_t cap)
{
	if (!u->passwd_tried) {
		u->passwd_tried = true;
		u->passwd = sysroot_slurp(PASSWD_MAX, &u->passwd_len, "/etc/passwd");
	}
	if (u->passwd)
		proc_passwd_lookup(u->passwd, u->passwd_len, uid, name, cap);
}

/* The name stays valid until the next call. */
const char *proc_users_name(struct proc_users *u, uid_t uid)
{
	struct proc_user *e;

	for (size_t i = 0; i < u->n; i++)
		if (u->v[i].uid == uid)
			return u->v[i].name;
	u->v = grow_array(u->v, sizeof *u->v, &u->cap, u->n);
	e = &u->v[u->n++];
	e->uid = uid;
	e->name[0] = '\0';
	if (sysroot_prefix()[0])
		lookup_tree(u, uid, e->name, sizeof e->name);
	else
		lookup_system(uid, e->name, sizeof e->name);
	if (!e->name[0])
		snprintf(e->name, sizeof e->name, "%u", (unsigned)uid);
	return e->name;
}

void proc_users_clear(struct proc_users *u)
{
	free(u->v);
	free(u->passwd);
	memset(u, 0, sizeof *u);
}
