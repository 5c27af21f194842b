/* What a process is: the runtimes it has mapped or runs as, its category
 * (with the reason), and the model files it holds, each with the evidence
 * that ties it to the process. Filled by identify_process() for one snapshot
 * row; explain/ adds api and log evidence with ident_add_model_evidence().
 *
 * Rules kept here (issue 3): a runtime library names a runtime, never a
 * model; a mapped model file is evidence the process holds it, not proof its
 * weights are on a GPU; an installed model proves nothing about loading. */
#ifndef GTM_IDENT_H
#define GTM_IDENT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/reading.h"
#include "core/snapshot.h"
#include "llm/gguf_info.h"
#include "llm/llama_flags.h"


/* Runtime traits: what a runtime's presence says about the process. */
enum {
	RT_T_AI = 1u << 0,          /* an inference / ML runtime */
	RT_T_COMPUTE = 1u << 1,     /* a GPU compute API (CUDA, HIP, OpenCL) */
	RT_T_GRAPHICS = 1u << 2,    /* a graphics API (Vulkan, OpenGL/EGL) */
	RT_T_GGUF = 1u << 3,        /* reads GGUF model files */
	RT_T_LLAMA_FLAGS = 1u << 4, /* takes llama.cpp's command-line flags */
	RT_T_STORE_OLLAMA = 1u << 5,
	RT_T_STORE_LMSTUDIO = 1u << 6,
};

#define IDENT_RT_EVIDENCE_MAX 4
/* The most models one process lists (mapped, named, installed, reported together). */
#define IDENT_MAX_MODELS 64

struct ident_runtime {
	const char *id;       /* static: "llama.cpp", "cuda-runtime", "pytorch-cuda" */
	const char *name;     /* static display name: "CUDA runtime" */
	unsigned traits;      /* RT_T_* */
	char *evidence[IDENT_RT_EVIDENCE_MAX]; /* "mapped libcudart.so.12", "executable ollama" */
	int n_evidence;
};

enum ident_category {
	IDENT_CAT_OTHER = 0,
	IDENT_CAT_AI,
	IDENT_CAT_COMPOSITOR,
	IDENT_CAT_BROWSER,
	IDENT_CAT_3D,
	IDENT_CAT_VIDEO,
	IDENT_CAT_COMPUTE,
	IDENT_CAT_COUNT
};

/* Evidence that a process holds a model, strongest first (the enum order is
 * the strength order). */
enum model_evidence {
	MODEL_EV_API = 0,    /* the runtime's local API reports it loaded */
	MODEL_EV_MAPPED,     /* the file is mapped into the process */
	MODEL_EV_OPENED,     /* --trace-opens saw the process open it (it may have read and closed it) */
	MODEL_EV_CMDLINE,    /* named by a model flag on the command line */
	MODEL_EV_INSTALLED,  /* found in the app's store: proves nothing about loading */
	MODEL_EV_LOG,        /* the runtime's log names it */
	MODEL_EV_COUNT
};

enum model_store { MODEL_STORE_NONE = 0, MODEL_STORE_OLLAMA, MODEL_STORE_LMSTUDIO, MODEL_STORE_HF };

/* The file's format, by magic. */
enum model_format { MODEL_FORMAT_GGUF = 0, MODEL_FORMAT_SAFETENSORS };

enum model_role {
	MODEL_ROLE_MODEL = 0, MODEL_ROLE_DRAFT, MODEL_ROLE_MMPROJ, MODEL_ROLE_LORA,
	MODEL_ROLE_DIFFUSION, MODEL_ROLE_VAE, MODEL_ROLE_CLIP_L, MODEL_ROLE_T5XXL,
	MODEL_ROLE_COUNT
};

struct ident_model {
	char *path;                /* the file as the process sees it; NULL when only a name is known */
	char *name;                /* friendly name: "qwen3:14b", "org/repo", or the file name */
	enum model_store store;
	enum model_role role;
	unsigned evidence;         /* bitset of 1u << enum model_evidence */
	char *evidence_detail[MODEL_EV_COUNT]; /* optional: "-m", "r--s", "/api/ps"; NULL */
	bool have_file_id;         /* dev/ino valid (the file could be stat'ed) */
	uint64_t dev, ino;
	gtm_u64 file_size;         /* measured (stat) or unavailable */
	bool have_info;            /* the GGUF header was parsed: info is valid */
	struct gguf_model_info info;
	char *error;               /* why the header could not be read, or NULL */
	enum model_format format;
	/* In the Hugging Face cache (identify/hf_cache.h): "org/name@main", the
	 * file inside the snapshot, its shard number; "" and 0 when not. */
	char hf_label[96];
	char hf_file[160];
	unsigned hf_shard, hf_shards;
	/* A safetensors header was read: its tensors' parameters and bytes and
	 * the dtype holding most bytes ("BF16"). */
	bool have_st;
	uint64_t st_params, st_tensor_bytes;
	char st_dtype[16];
	bool st_incomplete;        /* missing or extra bytes: the reference reader refuses it */
	/* MODEL_EV_OPENED: the first open --trace-opens saw (Unix ns; 0: none),
	 * how many, and the process's measured VRAM at the refresh before it and
	 * at the newest refresh within IDENT_OPENED_WINDOW_NS after it (N/A: not
	 * measured then: no refresh before the tracer saw it, or no GPU use). */
	int64_t opened_unix_ns;
	uint32_t opened_count;
	gtm_u64 opened_vram_before, opened_vram_after;
};
#define IDENT_OPENED_WINDOW_NS (30ull * 1000000000ull)

