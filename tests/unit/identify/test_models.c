/* Model files (maps and command line, by magic, cwd-relative), evidence
 * order and "confirmed", store names (Ollama manifests with OLLAMA_MODELS,
 * LM Studio, the HF cache and -hf), installed candidates, JSON/text views. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "ident_fixture.h"
#include "identify/magic_cache.h"
#include "identify/stores.h"
#include "testutil.h"
#include "views/ident_json.h"
#include "views/ident_text.h"
#include "views/tui/tui_ident.h"

static char *tmp;

static int setup(void **state)
{
	(void)state;
	tmp = tu_tempdir();
	stores_cache_clear();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tu_rmrf(tmp);
	free(tmp);
	stores_cache_clear();
	return 0;
}

static char *at(const char *rel)
{
	static char buf[8][4096];
	static int k;
	k = (k + 1) % 8;
	if ((size_t)snprintf(buf[k], sizeof buf[k], "%s/%s", tmp, rel) >= sizeof buf[k])
		fail_msg("path too long: %s", rel);
	return buf[k];
}

static void write_text(const char *path, const char *text)
{
	tu_write_file(path, text, strlen(text));
}

static void test_magic_not_extension(void **state)
{
	(void)state;
	tu_mkdirs(at("models"));
	tf_write_gguf(at("models/weights.bin"), "llama");       /* GGUF named .bin: a model */
	write_text(at("models/fake.gguf"), "not a gguf at all"); /* .gguf that is not GGUF: none */
	tf_write_gguf(at("models/mapped.gguf"), "qwen3");
	const char *maps[] = {at("models/fake.gguf"), at("models/mapped.gguf"), "/usr/lib/libc.so.6", NULL};
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "llama-server -m models/weights.bin --mmproj models/fake.gguf --port 8080");
	struct gtm_process *p = tf_process_cmdline("llama-server", cmd, "/opt/llama-server", tmp, maps, NULL);
	const struct gtm_ident *id = tf_identify(p);

	assert_int_equal(id->n_models, 2);
	const struct ident_model *w = tf_model(id, "weights.bin");
	assert_non_null(w);
	/* resolved against the process's cwd */
	assert_string_equal(w->path, at("models/weights.bin"));
	assert_int_equal(w->evidence, 1u << MODEL_EV_CMDLINE);
	assert_string_equal(w->evidence_detail[MODEL_EV_CMDLINE], "-m");
	assert_true(w->have_info);
	assert_string_equal(w->info.arch, "llama");
	assert_int_equal(w->info.n_layer, 2);
	assert_true(gtm_u64_ok(w->file_size));
	const struct ident_model *m = tf_model(id, "mapped.gguf");
	assert_non_null(m);
	assert_int_equal(m->evidence, 1u << MODEL_EV_MAPPED);
	assert_null(tf_model(id, "fake.gguf"));
	/* mapped outranks cmdline */
	assert_ptr_equal(&id->models[0], m);
	tf_process_free(p);
}

static void test_mapped_and_named_is_confirmed(void **state)
{
	(void)state;
	tu_mkdirs(at("m"));
	tf_write_gguf(at("m/main.gguf"), "qwen3");
	tf_write_gguf(at("m/draft.gguf"), "qwen3");
	tf_write_mmproj(at("m/proj.gguf"));
	tf_write_gguf(at("m/a.gguf"), "llama");
	tf_write_gguf(at("m/b.gguf"), "llama");
	/* the kernel shows the mapped file by its real path; the command line used a symlink */
	assert_int_equal(symlink(at("m/main.gguf"), at("link.gguf")), 0);
	const char *maps[] = {at("m/main.gguf"), at("m/proj.gguf"), NULL};
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "llama-server --model=%s -md m/draft.gguf --lora m/a.gguf,m/b.gguf -c 8192 -ngl 99",
		 at("link.gguf"));
	struct gtm_process *p = tf_process_cmdline("llama-server", cmd, "/opt/llama-server", tmp, maps, NULL);
	const struct gtm_ident *id = tf_identify(p);

	assert_int_equal(id->n_models, 5);
	const struct ident_model *m = &id->models[0];
	assert_true(ident_model_confirmed(m));
	assert_int_equal(m->role, MODEL_ROLE_MODEL);
	assert_string_equal(m->evidence_detail[MODEL_EV_CMDLINE], "--model");
	assert_string_equal(m->path, at("link.gguf")); /* named first: the command line's path is kept */
	const struct ident_model *pr = tf_model(id, "proj.gguf");
	assert_int_equal(pr->role, MODEL_ROLE_MMPROJ); /* from its header: a clip projector */
	assert_false(ident_model_confirmed(pr));
	assert_int_equal(tf_model(id, "draft.gguf")->role, MODEL_ROLE_DRAFT);
	assert_int_equal(tf_model(id, "a.gguf")->role, MODEL_ROLE_LORA);
	assert_int_equal(tf_model(id, "b.gguf")->role, MODEL_ROLE_LORA);
	assert_non_null(id->flags);
	assert_int_equal(id->flags->n_ctx, 8192);
	assert_int_equal(id->flags->n_gpu_layers, 99);
	tf_process_free(p);
}

