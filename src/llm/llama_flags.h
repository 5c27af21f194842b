/* A llama.cpp / llama-server command line as the estimator needs it, with
 * which values were left at llama-server's defaults (common/arg.cpp,
 * tools/server/server.cpp; llm-memory.md §3). */
#ifndef GTM_LLAMA_FLAGS_H
#define GTM_LLAMA_FLAGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum llama_fa { LLAMA_FA_AUTO = 0, LLAMA_FA_ON, LLAMA_FA_OFF };

/* -sm (common/arg.cpp): layer is the default; tensor is experimental. */
enum llama_split_mode { LLAMA_SM_LAYER = 0, LLAMA_SM_NONE, LLAMA_SM_ROW, LLAMA_SM_TENSOR };
const char *llama_split_mode_name(enum llama_split_mode m);

/* llama.cpp's LLAMA_MAX_DEVICES: -ts takes fewer entries than this. */
#define LLAMA_FLAGS_MAX_DEVICES 16

/* Bits of llama_flags.defaulted: the value is llama-server's default. */
enum {
	LF_DEF_CTX = 1u << 0,      /* trained context */
	LF_DEF_NGL = 1u << 1,      /* all layers offloaded (auto) */
	LF_DEF_CTK = 1u << 2,      /* f16 */
	LF_DEF_CTV = 1u << 3,      /* f16 */
	LF_DEF_FA = 1u << 4,       /* auto */
	LF_DEF_NP = 1u << 5,       /* 4 slots, unified cache */
	LF_DEF_BATCH = 1u << 6,    /* 2048 */
	LF_DEF_UBATCH = 1u << 7,   /* 512 */
};

#define LLAMA_FLAGS_MAX_OT 64
#define LLAMA_FLAGS_MAX_LORA 16
#define LLAMA_FLAGS_MAX_IGNORED 48
#define LLAMA_FLAGS_MAX_POSITIONAL 4

/* An option the memory plan does not use, as given, and why (a static string). */
struct llama_ignored {
	char *flag;     /* "--host", "--alias" (without "=value") */
	char *value;    /* its value, or NULL for a switch */
	const char *why;
};

struct llama_override {
	char *pattern;  /* regex (ECMAScript in llama.cpp; compiled as POSIX ERE here) */
	char *buft;     /* "CPU", "CUDA0", ... */
};

struct llama_flags {
	uint64_t n_ctx;         /* -c; 0 = trained context */
	int32_t n_gpu_layers;   /* -ngl; -1 = auto/all */
	uint32_t type_k, type_v;/* ggml type ids */
	enum llama_fa flash_attn;
	int32_t n_parallel;     /* -np; -1 = auto (4 slots, unified) */
	bool kv_unified;        /* -kvu, or implied by auto -np */
	uint32_t n_batch, n_ubatch;
	bool swa_full, no_mmap, cpu_moe;
	bool no_kv_offload;     /* -nkvo: the KV cache stays on the host */
	int32_t n_cpu_moe;      /* -ncmoe; 0 = none */
	enum llama_split_mode split_mode; /* -sm */
	int32_t main_gpu;       /* -mg; 0 */
	/* -ts proportions, one per device in llama.cpp's order (the rest 0);
	 * none given or all 0: llama.cpp splits by each device's free memory */
	float tensor_split[LLAMA_FLAGS_MAX_DEVICES];
	size_t n_tensor_split;  /* entries given */
	struct llama_override ot[LLAMA_FLAGS_MAX_OT];
	size_t n_ot;
	char *model, *model_draft, *mmproj, *hf_repo, *log_file, *host, *alias;
	char *lora[LLAMA_FLAGS_MAX_LORA];
	size_t n_lora;
	int32_t port;           /* -1 = default (8080) */
	/* options the plan does not use, in command-line order (n_ignored_dropped
	 * past the limit), and words that are neither an option nor its value
	 * (llama-server takes none; `inspect MODEL.gguf` takes its model so) */
	struct llama_ignored ignored[LLAMA_FLAGS_MAX_IGNORED];
	size_t n_ignored, n_ignored_dropped;
	char *positional[LLAMA_FLAGS_MAX_POSITIONAL];
	size_t n_positional, n_positional_dropped;
	uint32_t defaulted;     /* LF_DEF_* */
	char error[160];        /* first bad value seen ("" when none); parsing goes on */
};

/* Parses a -ts value ("3,1", "3/1", as common/arg.cpp splits it) into out
 * (LLAMA_FLAGS_MAX_DEVICES - 1 entries at most, each a finite number >= 0);
 * false on anything else. Pure: reads s[0..len). */
bool llama_tensor_split_parse(const char *s, size_t len, float *out, size_t *n);

/* Sets llama-server's defaults (everything marked defaulted). */
void llama_flags_init(struct llama_flags *f);
/* Parses argv[first..argc) into f (which must be initialised), as llama-server
 * reads its command line: both "-c 4096" and "--ctx-size=4096" forms; options
 * the plan does not use are listed in f->ignored. An option this parser does
 * not know takes the next word as its value unless that word is an option
 * (a negative number is a value) or, with LF_PARSE_GGUF_OPERAND, ends in
 * ".gguf" (then it is positional: the model of `inspect MODEL.gguf --jinja`).
 * Returns false when a value was invalid (f->error says which); f stays usable. */
bool llama_flags_parse(struct llama_flags *f, int argc, char *const *argv, int first);
#define LF_PARSE_GGUF_OPERAND 1u
bool llama_flags_parse_opts(struct llama_flags *f, int argc, char *const *argv, int first, unsigned opts);
void llama_flags_free(struct llama_flags *f);
/* A deep copy of src into dst (dst's old contents are not freed). */
void llama_flags_copy(struct llama_flags *dst, const struct llama_flags *src);
/* "-c (trained context), -ngl (all layers), ..." list of the defaulted flags. */
void llama_flags_describe_defaults(const struct llama_flags *f, char *out, size_t n);

#endif
