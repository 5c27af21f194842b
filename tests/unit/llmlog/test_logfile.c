/* The log tail reader: unchanged, appended (a partial last line completed
 * later), rotated, truncated, and a file far larger than the tail. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <utime.h>
#include <unistd.h>

#include "explain/logfile.h"
#include "llm/llama_log.h"
#include "testutil.h"

static void append(const char *path, const char *s)
{
	FILE *f = fopen(path, "ab");
	fputs(s, f);
	fclose(f);
}

static void bump_mtime(const char *path, long sec)
{
	struct utimbuf ut = {sec, sec};
	utime(path, &ut);
}

static void test_append_rotate_truncate(void **state)
{
	(void)state;
	char *dir = tu_tempdir(), path[512], moved[512];
	snprintf(path, sizeof path, "%s/a.log", dir);
	tu_write_file(path, "one\ntwo\nthr", 11);
	struct tail_file t = {0};
	assert_int_equal(tail_read(&t, path, 1024), 1);
	assert_int_equal(t.len, 11);
	assert_int_equal(t.lines_end, 8);
	assert_int_equal(tail_read(&t, path, 1024), 0); /* unchanged */
	/* the partial line is completed and more is written: only the new part comes back, from "thr" */
	append(path, "ee\nfour\n");
	bump_mtime(path, 2000000000);
	assert_int_equal(tail_read(&t, path, 1024), 2);
	assert_int_equal(t.len, 11);
	assert_memory_equal(t.buf, "three\nfour\n", 11);
	assert_int_equal(t.lines_end, 19);
	/* rotated: another file under the same name */
	snprintf(moved, sizeof moved, "%s/a.log.1", dir);
	assert_int_equal(rename(path, moved), 0);
	tu_write_file(path, "new\n", 4);
	assert_int_equal(tail_read(&t, path, 1024), 1);
	assert_memory_equal(t.buf, "new\n", 4);
	/* truncated and rewritten (llama.cpp opens --log-file with "w") */
	FILE *f = fopen(path, "wb");
	fputs("x\n", f);
	fclose(f);
	bump_mtime(path, 2000000100);
	assert_int_equal(tail_read(&t, path, 1024), 1);
	assert_memory_equal(t.buf, "x\n", 2);
	/* not a regular file: refused without opening it (Windows, the suite
	 * under Wine, has no FIFO and no /dev/null) */
#ifndef _WIN32
	char fifo[600];
	snprintf(fifo, sizeof fifo, "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	struct tail_file tf2 = {0};
	assert_int_equal(tail_read(&tf2, fifo, 1024), -1);
	assert_int_equal(tail_read(&tf2, "/dev/null", 1024), -1);
#endif
	/* gone */
	unlink(path);
	assert_int_equal(tail_read(&t, path, 1024), -1);
	tail_free(&t);
	tu_rmrf(dir);
	free(dir);
}

/* A 3 MiB log: only the last 512 KiB are read, starting at a whole line; the
 * last load block (at the end) is found. */
static void test_huge_log(void **state)
{
	(void)state;
	char *dir = tu_tempdir(), path[512];
	snprintf(path, sizeof path, "%s/big.log", dir);
	FILE *f = fopen(path, "wb");
	for (int i = 0; i < 40000; i++)
		fprintf(f, "0.%02d.%03d.000 I slot print_timing: id  0 | task %d | prompt eval time = 1.00 ms\n", i / 60000 % 60, i % 1000, i);
	fputs("srv load_model: loading model '/m/last.gguf'\nload_tensors: CUDA0 model buffer size = 10.00 MiB\n", f);
	fclose(f);
	struct tail_file t = {0};
	assert_int_equal(tail_read(&t, path, LOG_TAIL_MAX), 1);
	assert_true(t.cut);
	assert_true(t.len <= LOG_TAIL_MAX);
	assert_true(t.buf[0] == '0'); /* a whole line */
	struct llama_log *lg = malloc(sizeof *lg);
	llama_log_init(lg);
	llama_log_parse(lg, t.buf, t.len);
	assert_string_equal(llama_log_last(lg)->model, "/m/last.gguf");
	assert_int_equal(llama_log_last(lg)->buffers[0].bytes, 10ull << 20);
	/* appended by more than the tail: read as a new tail */
	f = fopen(path, "ab");
	for (int i = 0; i < 10000; i++)
		fprintf(f, "0.59.%03d.000 I slot print_timing: id  0 | task %d | prompt eval time = 1.00 ms\n", i % 1000, i);
	fclose(f);
	bump_mtime(path, 2000000000);
	assert_int_equal(tail_read(&t, path, LOG_TAIL_MAX), 1);
	free(lg);
	tail_free(&t);
	tu_rmrf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_append_rotate_truncate),
		cmocka_unit_test(test_huge_log),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