/* Within one refresh a path found not to be GGUF is answered from memory
 * (every process maps libc and the locale files); the next refresh looks again. */
static void test_magic_memo_per_refresh(void **state)
{
	(void)state;
	struct magic_cache *mc = magic_cache_new();
	struct stat st;
	tu_write_file(at("later.gguf"), "not yet", 7);
	assert_false(magic_cache_is_gguf(mc, at("later.gguf"), &st));
	tf_write_gguf(at("later.gguf"), "qwen3"); /* now it is a model */
	assert_false(magic_cache_is_gguf(mc, at("later.gguf"), &st)); /* same refresh: remembered */
	magic_cache_next_refresh(mc);
	assert_true(magic_cache_is_gguf(mc, at("later.gguf"), &st));
	assert_true(st.st_size > 7);
	assert_true(magic_cache_is_gguf(mc, at("later.gguf"), &st)); /* a GGUF is always stat'ed */
	magic_cache_free(mc);
}

/* The table starts small and grows: 300 files (a tenth of them GGUF) are
 * all answered right, before and after growing, and in the next refresh. */
static void test_magic_cache_grows(void **state)
{
	(void)state;
	struct magic_cache *mc = magic_cache_new();
	char name[64];
	struct stat st;

	for (int i = 0; i < 300; i++) {
		snprintf(name, sizeof name, "grow-%d.bin", i);
		if (i % 10 == 0)
			tf_write_gguf(at(name), "qwen3");
		else
			tu_write_file(at(name), "not a model", 11);
	}
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < 300; i++) {
			snprintf(name, sizeof name, "grow-%d.bin", i);
			assert_int_equal(magic_cache_is_gguf(mc, at(name), &st), i % 10 == 0);
			/* an earlier path is still answered after later ones made the table grow */
			snprintf(name, sizeof name, "grow-%d.bin", i / 2);
			assert_int_equal(magic_cache_is_gguf(mc, at(name), &st), (i / 2) % 10 == 0);
		}
		magic_cache_next_refresh(mc);
	}
	magic_cache_free(mc);
}

/* A steady refresh reuses what identify concluded for the same (PID, start
 * time, detail, shape of GPU use) as a private copy; a new detail or a new
 * kind of GPU use is identified afresh. */
static void test_memo_reuse_and_invalidation(void **state)
{
	(void)state;
	tu_mkdirs(at("memo"));
	tf_write_gguf(at("memo/m.gguf"), "qwen3");
	const char *maps[] = {at("memo/m.gguf"), "/opt/lib/libllama.so", NULL};
	struct gtm_process *p = tf_process_cmdline("llama-server", "llama-server -m memo/m.gguf -c 4096", "/opt/llama-server",
						   tmp, maps, NULL);
	p->pid = 4321;
	p->start_time = 77;
	struct identify_ctx *c = identify_ctx_new();

	identify_process(c, p);
	struct gtm_ident *first = p->ident;
	assert_int_equal(first->n_models, 1);
	assert_true(ident_model_confirmed(&first->models[0]));
	/* explain adds evidence to this refresh's copy only */
	p->ident = NULL;
	assert_non_null(ident_add_model_evidence(first, at("memo/m.gguf"), MODEL_EV_API));
	identify_refresh_done(c);

	identify_process(c, p);
	assert_ptr_not_equal(p->ident, first);
	assert_int_equal(p->ident->n_models, 1);
	assert_false(p->ident->models[0].evidence & (1u << MODEL_EV_API));
	assert_string_equal(p->ident->models[0].path, first->models[0].path);
	assert_non_null(p->ident->flags);
	assert_int_equal(p->ident->flags->n_ctx, 4096);
	assert_int_equal(p->ident->category, first->category);
	ident_free(first);
	identify_refresh_done(c);

	/* the process starts using a GPU for graphics: the category is decided again */
	struct gtm_gpu_use *u = process_add_use(p);
	u->graphics = true;
	u->vram = gtm_u64_of(1 << 20, GTM_MEASURED);
	identify_process(c, p);
	assert_int_equal(p->ident->n_models, 1);
	identify_refresh_done(c);

	/* a reused PID (new start time) never gets the old conclusions */
	p->start_time = 78;
	int argc = p->detail->argc;
	p->detail->argc = 1; /* the new process has no -m */
	tf_add_map(p, "/opt/lib/libggml-cuda.so");
	identify_process(c, p);
	assert_non_null(tf_runtime(p->ident, "ggml-cuda"));
	identify_refresh_done(c);
	identify_refresh_done(c); /* the PID was not seen in this refresh: forgotten */
	identify_ctx_free(c);
	p->detail->argc = argc;
	tf_process_free(p);
}

