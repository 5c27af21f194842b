/* Runtimes from the pattern table (synthetic maps and command lines for every
 * runtime, and the real llama-server captures), and the category rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "ident_fixture.h"
#include "identify/runtimes.h"
#include "proc_parse.h"
#include "testutil.h"

/* One mapped library → the runtime it names. */
static const struct {
	const char *path;
	const char *rt;
} lib_cases[] = {
	{"/usr/lib/x86_64-linux-gnu/libcuda.so.1", "cuda-driver"},
	{"/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15", "cuda-driver"},
	{"/usr/local/cuda/lib64/libcudart.so.12.4.99", "cuda-runtime"},
	{"/venv/lib/python3.12/site-packages/torch/lib/libcudart-d0da41ae.so.11.0", "cuda-runtime"},
	{"/usr/local/cuda/lib64/libcublas.so.12", "cublas"},
	{"/usr/local/cuda/lib64/libcublasLt.so.12", "cublas"},
	{"/usr/lib/x86_64-linux-gnu/libcudnn_ops.so.9", "cudnn"},
	{"/usr/lib/x86_64-linux-gnu/libcudnn.so.8", "cudnn"},
	{"/usr/lib/x86_64-linux-gnu/libnvinfer.so.10", "tensorrt"},
	{"/opt/rocm/lib/libamdhip64.so.6", "hip"},
	{"/opt/rocm/lib/libhsa-runtime64.so.1", "rocm-hsa"},
	{"/opt/rocm/lib/librocblas.so.4", "rocblas"},
	{"/usr/lib/x86_64-linux-gnu/libOpenCL.so.1", "opencl"},
	{"/usr/lib/x86_64-linux-gnu/libze_loader.so.1", "level-zero"},
	{"/usr/lib/x86_64-linux-gnu/libvulkan.so.1", "vulkan"},
	{"/usr/lib/x86_64-linux-gnu/libGL.so.1", "opengl"},
	{"/usr/lib/x86_64-linux-gnu/libEGL.so.1", "opengl"},
	{"/usr/lib/x86_64-linux-gnu/libGLX.so.0", "opengl"},
	{"/usr/lib/x86_64-linux-gnu/libGLX_nvidia.so.0", "opengl"},
	{"/usr/lib/x86_64-linux-gnu/libnvidia-glcore.so.550.54.15", "opengl"},
	{"/usr/lib/x86_64-linux-gnu/dri/radeonsi_dri.so", "opengl"},
	{"/opt/llama.cpp/bin/libggml-base.so.0.9.4", "ggml"},
	{"/opt/llama.cpp/bin/libggml.so", "ggml"},
	{"/opt/llama.cpp/bin/libggml-cuda.so", "ggml-cuda"},
	{"/opt/llama.cpp/bin/libggml-hip.so", "ggml-hip"},
	{"/opt/llama.cpp/bin/libggml-vulkan.so", "ggml-vulkan"},
	{"/opt/llama.cpp/bin/libggml-sycl.so", "ggml-sycl"},
	{"/opt/llama.cpp/bin/libggml-opencl.so", "ggml-opencl"},
	{"/opt/llama.cpp/bin/libggml-musa.so", "ggml-musa"},
	{"/opt/llama.cpp/bin/libggml-cann.so", "ggml-cann"},
	{"/opt/llama.cpp/bin/libggml-metal.so", "ggml-metal"},
	{"/opt/llama.cpp/bin/libggml-blas.so", "ggml-blas"},
	{"/opt/llama.cpp/bin/libggml-rpc.so", "ggml-rpc"},
	{"/opt/llama.cpp/bin/libggml-cpu-haswell.so", "ggml-cpu"},
	{"/opt/llama.cpp/bin/libllama.so.0.1.1", "llama.cpp"},
	{"/opt/whisper.cpp/libwhisper.so.1.7.4", "whisper.cpp"},
	{"/opt/sd/libstable-diffusion.so", "stable-diffusion.cpp"},
	{"/opt/onnx/lib/libonnxruntime.so.1.17.1", "onnxruntime"},
	{"/venv/site-packages/onnxruntime/capi/libonnxruntime_providers_cuda.so", "onnxruntime"},
	{"/venv/site-packages/torch/lib/libtorch_cuda.so", "pytorch-cuda"},
	{"/venv/site-packages/torch/lib/libtorch_hip.so", "pytorch-rocm"},
	{"/venv/site-packages/torch/lib/libtorch_cpu.so", "pytorch-cpu"},
	{"/venv/site-packages/tensorflow/libtensorflow_framework.so.2", "tensorflow"},
	{"/venv/site-packages/tensorflow/python/_pywrap_tensorflow_internal.so", "tensorflow"},
	{"/venv/site-packages/jaxlib/xla_extension.so", "jax"},
	{"/venv/site-packages/openvino/libs/libopenvino.so.2024.4.0", "openvino"},
	{"/venv/site-packages/mlx/lib/libmlx.so", "mlx"},
	{"/home/u/.lmstudio/extensions/backends/llama.cpp-linux-x86_64-nvidia-cuda-avx2-1.21.0/libfoo.so", "lmstudio"},
};

