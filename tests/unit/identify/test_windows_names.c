/* What identification takes from a Windows process, in every OS's suite
 * (the Linux one, and the Windows one under Wine): the runtime table's DLL
 * names (any case), Windows absolute paths, and a GGUF model named and
 * mapped under a path in the OS's own form. On Linux the DLLs are what a
 * Wine process maps; the path rules there stay Linux's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "ident_fixture.h"
#include "identify/runtimes.h"
#include "portable.h"
#include "testutil.h"

static const struct {
	const char *dll;
	const char *rt;
} dll_cases[] = {
	{"nvcuda.dll", "cuda-driver"},
	{"NVCUDA.DLL", "cuda-driver"},
	{"cudart64_12.dll", "cuda-runtime"},
	{"cublas64_12.dll", "cublas"},
	{"cublasLt64_12.dll", "cublas"},
	{"cudnn64_9.dll", "cudnn"},
	{"cudnn_ops64_9.dll", "cudnn"},
	{"nvinfer_10.dll", "tensorrt"},
	{"ggml.dll", "ggml"},
	{"ggml-base.dll", "ggml"},
	{"ggml-cuda.dll", "ggml-cuda"},
	{"ggml-hip.dll", "ggml-hip"},
	{"ggml-vulkan.dll", "ggml-vulkan"},
	{"ggml-cpu-haswell.dll", "ggml-cpu"},
	{"llama.dll", "llama.cpp"},
	{"mtmd.dll", "llama.cpp"},
	{"whisper.dll", "whisper.cpp"},
	{"onnxruntime.dll", "onnxruntime"},
	{"onnxruntime_providers_cuda.dll", "onnxruntime"},
	{"onnxruntime_pybind11_state.pyd", "onnxruntime"},
	{"DirectML.dll", "directml"},
	{"d3d11.dll", "direct3d11"},
	{"D3D12.dll", "direct3d12"},
	{"vulkan-1.dll", "vulkan"},
	{"amdhip64_6.dll", "hip"},
	{"amdhip64.dll", "hip"},
	{"torch_cuda.dll", "pytorch-cuda"},
	{"torch_cpu.dll", "pytorch-cpu"},
	{"_pywrap_tensorflow_internal.pyd", "tensorflow"},
	{"OpenCL.dll", "opencl"},
	{"opengl32.dll", "opengl"},
};

/* A folder in this OS's form: "C:\\llama\\" on Windows, a Wine prefix's drive_c on Linux. */
static const char *dll_dir(void)
{
	return os_path_absolute("C:\\") ? "C:\\llama\\" : "/home/u/.wine/drive_c/llama/";
}

static void test_every_dll_pattern(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(dll_cases); i++) {
		char path[512], want[300];
		snprintf(path, sizeof path, "%s%s", dll_dir(), dll_cases[i].dll);
		const char *maps[] = {path, NULL};
		const char *argv[] = {"app.exe", NULL};
		struct gtm_process *p = tf_process("app.exe", argv, NULL, NULL, maps, NULL);
		const struct gtm_ident *id = tf_identify(p);
		const struct ident_runtime *r = tf_runtime(id, dll_cases[i].rt);
		if (!r || id->n_runtimes != 1)
			fail_msg("%s: expected only runtime %s, got %d runtimes (first %s)", path, dll_cases[i].rt,
				 id->n_runtimes, id->n_runtimes ? id->runtimes[0].id : "none");
		/* the evidence keeps the name as the process mapped it */
		snprintf(want, sizeof want, "mapped %s", dll_cases[i].dll);
		assert_string_equal(r->evidence[0], want);
		assert_int_equal(id->n_models, 0);
		tf_process_free(p);
	}
}