static void test_unreadable_named_model(void **state)
{
	(void)state;
	/* llama.cpp names it: kept with the reason (another mount namespace, permissions) */
	struct gtm_process *p =
		tf_process_cmdline("llama-server", "llama-server -m /nonexistent/x.gguf", "/opt/llama-server", "/", NULL, NULL);
	const struct gtm_ident *id = tf_identify(p);
	assert_int_equal(id->n_models, 1);
	assert_non_null(strstr(id->models[0].error, "No such file"));
	assert_false(gtm_u64_ok(id->models[0].file_size));
	assert_false(id->models[0].have_info);
	tf_process_free(p);
	/* a python module flag and a repo id are not model files */
	p = tf_process_cmdline("python3", "python3 -m vllm.entrypoints.openai.api_server --model Qwen/Qwen3-8B",
			       "/usr/bin/python3", "/", NULL, NULL);
	id = tf_identify(p);
	assert_int_equal(id->n_models, 0);
	assert_non_null(tf_runtime(id, "vllm"));
	tf_process_free(p);
	/* vllm serve with a local GGUF file: a model named on the command line */
	tu_mkdirs(at("vl"));
	tf_write_gguf(at("vl/q.gguf"), "qwen3");
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "/usr/bin/python3 /usr/local/bin/vllm serve %s --port 8000", at("vl/q.gguf"));
	p = tf_process_cmdline("vllm", cmd, "/usr/bin/python3", "/", NULL, NULL);
	id = tf_identify(p);
	assert_int_equal(id->n_models, 1);
	assert_string_equal(id->models[0].evidence_detail[MODEL_EV_CMDLINE], "vllm serve");
	tf_process_free(p);
	/* a tool that is no GGUF runtime: an unreadable -m is nothing */
	p = tf_process_cmdline("tool", "tool -m /nonexistent/x.gguf", "/usr/bin/tool", "/", NULL, NULL);
	assert_int_equal(tf_identify(p)->n_models, 0);
	tf_process_free(p);
}

static void test_evidence_order_and_api(void **state)
{
	(void)state;
	tu_mkdirs(at("e"));
	tf_write_gguf(at("e/named.gguf"), "qwen3");
	tf_write_gguf(at("e/mapped.gguf"), "qwen3");
	const char *maps[] = {at("e/mapped.gguf"), NULL};
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "llama-server -m %s", at("e/named.gguf"));
	struct gtm_process *p = tf_process_cmdline("llama-server", cmd, "/opt/llama-server", "/", maps, NULL);
	struct gtm_ident *id = (struct gtm_ident *)tf_identify(p);

	assert_string_equal(path_base(id->models[0].path), "mapped.gguf");
	assert_string_equal(path_base(id->models[1].path), "named.gguf");
	/* explain/ adds api evidence by name: named.gguf becomes confirmed? no:
	 * api + cmdline is two sources including api → confirmed, and first */
	struct ident_model *m = ident_add_model_evidence_detail(id, "named", MODEL_EV_API, "/props");
	assert_string_equal(path_base(m->path), "named.gguf");
	assert_true(ident_model_confirmed(m));
	assert_ptr_equal(m, &id->models[0]);
	assert_int_equal(ident_model_strongest(m), MODEL_EV_API);
	/* log alone proves nothing; a new name-only model goes last */
	m = ident_add_model_evidence(id, "other-model:7b", MODEL_EV_LOG);
	assert_null(m->path);
	assert_true(ident_model_unproven(m));
	assert_ptr_equal(m, &id->models[id->n_models - 1]);
	/* a path by file identity merges with the mapped model */
	m = ident_add_model_evidence(id, at("e/../e/mapped.gguf"), MODEL_EV_LOG);
	assert_int_equal(m->evidence, (1u << MODEL_EV_MAPPED) | (1u << MODEL_EV_LOG));
	assert_true(ident_model_confirmed(m));
	assert_int_equal(id->n_models, 3);

	/* JSON lists evidence strongest first, with the status */
	json_t *j = ident_json_model(&id->models[0], NULL);
	json_t *ev = json_object_get(j, "evidence");
	assert_string_equal(json_string_value(json_array_get(ev, 0)), "api");
	assert_string_equal(json_string_value(json_array_get(ev, 1)), "cmdline");
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "evidence_detail"), "api")), "/props");
	assert_true(json_is_true(json_object_get(j, "confirmed")));
	assert_string_equal(json_string_value(json_object_get(j, "status")), "confirmed");
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "gguf"), "arch")), "qwen3");
	json_decref(j);
	j = ident_json_model(&id->models[2], NULL);
	assert_true(json_is_null(json_object_get(j, "file_size_bytes")));
	assert_true(json_is_null(json_object_get(j, "gguf")));
	assert_string_equal(json_string_value(json_object_get(j, "status")), "not proven loaded");
	json_decref(j);
	/* reported names may differ in case; an empty name adds nothing */
	m = ident_add_model_evidence(id, "MAPPED", MODEL_EV_API);
	assert_ptr_equal(m, tf_model(id, "mapped.gguf"));
	assert_null(ident_add_model_evidence(id, "", MODEL_EV_API));
	assert_int_equal(id->n_models, 3);
	tf_process_free(p);
}

static const char *manifest_fmt =
	"{\"schemaVersion\":2,\"mediaType\":\"application/vnd.docker.distribution.manifest.v2+json\","
	"\"config\":{\"mediaType\":\"application/vnd.docker.container.image.v1+json\",\"digest\":\"sha256:%s\",\"size\":1},"
	"\"layers\":[{\"mediaType\":\"application/vnd.ollama.image.model\",\"digest\":\"sha256:%s\",\"size\":1},"
	"{\"mediaType\":\"application/vnd.ollama.image.projector\",\"digest\":\"sha256:%s\",\"size\":1},"
	"{\"mediaType\":\"application/vnd.ollama.image.license\",\"digest\":\"sha256:%s\",\"size\":1}]}";