/* One command line (comm, argv, exe) → the runtime and the evidence it shows. */
static const struct {
	const char *comm, *cmdline, *exe, *rt, *evidence;
} cmd_cases[] = {
	{"ollama", "/usr/local/bin/ollama serve", "/usr/local/bin/ollama", "ollama", "command line ollama serve"},
	{"ollama", "/usr/local/bin/ollama runner --model /x --port 40000", "/usr/local/bin/ollama", "ollama",
	 "command line ollama runner"},
	{"ollama", "/usr/local/bin/ollama runner --model /x", "/usr/local/bin/ollama", "ollama", "executable ollama"},
	{"vllm", "/usr/bin/python3 /usr/local/bin/vllm serve Qwen/Qwen3-8B", "/usr/bin/python3.12", "vllm",
	 "command line vllm serve"},
	{"python3", "python3 -u -m vllm.entrypoints.openai.api_server --model x", "/usr/bin/python3.12", "vllm",
	 "command line vllm.entrypoints.openai.api_server"},
	{"VLLM::EngineCor", "VLLM::EngineCore", "/usr/bin/python3.12", "vllm", "process name VLLM::EngineCor"},
	{"python", "python -m sglang.launch_server --model-path x", "/usr/bin/python3.11", "sglang",
	 "command line sglang.launch_server"},
	{"lm-studio", "/opt/lm-studio/lm-studio --no-sandbox", "/opt/lm-studio/lm-studio", "lmstudio",
	 "executable lm-studio"},
	{"llama-server", "/opt/llama.cpp/bin/llama-server -m x.gguf", "/opt/llama.cpp/bin/llama-server", "llama.cpp",
	 "executable llama-server"},
	{"llama-cli", "llama-cli -m x.gguf", "/usr/bin/llama-cli", "llama.cpp", "executable llama-cli"},
	{"llama-mtmd-cli", "llama-mtmd-cli -m x.gguf", "/usr/bin/llama-mtmd-cli", "llama.cpp",
	 "executable llama-mtmd-cli"},
	{"whisper-server", "whisper-server -m ggml-base.bin", "/opt/w/whisper-server", "whisper.cpp",
	 "executable whisper-server"},
	{"sd-server", "sd-server --diffusion-model x.gguf", "/opt/sd/sd-server", "stable-diffusion.cpp",
	 "executable sd-server"},
	{"sd", "./sd -m model.gguf -p cat", "/opt/sd/sd", "stable-diffusion.cpp", "executable sd"},
};

static void test_every_library_pattern(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(lib_cases); i++) {
		const char *maps[] = {lib_cases[i].path, NULL};
		const char *argv[] = {"/usr/bin/app", NULL};
		struct gtm_process *p = tf_process("app", argv, "/usr/bin/app", "/", maps, NULL);
		const struct gtm_ident *id = tf_identify(p);
		const struct ident_runtime *r = tf_runtime(id, lib_cases[i].rt);
		if (!r || id->n_runtimes != 1)
			fail_msg("%s: expected only runtime %s, got %d runtimes (first %s)", lib_cases[i].path,
				 lib_cases[i].rt, id->n_runtimes, id->n_runtimes ? id->runtimes[0].id : "none");
		char want[512];
		snprintf(want, sizeof want, "mapped %s", path_base(lib_cases[i].path));
		if (strcmp(lib_cases[i].rt, "lmstudio") == 0)
			snprintf(want, sizeof want, "mapped %s", lib_cases[i].path);
		assert_string_equal(r->evidence[0], want);
		/* a runtime library names a runtime, never a model */
		assert_int_equal(id->n_models, 0);
		tf_process_free(p);
	}
}

