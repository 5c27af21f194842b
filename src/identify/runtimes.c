/* Runtimes by name: one table of runtimes and one table of the name patterns
 * that reveal them (mapped library base names, mapped paths, the executable,
 * the command with its subcommand, the process name). Library patterns
 * accept versioned sonames ("libcudart.so.12") and the hash-suffixed copies
 * Python wheels carry ("libcudart-d0da41ae.so.11.0"); Windows DLLs (and
 * Python's .pyd) are matched by their lower-cased base name, as Windows file
 * names are case-insensitive ("NVCUDA.DLL", "DirectML.dll"). A runtime
 * library names a runtime and nothing more: models come from model_files.c. */
#include "identify/runtimes.h"
#include "identify/glob.h"

#include <ctype.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/util.h"

struct runtime_def {
	const char *id;
	const char *name;
	unsigned traits;
	const char *group; /* of several matches in one group only the first (table order) is kept */
};

#define AI RT_T_AI
#define GGUF (RT_T_AI | RT_T_GGUF)

/* Listed in the order a process's runtimes are shown: the runtime a user
 * talks to first, the libraries under it after. */
static const struct runtime_def runtime_defs[] = {
	{"ollama", "Ollama", GGUF | RT_T_STORE_OLLAMA, NULL},
	{"lmstudio", "LM Studio", GGUF | RT_T_STORE_LMSTUDIO, NULL},
	{"vllm", "vLLM", AI, NULL},
	{"sglang", "SGLang", AI, NULL},
	{"llama.cpp", "llama.cpp", GGUF | RT_T_LLAMA_FLAGS, NULL},
	{"whisper.cpp", "whisper.cpp", GGUF, NULL},
	{"stable-diffusion.cpp", "stable-diffusion.cpp", GGUF, NULL},
	{"ggml", "ggml", GGUF, NULL},
	{"ggml-cuda", "ggml CUDA backend", GGUF, NULL},
	{"ggml-hip", "ggml HIP backend", GGUF, NULL},
	{"ggml-vulkan", "ggml Vulkan backend", GGUF, NULL},
	{"ggml-sycl", "ggml SYCL backend", GGUF, NULL},
	{"ggml-opencl", "ggml OpenCL backend", GGUF, NULL},
	{"ggml-musa", "ggml MUSA backend", GGUF, NULL},
	{"ggml-cann", "ggml CANN backend", GGUF, NULL},
	{"ggml-metal", "ggml Metal backend", GGUF, NULL},
	{"ggml-blas", "ggml BLAS backend", GGUF, NULL},
	{"ggml-rpc", "ggml RPC backend", GGUF, NULL},
	{"ggml-cpu", "ggml CPU backend", GGUF, NULL},
	{"pytorch-cuda", "PyTorch (CUDA)", AI, "pytorch"},
	{"pytorch-rocm", "PyTorch (ROCm)", AI, "pytorch"},
	{"pytorch-cpu", "PyTorch (CPU)", AI, "pytorch"},
	{"tensorflow", "TensorFlow", AI, NULL},
	{"jax", "JAX/XLA", AI, NULL},
	{"onnxruntime", "ONNX Runtime", AI, NULL},
	{"openvino", "OpenVINO", AI, NULL},
	{"mlx", "MLX", AI, NULL},
	{"tensorrt", "TensorRT", AI, NULL},
	{"cudnn", "cuDNN", AI, NULL},
	{"cublas", "cuBLAS", RT_T_COMPUTE, NULL},
	{"cuda-runtime", "CUDA runtime", RT_T_COMPUTE, NULL},
	{"cuda-driver", "CUDA driver", RT_T_COMPUTE, NULL},
	{"hip", "HIP", RT_T_COMPUTE, NULL},
	{"rocm-hsa", "ROCm HSA runtime", RT_T_COMPUTE, NULL},
	{"rocblas", "rocBLAS", RT_T_COMPUTE, NULL},
	{"opencl", "OpenCL", RT_T_COMPUTE, NULL},
	{"level-zero", "oneAPI Level Zero", RT_T_COMPUTE, NULL},
	{"directml", "DirectML", AI, NULL},
	{"vulkan", "Vulkan", RT_T_GRAPHICS, NULL},
	{"direct3d12", "Direct3D 12", RT_T_GRAPHICS, NULL},
	{"direct3d11", "Direct3D 11", RT_T_GRAPHICS, NULL},
	{"opengl", "OpenGL/EGL", RT_T_GRAPHICS, NULL},
	/* every macOS app that draws maps Metal: evidence, not a category */
	{"metal", "Metal", 0, NULL},
};