static void hexof(char c, char out[65])
{
	memset(out, c, 64);
	out[64] = '\0';
}

static void write_manifest(const char *store, const char *rel, char model, char proj)
{
	char path[4096], body[2048], m[65], p[65], x[65];
	hexof(model, m);
	hexof(proj, p);
	hexof('0', x);
	snprintf(body, sizeof body, manifest_fmt, x, m, p, x);
	snprintf(path, sizeof path, "%s/manifests/%s", store, rel);
	write_text(path, body);
}

static void make_ollama_store(const char *store)
{
	char path[4096], hex[65];
	write_manifest(store, "registry.ollama.ai/library/qwen3/latest", 'a', 'f');
	write_manifest(store, "registry.ollama.ai/library/qwen3/14b", 'a', 'f');
	write_manifest(store, "registry.ollama.ai/someone/tuned/v2", 'b', 'e');
	write_manifest(store, "hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF/Q4_K_M", 'c', 'e');
	write_text(at("junk"), "x");
	const char chars[] = {'a', 'b', 'c'};
	for (int i = 0; i < 3; i++) {
		hexof(chars[i], hex);
		snprintf(path, sizeof path, "%s/blobs/sha256-%s", store, hex);
		tu_mkdirs(store);
		char dir[4096];
		snprintf(dir, sizeof dir, "%s/blobs", store);
		tu_mkdirs(dir);
		tf_write_gguf(path, "qwen3");
	}
	/* a hostile manifest: not JSON */
	snprintf(path, sizeof path, "%s/manifests/registry.ollama.ai/library/broken/x", store);
	write_text(path, "{\"layers\": [ {\"digest\": 12");
}

static void test_ollama_names_from_manifests(void **state)
{
	(void)state;
	char store[4096], blob[4200], env[4200], hex[65];
	snprintf(store, sizeof store, "%s", at("custom-store"));
	make_ollama_store(store);
	hexof('a', hex);
	snprintf(blob, sizeof blob, "%s/blobs/sha256-%s", store, hex);
	snprintf(env, sizeof env, "OLLAMA_MODELS=%s", store);
	const char *envp[] = {"HOME=/nonexistent-home", env, NULL};
	const char *maps[] = {blob, NULL};
	char cmd[4400];
	snprintf(cmd, sizeof cmd, "/usr/local/bin/ollama runner --model %s --port 41234", blob);
	struct gtm_process *p = tf_process_cmdline("ollama", cmd, "/usr/local/bin/ollama", "/", maps, envp);
	const struct gtm_ident *id = tf_identify(p);

	assert_non_null(tf_runtime(id, "ollama"));
	const struct ident_model *m = &id->models[0];
	assert_string_equal(m->name, "qwen3:14b"); /* the alphabetically first tag of the blob */
	assert_int_equal(m->store, MODEL_STORE_OLLAMA);
	assert_true(ident_model_confirmed(m));
	/* the store's other models: installed candidates, not proven loaded */
	assert_int_equal(id->n_models, 3);
	const struct ident_model *c1 = &id->models[1], *c2 = &id->models[2];
	assert_string_equal(c1->name, "hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M");
	assert_string_equal(c2->name, "someone/tuned:v2");
	assert_int_equal(c1->evidence, 1u << MODEL_EV_INSTALLED);
	assert_true(ident_model_unproven(c2));
	assert_false(c2->have_info); /* candidates cost no header read */
	assert_int_equal(id->n_installed_omitted, 0);
	char ev[96];
	assert_string_equal(ident_text_evidence(c2, ev, sizeof ev), "installed, not proven loaded");
	tf_process_free(p);

	/* the projector layer of the same manifest names its blob as an mmproj */
	char proj[4200];
	hexof('f', hex);
	snprintf(proj, sizeof proj, "%s/blobs/sha256-%s", store, hex);
	char *name = NULL;
	enum model_store st;
	enum model_role role = MODEL_ROLE_MODEL;
	stores_name_model(proj, &name, &st, &role);
	assert_string_equal(name, "qwen3:14b");
	assert_int_equal(role, MODEL_ROLE_MMPROJ);
	free(name);
	/* a blob no manifest names keeps a short digest */
	hexof('9', hex);
	snprintf(proj, sizeof proj, "%s/blobs/sha256-%s", store, hex);
	stores_name_model(proj, &name, &st, &role);
	assert_string_equal(name, "sha256-999999999999");
	assert_int_equal(st, MODEL_STORE_OLLAMA);
	free(name);
}

static void test_ollama_default_dir_from_home(void **state)
{
	(void)state;
	char home[4096], envh[4200];
	snprintf(home, sizeof home, "%s", at("home"));
	char store[4200];
	snprintf(store, sizeof store, "%s/.ollama/models", home);
	make_ollama_store(store);
	snprintf(envh, sizeof envh, "HOME=%s", home);
	const char *envp[] = {envh, NULL};
	struct gtm_process *p =
		tf_process_cmdline("ollama", "/usr/bin/ollama serve", "/usr/bin/ollama", "/", NULL, envp);
	const struct gtm_ident *id = tf_identify(p);
	assert_int_equal(id->n_models, 3);
	for (int i = 0; i < id->n_models; i++)
		assert_true(ident_model_unproven(&id->models[i]));
	assert_string_equal(id->models[1].name, "qwen3:14b");
	tf_process_free(p);
}