static void test_every_command_pattern(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(cmd_cases); i++) {
		struct gtm_process *p =
			tf_process_cmdline(cmd_cases[i].comm, cmd_cases[i].cmdline, cmd_cases[i].exe, "/", NULL, NULL);
		const struct gtm_ident *id = tf_identify(p);
		const struct ident_runtime *r = tf_runtime(id, cmd_cases[i].rt);
		if (!r)
			fail_msg("%s: runtime %s not found", cmd_cases[i].cmdline, cmd_cases[i].rt);
		bool found = false;
		for (int k = 0; k < r->n_evidence; k++)
			found = found || !strcmp(r->evidence[k], cmd_cases[i].evidence);
		if (!found)
			fail_msg("%s: evidence \"%s\" missing (first: \"%s\")", cmd_cases[i].cmdline, cmd_cases[i].evidence,
				 r->evidence[0]);
		assert_int_equal(id->category, IDENT_CAT_AI);
		tf_process_free(p);
	}
}

/* Every runtime the table defines is reached by at least one case above. */
static void test_table_fully_covered(void **state)
{
	static const char *const all_ids[] = {
		"ollama", "lmstudio", "vllm", "sglang", "llama.cpp", "whisper.cpp", "stable-diffusion.cpp", "ggml",
		"ggml-cuda", "ggml-hip", "ggml-vulkan", "ggml-sycl", "ggml-opencl", "ggml-musa", "ggml-cann",
		"ggml-metal", "ggml-blas", "ggml-rpc", "ggml-cpu", "pytorch-cuda", "pytorch-rocm", "pytorch-cpu",
		"tensorflow", "jax", "onnxruntime", "openvino", "mlx", "tensorrt", "cudnn", "cublas", "cuda-runtime",
		"cuda-driver", "hip", "rocm-hsa", "rocblas", "opencl", "level-zero", "vulkan", "opengl"};
	(void)state;
	for (size_t k = 0; k < ARRAY_LEN(all_ids); k++) {
		bool seen = false;
		for (size_t i = 0; i < ARRAY_LEN(lib_cases); i++)
			seen = seen || !strcmp(lib_cases[i].rt, all_ids[k]);
		for (size_t i = 0; i < ARRAY_LEN(cmd_cases); i++)
			seen = seen || !strcmp(cmd_cases[i].rt, all_ids[k]);
		if (!seen)
			fail_msg("runtime %s has no test case", all_ids[k]);
	}
}

static void test_near_misses(void **state)
{
	(void)state;
	/* names that share a prefix with a pattern but are other libraries */
	const char *maps[] = {"/usr/lib/libcudart_static_stub.a", "/usr/lib/libGLU.so.1", "/usr/lib/libggmlx.so",
			      "/usr/lib/libllamafile.so", "/usr/lib/libcudaxx.so", "/usr/lib/libvulkan_helper.so", NULL};
	const char *argv[] = {"/usr/bin/python3", "-c", "import vllm", NULL};
	struct gtm_process *swap = tf_process_cmdline("llama-swap", "llama-swap --config c.yaml", "/usr/bin/llama-swap",
						      "/", NULL, NULL);
	assert_int_equal(tf_identify(swap)->n_runtimes, 0);
	tf_process_free(swap);
	struct gtm_process *p = tf_process("python3", argv, "/usr/bin/python3", "/", maps, NULL);
	const struct gtm_ident *id = tf_identify(p);
	assert_int_equal(id->n_runtimes, 0);
	assert_int_equal(id->category, IDENT_CAT_OTHER);
	tf_process_free(p);
}