#undef AI
#undef GGUF

enum rt_how {
	RT_LIB,  /* base name of a mapped shared object */
	RT_DLL,  /* lower-cased base name of a mapped Windows DLL or .pyd */
	RT_PATH, /* a whole mapped path */
	RT_EXE,  /* base name of the executable, argv[0] or the command */
	RT_CMD,  /* "command subcommand" (runtimes_command), or the command alone */
	RT_COMM, /* the process name (comm) */
};

struct runtime_pattern {
	const char *id;
	enum rt_how how;
	const char *glob;  /* fnmatch(3) pattern */
};

static const struct runtime_pattern runtime_patterns[] = {
	{"ollama", RT_EXE, "ollama"},
	{"ollama", RT_EXE, "ollama_llama_server"},
	{"ollama", RT_CMD, "ollama serve"},
	{"ollama", RT_CMD, "ollama runner"},
	{"lmstudio", RT_EXE, "lm-studio"},
	{"lmstudio", RT_EXE, "LM Studio"},
	{"lmstudio", RT_EXE, "LM-Studio*"},
	{"lmstudio", RT_EXE, "lms"},
	{"lmstudio", RT_PATH, "*/.lmstudio/extensions/backends/*"},
	{"lmstudio", RT_PATH, "*/.cache/lm-studio/extensions/backends/*"},
	{"vllm", RT_CMD, "vllm serve"},
	{"vllm", RT_CMD, "vllm.entrypoints*"},
	{"vllm", RT_COMM, "VLLM::*"},
	{"sglang", RT_CMD, "sglang.launch_server"},
	{"sglang", RT_CMD, "sglang serve"},
	{"sglang", RT_COMM, "sglang::*"},
	{"llama.cpp", RT_LIB, "libllama.so*"},
	{"llama.cpp", RT_LIB, "libllama-*.so*"},
	{"llama.cpp", RT_LIB, "libmtmd.so*"},
	/* llama.cpp's tools by name: not every "llama-*" is llama.cpp (llama-swap is a proxy) */
	{"llama.cpp", RT_EXE, "llama-server"},
	{"llama.cpp", RT_EXE, "llama-cli"},
	{"llama.cpp", RT_EXE, "llama-run"},
	{"llama.cpp", RT_EXE, "llama-bench"},
	{"llama.cpp", RT_EXE, "llama-*-cli"},
	{"llama.cpp", RT_EXE, "llama-embedding"},
	{"llama.cpp", RT_EXE, "llama-perplexity"},
	{"llama.cpp", RT_EXE, "llama-speculative*"},
	{"llama.cpp", RT_EXE, "llama-batched*"},
	{"llama.cpp", RT_EXE, "llama-simple*"},
	{"llama.cpp", RT_EXE, "llama-imatrix"},
	{"llama.cpp", RT_EXE, "llama-quantize"},
	{"llama.cpp", RT_EXE, "llama-tts"},
	{"llama.cpp", RT_EXE, "llama-lookup*"},
	{"llama.cpp", RT_EXE, "llama-parallel"},
	{"llama.cpp", RT_EXE, "llama-passkey"},
	{"llama.cpp", RT_EXE, "llama-retrieval"},
	{"llama.cpp", RT_EXE, "llama-finetune"},
	{"llama.cpp", RT_EXE, "llama-eval-callback"},
	{"llama.cpp", RT_EXE, "llama-save-load-state"},
	{"llama.cpp", RT_CMD, "llama_cpp.server*"},
	{"whisper.cpp", RT_LIB, "libwhisper.so*"},
	{"whisper.cpp", RT_EXE, "whisper-server"},
	{"whisper.cpp", RT_EXE, "whisper-cli"},
	{"whisper.cpp", RT_EXE, "whisper-stream"},
	{"whisper.cpp", RT_EXE, "whisper-bench"},
	{"stable-diffusion.cpp", RT_LIB, "libstable-diffusion.so*"},
	{"stable-diffusion.cpp", RT_EXE, "sd"},
	{"stable-diffusion.cpp", RT_EXE, "sd-server"},
	{"stable-diffusion.cpp", RT_EXE, "sd-cli"},
	{"ggml", RT_LIB, "libggml.so*"},
	{"ggml", RT_LIB, "libggml-base.so*"},
	{"ggml-cuda", RT_LIB, "libggml-cuda.so*"},
	{"ggml-hip", RT_LIB, "libggml-hip.so*"},
	{"ggml-vulkan", RT_LIB, "libggml-vulkan.so*"},
	{"ggml-sycl", RT_LIB, "libggml-sycl.so*"},
	{"ggml-opencl", RT_LIB, "libggml-opencl.so*"},
	{"ggml-musa", RT_LIB, "libggml-musa.so*"},
	{"ggml-cann", RT_LIB, "libggml-cann.so*"},
	{"ggml-metal", RT_LIB, "libggml-metal.so*"},
	{"ggml-blas", RT_LIB, "libggml-blas.so*"},
	{"ggml-rpc", RT_LIB, "libggml-rpc.so*"},
	{"ggml-cpu", RT_LIB, "libggml-cpu*.so*"},
	{"pytorch-cuda", RT_LIB, "libtorch_cuda.so*"},
	{"pytorch-cuda", RT_LIB, "libc10_cuda.so*"},
	{"pytorch-rocm", RT_LIB, "libtorch_hip.so*"},
	{"pytorch-rocm", RT_LIB, "libc10_hip.so*"},
	{"pytorch-cpu", RT_LIB, "libtorch_cpu.so*"},
	{"tensorflow", RT_LIB, "libtensorflow_framework.so*"},
	{"tensorflow", RT_LIB, "libtensorflow_cc.so*"},
	{"tensorflow", RT_LIB, "_pywrap_tensorflow_internal.so"},
	{"tensorflow", RT_LIB, "_pywrap_tensorflow*.so"},
	{"jax", RT_LIB, "xla_extension*.so*"},
	{"jax", RT_LIB, "libjax*.so*"},
	{"jax", RT_LIB, "xla_cuda_plugin.so*"},
	{"onnxruntime", RT_LIB, "libonnxruntime.so*"},
	{"onnxruntime", RT_LIB, "libonnxruntime_providers_*.so*"},
	{"onnxruntime", RT_LIB, "onnxruntime_pybind11_state*.so"},
	{"openvino", RT_LIB, "libopenvino.so*"},
	{"openvino", RT_LIB, "libopenvino_c.so*"},
	{"mlx", RT_LIB, "libmlx.so*"},
	{"tensorrt", RT_LIB, "libnvinfer.so*"},
	{"tensorrt", RT_LIB, "libnvinfer-*.so*"},
	{"cudnn", RT_LIB, "libcudnn.so*"},
	{"cudnn", RT_LIB, "libcudnn-*.so*"},
	{"cudnn", RT_LIB, "libcudnn_*.so*"},
	{"cublas", RT_LIB, "libcublas.so*"},
	{"cublas", RT_LIB, "libcublas-*.so*"},
	{"cublas", RT_LIB, "libcublasLt.so*"},
	{"cublas", RT_LIB, "libcublasLt-*.so*"},
	{"cuda-runtime", RT_LIB, "libcudart.so*"},
	{"cuda-runtime", RT_LIB, "libcudart-*.so*"},
	{"cuda-driver", RT_LIB, "libcuda.so*"},
	{"hip", RT_LIB, "libamdhip64.so*"},
	{"rocm-hsa", RT_LIB, "libhsa-runtime64.so*"},
	{"rocblas", RT_LIB, "librocblas.so*"},
	{"opencl", RT_LIB, "libOpenCL.so*"},
	{"opencl", RT_LIB, "libnvidia-opencl.so*"},
	{"opencl", RT_LIB, "libamdocl64.so*"},
	{"level-zero", RT_LIB, "libze_loader.so*"},
	{"vulkan", RT_LIB, "libvulkan.so*"},
	{"opengl", RT_LIB, "libGL.so*"},
	{"opengl", RT_LIB, "libEGL.so*"},
	{"opengl", RT_LIB, "libGLX.so*"},
	{"opengl", RT_LIB, "libGLX_*.so*"},
	{"opengl", RT_LIB, "libEGL_*.so*"},
	{"opengl", RT_LIB, "libGLESv2.so*"},
	{"opengl", RT_LIB, "libnvidia-glcore.so*"},
	{"opengl", RT_LIB, "libnvidia-eglcore.so*"},
	{"opengl", RT_LIB, "libgallium*.so*"},
	{"opengl", RT_LIB, "*_dri.so"},
	/* Windows: the DLLs of the same runtimes (lower case, see RT_DLL) */
	{"llama.cpp", RT_DLL, "llama.dll"},
	{"llama.cpp", RT_DLL, "mtmd.dll"},
	{"whisper.cpp", RT_DLL, "whisper.dll"},
	{"stable-diffusion.cpp", RT_DLL, "stable-diffusion.dll"},
	{"ggml", RT_DLL, "ggml.dll"},
	{"ggml", RT_DLL, "ggml-base.dll"},
	{"ggml-cuda", RT_DLL, "ggml-cuda.dll"},
	{"ggml-hip", RT_DLL, "ggml-hip.dll"},
	{"ggml-vulkan", RT_DLL, "ggml-vulkan.dll"},
	{"ggml-sycl", RT_DLL, "ggml-sycl.dll"},
	{"ggml-opencl", RT_DLL, "ggml-opencl.dll"},
	{"ggml-blas", RT_DLL, "ggml-blas.dll"},
	{"ggml-rpc", RT_DLL, "ggml-rpc.dll"},
	{"ggml-cpu", RT_DLL, "ggml-cpu*.dll"},
	{"pytorch-cuda", RT_DLL, "torch_cuda.dll"},
	{"pytorch-cuda", RT_DLL, "c10_cuda.dll"},
	{"pytorch-cpu", RT_DLL, "torch_cpu.dll"},
	{"tensorflow", RT_DLL, "_pywrap_tensorflow_internal.pyd"},
	{"onnxruntime", RT_DLL, "onnxruntime.dll"},
	{"onnxruntime", RT_DLL, "onnxruntime_providers_*.dll"},
	{"onnxruntime", RT_DLL, "onnxruntime_pybind11_state*.pyd"},
	{"openvino", RT_DLL, "openvino.dll"},
	{"openvino", RT_DLL, "openvino_c.dll"},
	{"tensorrt", RT_DLL, "nvinfer.dll"},
	{"tensorrt", RT_DLL, "nvinfer_*.dll"},
	{"cudnn", RT_DLL, "cudnn64_*.dll"},
	{"cudnn", RT_DLL, "cudnn_*64_*.dll"},
	{"cublas", RT_DLL, "cublas64_*.dll"},
	{"cublas", RT_DLL, "cublaslt64_*.dll"},
	{"cuda-runtime", RT_DLL, "cudart64_*.dll"},
	{"cuda-driver", RT_DLL, "nvcuda.dll"},
	{"hip", RT_DLL, "amdhip64*.dll"},
	{"rocblas", RT_DLL, "rocblas.dll"},
	{"opencl", RT_DLL, "opencl.dll"},
	{"opencl", RT_DLL, "amdocl64.dll"},
	{"opencl", RT_DLL, "nvopencl64.dll"},
	{"level-zero", RT_DLL, "ze_loader.dll"},
	{"directml", RT_DLL, "directml.dll"},
	{"vulkan", RT_DLL, "vulkan-1.dll"},
	{"direct3d12", RT_DLL, "d3d12.dll"},
	{"direct3d11", RT_DLL, "d3d11.dll"},
	{"opengl", RT_DLL, "opengl32.dll"},
	/* macOS: the same libraries as .dylib (Homebrew, LM Studio, wheels), and
	 * the Metal driver bundle */
	{"llama.cpp", RT_LIB, "libllama*.dylib"},
	{"llama.cpp", RT_LIB, "libmtmd*.dylib"},
	{"whisper.cpp", RT_LIB, "libwhisper*.dylib"},
	{"ggml", RT_LIB, "libggml.dylib"},
	{"ggml", RT_LIB, "libggml.*.dylib"},
	{"ggml", RT_LIB, "libggml-base*.dylib"},
	{"ggml-metal", RT_LIB, "libggml-metal*.dylib"},
	{"ggml-blas", RT_LIB, "libggml-blas*.dylib"},
	{"ggml-cpu", RT_LIB, "libggml-cpu*.dylib"},
	{"mlx", RT_LIB, "libmlx*.dylib"},
	{"pytorch-cpu", RT_LIB, "libtorch_cpu.dylib"},
	{"metal", RT_PATH, "/System/Library/Extensions/AGXMetal*"},
};