static void test_dll_names(void **state)
{
	(void)state;
	assert_true(runtimes_is_dll("ggml-cuda.dll"));
	assert_true(runtimes_is_dll("KERNEL32.DLL"));
	assert_true(runtimes_is_dll("x.pyd"));
	assert_false(runtimes_is_dll(".dll"));
	assert_false(runtimes_is_dll("model.gguf"));
	assert_false(runtimes_is_dll("libcuda.so.1"));
	assert_true(runtimes_is_shared_object("nvcuda.dll"));
	/* names that are no runtime's stay unmatched */
	const char *maps[] = {"C:\\Windows\\System32\\kernel32.dll", "C:\\Windows\\System32\\d3d9.dll", NULL};
	const char *argv[] = {"notepad.exe", NULL};
	struct gtm_process *p = tf_process("notepad.exe", argv, NULL, NULL, maps, NULL);
	const struct gtm_ident *id = tf_identify(p);
	assert_int_equal(id->n_runtimes, 0);
	/* an .exe is a Windows program run by Wine or Proton on Linux (a game, most
	 * likely); on Windows every program is one, and the name says nothing */
	if (OS_EXE_IS_FOREIGN) {
		assert_int_equal(id->category, IDENT_CAT_3D);
		assert_string_equal(id->category_reason, "Windows program notepad.exe");
	} else {
		assert_int_not_equal(id->category, IDENT_CAT_3D);
	}
	tf_process_free(p);
}

static void test_dos_paths(void **state)
{
	(void)state;
	assert_true(path_is_dos_absolute("C:\\models\\x.gguf"));
	assert_true(path_is_dos_absolute("c:/models/x.gguf"));
	assert_true(path_is_dos_absolute("\\\\server\\share\\x.gguf"));
	assert_false(path_is_dos_absolute("C:models\\x.gguf")); /* relative to C:'s folder */
	assert_false(path_is_dos_absolute("\\models\\x.gguf"));  /* relative to the current drive */
	assert_false(path_is_dos_absolute("\\\\"));
	assert_false(path_is_dos_absolute("models\\x.gguf"));
	assert_false(path_is_dos_absolute("/models/x.gguf"));
	assert_false(path_is_dos_absolute("1:\\x"));
	/* the OS's own rules: Linux keeps '/' as its one separator and root */
	if (os_path_absolute("/x")) {
		assert_false(os_path_absolute("C:\\x"));
		assert_string_equal(path_base("/a/b\\c.dll"), "b\\c.dll");
	} else {
		assert_true(os_path_absolute("C:\\x"));
		assert_true(os_path_absolute("C:/x"));
		assert_string_equal(path_base("C:\\a/b\\c.dll"), "c.dll");
		assert_string_equal(path_base("C:/a/b.gguf"), "b.gguf");
	}
}

/* A model named with -m and mapped, under a path in the OS's own form (on
 * Windows a drive letter and backslashes, as the process layer reports it):
 * one model, evidence mapped and cmdline. */
static void test_model_at_native_path(void **state)
{
	(void)state;
	char *dir = tu_tempdir(), *native = tu_native_path(dir), path[1024], dll[512];
	char sep = OS_PATH_SEP;

	snprintf(path, sizeof path, "%s%cmodels%cqwen.gguf", native, sep, sep);
	tu_mkdirs(dir);
	char made[1024];
	snprintf(made, sizeof made, "%s/models", dir);
	tu_mkdirs(made);
	tf_write_gguf(path, "qwen3");
	snprintf(dll, sizeof dll, "%sggml-cuda.dll", dll_dir());
	const char *maps[] = {dll, path, NULL};
	const char *argv[] = {"llama-server.exe", "-m", path, "--port", "8080", NULL};
	struct gtm_process *p = tf_process("llama-server.exe", argv, NULL, NULL, maps, NULL);
	const struct gtm_ident *id = tf_identify(p);
	assert_non_null(tf_runtime(id, "ggml-cuda"));
	/* llama-server.exe is llama.cpp as llama-server is: the ".exe" goes before matching */
	const struct ident_runtime *rt = tf_runtime(id, "llama.cpp");
	assert_non_null(rt);
	assert_string_equal(rt->evidence[0], "executable llama-server.exe");
	assert_int_equal(id->n_models, 1);
	const struct ident_model *m = tf_model(id, "qwen.gguf");
	assert_non_null(m);
	assert_string_equal(m->path, path);
	assert_true(m->evidence & (1u << MODEL_EV_MAPPED));
	assert_true(m->evidence & (1u << MODEL_EV_CMDLINE));
	assert_true(m->have_info);
	tf_process_free(p);
	free(native);
	tu_rmrf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_dll_pattern),
		cmocka_unit_test(test_dll_names),
		cmocka_unit_test(test_dos_paths),
		cmocka_unit_test(test_model_at_native_path),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