static void test_pytorch_build_variants(void **state)
{
	(void)state;
	const char *cuda[] = {"/t/libtorch_cpu.so", "/t/libtorch_cuda.so", "/t/libc10_cuda.so", NULL};
	const char *argv[] = {"python3", "train.py", NULL};
	struct gtm_process *p = tf_process("python3", argv, "/usr/bin/python3", "/", cuda, NULL);
	const struct gtm_ident *id = tf_identify(p);
	assert_non_null(tf_runtime(id, "pytorch-cuda"));
	assert_null(tf_runtime(id, "pytorch-cpu"));
	assert_int_equal(tf_runtime(id, "pytorch-cuda")->n_evidence, 2);
	/* a runtime is a runtime: no model, and nothing says "training" */
	assert_int_equal(id->n_models, 0);
	assert_null(strstr(id->category_reason, "train"));
	tf_process_free(p);
}

static void test_python_command(void **state)
{
	(void)state;
	const char *cmd = NULL;
	const char *a1[] = {"python3", "-X", "dev", "-u", "-m", "sglang.launch_server", "--port", "1", NULL};
	struct gtm_process *p = tf_process("python3", a1, NULL, NULL, NULL, NULL);
	assert_int_equal(runtimes_command(p->detail, &cmd), 5);
	assert_string_equal(cmd, "sglang.launch_server");
	tf_process_free(p);
	const char *a2[] = {"/usr/bin/python3.12", "/usr/local/bin/vllm", "serve", NULL};
	p = tf_process("vllm", a2, NULL, NULL, NULL, NULL);
	assert_int_equal(runtimes_command(p->detail, &cmd), 1);
	assert_string_equal(cmd, "vllm");
	tf_process_free(p);
	assert_true(runtimes_is_shared_object("libcuda.so.1"));
	assert_true(runtimes_is_shared_object("x.cpython-312-x86_64-linux-gnu.so"));
	assert_false(runtimes_is_shared_object("model.gguf"));
	assert_false(runtimes_is_shared_object("x.sock"));
}

/* Reads a captured proc_maps.txt with the proc layer's line parser. */
static void load_fixture_maps(struct gtm_process *p, const char *path)
{
	char *buf = tu_read_file(path, NULL);
	char *save = NULL;
	for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t len;
		const char *f = proc_maps_line_path(line, strlen(line), &len);
		if (!f)
			continue;
		char *one = xstrndup(f, len);
		bool dup = false;
		for (size_t i = 0; i < p->detail->n_maps; i++)
			dup = dup || !strcmp(p->detail->maps[i], one);
		if (!dup)
			tf_add_map(p, one);
		free(one);
	}
	free(buf);
}

static void test_real_llama_server_captures(void **state)
{
	(void)state;
	const char *root = tu_shared_fixture("llama");
	char base[1024], path[1600];
	DIR *d;
	struct dirent *de;
	int runs = 0;

	if (!root)
		skip();
	snprintf(base, sizeof base, "%s", root);
	assert_non_null(d = opendir(base));
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s/proc_maps.txt", base, de->d_name);
		if (access(path, R_OK) != 0)
			continue; /* a run captured without its process files */
		snprintf(path, sizeof path, "%s/%s/proc_cmdline.txt", base, de->d_name);
		if (access(path, R_OK) != 0)
			continue;
		char *cmdline = tu_read_file(path, NULL);
		struct gtm_process *p =
			tf_process_cmdline("llama-server", cmdline, "/opt/llama.cpp/bin/llama-server", "/", NULL, NULL);
		snprintf(path, sizeof path, "%s/%s/proc_maps.txt", base, de->d_name);
		load_fixture_maps(p, path);
		const struct gtm_ident *id = tf_identify(p);
		const struct ident_runtime *r = tf_runtime(id, "llama.cpp");
		assert_non_null(r);
		assert_string_equal(r->evidence[0], "executable llama-server");
		assert_string_equal(r->evidence[1], "mapped libllama.so.0.1.1");
		assert_non_null(tf_runtime(id, "ggml"));
		assert_non_null(tf_runtime(id, "ggml-cpu"));
		/* a CPU-only build: no GPU API is claimed */
		assert_null(tf_runtime(id, "cuda-driver"));
		assert_null(tf_runtime(id, "ggml-cuda"));
		assert_int_equal(id->category, IDENT_CAT_AI);
		assert_string_equal(id->category_reason, "AI runtime llama.cpp");
		assert_non_null(id->flags);
		assert_int_equal(id->flags->n_ctx, strstr(cmdline, "-c 2048") ? 2048 : 4096);
		/* /srv/models is the capture machine's path: the model is named, not
		 * readable here, and kept with the reason */
		const struct ident_model *m = tf_model(id, ".gguf");
		assert_non_null(m);
		assert_int_equal(m->evidence, 1u << MODEL_EV_CMDLINE);
		assert_non_null(m->error);
		free(cmdline);
		tf_process_free(p);
		runs++;
	}
	closedir(d);
	assert_true(runs >= 1);
}