/* Interpreters whose command is the script or module they run. */
static const char *const interpreter_globs[] = {"python", "python[0-9]*", "pypy*"};


int runtimes_is_dll(const char *base)
{
	size_t n = strlen(base);
	return n > 4 && (!strcasecmp(base + n - 4, ".dll") || !strcasecmp(base + n - 4, ".pyd"));
}

int runtimes_is_shared_object(const char *base)
{
	if (str_ends(base, ".dylib"))
		return 1; /* macOS */
	for (const char *p = strstr(base, ".so"); p; p = strstr(p + 1, ".so"))
		if (p[3] == '\0' || p[3] == '.')
			return 1;
	return runtimes_is_dll(base);
}

/* A program's name without a Windows ".exe" (any case), in buf when cut:
 * the patterns name programs as Linux does ("llama-server", "ollama"). */
static const char *exe_stem(const char *name, char *buf, size_t cap)
{
	size_t n = strlen(name);
	if (n <= 4 || n - 4 >= cap || strcasecmp(name + n - 4, ".exe") != 0)
		return name;
	memcpy(buf, name, n - 4);
	buf[n - 4] = '\0';
	return buf;
}

static int is_interpreter(const char *base)
{
	char stem[256];
	base = exe_stem(base, stem, sizeof stem);
	for (size_t i = 0; i < ARRAY_LEN(interpreter_globs); i++)
		if (glob_match(interpreter_globs[i], base))
			return 1;
	return 0;
}

