/* GGUF header parse benchmark: a Qwen-sized vocabulary (151,936 tokens,
 * token types, 151,387 merges: about 6 MB of header) plus a 28-layer tensor
 * list, generated here with the test writer. Prints the median of the runs.
 * In one loop, taking turns: the floor (open, one pread of the header's
 * bytes into a buffer allocated beforehand, close), gguf_parse of those bytes
 * in memory (the parse without I/O; and with one walker, the walk before the
 * multi-walker one), and gguf_read_file (in place through a mapping; and by
 * pread into a moving window, the reader before). Ratios to the floor per
 * round, then their median. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "gguf_writer.h"
#include "llm/estimate.h"
#include "llm/ggml_types.h"
#include "llm/gguf.h"
#include "llm/gguf_internal.h"

#define RUNS 41

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void write_model(const char *path)
{
	struct gw *w = gw_new();
	char n[64];
	int32_t *types = calloc(151936, sizeof *types);
	gw_str(w, "general.architecture", "qwen3");
	gw_str(w, "general.name", "bench");
	gw_u32(w, "qwen3.block_count", 28);
	gw_u32(w, "qwen3.context_length", 40960);
	gw_u32(w, "qwen3.embedding_length", 1024);
	gw_u32(w, "qwen3.attention.head_count", 16);
	gw_u32(w, "qwen3.attention.head_count_kv", 8);
	gw_u32(w, "qwen3.attention.key_length", 128);
	gw_u32(w, "qwen3.attention.value_length", 128);
	gw_str(w, "tokenizer.ggml.model", "gpt2");
	gw_arr_vocab(w, "tokenizer.ggml.tokens", 151936);
	gw_arr_i32(w, "tokenizer.ggml.token_type", types, 151936);
	gw_arr_vocab(w, "tokenizer.ggml.merges", 151387);
	gw_tensor2(w, "token_embd.weight", GGML_T_Q8_0, 1024, 151936);
	for (int il = 0; il < 28; il++) {
		static const char *const names[] = {"attn_norm", "attn_q", "attn_k", "attn_v", "attn_output",
						    "attn_q_norm", "attn_k_norm", "ffn_norm", "ffn_gate", "ffn_up", "ffn_down"};
		for (size_t t = 0; t < ARRAY_LEN(names); t++) {
			snprintf(n, sizeof n, "blk.%d.%s.weight", il, names[t]);
			gw_tensor2(w, n, strstr(names[t], "norm") ? GGML_T_F32 : GGML_T_Q8_0, 1024, 1024);
		}
	}
	if (gw_write_file(w, path) != 0) {
		perror(path);
		exit(1);
	}
	gw_free(w);
	free(types);
}

/* median of n doubles (sorted in place) */
static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* "median M us (min A, max B)" of t[0..RUNS), sorted in place */
static void report(const char *what, uint64_t *t)
{
	qsort(t, RUNS, sizeof *t, cmp_u64);
	printf("%s: median %.1f us (min %.1f, max %.1f)\n", what, (double)t[RUNS / 2] / 1e3, (double)t[0] / 1e3,
	       (double)t[RUNS - 1] / 1e3);
}

/* One timed call of gguf_parse (buf) or gguf_read_file (path), with the
 * walk's spacing set for it; exits on a parse error. */
struct timed {
	uint64_t wall, cpu;
};

static struct timed timed_parse(const uint8_t *buf, size_t len, const char *path, size_t spacing,
				struct gguf_header **h)
{
	char err[256];
	gguf_walk_spacing = spacing;
	uint64_t t0 = now_monotonic_ns(), c0 = thread_cpu_ns();
	enum gguf_status st = buf ? gguf_parse(buf, len, h, err, sizeof err) : gguf_read_file(path, h, err, sizeof err);
	struct timed t = {now_monotonic_ns() - t0, thread_cpu_ns() - c0};
	gguf_walk_spacing = 0;
	if (st != GGUF_OK) {
		fprintf(stderr, "%s\n", err);
		exit(1);
	}
	return t;
}

static double median_dbl(double *v)
{
	qsort(v, RUNS, sizeof *v, cmp_dbl);
	return v[RUNS / 2];
}