/* The capture's model path rewritten to the real GGUF in fixtures/gguf: mapped and named, so confirmed. */
static void test_real_capture_with_model(void **state)
{
	(void)state;
	const char *llama = tu_shared_fixture("llama");
	char run[1024], gguf_dir[PATH_MAX], path[1200], *cmdline, *at;

	if (!llama)
		skip();
	snprintf(run, sizeof run, "%s/qwen3-f16-c4096", llama);
	const char *g = tu_shared_fixture("gguf");
	if (!g)
		skip();
	/* maps hold absolute paths */
	assert_non_null(realpath(g, gguf_dir));
	snprintf(path, sizeof path, "%s/proc_cmdline.txt", run);
	cmdline = tu_read_file(path, NULL);
	at = strstr(cmdline, "/srv/models/");
	assert_non_null(at);
	char rewritten[8192];
	snprintf(rewritten, sizeof rewritten, "%.*s%s/%s", (int)(at - cmdline), cmdline, gguf_dir,
		 at + strlen("/srv/models/"));
	struct gtm_process *p =
		tf_process_cmdline("llama-server", rewritten, "/opt/llama.cpp/bin/llama-server", "/", NULL, NULL);
	snprintf(path, sizeof path, "%s/proc_maps.txt", run);
	load_fixture_maps(p, path);
	for (size_t i = 0; i < p->detail->n_maps; i++)
		if (str_starts(p->detail->maps[i], "/srv/models/")) {
			char fixed[8192];
			snprintf(fixed, sizeof fixed, "%s/%s", gguf_dir, p->detail->maps[i] + strlen("/srv/models/"));
			free(p->detail->maps[i]);
			p->detail->maps[i] = xstrdup(fixed);
		}
	const struct gtm_ident *id = tf_identify(p);
	assert_int_equal(id->n_models, 1);
	const struct ident_model *m = &id->models[0];
	assert_int_equal(m->evidence, (1u << MODEL_EV_MAPPED) | (1u << MODEL_EV_CMDLINE));
	assert_true(ident_model_confirmed(m));
	assert_string_equal(m->evidence_detail[MODEL_EV_CMDLINE], "-m");
	assert_true(m->have_info);
	assert_string_equal(m->info.arch, "qwen3");
	assert_int_equal(m->info.n_layer, 4);
	assert_int_equal(m->info.n_ctx_train, 40960);
	assert_string_equal(m->name, "tiny-qwen3-f16.gguf");
	assert_int_equal(m->store, MODEL_STORE_NONE);
	free(cmdline);
	tf_process_free(p);
}

struct cat_case {
	const char *comm, *cmdline, *exe;
	const char *maps[4];
	int use; /* 0 none, 1 compute list, 2 graphics list, 3 decoder load only,
		  * 4 graphics list with graphics load, 5 graphics list with a measured idle 0 */
	enum ident_category want;
	const char *reason;
};