int runtimes_command(const struct gtm_proc_detail *d, const char **cmd)
{
	if (!d || d->argc <= 0 || !d->argv[0])
		return -1;
	const char *base = path_base(d->argv[0]);
	*cmd = base;
	if (!is_interpreter(base))
		return 0;
	/* python [options] (-m module | -c code | script) [args] */
	for (int i = 1; i < d->argc; i++) {
		const char *a = d->argv[i];
		if (!strcmp(a, "-m") && i + 1 < d->argc) {
			*cmd = d->argv[i + 1];
			return i + 1;
		}
		if (!strcmp(a, "-c") || !strcmp(a, "-"))
			return 0;
		if (!strcmp(a, "-X") || !strcmp(a, "-W")) {
			i++;
			continue;
		}
		if (a[0] == '-')
			continue;
		*cmd = path_base(a);
		return i;
	}
	return 0;
}

static int def_index(const char *rt_id)
{
	for (size_t i = 0; i < ARRAY_LEN(runtime_defs); i++)
		if (!strcmp(runtime_defs[i].id, rt_id))
			return (int)i;
	return -1;
}

bool runtimes_lookup(const char *rt_id, struct ident_runtime *out)
{
	int i = rt_id ? def_index(rt_id) : -1;

	if (i < 0)
		return false;
	*out = (struct ident_runtime){runtime_defs[i].id, runtime_defs[i].name, runtime_defs[i].traits, {NULL}, 0};
	return true;
}