static void test_lmstudio_and_hf_names(void **state)
{
	(void)state;
	char *name;
	enum model_store st;
	enum model_role role = MODEL_ROLE_MODEL;

	stores_name_model("/home/u/.lmstudio/models/lmstudio-community/Qwen3-8B-GGUF/Qwen3-8B-Q4_K_M.gguf", &name, &st,
			  &role);
	assert_string_equal(name, "lmstudio-community/Qwen3-8B-GGUF");
	assert_int_equal(st, MODEL_STORE_LMSTUDIO);
	free(name);
	stores_name_model("/home/u/.cache/lm-studio/models/TheBloke/Mistral-GGUF/m.gguf", &name, &st, &role);
	assert_string_equal(name, "TheBloke/Mistral-GGUF");
	free(name);
	/* not exactly two levels deep: no LM Studio name */
	stores_name_model("/home/u/.lmstudio/models/loose.gguf", &name, &st, &role);
	assert_string_equal(name, "loose.gguf");
	assert_int_equal(st, MODEL_STORE_NONE);
	free(name);
	stores_name_model("/h/.cache/huggingface/hub/models--Qwen--Qwen3-0.6B-GGUF/blobs/0123abcd", &name, &st, &role);
	assert_string_equal(name, "Qwen/Qwen3-0.6B-GGUF");
	assert_int_equal(st, MODEL_STORE_HF);
	free(name);
	stores_name_model("/h/hub/models--gpt2/snapshots/x/model.gguf", &name, &st, &role);
	assert_string_equal(name, "gpt2");
	free(name);
}

static void test_lmstudio_installed(void **state)
{
	(void)state;
	char envh[4200];
	tu_mkdirs(at("h/.lmstudio/models/pub/repo-GGUF"));
	tf_write_gguf(at("h/.lmstudio/models/pub/repo-GGUF/model-Q4.gguf"), "llama");
	write_text(at("h/.lmstudio/models/pub/repo-GGUF/README.md"), "# not a model");
	snprintf(envh, sizeof envh, "HOME=%s", at("h"));
	const char *envp[] = {envh, NULL};
	struct gtm_process *p =
		tf_process_cmdline("lm-studio", "/opt/lm-studio/lm-studio", "/opt/lm-studio/lm-studio", "/", NULL, envp);
	const struct gtm_ident *id = tf_identify(p);
	assert_int_equal(id->n_models, 1);
	assert_string_equal(id->models[0].name, "pub/repo-GGUF");
	assert_int_equal(id->models[0].store, MODEL_STORE_LMSTUDIO);
	assert_true(ident_model_unproven(&id->models[0]));
	tf_process_free(p);
}

static void test_hf_resolution(void **state)
{
	(void)state;
	char envh[4200], cmd[256];
	const char *repo = "h2/.cache/huggingface/hub/models--Qwen--Qwen3-0.6B-GGUF";
	char d[4200];
	snprintf(d, sizeof d, "%s/snapshots/rev1", repo);
	tu_mkdirs(at(d));
	char p1[4300], p2[4300], p3[4300], ref[4300];
	snprintf(p1, sizeof p1, "%s/Qwen3-0.6B-Q8_0.gguf", d);
	snprintf(p2, sizeof p2, "%s/Qwen3-0.6B-Q4_K_M.gguf", d);
	snprintf(p3, sizeof p3, "%s/mmproj-Qwen3-0.6B-f16.gguf", d);
	snprintf(ref, sizeof ref, "%s/refs/main", repo);
	tf_write_gguf(at(p1), "qwen3");
	tf_write_gguf(at(p2), "qwen3");
	tf_write_mmproj(at(p3));
	write_text(at(ref), "rev1\n");
	snprintf(envh, sizeof envh, "HOME=%s", at("h2"));
	const char *envp[] = {envh, NULL};

	snprintf(cmd, sizeof cmd, "llama-server -hf Qwen/Qwen3-0.6B-GGUF:Q8_0");
	struct gtm_process *p = tf_process_cmdline("llama-server", cmd, "/opt/llama-server", "/", NULL, envp);
	const struct gtm_ident *id = tf_identify(p);
	assert_int_equal(id->n_models, 2);
	const struct ident_model *m = tf_model(id, "Qwen3-0.6B-Q8_0.gguf");
	assert_non_null(m);
	assert_string_equal(m->name, "Qwen/Qwen3-0.6B-GGUF");
	assert_int_equal(m->store, MODEL_STORE_HF);
	assert_string_equal(m->evidence_detail[MODEL_EV_CMDLINE], "-hf Qwen/Qwen3-0.6B-GGUF:Q8_0");
	assert_int_equal(tf_model(id, "mmproj-Qwen3-0.6B-f16.gguf")->role, MODEL_ROLE_MMPROJ);
	tf_process_free(p);

	/* a folder symlinked to its parent inside the snapshot does not loop */
	char loop[4300];
	snprintf(loop, sizeof loop, "%s/loop", d);
	assert_int_equal(symlink(".", at(loop)), 0);
	/* no tag: llama.cpp's default Q4_K_M; --no-mmproj: no projector */
	p = tf_process_cmdline("llama-server", "llama-server -hf Qwen/Qwen3-0.6B-GGUF --no-mmproj", "/opt/llama-server",
			       "/", NULL, envp);
	id = tf_identify(p);
	assert_int_equal(id->n_models, 1);
	assert_non_null(tf_model(id, "Qwen3-0.6B-Q4_K_M.gguf"));
	tf_process_free(p);

	/* a tag no file has: the whole snapshot is searched (the loop once) and nothing found */
	p = tf_process_cmdline("llama-server", "llama-server -hf Qwen/Qwen3-0.6B-GGUF:Q2_K --no-mmproj",
			       "/opt/llama-server", "/", NULL, envp);
	assert_int_equal(tf_identify(p)->n_models, 0);
	tf_process_free(p);

	/* a repo not in the cache, or one climbing out of it: nothing */
	p = tf_process_cmdline("llama-server", "llama-server -hf other/repo -hfd ../../x/y", "/opt/llama-server", "/",
			       NULL, envp);
	assert_int_equal(tf_identify(p)->n_models, 0);
	tf_process_free(p);
}