static const struct cat_case cat_cases[] = {
	{"gnome-shell", "/usr/bin/gnome-shell", "/usr/bin/gnome-shell", {"/usr/lib/libEGL.so.1"}, 2,
	 IDENT_CAT_COMPOSITOR, "compositor gnome-shell"},
	{"Xwayland", "/usr/bin/Xwayland :0", "/usr/bin/Xwayland", {"/usr/lib/libGL.so.1"}, 2, IDENT_CAT_COMPOSITOR,
	 "compositor Xwayland"},
	{"chrome", "/opt/google/chrome/chrome --type=gpu-process --field-trial-handle=1", "/opt/google/chrome/chrome",
	 {"/usr/lib/libvulkan.so.1"}, 2, IDENT_CAT_BROWSER, "browser chrome"},
	{"code", "/usr/share/code/code --type=gpu-process", "/usr/share/code/code", {"/usr/lib/libEGL.so.1"}, 2,
	 IDENT_CAT_BROWSER, "Chromium-based GPU process (code)"},
	{"msedge", "/opt/microsoft/msedge/msedge", "/opt/microsoft/msedge/msedge",
	 {"/opt/microsoft/msedge/libonnxruntime.so.1.17"}, 2, IDENT_CAT_BROWSER, "browser msedge"},
	{"python3", "python3 app.py", "/usr/bin/python3.12", {"/t/libtorch_cuda.so", "/usr/lib/libGL.so.1"}, 1,
	 IDENT_CAT_AI, "AI runtime PyTorch (CUDA)"},
	{"ffmpeg", "ffmpeg -hwaccel cuda -i a.mp4 b.mp4", "/usr/bin/ffmpeg", {"/usr/lib/libcuda.so.1"}, 3,
	 IDENT_CAT_VIDEO, "video tool ffmpeg"},
	{"wine64-preload", "Z:\\games\\game.exe", "/usr/bin/wine64-preloader", {"/usr/lib/libvulkan.so.1"}, 2,
	 IDENT_CAT_3D, "game wine64-preloader"},
	{"decoder", "/opt/x/decoder", "/opt/x/decoder", {NULL}, 3, IDENT_CAT_VIDEO,
	 "video encoder/decoder load without 3D load"},
	{"vkcube", "vkcube", "/usr/bin/vkcube", {"/usr/lib/libvulkan.so.1"}, 2, IDENT_CAT_3D, "graphics API Vulkan"},
	{"solver", "./solver", "/opt/solver", {"/usr/lib/libcuda.so.1", "/usr/lib/libcudart.so.12"}, 1,
	 IDENT_CAT_COMPUTE, "compute API CUDA runtime"},
	{"viz", "./viz", "/opt/viz", {"/usr/lib/libcuda.so.1", "/usr/lib/libGL.so.1"}, 1, IDENT_CAT_COMPUTE,
	 "compute API CUDA driver"},
	{"viz", "./viz", "/opt/viz", {"/usr/lib/libcuda.so.1", "/usr/lib/libGL.so.1"}, 2, IDENT_CAT_3D,
	 "graphics API OpenGL/EGL"},
	{"mystery", "./mystery", "/opt/mystery", {NULL}, 1, IDENT_CAT_COMPUTE,
	 "the driver lists it as a compute process"},
	{"bash", "bash", "/usr/bin/bash", {NULL}, 0, IDENT_CAT_OTHER, "no GPU runtime recognised"},
	/* listed as a graphics process (every DRM client without KFD is) but
	 * no 3D runtime and no load: a graphics client, not a game */
	{"xclock", "xclock", "/usr/bin/xclock", {"/usr/lib/libX11.so.6"}, 2, IDENT_CAT_OTHER,
	 "graphics client (the driver lists it; no 3D runtime or load)"},
	{"xterm", "xterm", "/usr/bin/xterm", {NULL}, 5, IDENT_CAT_OTHER,
	 "graphics client (the driver lists it; no 3D runtime or load)"},
	{"blitter", "./blitter", "/opt/blitter", {NULL}, 4, IDENT_CAT_3D, "graphics load measured by the driver"},
	/* names matched by the tables' patterns: a wildcard after a literal
	 * start, a leading wildcard on the executable's path, comm alone */
	{"kodi.bin", "/usr/lib/kodi/kodi.bin", "/usr/lib/kodi/kodi.bin", {"/usr/lib/libEGL.so.1"}, 2, IDENT_CAT_VIDEO,
	 "video tool kodi.bin"},
	{"Main", "./Main", "/home/u/.steam/steam/steamapps/common/Some Game/Main", {"/usr/lib/libvulkan.so.1"}, 2,
	 IDENT_CAT_3D, "game Main"},
	{"firefox-bin", "firefox-bin", "", {"/usr/lib/libEGL.so.1"}, 2, IDENT_CAT_BROWSER, "browser firefox-bin"},
	/* the compositor rule still comes first */
	{"Xorg", "/usr/lib/xorg/Xorg :0", "/usr/lib/xorg/Xorg", {NULL}, 2, IDENT_CAT_COMPOSITOR, "compositor Xorg"},
};