/* Evidence gathered per runtime definition before it is emitted in table order. */
struct rt_hits {
	char *ev[ARRAY_LEN(runtime_defs)][IDENT_RT_EVIDENCE_MAX];
	int n[ARRAY_LEN(runtime_defs)];
};

/* The pattern table by kind (table order kept within a kind) and each
 * pattern's first byte when that is literal:
 * a process's names and maps are tried against the patterns of their kind
 * only, and most of those are settled by the first byte without a call.
 * Built once; the table is constant. */
#define N_PATTERNS ARRAY_LEN(runtime_patterns)
#define N_HOW (RT_COMM + 1)

static struct {
	uint16_t of[N_HOW][N_PATTERNS];
	size_t n[N_HOW];
	char first[N_PATTERNS]; /* 0: starts with a wildcard */
} pat;
static pthread_once_t pat_once = PTHREAD_ONCE_INIT;

static void pat_build(void)
{
	for (size_t i = 0; i < N_PATTERNS; i++) {
		const struct runtime_pattern *rp = &runtime_patterns[i];
		pat.of[rp->how][pat.n[rp->how]++] = (uint16_t)i;
		pat.first[i] = strchr("*?[", rp->glob[0]) ? 0 : rp->glob[0];
	}
}

static bool pat_match(size_t i, const char *s)
{
	return (!pat.first[i] || pat.first[i] == s[0]) && glob_match(runtime_patterns[i].glob, s);
}