struct gtm_ident {
	struct ident_runtime *runtimes;
	int n_runtimes;
	enum ident_category category;
	char category_reason[128];  /* "AI runtime llama.cpp", "compositor gnome-shell" */

	struct ident_model *models; /* strongest evidence first */
	int n_models, cap_models;
	int n_installed_omitted;    /* installed candidates beyond the bound, not listed */

	/* The parsed llama.cpp command line, NULL when the process has none; its
	 * error[] says when a value was invalid. A pointer, allocated only for a
	 * llama.cpp-family process: the flags are 2.6 KB of an identification's
	 * 2.8, and a one-shot run touches every byte it allocates (a page a fault). */
	struct llama_flags *flags;

	/* Nonzero: the number of the identification this is (or is a clone of),
	 * unique in the process; any change after it sets 0. Equal nonzero stamps
	 * mean equal contents, so a writer may keep what it wrote of one. */
	uint64_t stamp;
};

struct identify_ctx;

/* Caches that outlive a snapshot: magic checks of mapped files by identity. */
struct identify_ctx *identify_ctx_new(void);
void identify_ctx_free(struct identify_ctx *c);
/* How to read a process's environment when its detail has it deferred: called
 * for a process whose identification looks something up through it (a model
 * store's runtime, a command line that names a Hugging Face repo), before the
 * model stores and llama.cpp's cache roots are looked up from HOME,
 * OLLAMA_MODELS, HF_HOME... (the collector passes proc_detail_load_environ).
 * Nothing else in identification reads the environment, so a process with a
 * CUDA library and no store costs no environ read and no stat re-read. */
typedef void (*identify_environ_fn)(void *arg, const struct gtm_process *p);
void identify_set_environ_loader(struct identify_ctx *c, identify_environ_fn fn, void *arg);
/* A context that identifies for one refresh only (--once, --json, inspect):
 * nothing is kept for a next refresh (no copy of each identification). */
void identify_set_one_shot(struct identify_ctx *c);

/* Fills p->ident (allocated; replaced when already set) from p->name,
 * p->detail (argv, exe, cwd, maps, environ) and p->uses. Never fails: what
 * cannot be read is left out or carries an error string. */
void identify_process(struct identify_ctx *c, struct gtm_process *p);
/* Called once after each refresh's identify_process calls: forgets processes
 * that were not seen. */
void identify_refresh_done(struct identify_ctx *c);
/* A deep copy. */
struct gtm_ident *ident_clone(const struct gtm_ident *src);

struct gtm_ident *ident_new(void);
void ident_free(struct gtm_ident *id);

/* Adds evidence that the process holds a model, merging with a model already
 * listed: path_or_name is a file path (contains '/': matched by file identity,
 * then by path) or a name (matched against friendly names and file names;
 * "qwen3" matches "qwen3:latest"). A new path is read as a GGUF header. The
 * list is kept strongest-first. detail may be NULL. Returns the model (valid
 * until the next addition), or NULL when path_or_name is empty or the list
 * is full (IDENT_MAX_MODELS). */
/* Adds MODEL_EV_OPENED for path to id (a model already listed, mapped or
 * named, keeps its stronger evidence and gains the open), with the open's
 * time, count and the VRAM around it, and the detail text that says them. */
struct ident_model *ident_add_model_opened(struct gtm_ident *id, const char *path, int64_t unix_ns, uint32_t count,
					   gtm_u64 vram_before, gtm_u64 vram_after);
struct ident_model *ident_add_model_evidence(struct gtm_ident *id, const char *path_or_name,
					     enum model_evidence ev);
struct ident_model *ident_add_model_evidence_detail(struct gtm_ident *id, const char *path_or_name,
						    enum model_evidence ev, const char *detail);

/* Two sources, one of them api or mapped. */
bool ident_model_confirmed(const struct ident_model *m);
/* Only installed (or log) evidence: listed as a candidate, "not proven loaded". */
bool ident_model_unproven(const struct ident_model *m);
/* The name llama-server serves m under (--alias / -a, common/arg.cpp): the
 * alias of the process's own flags, for the main model its command line
 * names; NULL for every other model and without an alias. */
const char *ident_model_alias(const struct gtm_ident *id, const struct ident_model *m);
/* The strongest evidence present, or MODEL_EV_COUNT when none. */
enum model_evidence ident_model_strongest(const struct ident_model *m);

/* Whether any runtime of the process has a trait; the first such runtime. */
const struct ident_runtime *ident_find_trait(const struct gtm_ident *id, unsigned trait);
const struct ident_runtime *ident_find_runtime(const struct gtm_ident *id, const char *rt_id);
bool ident_is_ai(const struct gtm_ident *id);

/* Names used by text and JSON: "api", "mapped", ...; "ai", "compositor", ...;
 * "ollama", "lmstudio", "hf", "none"; "model", "draft", "mmproj", ... */
const char *model_evidence_name(enum model_evidence e);
const char *ident_category_name(enum ident_category c);
const char *ident_category_text(enum ident_category c); /* "AI", "3D/game" */
const char *model_store_name(enum model_store s);
const char *model_role_name(enum model_role r);

#endif