int main(int argc, char **argv)
{
	char path[] = "/tmp/gtm-bench-gguf-XXXXXX";
	char err[256];
	uint64_t t_file[RUNS], t_cpu[RUNS], t_cache[RUNS], t_plan[RUNS];
	uint64_t t_floor[RUNS], t_floor_cpu[RUNS], t_mem[RUNS], t_mem_cpu[RUNS];
	double r_wall[RUNS], r_cpu[RUNS], r_mem[RUNS], r_mem_cpu[RUNS];
	/* the parse in memory with one walker (the parser before the multi-walker
	 * walk), the file read with pread (the reader before the mapping) */
	uint64_t t_file1[RUNS], t_cpu1[RUNS], t_mem1[RUNS], t_mem1_cpu[RUNS];
	double r_wall1[RUNS], r_cpu1[RUNS], r_mem1[RUNS], r_mem1_cpu[RUNS], r_gain[RUNS], r_gain_cpu[RUNS];
	int fd = mkstemp(path);
	struct gguf_header *h = NULL;
	(void)argc;
	(void)argv;
	if (fd < 0)
		return 1;
	close(fd);
	write_model(path);
	/* the header's length, for the floor's one pread */
	if (gguf_read_file(path, &h, err, sizeof err) != GGUF_OK) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	size_t hlen = (size_t)h->infos_end;
	gguf_header_unref(h);
	uint8_t *floor_buf = malloc(hlen);
	memset(floor_buf, 1, hlen);
	for (int i = 0; i < RUNS; i++) {
		uint64_t t0, c0;
		/* the floor */
		t0 = now_monotonic_ns(), c0 = thread_cpu_ns();
		int ffd = open(path, O_RDONLY | O_CLOEXEC);
		if (ffd < 0 || pread(ffd, floor_buf, hlen, 0) != (ssize_t)hlen) {
			perror(path);
			return 1;
		}
		close(ffd);
		t_floor[i] = now_monotonic_ns() - t0;
		t_floor_cpu[i] = thread_cpu_ns() - c0;
		/* the same bytes parsed in memory (no I/O at all), then the file;
		 * one walker and several in turns, which goes first alternating */
		struct timed m, m1, f, f1;
		for (int k = 0; k < 2; k++) {
			if ((k == 0) == (i % 2 == 0)) {
				m = timed_parse(floor_buf, hlen, NULL, 0, &h);
				gguf_header_unref(h);
				f = timed_parse(NULL, 0, path, 0, &h);
			} else {
				m1 = timed_parse(floor_buf, hlen, NULL, SIZE_MAX, &h);
				gguf_header_unref(h);
				gguf_read_no_map = true; /* the reader before the mapping: pread into a window */
				f1 = timed_parse(NULL, 0, path, 0, &h);
				gguf_read_no_map = false;
			}
			if (k == 0)
				gguf_header_unref(h);
		}
		t_mem[i] = m.wall, t_mem_cpu[i] = m.cpu, t_file[i] = f.wall, t_cpu[i] = f.cpu;
		t_mem1[i] = m1.wall, t_mem1_cpu[i] = m1.cpu, t_file1[i] = f1.wall, t_cpu1[i] = f1.cpu;
		r_wall[i] = (double)t_file[i] / (double)t_floor[i];
		r_cpu[i] = (double)t_cpu[i] / (double)t_floor_cpu[i];
		r_mem[i] = (double)t_mem[i] / (double)t_floor[i];
		r_mem_cpu[i] = (double)t_mem_cpu[i] / (double)t_floor_cpu[i];
		r_wall1[i] = (double)t_file1[i] / (double)t_floor[i];
		r_cpu1[i] = (double)t_cpu1[i] / (double)t_floor_cpu[i];
		r_mem1[i] = (double)t_mem1[i] / (double)t_floor[i];
		r_mem1_cpu[i] = (double)t_mem1_cpu[i] / (double)t_floor_cpu[i];
		r_gain[i] = (double)t_file[i] / (double)t_file1[i];
		r_gain_cpu[i] = (double)t_cpu[i] / (double)t_cpu1[i];
		if (i + 1 < RUNS)
			gguf_header_unref(h);
	}
	free(floor_buf);
	for (int i = 0; i < RUNS; i++) {
		uint64_t t0 = now_monotonic_ns();
		struct gguf_header *c = gguf_cache_get(path, err, sizeof err);
		t_cache[i] = now_monotonic_ns() - t0;
		gguf_header_unref(c);
	}
	struct llama_flags f;
	struct estimate e;
	llama_flags_init(&f);
	for (int i = 0; i < RUNS; i++) {
		uint64_t t0 = now_monotonic_ns();
		estimate_plan(h, &f, &e, err, sizeof err);
		t_plan[i] = now_monotonic_ns() - t0;
	}
	printf("header bytes: %llu (%.2f MB), %llu keys, %llu tensors, %d runs\n",
	       (unsigned long long)h->infos_end, (double)h->infos_end / 1e6, (unsigned long long)h->n_kv,
	       (unsigned long long)h->n_tensors, RUNS);
	report("floor: open + one pread of the header + close, wall", t_floor);
	report("floor CPU", t_floor_cpu);
	report("gguf_parse of the same bytes in memory (no I/O), wall", t_mem);
	report("gguf_parse in memory CPU", t_mem_cpu);
	report("gguf_parse in memory, one walker (before), wall", t_mem1);
	report("gguf_parse in memory, one walker (before), CPU", t_mem1_cpu);
	report("gguf_read_file wall (page cache warm)", t_file);
	report("gguf_read_file CPU", t_cpu);
	report("gguf_read_file by pread (before), wall", t_file1);
	report("gguf_read_file by pread (before), CPU", t_cpu1);
	qsort(r_wall, RUNS, sizeof *r_wall, cmp_dbl);
	printf("gguf_read_file / floor, per round: wall median %.2fx (min %.2f, max %.2f), CPU median %.2fx\n",
	       r_wall[RUNS / 2], r_wall[0], r_wall[RUNS - 1], median_dbl(r_cpu));
	printf("gguf_read_file by pread (before) / floor, per round: wall median %.2fx, CPU median %.2fx\n",
	       median_dbl(r_wall1), median_dbl(r_cpu1));
	printf("gguf_parse in memory / floor, per round: wall median %.2fx, CPU median %.2fx\n", median_dbl(r_mem),
	       median_dbl(r_mem_cpu));
	printf("gguf_parse in memory, one walker (before) / floor, per round: wall median %.2fx, CPU median %.2fx\n",
	       median_dbl(r_mem1), median_dbl(r_mem1_cpu));
	printf("gguf_read_file after / before, per round: wall median %.2fx, CPU median %.2fx\n", median_dbl(r_gain),
	       median_dbl(r_gain_cpu));
	report("gguf_cache_get hit (one stat), wall", t_cache);
	report("estimate_plan (28 layers, 309 tensors), wall", t_plan);
	gguf_header_unref(h);
	gguf_cache_clear();
	if (!getenv("GTM_BENCH_KEEP"))
		unlink(path);
	else
		printf("kept %s\n", path);
	return 0;
}