static void hit(struct rt_hits *h, size_t pattern, const char *what, const char *subject)
{
	int d = def_index(runtime_patterns[pattern].id);
	char buf[320];

	if (d < 0)
		return;
	str_cat3(buf, sizeof buf, what, " ", subject);
	for (int k = 0; k < h->n[d]; k++)
		if (!strcmp(h->ev[d][k], buf))
			return;
	if (h->n[d] < IDENT_RT_EVIDENCE_MAX)
		h->ev[d][h->n[d]++] = xstrdup(buf);
}

/* Which patterns mapped paths matched, by the path's hash (runtimes.h). A
 * hash collision can only give a path another path's patterns, with
 * probability 2^-64 per pair. The table starts small and doubles: a
 * one-shot run meets a few dozen paths, and every page of memory it touches
 * costs a page fault. */
#define MEMO_MAX_SLOTS 4096
#define MATCH_HITS 3 /* a path matching more patterns is not remembered */

struct match_slot {
	uint64_t key; /* 0: empty */
	uint16_t hit[MATCH_HITS];
	uint16_t n;
};

struct runtime_maps_memo {
	struct match_slot *slot;
	size_t cap, used;
};

struct runtime_maps_memo *runtime_maps_memo_new(void)
{
	return xcalloc(1, sizeof(struct runtime_maps_memo));
}

void runtime_maps_memo_free(struct runtime_maps_memo *m)
{
	if (m)
		free(m->slot);
	free(m);
}

static uint64_t path_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h | 1; /* 0 marks an empty slot */
}

static struct match_slot *memo_find(struct match_slot *slot, size_t cap, uint64_t key)
{
	size_t i = (size_t)(key >> 20) & (cap - 1);
	while (slot[i].key && slot[i].key != key)
		i = (i + 1) & (cap - 1);
	return &slot[i];
}

/* Room for one more path: doubled up to MEMO_MAX_SLOTS, then emptied at half
 * full (probing stays short). */
static void memo_make_room(struct runtime_maps_memo *m)
{
	if (m->cap && (m->used + 1) * 2 <= m->cap)
		return;
	if (m->cap >= MEMO_MAX_SLOTS) {
		memset(m->slot, 0, m->cap * sizeof *m->slot);
		m->used = 0;
		return;
	}
	size_t cap = m->cap ? m->cap * 2 : 64;
	struct match_slot *slot = xcalloc(cap, sizeof *slot);
	for (size_t k = 0; k < m->cap; k++)
		if (m->slot[k].key)
			*memo_find(slot, cap, m->slot[k].key) = m->slot[k];
	free(m->slot);
	m->slot = slot;
	m->cap = cap;
}