/* The loader identification calls for a deferred environment: sets the
 * environment it was given and counts the calls. */
struct env_loader {
	const char *const *env;
	int calls;
};

static void load_env(void *arg, const struct gtm_process *p)
{
	struct env_loader *l = arg;
	char blob[8192];
	size_t n = 0;
	l->calls++;
	for (int i = 0; l->env[i]; i++) {
		size_t k = strlen(l->env[i]) + 1;
		memcpy(blob + n, l->env[i], k);
		n += k;
	}
	proc_detail_set_environ(p->detail, blob, n);
}

/* A scan defers the environment; identification asks for it only where it
 * matters: a model store's runtime was found, or the command line names an
 * HF repo (a server renamed so that no runtime pattern knows it). */
static void test_environ_on_request(void **state)
{
	(void)state;
	const char *repo = "h3/.cache/huggingface/hub/models--Org--Repo-GGUF";
	char d[4200], p1[4300], ref[4300], envh[4200];
	snprintf(d, sizeof d, "%s/snapshots/r1", repo);
	tu_mkdirs(at(d));
	snprintf(p1, sizeof p1, "%s/Repo-Q4_K_M.gguf", d);
	snprintf(ref, sizeof ref, "%s/refs/main", repo);
	tf_write_gguf(at(p1), "qwen3");
	write_text(at(ref), "r1\n");
	snprintf(envh, sizeof envh, "HOME=%s", at("h3"));
	const char *envp[] = {envh, NULL};
	struct env_loader l = {envp, 0};
	struct identify_ctx *c = identify_ctx_new();
	identify_set_environ_loader(c, load_env, &l);

	/* renamed server, no runtime library, -hf: the environment is read and the model found */
	struct gtm_process *p = tf_process_cmdline("srv", "/opt/llm/srv -hf Org/Repo-GGUF --no-mmproj", "/opt/llm/srv",
						   "/", NULL, NULL);
	p->detail->environ_deferred = true;
	identify_process(c, p);
	assert_int_equal(l.calls, 1);
	assert_int_equal(p->ident->n_runtimes, 0);
	assert_non_null(tf_model(p->ident, "Repo-Q4_K_M.gguf"));
	tf_process_free(p);

	/* a plain process: nothing asks for its environment */
	p = tf_process_cmdline("sleep", "sleep 600", "/usr/bin/sleep", "/", NULL, NULL);
	p->detail->environ_deferred = true;
	identify_process(c, p);
	assert_int_equal(l.calls, 1);
	assert_null(proc_detail_environ(p->detail));
	tf_process_free(p);

	/* a runtime found by its library that keeps no model store: nothing in
	 * identification reads its environment (explain loads it for AI rows) */
	const char *maps[] = {"/opt/lib/libllama.so", "/usr/lib/libcuda.so.1", NULL};
	p = tf_process_cmdline("worker", "worker --serve", "/opt/worker", "/", maps, NULL);
	p->detail->environ_deferred = true;
	identify_process(c, p);
	assert_int_equal(p->ident->n_runtimes, 2);
	assert_int_equal(l.calls, 1);
	assert_null(proc_detail_environ(p->detail));
	tf_process_free(p);

	/* a store's runtime (Ollama finds its models through OLLAMA_MODELS, HOME): read */
	p = tf_process_cmdline("ollama", "ollama serve", "/usr/local/bin/ollama", "/", NULL, NULL);
	p->detail->environ_deferred = true;
	identify_process(c, p);
	assert_non_null(ident_find_runtime(p->ident, "ollama"));
	assert_int_equal(l.calls, 2);
	assert_non_null(proc_detail_environ(p->detail));
	tf_process_free(p);
	identify_ctx_free(c);
}

