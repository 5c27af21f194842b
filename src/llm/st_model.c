/* Loading a safetensors model's headers and config.json (st_model.h). The
 * index, MLX's glob (mlx-lm utils.py load_model: glob "model*.safetensors")
 * and a plain folder are tried in that order. */
#include "llm/st_model.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/sysroot.h"
#include "core/util.h"
#include <fnmatch.h>
#include "portable.h"

/* A small file whole, at most max bytes; NULL when unreadable or larger. */
static char *slurp(const char *path, bool observed, size_t max, size_t *len)
{
	int fd = observed ? sysroot_open(O_RDONLY | O_NOCTTY | O_NONBLOCK, "%s", path) : os_open_read(path);
	struct stat st;
	char *buf = NULL;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size <= max) {
		os_clear_nonblock(fd);
		buf = xmalloc((size_t)st.st_size + 1);
		ssize_t n = read_fd_bounded(fd, buf, (size_t)st.st_size + 1, false);
		if (n < 0) {
			free(buf);
			buf = NULL;
		} else {
			*len = (size_t)n;
		}
	}
	close(fd);
	return buf;
}

static DIR *open_dir(const char *dir, bool observed)
{
	return observed ? sysroot_opendir("%s", dir) : opendir(dir);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct st_model_file *)a)->name, ((const struct st_model_file *)b)->name);
}

static void add_file(struct st_model *m, const char *name)
{
	if (m->n_files >= ST_MAX_SHARDS)
		return;
	if (!m->files)
		m->files = xcalloc(ST_MAX_SHARDS, sizeof *m->files);
	m->files[m->n_files++].name = xstrdup(name);
}

/* Every file of dir matching the pattern, sorted. */
static void add_glob(struct st_model *m, const char *pattern, bool observed)
{
	DIR *d = open_dir(m->dir, observed);
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.' && fnmatch(pattern, de->d_name, 0) == 0)
			add_file(m, de->d_name);
	if (d)
		closedir(d);
	if (m->n_files)
		qsort(m->files, m->n_files, sizeof *m->files, name_cmp);
}

static bool add_index(struct st_model *m, bool observed, const char *only, char *err, size_t en)
{
	char path[4096];
	size_t len = 0;
	struct st_index ix;
	if ((size_t)snprintf(path, sizeof path, "%s/model.safetensors.index.json", m->dir) >= sizeof path)
		return false;
	char *buf = slurp(path, observed, ST_MAX_INDEX_BYTES, &len);
	if (!buf)
		return false;
	bool ok = st_index_parse(buf, len, &ix, err, en);
	free(buf);
	if (!ok)
		return false;
	bool listed = !only;
	for (size_t i = 0; i < ix.n_shards; i++)
		listed |= only && !strcmp(ix.shards[i], only);
	for (size_t i = 0; listed && i < ix.n_shards; i++)
		add_file(m, ix.shards[i]);
	m->have_index = listed;
	m->index_total_size = ix.have_total_size ? ix.total_size : 0;
	st_index_free(&ix);
	return listed;
}

static void read_config(struct st_model *m, bool observed)
{
	char path[4096];
	size_t len = 0;
	if ((size_t)snprintf(path, sizeof path, "%s/config.json", m->dir) >= sizeof path)
		return;
	char *buf = slurp(path, observed, HF_CONFIG_MAX_BYTES, &len);
	if (!buf) {
		snprintf(m->config_error, sizeof m->config_error, "no readable config.json beside the weights");
		return;
	}
	m->have_config = hf_config_parse(buf, len, &m->config, m->config_error, sizeof m->config_error);
	free(buf);
}

static void read_headers(struct st_model *m, bool observed)
{
	char path[4096], err[256];
	for (size_t i = 0; i < m->n_files; i++) {
		struct st_model_file *f = &m->files[i];
		snprintf(path, sizeof path, "%s/%s", m->dir, f->name);
		if (st_read_file(path, observed, &f->h, err, sizeof err) != ST_OK) {
			f->error = xstrdup(err);
			m->n_unreadable++;
			continue;
		}
		for (int d = 0; d < ST_DTYPE_COUNT; d++) {
			m->by_dtype[d].n_tensors += f->h->by_dtype[d].n_tensors;
			m->by_dtype[d].n_params += f->h->by_dtype[d].n_params;
			m->by_dtype[d].bytes += f->h->by_dtype[d].bytes;
		}
		m->n_params += f->h->n_params;
		m->weight_bytes += f->h->data_len;
		m->header_bytes += 8 + f->h->header_len;
		m->missing_bytes += f->h->missing_bytes;
		m->extra_bytes += f->h->extra_bytes;
		m->n_incomplete += !st_header_complete(f->h);
		const char *fmt = st_header_meta(f->h, "format");
		if (fmt && !m->format_version[0])
			str_copy(m->format_version, fmt, sizeof m->format_version);
	}
}

static bool is_dir_path(const char *path, bool observed)
{
	struct stat st;
	int rc = observed ? sysroot_stat(&st, "%s", path) : stat(path, &st);
	return rc == 0 && S_ISDIR(st.st_mode);
}

bool st_model_load(struct st_model *m, const char *path, bool observed, char *err, size_t en)
{
	char ierr[200] = "";
	memset(m, 0, sizeof *m);
	if (is_dir_path(path, observed)) {
		m->dir = xstrdup(path);
		if (add_index(m, observed, NULL, ierr, sizeof ierr))
			m->source = "model.safetensors.index.json";
		else if (add_glob(m, "model*.safetensors", observed), m->n_files)
			m->source = "model*.safetensors";
		else if (add_glob(m, "*.safetensors", observed), m->n_files)
			m->source = "*.safetensors";
	} else {
		const char *base = path_base(path);
		m->dir = base == path ? xstrdup(".") : xstrndup(path, (size_t)(base - path - 1));
		if (add_index(m, observed, base, ierr, sizeof ierr)) {
			m->source = "model.safetensors.index.json";
		} else {
			add_file(m, base);
			m->source = "file";
		}
	}
	if (!m->n_files) {
		snprintf(err, en, "%s", ierr[0] ? ierr : "no .safetensors file there");
		st_model_free(m);
		return false;
	}
	read_headers(m, observed);
	if (m->n_unreadable == m->n_files) {
		snprintf(err, en, "%s: %s", m->files[0].name, m->files[0].error);
		st_model_free(m);
		return false;
	}
	read_config(m, observed);
	return true;
}

void st_model_free(struct st_model *m)
{
	for (size_t i = 0; i < m->n_files; i++) {
		free(m->files[i].name);
		free(m->files[i].error);
		st_header_free(m->files[i].h);
	}
	free(m->files);
	free(m->dir);
	memset(m, 0, sizeof *m);
}