/* The patterns one mapped path matches, in table order, into out (up to
 * cap; the count of all is returned). */
static size_t match_map(const char *path, const char *base, uint16_t *out, size_t cap)
{
	bool so = runtimes_is_shared_object(base), dll = so && runtimes_is_dll(base);
	char lower[256];
	uint16_t found[N_PATTERNS];
	size_t n = 0;

	if (dll) {
		size_t k = 0;
		for (; base[k] && k + 1 < sizeof lower; k++)
			lower[k] = (char)tolower((unsigned char)base[k]);
		lower[k] = '\0';
		for (size_t j = 0; j < pat.n[RT_DLL]; j++)
			if (pat_match(pat.of[RT_DLL][j], lower))
				found[n++] = pat.of[RT_DLL][j];
	}
	for (size_t j = 0; so && j < pat.n[RT_LIB]; j++)
		if (pat_match(pat.of[RT_LIB][j], base))
			found[n++] = pat.of[RT_LIB][j];
	for (size_t j = 0; j < pat.n[RT_PATH]; j++)
		if (pat_match(pat.of[RT_PATH][j], path))
			found[n++] = pat.of[RT_PATH][j];
	/* table order, as one pass over the whole table found them */
	for (size_t a = 1; a < n; a++)
		for (size_t b = a; b > 0 && found[b - 1] > found[b]; b--) {
			uint16_t t = found[b];
			found[b] = found[b - 1];
			found[b - 1] = t;
		}
	memcpy(out, found, (n < cap ? n : cap) * sizeof *out);
	return n;
}

static void match_maps(struct runtime_maps_memo *memo, const struct gtm_proc_detail *d, struct rt_hits *h)
{
	for (size_t m = 0; m < d->n_maps; m++) {
		const char *path = d->maps[m];
		const char *base = path_base(path);
		uint64_t key = memo ? path_hash(path) : 0;
		struct match_slot *slot = memo && memo->cap ? memo_find(memo->slot, memo->cap, key) : NULL;
		uint16_t hits[N_PATTERNS];
		size_t n;

		if (slot && slot->key == key) {
			n = slot->n;
			memcpy(hits, slot->hit, n * sizeof *hits);
		} else {
			n = match_map(path, base, hits, N_PATTERNS);
			if (memo && n <= MATCH_HITS) {
				memo_make_room(memo);
				slot = memo_find(memo->slot, memo->cap, key);
				slot->key = key;
				slot->n = (uint16_t)n;
				memcpy(slot->hit, hits, n * sizeof *hits);
				memo->used++;
			}
		}
		for (size_t k = 0; k < n; k++)
			hit(h, hits[k], "mapped", runtime_patterns[hits[k]].how == RT_PATH ? path : base);
	}
}