static void test_category_rules(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(cat_cases); i++) {
		const struct cat_case *c = &cat_cases[i];
		struct gtm_process *p = tf_process_cmdline(c->comm, c->cmdline, c->exe, "/", c->maps, NULL);
		if (c->use) {
			struct gtm_gpu_use *u = process_add_use(p);
			u->compute = c->use == 1;
			u->graphics = c->use == 2 || c->use == 4 || c->use == 5;
			if (c->use == 3)
				u->dec_pct = gtm_f64_of(35.0, GTM_MEASURED);
			if (c->use == 4 || c->use == 5)
				u->gfx_pct = gtm_f64_of(c->use == 4 ? 40.0 : 0.0, GTM_MEASURED);
		}
		const struct gtm_ident *id = tf_identify(p);
		if (id->category != c->want || strcmp(id->category_reason, c->reason) != 0)
			fail_msg("%s: got %s (%s), want %s (%s)", c->cmdline, ident_category_name(id->category),
				 id->category_reason, ident_category_name(c->want), c->reason);
		tf_process_free(p);
	}
}

static void test_no_detail(void **state)
{
	(void)state;
	struct gtm_process p = {0};
	struct identify_ctx *c = identify_ctx_new();
	str_copy(p.name, "H:77", sizeof p.name);
	process_add_use(&p)->graphics = true;
	identify_process(c, &p);
	/* listed as graphics, nothing else known: a graphics client */
	assert_int_equal(p.ident->category, IDENT_CAT_OTHER);
	assert_string_equal(p.ident->category_reason, "graphics client (the driver lists it; no 3D runtime or load)");
	assert_int_equal(p.ident->n_runtimes, 0);
	assert_int_equal(p.ident->n_models, 0);
	/* identifying again replaces, never leaks */
	identify_process(c, &p);
	ident_free(p.ident);
	free(p.uses);
	identify_ctx_free(c);
}

/* The stamp (ident.h): the memo's clone keeps it, a fresh identification of
 * another process gets another, and evidence added afterwards clears it. */
static void test_stamps(void **state)
{
	(void)state;
	const char *maps[] = {"/usr/lib/x86_64-linux-gnu/libcuda.so.1", NULL};
	const char *argv[] = {"/usr/bin/app", NULL};
	struct gtm_process *p = tf_process("app", argv, "/usr/bin/app", "/", maps, NULL);
	struct gtm_process *q = tf_process("app", argv, "/usr/bin/app", "/", maps, NULL);
	struct identify_ctx *c = identify_ctx_new();

	q->pid = 4343;
	identify_process(c, p);
	/* the memo holds the detail it was made from, so no other detail can
	 * take its address while the memo compares by it */
	assert_int_equal(atomic_load(&p->detail->refs), 2);
	uint64_t first = p->ident->stamp;
	assert_int_not_equal(first, 0);
	identify_refresh_done(c);
	identify_process(c, p); /* the memo: a clone of the same identification */
	assert_int_equal(p->ident->stamp, first);
	identify_process(c, q);
	assert_int_not_equal(q->ident->stamp, 0);
	assert_int_not_equal(q->ident->stamp, first);
	struct gtm_ident *copy = ident_clone(p->ident);
	assert_int_equal(copy->stamp, first);
	assert_non_null(ident_add_model_evidence(copy, "llama3", MODEL_EV_API));
	assert_int_equal(copy->stamp, 0);
	ident_free(copy);
	/* another start time: identified afresh */
	p->start_time++;
	identify_process(c, p);
	assert_int_not_equal(p->ident->stamp, first);
	ident_free(p->ident);
	ident_free(q->ident);
	p->ident = q->ident = NULL;
	identify_ctx_free(c);
	assert_int_equal(atomic_load(&p->detail->refs), 1);
	tf_process_free(p);
	tf_process_free(q);
}

/* A one-shot context (--once, --json) keeps no memo: nothing holds the
 * detail, and the same process is identified afresh (a new stamp). */
