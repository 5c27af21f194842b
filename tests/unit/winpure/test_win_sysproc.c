/* The walk over NtQuerySystemInformation(SystemProcessInformation)'s buffer
 * (src/platform/windows/win_sysproc.c) on buffers built here: both
 * bitnesses' offsets, names pointing into the buffer, the idle process
 * without one, and hostile chains (an offset past the end, one shorter than
 * an entry, a name outside the buffer or cut by its end). Built on Linux
 * (ASan) and cross-built under Wine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "platform/windows/win_sysproc.h"

#define BASE 0x00000213A0400000ull
#define MAXE 8

struct got {
	struct win_sysproc e[MAXE];
	size_t n;
};

static void collect(const struct win_sysproc *e, void *arg)
{
	struct got *g = arg;
	if (g->n < MAXE)
		g->e[g->n++] = *e;
}

static void put_le(uint8_t *buf, size_t off, uint64_t v, unsigned size)
{
	for (unsigned i = 0; i < size; i++)
		buf[off + i] = (uint8_t)(v >> (8 * i));
}

/* An entry at `at` of `stride` bytes (0: the last), its name written in
 * UTF-16LE right after the fixed part, as Windows lays it out; the rest
 * of the buffer 0xAA so a wrong offset reads garbage. */
static void put_entry(uint8_t *buf, const struct win_sysproc_layout *l, size_t at, uint32_t stride, uint32_t pid,
		      uint32_t ppid, uint64_t created, uint64_t ws, const char *name)
{
	size_t len = name ? strlen(name) : 0, name_at = at + l->entry_min;
	put_le(buf, at, stride, 4);
	put_le(buf, at + l->create_time, created, 8);
	put_le(buf, at + l->pid, pid, l->ptr_size);
	put_le(buf, at + l->ppid, ppid, l->ptr_size);
	put_le(buf, at + l->working_set, ws, l->ptr_size);
	put_le(buf, at + l->image_name, len * 2, 2);
	put_le(buf, at + l->image_name + 2, len * 2 + 2, 2);
	put_le(buf, at + l->image_name + l->ptr_size, name ? (BASE & (l->ptr_size == 4 ? 0xFFFFFFFFu : ~0ull)) + name_at : 0,
	       l->ptr_size);
	for (size_t i = 0; i < len; i++)
		put_le(buf, name_at + 2 * i, (unsigned char)name[i], 2);
}

static uint64_t base_of(const struct win_sysproc_layout *l)
{
	return l->ptr_size == 4 ? BASE & 0xFFFFFFFFu : BASE;
}

static size_t build(uint8_t *buf, size_t cap, const struct win_sysproc_layout *l)
{
	uint32_t stride = l->entry_min + 64 + 0x50; /* the name, then a thread's record */
	memset(buf, 0xAA, cap);
	put_entry(buf, l, 0, stride, 0, 0, 0, 8192, NULL);
	put_entry(buf, l, stride, stride, 4, 0, 0x01DB43A1C0DE0000ull, 1ull << 20, "System");
	put_entry(buf, l, 2u * stride, 0, 4242, 4, 0x01DB43A1C0DE1234ull, 0x7654321, "llama-server.exe");
	return 3u * stride;
}

static void check_name(const uint8_t *buf, const struct win_sysproc *e, const char *want)
{
	assert_int_equal(e->name_len, 2 * strlen(want));
	for (size_t i = 0; i < strlen(want); i++)
		assert_int_equal(buf[e->name_off + 2 * i], (unsigned char)want[i]);
}

static void check_layout(const struct win_sysproc_layout *l)
{
	uint8_t buf[1024];
	size_t n = build(buf, sizeof buf, l);
	struct got g = {0};

	assert_int_equal(win_sysproc_walk(buf, n, base_of(l), l, collect, &g), 3);
	assert_int_equal(g.n, 3);
	assert_int_equal(g.e[0].pid, 0);
	assert_int_equal(g.e[0].name_len, 0); /* the idle process names no image */
	assert_int_equal(g.e[0].working_set, 8192);
	assert_int_equal(g.e[1].pid, 4);
	check_name(buf, &g.e[1], "System");
	assert_int_equal(g.e[2].pid, 4242);
	assert_int_equal(g.e[2].ppid, 4);
	assert_true(g.e[2].create_time == 0x01DB43A1C0DE1234ull);
	assert_int_equal(g.e[2].working_set, 0x7654321);
	check_name(buf, &g.e[2], "llama-server.exe");
}