/* The executable's names: /proc/PID/exe, argv[0] and the command behind an interpreter. */
static void match_command(const struct gtm_process *p, struct rt_hits *h)
{
	const struct gtm_proc_detail *d = p->detail;
	const char *names[3] = {NULL, NULL, NULL}, *stems[3];
	const char *cmd = NULL;
	char cmdline[256], stem_buf[4][256];
	int ci = runtimes_command(d, &cmd);
	uint16_t found[N_PATTERNS];
	const char *subject[N_PATTERNS];
	const char *what[N_PATTERNS];
	size_t n = 0;

	if (d && d->exe)
		names[0] = path_base(d->exe);
	if (d && d->argc > 0 && d->argv[0])
		names[1] = path_base(d->argv[0]);
	if (ci > 0)
		names[2] = cmd;
	for (int k = 0; k < 3; k++)
		stems[k] = names[k] ? exe_stem(names[k], stem_buf[k], sizeof stem_buf[k]) : NULL;
	if (cmd)
		cmd = exe_stem(cmd, stem_buf[3], sizeof stem_buf[3]);
	cmdline[0] = '\0';
	if (ci >= 0) {
		const char *sub = ci + 1 < d->argc ? d->argv[ci + 1] : NULL;
		str_cat3(cmdline, sizeof cmdline, cmd, sub && sub[0] != '-' ? " " : "", sub && sub[0] != '-' ? sub : "");
	}
	for (size_t j = 0; j < pat.n[RT_EXE]; j++) {
		size_t i = pat.of[RT_EXE][j];
		for (int k = 0; k < 3; k++)
			if (stems[k] && pat_match(i, stems[k])) {
				found[n] = (uint16_t)i, subject[n] = names[k], what[n++] = "executable";
				break;
			}
	}
	for (size_t j = 0; cmdline[0] && j < pat.n[RT_CMD]; j++) {
		size_t i = pat.of[RT_CMD][j];
		if (pat_match(i, cmdline) || (cmd && pat_match(i, cmd)))
			found[n] = (uint16_t)i, subject[n] = cmdline, what[n++] = "command line";
	}
	for (size_t j = 0; p->name[0] && j < pat.n[RT_COMM]; j++) {
		size_t i = pat.of[RT_COMM][j];
		if (pat_match(i, p->name))
			found[n] = (uint16_t)i, subject[n] = p->name, what[n++] = "process name";
	}
	/* evidence in table order, as one pass over the whole table gave it */
	for (size_t a = 1; a < n; a++)
		for (size_t b = a; b > 0 && found[b - 1] > found[b]; b--) {
			uint16_t t = found[b];
			const char *ts = subject[b], *tw = what[b];
			found[b] = found[b - 1], subject[b] = subject[b - 1], what[b] = what[b - 1];
			found[b - 1] = t, subject[b - 1] = ts, what[b - 1] = tw;
		}
	for (size_t k = 0; k < n; k++)
		hit(h, found[k], what[k], subject[k]);
}

static void emit(struct rt_hits *h, struct gtm_ident *id)
{
	const char *groups_seen[ARRAY_LEN(runtime_defs)];
	int n_groups = 0, any = 0;

	for (size_t i = 0; i < ARRAY_LEN(runtime_defs) && !any; i++)
		any = h->n[i];
	if (!any)
		return; /* most processes: no runtime, nothing to allocate */
	any = 0; /* room for the runtimes found, not the whole table */
	for (size_t i = 0; i < ARRAY_LEN(runtime_defs); i++)
		any += h->n[i] > 0;
	id->runtimes = xcalloc((size_t)any, sizeof *id->runtimes);
	for (size_t i = 0; i < ARRAY_LEN(runtime_defs); i++) {
		const struct runtime_def *def = &runtime_defs[i];
		bool dup = false;
		if (!h->n[i])
			continue;
		for (int g = 0; def->group && g < n_groups; g++)
			dup = dup || !strcmp(groups_seen[g], def->group);
		if (dup) {
			for (int k = 0; k < h->n[i]; k++)
				free(h->ev[i][k]);
			continue;
		}
		if (def->group)
			groups_seen[n_groups++] = def->group;
		struct ident_runtime *r = &id->runtimes[id->n_runtimes++];
		r->id = def->id;
		r->name = def->name;
		r->traits = def->traits;
		r->n_evidence = h->n[i];
		memcpy(r->evidence, h->ev[i], sizeof r->evidence);
	}
}

void runtimes_detect(const struct gtm_process *p, struct gtm_ident *id)
{
	runtimes_detect_memo(NULL, p, id);
}

void runtimes_detect_memo(struct runtime_maps_memo *memo, const struct gtm_process *p, struct gtm_ident *id)
{
	struct rt_hits *h = xcalloc(1, sizeof *h);

	pthread_once(&pat_once, pat_build);
	/* the command first: a runtime with many libraries keeps its executable among the evidence */
	match_command(p, h);
	if (p->detail)
		match_maps(memo, p->detail, h);
	emit(h, id);
	free(h);
}