static void test_one_shot_no_memo(void **state)
{
	(void)state;
	const char *maps[] = {"/usr/lib/x86_64-linux-gnu/libcuda.so.1", NULL};
	const char *argv[] = {"/usr/bin/app", NULL};
	struct gtm_process *p = tf_process("app", argv, "/usr/bin/app", "/", maps, NULL);
	struct identify_ctx *c = identify_ctx_new();

	identify_set_one_shot(c);
	identify_process(c, p);
	assert_int_equal(atomic_load(&p->detail->refs), 1);
	uint64_t first = p->ident->stamp;
	assert_non_null(tf_runtime(p->ident, "cuda-driver"));
	identify_refresh_done(c);
	identify_process(c, p);
	assert_int_not_equal(p->ident->stamp, first);
	assert_non_null(tf_runtime(p->ident, "cuda-driver"));
	identify_ctx_free(c);
	tf_process_free(p);
}

/* Mapped paths' matches are remembered by the context: a second process
 * mapping the same files gets the same runtimes and evidence, in table
 * order across kinds (the executable's, the libraries', a whole path), and
 * so do processes after the memo grew past its first size. */
static void test_remembered_matches(void **state)
{
	(void)state;
	const char *maps[] = {"/home/u/.lmstudio/extensions/backends/llama-cuda/libggml-cuda.so",
			      "/usr/lib/libcudart.so.12", "/usr/lib/libc.so.6", "/usr/lib/libcuda.so.1", NULL};
	const char *argv[] = {"/opt/lm/lms", NULL};
	struct gtm_ident *seen[3] = {NULL, NULL, NULL};
	struct identify_ctx *c = identify_ctx_new();
	char path[64];

	for (int round = 0; round < 3; round++) {
		struct gtm_process *p = tf_process("lms", argv, "/opt/lm/lms", "/", maps, NULL);
		for (int k = 0; round == 1 && k < 200; k++) { /* paths that match nothing: the memo grows */
			snprintf(path, sizeof path, "/usr/lib/libother%d.so.1", k);
			tf_add_map(p, path);
		}
		p->pid = 100 + (uint32_t)round;
		identify_process(c, p);
		seen[round] = ident_clone(p->ident);
		tf_process_free(p);
	}
	identify_ctx_free(c);
	const struct ident_runtime *lm = tf_runtime(seen[0], "lmstudio");
	assert_non_null(lm);
	assert_int_equal(lm->n_evidence, 2);
	assert_string_equal(lm->evidence[0], "executable lms");
	assert_string_equal(lm->evidence[1], "mapped /home/u/.lmstudio/extensions/backends/llama-cuda/libggml-cuda.so");
	assert_non_null(tf_runtime(seen[0], "ggml-cuda"));
	assert_non_null(tf_runtime(seen[0], "cuda-runtime"));
	assert_non_null(tf_runtime(seen[0], "cuda-driver"));
	for (int round = 1; round < 3; round++) {
		assert_int_equal(seen[round]->n_runtimes, seen[0]->n_runtimes);
		for (int i = 0; i < seen[0]->n_runtimes; i++) {
			const struct ident_runtime *a = &seen[0]->runtimes[i], *b = &seen[round]->runtimes[i];
			assert_string_equal(a->id, b->id);
			assert_int_equal(a->n_evidence, b->n_evidence);
			for (int k = 0; k < a->n_evidence; k++)
				assert_string_equal(a->evidence[k], b->evidence[k]);
		}
	}
	for (int round = 0; round < 3; round++)
		ident_free(seen[round]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_library_pattern),
		cmocka_unit_test(test_every_command_pattern),
		cmocka_unit_test(test_table_fully_covered),
		cmocka_unit_test(test_near_misses),
		cmocka_unit_test(test_pytorch_build_variants),
		cmocka_unit_test(test_python_command),
		cmocka_unit_test(test_real_llama_server_captures),
		cmocka_unit_test(test_real_capture_with_model),
		cmocka_unit_test(test_category_rules),
		cmocka_unit_test(test_no_detail),
		cmocka_unit_test(test_stamps),
		cmocka_unit_test(test_one_shot_no_memo),
		cmocka_unit_test(test_remembered_matches),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
