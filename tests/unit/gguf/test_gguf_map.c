/* GGUF headers read in place through a mapping (Linux, macOS: the reader of
 * src/llm/gguf_file.c over compat/posix/map_read.c): the same header as the
 * pread reader's, a file that shrinks under the mapping, a SIGBUS that is not
 * the reader's. Windows has no mapping reader (tests/windows leaves this out). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gguf_writer.h"
#include "llm/ggml_types.h"
#include "llm/gguf.h"
#include "llm/gguf_internal.h"
#include "testutil.h"

static char *tmp_dir;

static char shrink_to_path[512];
static off_t shrink_to;
static void shrink_file(const char *path)
{
	(void)path;
	assert_int_equal(truncate(shrink_to_path, shrink_to), 0);
}

/* The two ways of reading a file (in place through a mapping, and pread
 * into a moving window) give the same header, on a header of several
 * chunks, a truncated one and an empty file. */
static void test_file_mapped_and_read(void **state)
{
	(void)state;
	char path[512], err[256], err2[256];
	struct gguf_header *a, *b;
	struct gw *w = gw_new();
	gw_str(w, "general.architecture", "qwen3");
	gw_arr_vocab(w, "tokenizer.ggml.tokens", 120000);
	gw_str(w, "general.name", "after the vocabulary");
	for (int i = 0; i < 300; i++) {
		char name[64];
		snprintf(name, sizeof name, "blk.%d.attn_q.weight", i);
		gw_tensor2(w, name, GGML_T_Q8_0, 4096, 4096);
	}
	snprintf(path, sizeof path, "%s/both.gguf", tmp_dir);
	assert_int_equal(gw_write_file(w, path), 0);
	for (int cut = 0; cut < 3; cut++) {
		if (cut == 1)
			assert_int_equal(truncate(path, 500000), 0);
		if (cut == 2)
			assert_int_equal(truncate(path, 0), 0);
		enum gguf_status sa = gguf_read_file(path, &a, err, sizeof err);
		gguf_read_no_map = true;
		enum gguf_status sb = gguf_read_file(path, &b, err2, sizeof err2);
		gguf_read_no_map = false;
		assert_int_equal(sa, sb);
		assert_int_equal(sa, cut == 0 ? GGUF_OK : cut == 1 ? GGUF_ERR_TRUNCATED : sb);
		if (sa != GGUF_OK) {
			assert_string_equal(err, err2);
			continue;
		}
		assert_int_equal(a->infos_end, b->infos_end);
		assert_int_equal(a->data_offset, b->data_offset);
		assert_int_equal(a->data_bytes, b->data_bytes);
		assert_int_equal(a->n_tensors, b->n_tensors);
		assert_int_equal(a->file_size, b->file_size);
		assert_string_equal(a->tensors[299].name, b->tensors[299].name);
		assert_string_equal(gguf_get_str(a, "general.name"), gguf_get_str(b, "general.name"));
		gguf_header_unref(a);
		gguf_header_unref(b);
	}
	gw_free(w);
}

/* A file that shrinks while its mapped header is parsed (a download started
 * again over it): the pages past its new end raise SIGBUS when touched. The
 * read says "changed" and the program goes on. */
static void test_file_shrinks_while_mapped(void **state)
{
	(void)state;
	char err[256];
	struct gguf_header *h;
	struct gw *w = gw_new();
	gw_str(w, "general.architecture", "llama");
	gw_arr_vocab(w, "tokenizer.ggml.tokens", 150000);
	gw_tensor2(w, "token_embd.weight", GGML_T_F16, 4096, 150000);
	snprintf(shrink_to_path, sizeof shrink_to_path, "%s/shrinks.gguf", tmp_dir);
	assert_int_equal(gw_write_file(w, shrink_to_path), 0);
	for (int k = 0; k < 2; k++) {
		shrink_to = k == 0 ? 1 << 20 : 0; /* inside the vocabulary, at a page boundary; then empty */
		assert_int_equal(truncate(shrink_to_path, 0), 0);
		assert_int_equal(gw_write_file(w, shrink_to_path), 0);
		gguf_map_hook = shrink_file;
		enum gguf_status st = gguf_read_file(shrink_to_path, &h, err, sizeof err);
		gguf_map_hook = NULL;
		assert_int_equal(st, GGUF_ERR_CHANGED);
		assert_string_equal(err, "file changed while reading");
		assert_null(h);
	}
	/* the mapping's guard is gone with it: the next read is a plain one */
	assert_int_equal(gw_write_file(w, shrink_to_path), 0);
	assert_int_equal(gguf_read_file(shrink_to_path, &h, err, sizeof err), GGUF_OK);
	gguf_header_unref(h);
	gw_free(w);
}

/* A child that installs a SIGBUS handler (arm), then the reader's guard (a
 * read of a file that is no GGUF), then raises SIGBUS outside any guarded
 * read: by kill when send, else by touching a mapping of a file made empty.
 * Returns its wait status. */
static int sigbus_child(const char *name, void (*arm)(void), bool send)
{
	char path[512], err[256];
	struct gguf_header *h;
	snprintf(path, sizeof path, "%s/%s", tmp_dir, name);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 8192), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		arm();
		(void)gguf_read_file(path, &h, err, sizeof err); /* the guard goes in front */
		if (send)
			kill(getpid(), SIGBUS);
		volatile char *m = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED || ftruncate(fd, 0) != 0)
			_exit(3);
		char c = m[4096];
		(void)c;
		_exit(0);
	}
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	close(fd);
	return status;
}

/* cmocka's handler would catch it: the default, as in the program */
static void arm_default(void) { signal(SIGBUS, SIG_DFL); }

static void exit_7(int sig)
{
	(void)sig;
	_exit(7);
}
static void arm_exit_7(void) { signal(SIGBUS, exit_7); }

static void raise_again(int sig)
{
	raise(sig); /* SA_RESETHAND put the default back: the live view's crash guard's way */
}
static void arm_resetting(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = raise_again;
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
}

/* A SIGBUS that is not a guarded read's still kills, once the guard is
 * installed (a mapping of a file made empty, touched by hand). */
static void test_foreign_sigbus_kills(void **state)
{
	(void)state;
	int status = sigbus_child("foreign.bin", arm_default, false);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGBUS);
}

/* A handler that resets itself and raises again (the live view's crash
 * guard): the process dies of SIGBUS, not of a loop between the two handlers. */
static void test_resetting_handler_dies_of_it(void **state)
{
	(void)state;
	int status = sigbus_child("resetting.bin", arm_resetting, false);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGBUS);
}

/* A handler installed before the guard (as the live view's crash guard is)
 * gets a fault outside a guarded read, and a SIGBUS another process sends. */
static void test_previous_handler_gets_it(void **state)
{
	(void)state;
	for (int sent = 0; sent < 2; sent++) {
		int status = sigbus_child("previous.bin", arm_exit_7, sent);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 7);
	}
}

static int setup(void **state)
{
	(void)state;
	tmp_dir = tu_tempdir();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tu_rmrf(tmp_dir);
	free(tmp_dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_mapped_and_read),
		cmocka_unit_test(test_file_shrinks_while_mapped),
		cmocka_unit_test(test_foreign_sigbus_kills),
		cmocka_unit_test(test_previous_handler_gets_it),
		cmocka_unit_test(test_resetting_handler_dies_of_it),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
