/* inspect MODEL: the device plan as text lines and as JSON. */
#include <stdio.h>
#include <string.h>

#include "app/cmd_inspect.h"
#include "core/format.h"
#include "core/util.h"

#define MIB_BUF 32

static const char *const source_names[] = {"-ts", "free memory", "total memory"};
static const char *const source_json[] = {"tensor_split", "free_memory", "total_memory"};

static const char *mib(char *buf, uint64_t b)
{
	return fmt_mib(buf, MIB_BUF, b);
}

static void print_layers(FILE *out, const struct split_device *d)
{
	if (!d->used) {
		fprintf(out, "not used (-sm none)");
		return;
	}
	if (d->n_layers)
		fprintf(out, "layers %d-%d (%u, %.1f%%)", d->first_layer, d->last_layer, d->n_layers, 100.0 * d->share);
	else
		fprintf(out, "no layers (%.1f%%)", 100.0 * d->share);
	if (d->output)
		fprintf(out, " + output");
}

static void print_device(FILE *out, size_t i, const struct split_device *d)
{
	char a[MIB_BUF], b[MIB_BUF], c[MIB_BUF], e[MIB_BUF], s[256];
	fprintf(out, "  dev %zu %s: ", i, fmt_safe(s, sizeof s, d->name));
	print_layers(out, d);
	fprintf(out, "; weights %s, KV %s", mib(a, d->weights), mib(b, d->kv));
	if (d->rs)
		fprintf(out, ", state %s", mib(c, d->rs));
	fprintf(out, ", compute %s (heuristic), context %s; needs %s of %s free: ", mib(a, d->compute), mib(b, d->overhead),
		mib(c, d->need), mib(e, d->free_bytes));
	if (d->fits)
		fprintf(out, "fits (%s to spare)\n", mib(a, d->free_bytes - d->need));
	else
		fprintf(out, "DOES NOT FIT (short by %s)\n", mib(a, d->need - d->free_bytes));
}

static void print_head(FILE *out, const struct inspect_model *m)
{
	const struct split_plan *p = &m->split;
	char a[MIB_BUF], b[MIB_BUF];
	fprintf(out, "\nDevices (estimated with llama.cpp's placement rule; -sm %s", llama_split_mode_name(p->mode));
	if (p->mode == LLAMA_SM_NONE)
		fprintf(out, " -mg %d", p->main_gpu);
	else
		fprintf(out, ", layers split by %s", source_names[p->layers_by]);
	if (p->mode == LLAMA_SM_ROW || p->mode == LLAMA_SM_TENSOR)
		fprintf(out, ", rows by %s", source_names[p->rows_by]);
	fprintf(out, "; device sizes %s)\n", strcmp(m->split_source, "--gpus") == 0 ? "from --gpus" : "measured free memory");
	fprintf(out, "  input layer   host (llama.cpp keeps the token embeddings on the CPU)\n");
	if (p->host_layers || p->output_on_host)
		fprintf(out, "  host layers   %u of %u repeating layers (0-%u)%s\n", p->host_layers, p->n_layer,
			p->host_layers ? p->host_layers - 1 : 0, p->output_on_host ? " and the output layer" : "");
	fprintf(out, "  host          weights %s, KV and state %s (estimated)\n", mib(a, p->host_weights), mib(b, p->host_kv));
}

void inspect_split_print(FILE *out, const struct inspect_model *m)
{
	const struct split_plan *p = &m->split;
	char s[512];
	if (!m->split_wanted)
		return;
	if (!m->split_ok) {
		fprintf(out, "\nDevices       N/A (%s)\n", fmt_safe(s, sizeof s, m->split_err[0] ? m->split_err : "not planned"));
		for (size_t i = 0; i < p->n_notes; i++)
			fprintf(out, "  note          %s\n", fmt_safe(s, sizeof s, p->notes[i]));
		return;
	}
	print_head(out, m);
	for (size_t i = 0; i < p->n_dev; i++)
		print_device(out, i, &p->dev[i]);
	fprintf(out, "  verdict       %s (estimated; each device counts %llu MiB for llama.cpp's own GPU context, "
		     "and a compute buffer by a rough rule)\n",
		p->refused ? "llama.cpp refuses this configuration" : p->all_fit ? "fits on every device" : "DOES NOT FIT",
		(unsigned long long)(SPLIT_CONTEXT_OVERHEAD >> 20));
	for (size_t i = 0; i < p->n_notes; i++)
		fprintf(out, "  note          %s\n", fmt_safe(s, sizeof s, p->notes[i]));
}

static json_t *bytes(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

static json_t *device_json(size_t i, const struct split_device *d)
{
	json_t *layers = d->n_layers ? json_pack("{s:i, s:i, s:i}", "first", (int)d->first_layer, "last", (int)d->last_layer,
						  "count", (int)d->n_layers)
				     : json_null();
	return json_pack("{s:i, s:s, s:o, s:o, s:b, s:f, s:o, s:b, s:o, s:o, s:o, s:o, s:s, s:o, s:o, s:b}", "index", (int)i,
			 "name", d->name, "free_bytes", bytes(d->free_bytes),
			 "total_bytes", d->total_bytes ? bytes(d->total_bytes) : json_null(), "used", d->used,
			 "share", (double)d->share, "layers", layers, "output_layer", d->output, "weights_bytes",
			 bytes(d->weights), "kv_bytes", bytes(d->kv), "recurrent_bytes", bytes(d->rs), "compute_bytes",
			 bytes(d->compute), "compute_provenance", "estimated (heuristic)", "context_bytes",
			 bytes(d->overhead), "need_bytes", bytes(d->need), "fits", d->fits);
}

json_t *inspect_split_json(const struct inspect_model *m)
{
	const struct split_plan *p = &m->split;
	json_t *devs, *notes;
	if (!m->split_wanted)
		return json_null();
	notes = json_array();
	for (size_t i = 0; i < p->n_notes; i++)
		json_array_append_new(notes, json_string(p->notes[i]));
	if (!m->split_ok)
		return json_pack("{s:s, s:s, s:o}", "provenance", "unavailable", "error",
				 m->split_err[0] ? m->split_err : "not planned", "notes", notes);
	devs = json_array();
	for (size_t i = 0; i < p->n_dev; i++)
		json_array_append_new(devs, device_json(i, &p->dev[i]));
	return json_pack("{s:s, s:s, s:s, s:i, s:s, s:o, s:i, s:i, s:b, s:o, s:o, s:b, s:o, s:b, s:b, s:o}", "provenance",
			 "estimated", "sizes_from", m->split_source, "split_mode", llama_split_mode_name(p->mode),
			 "main_gpu", (int)p->main_gpu, "layers_split_by", source_json[p->layers_by], "rows_split_by",
			 p->mode == LLAMA_SM_ROW || p->mode == LLAMA_SM_TENSOR ? json_string(source_json[p->rows_by]) : json_null(),
			 "n_layer", (int)p->n_layer, "host_layers", (int)p->host_layers, "output_on_host", p->output_on_host,
			 "host_weights_bytes", bytes(p->host_weights), "host_kv_bytes", bytes(p->host_kv), "pipeline_parallel",
			 p->pipeline, "devices", devs, "refused", p->refused, "fits", p->all_fit, "notes", notes);
}