static void test_layouts(void **state)
{
	(void)state;
	/* the offsets themselves: a buffer built from the table agrees with
	 * any table, so its numbers are checked against the declarations */
	check_layout(&win_sysproc_x64);
	assert_int_equal(win_sysproc_x64.create_time, 0x20);
	assert_int_equal(win_sysproc_x64.image_name, 0x38);
	assert_int_equal(win_sysproc_x64.pid, 0x50);
	assert_int_equal(win_sysproc_x64.ppid, 0x58);
	assert_int_equal(win_sysproc_x64.working_set, 0x90);
	check_layout(&win_sysproc_x86);
	assert_int_equal(win_sysproc_x86.create_time, 0x20);
	assert_int_equal(win_sysproc_x86.image_name, 0x38);
	assert_int_equal(win_sysproc_x86.pid, 0x44);
	assert_int_equal(win_sysproc_x86.ppid, 0x48);
	assert_int_equal(win_sysproc_x86.working_set, 0x68);
}

static long walk(const uint8_t *buf, size_t n, struct got *g)
{
	memset(g, 0, sizeof *g);
	return win_sysproc_walk(buf, n, BASE, &win_sysproc_x64, collect, g);
}

static void test_broken_chains(void **state)
{
	(void)state;
	const struct win_sysproc_layout *l = &win_sysproc_x64;
	uint8_t buf[1024];
	size_t n = build(buf, sizeof buf, l), stride = n / 3;
	struct got g;

	/* cut inside the last entry's fixed part: two given, then broken */
	assert_int_equal(walk(buf, 2 * stride + l->entry_min - 1, &g), -1);
	assert_int_equal(g.n, 2);
	/* too short for one entry, and empty */
	assert_int_equal(walk(buf, l->entry_min - 1, &g), -1);
	assert_int_equal(walk(buf, 0, &g), -1);
	/* an offset past the end */
	put_le(buf, stride, 0x7FFFFFF0u, 4);
	assert_int_equal(walk(buf, n, &g), -1);
	assert_int_equal(g.n, 2);
	/* an offset shorter than an entry (4 would loop over overlapping bytes) */
	put_le(buf, stride, 4, 4);
	assert_int_equal(walk(buf, n, &g), -1);
	assert_int_equal(g.n, 2);
	/* an entry that ends at the buffer's end exactly is whole */
	n = build(buf, sizeof buf, l);
	put_entry(buf, l, 2 * stride, 0, 9, 4, 1, 1, NULL);
	assert_int_equal(walk(buf, 2 * stride + l->entry_min, &g), 3);
}

static void test_hostile_names(void **state)
{
	(void)state;
	const struct win_sysproc_layout *l = &win_sysproc_x64;
	uint8_t buf[1024];
	size_t n = build(buf, sizeof buf, l), stride = n / 3, name = 2 * stride + l->image_name;
	struct got g;

	/* a name cut by the buffer's end: none, the entry still listed */
	assert_int_equal(walk(buf, 2 * stride + l->entry_min + 10, &g), 3);
	assert_int_equal(g.e[2].name_len, 0);
	/* before the buffer, far past it, an odd length */
	put_le(buf, name + 8, BASE - 2, 8);
	assert_int_equal(walk(buf, n, &g), 3);
	assert_int_equal(g.e[2].name_len, 0);
	put_le(buf, name + 8, BASE + 0xFFFFFFFFull, 8);
	assert_int_equal(walk(buf, n, &g), 3);
	assert_int_equal(g.e[2].name_len, 0);
	build(buf, sizeof buf, l);
	put_le(buf, name, 31, 2);
	assert_int_equal(walk(buf, n, &g), 3);
	assert_int_equal(g.e[2].name_len, 0);
	/* a name that ends at the buffer's last byte is whole */
	build(buf, sizeof buf, l);
	put_le(buf, name, 4, 2);
	put_le(buf, name + 8, BASE + n - 4, 8);
	assert_int_equal(walk(buf, n, &g), 3);
	assert_int_equal(g.e[2].name_len, 4);
	assert_int_equal(g.e[2].name_off, n - 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layouts),
		cmocka_unit_test(test_broken_chains),
		cmocka_unit_test(test_hostile_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