/* The whole of one snapshot row's identity as JSON, through the writer. */
static json_t *ident_row_json(const struct gtm_ident *id)
{
	char *text = NULL;
	size_t text_len = 0;
	FILE *mem = tu_memstream(&text, &text_len);
	static struct jw w;
	jw_init(&w, mem);
	jw_begin_object(&w, NULL);
	ident_jw_into(&w, id);
	jw_end_object(&w);
	assert_int_equal(jw_finish(&w), 0);
	tu_memclose(mem);
	json_t *j = json_loads(text, 0, NULL);
	free(text);
	assert_non_null(j);
	return j;
}

/* The text view of one row's identity (full: the inspect form, indented). */
static char *ident_row_text(const struct gtm_ident *id, bool full)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = tu_memstream(&buf, &len);
	assert_non_null(f);
	if (full)
		ident_text_print_full(f, id, "  ");
	else
		ident_text_print(f, id, "");
	tu_memclose(f);
	return buf;
}

static void test_views(void **state)
{
	(void)state;
	tu_mkdirs(at("v"));
	tf_write_gguf(at("v/model.gguf"), "qwen3");
	const char *maps[] = {at("v/model.gguf"), "/opt/libggml-cuda.so", "/usr/lib/libcuda.so.1", NULL};
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "llama-server -m %s -c 4096", at("v/model.gguf"));
	struct gtm_process *p = tf_process_cmdline("llama-server", cmd, "/opt/llama-server", "/", maps, NULL);
	const struct gtm_ident *id = tf_identify(p);
	json_t *j = ident_row_json(id);
	assert_string_equal(json_string_value(json_object_get(j, "category")), "ai");
	json_t *rts = json_object_get(j, "runtimes");
	assert_string_equal(json_string_value(json_object_get(json_array_get(rts, 0), "id")), "llama.cpp");
	json_t *model = json_array_get(json_object_get(j, "models"), 0);
	assert_string_equal(json_string_value(json_object_get(model, "role")), "model");
	assert_true(json_is_null(json_object_get(model, "store")));
	json_t *gguf = json_object_get(model, "gguf");
	assert_int_equal(json_integer_value(json_object_get(gguf, "layers")), 2);
	assert_true(json_is_null(json_object_get(gguf, "experts"))); /* absent, not 0 */
	json_t *flags = json_object_get(j, "llama_flags");
	assert_int_equal(json_integer_value(json_object_get(flags, "ctx_size")), 4096);
	assert_true(json_is_null(json_object_get(flags, "n_gpu_layers")));
	json_decref(j);

	char *buf = ident_row_text(id, true);
	assert_non_null(strstr(buf, "category  AI (AI runtime llama.cpp)"));
	assert_non_null(strstr(buf, "ggml CUDA backend: mapped libggml-cuda.so"));
	assert_non_null(strstr(buf, "[mapped+cmdline, confirmed]"));
	assert_non_null(strstr(buf, "defaults assumed: -ngl"));
	free(buf);
	char rt[64];
	assert_string_equal(ident_text_runtimes(id, rt, 20), "llama.cpp, ggml CUD");
	tf_process_free(p);
}

/* llama-server --alias / -a (the captured run llama-q8_0-alias-nometrics-noslots
 * serves its model as "tiny-alias"): shown next to the main model's file
 * name in text, the live table and inspector, and JSON; not on a draft. */
static void test_alias_views(void **state)
{
	(void)state;
	tu_mkdirs(at("al"));
	tf_write_gguf(at("al/tiny-llama-q8_0.gguf"), "llama");
	tf_write_gguf(at("al/draft.gguf"), "llama");
	const char *maps[] = {at("al/tiny-llama-q8_0.gguf"), NULL};
	const char *forms[] = {"--alias", "-a", "--alias="};
	for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
		char cmd[1024];
		snprintf(cmd, sizeof cmd, "llama-server -m %s -md %s --port 18450 %s%stiny-alias --no-slots -c 2048 -np 1",
			 at("al/tiny-llama-q8_0.gguf"), at("al/draft.gguf"), forms[f], f == 2 ? "" : " ");
		struct gtm_process *p = tf_process_cmdline("llama-server", cmd, "/opt/llama-server", "/", maps, NULL);
		const struct gtm_ident *id = tf_identify(p);
		const struct ident_model *main_m = tf_model(id, "tiny-llama-q8_0.gguf");
		const struct ident_model *draft = tf_model(id, "draft.gguf");
		assert_non_null(main_m);
		assert_non_null(draft);
		assert_string_equal(ident_model_alias(id, main_m), "tiny-alias");
		assert_null(ident_model_alias(id, draft));

		json_t *j = ident_row_json(id);
		json_t *model = json_array_get(json_object_get(j, "models"), 0);
		assert_string_equal(json_string_value(json_object_get(model, "name")), "tiny-llama-q8_0.gguf");
		assert_string_equal(json_string_value(json_object_get(model, "alias")), "tiny-alias");
		assert_true(json_is_null(json_object_get(json_array_get(json_object_get(j, "models"), 1), "alias")));
		assert_string_equal(json_string_value(json_object_get(json_object_get(j, "llama_flags"), "alias")), "tiny-alias");
		json_decref(j);

		char *buf = ident_row_text(id, false);
		assert_non_null(strstr(buf, "model     tiny-llama-q8_0.gguf (alias tiny-alias)  [mapped+cmdline"));
		assert_non_null(strstr(buf, "model     draft.gguf as draft  ["));
		free(buf);
		char inside[256];
		assert_non_null(strstr(tui_process_inside(p, inside, sizeof inside), "tiny-llama-q8_0.gguf (alias tiny-alias)"));
		tf_process_free(p);
	}
	/* without an alias nothing is added */
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "llama-server -m %s", at("al/tiny-llama-q8_0.gguf"));
	struct gtm_process *p = tf_process_cmdline("llama-server", cmd, "/opt/llama-server", "/", maps, NULL);
	const struct gtm_ident *id = tf_identify(p);
	json_t *j = ident_row_json(id);
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(j, "models"), 0), "alias")));
	assert_true(json_is_null(json_object_get(json_object_get(j, "llama_flags"), "alias")));
	json_decref(j);
	char inside[256];
	assert_null(strstr(tui_process_inside(p, inside, sizeof inside), "alias"));
	tf_process_free(p);
}

/* An index is rebuilt when a folder it read changes, and only then. */
static void test_store_indexes_follow_changes(void **state)
{
	(void)state;
	char store[4096], hex[65], blob[4200], envs[4200], envh[4200];
	snprintf(store, sizeof store, "%s", at("s"));
	make_ollama_store(store);
	hexof('b', hex);
	snprintf(blob, sizeof blob, "%s/blobs/sha256-%s", store, hex);
	char *name = NULL;
	enum model_store st;
	enum model_role role;
	stores_name_model(blob, &name, &st, &role);
	assert_string_equal(name, "someone/tuned:v2");
	free(name);
	stores_set_recheck_ns(0);
	/* a new tag sorts first: the index notices the new folder */
	write_manifest(store, "registry.ollama.ai/aaa/first/v1", 'b', 'e');
	stores_name_model(blob, &name, &st, &role);
	assert_string_equal(name, "aaa/first:v1");
	free(name);

	/* LM Studio: a model added to an existing repo folder */
	tu_mkdirs(at("hl/.lmstudio/models/pub/repo"));
	tf_write_gguf(at("hl/.lmstudio/models/pub/repo/a.gguf"), "llama");
	snprintf(envh, sizeof envh, "HOME=%s", at("hl"));
	snprintf(envs, sizeof envs, "X=1");
	const char *envp[] = {envh, envs, NULL};
	struct gtm_process *p = tf_process_cmdline("lm-studio", "lm-studio", "/opt/lm-studio", "/", NULL, envp);
	assert_int_equal(tf_identify(p)->n_models, 1);
	tf_write_gguf(at("hl/.lmstudio/models/pub/repo/b.gguf"), "llama");
	assert_int_equal(tf_identify(p)->n_models, 2);
	tf_process_free(p);
	stores_set_recheck_ns(2000000000ull);
}

static void test_deleted_mapped_model(void **state)
{
	(void)state;
	char map[4200], cmd[4200], blob[4200];
	/* named on the command line, then deleted: still held, with the reason */
	snprintf(map, sizeof map, "%s (deleted)", at("gone.gguf"));
	snprintf(blob, sizeof blob, "%s/blobs/sha256-%064d (deleted)", at("store"), 7);
	const char *maps[] = {map, blob, "/usr/lib/libllama.so.0 (deleted)", NULL};
	snprintf(cmd, sizeof cmd, "llama-server -m %s", at("gone.gguf"));
	struct gtm_process *p = tf_process_cmdline("llama-server", cmd, "/opt/llama-server", "/", maps, NULL);
	const struct gtm_ident *id = tf_identify(p);
	assert_int_equal(id->n_models, 2);
	const struct ident_model *m = tf_model(id, "gone.gguf");
	assert_true(ident_model_confirmed(m));
	assert_string_equal(m->evidence_detail[MODEL_EV_MAPPED], "deleted");
	assert_non_null(strstr(m->error, "deleted"));
	m = tf_model(id, "0000007");
	assert_int_equal(m->store, MODEL_STORE_OLLAMA);
	assert_int_equal(m->evidence, 1u << MODEL_EV_MAPPED);
	tf_process_free(p);
	/* not a GGUF runtime: a deleted mapping is nothing */
	const char *app_maps[] = {map, blob, NULL};
	p = tf_process_cmdline("app", "app", "/usr/bin/app", "/", app_maps, NULL);
	assert_int_equal(tf_identify(p)->n_models, 0);
	tf_process_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_magic_not_extension, setup, teardown),
		cmocka_unit_test_setup_teardown(test_magic_cache_grows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mapped_and_named_is_confirmed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreadable_named_model, setup, teardown),
		cmocka_unit_test_setup_teardown(test_memo_reuse_and_invalidation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_magic_memo_per_refresh, setup, teardown),
		cmocka_unit_test_setup_teardown(test_evidence_order_and_api, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ollama_names_from_manifests, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ollama_default_dir_from_home, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lmstudio_and_hf_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lmstudio_installed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hf_resolution, setup, teardown),
		cmocka_unit_test_setup_teardown(test_environ_on_request, setup, teardown),
		cmocka_unit_test_setup_teardown(test_views, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alias_views, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deleted_mapped_model, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_indexes_follow_changes, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
