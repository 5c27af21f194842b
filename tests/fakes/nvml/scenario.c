/* Scenario parser of the fake NVML (format: tests/fakes/README.md). */
#include "scenario.h"

#include "scenario_words.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const key_names[K_N] = {
	[K_MEM_TOTAL] = "mem_total", [K_MEM_USED] = "mem_used", [K_MEM_FREE] = "mem_free",
	[K_MEM_RESERVED] = "mem_reserved", [K_UTIL_GPU] = "util_gpu", [K_UTIL_MEM] = "util_mem",
	[K_TEMP] = "temp", [K_POWER_MW] = "power_mw", [K_POWER_LIMIT_MW] = "power_limit_mw", [K_FAN] = "fan",
	[K_CLOCK_SM] = "clock_sm", [K_CLOCK_MEM] = "clock_mem", [K_CLOCK_VIDEO] = "clock_video",
	[K_CLOCK_SM_MAX] = "clock_sm_max", [K_CLOCK_MEM_MAX] = "clock_mem_max",
	[K_PCIE_TX_KBS] = "pcie_tx_kbs", [K_PCIE_RX_KBS] = "pcie_rx_kbs", [K_PCIE_GEN] = "pcie_gen",
	[K_PCIE_WIDTH] = "pcie_width", [K_ENC] = "enc", [K_DEC] = "dec",
	[K_PCI_DEVICE_ID] = "pci_device_id", [K_DRIVER_MODEL] = "driver_model",
	[K_ENERGY_MJ] = "energy_mj", [K_THROTTLE] = "throttle", [K_PCIE_REPLAY] = "pcie_replay",
	[K_ECC_CORRECTED] = "ecc_corrected", [K_ECC_UNCORRECTED] = "ecc_uncorrected",
};

void fake_scenario_clear(struct fake_scenario *s)
{
	free(s->missing);
	free(s->procs);
	memset(s, 0, sizeof *s);
}

bool fake_scenario_missing(const struct fake_scenario *s, const char *entry)
{
	for (size_t i = 0; i < s->n_missing; i++)
		if (strcmp(s->missing[i], entry) == 0)
			return true;
	return false;
}

static void set_str(char *dst, size_t n, const char *src)
{
	size_t len = strnlen(src, n - 1);
	memcpy(dst, src, len);
	dst[len] = '\0';
}

static void parse_device(struct fake_scenario *s, const char *p, int line)
{
	char key[64], val[128];
	struct fake_device *d;

	if (s->n_devs >= FAKE_MAX_DEVICES)
		return;
	d = &s->devs[s->n_devs++];
	while (scenario_next_word(&p, key, sizeof key, val, sizeof val)) {
		size_t k;
		if (strcmp(key, "name") == 0)
			set_str(d->name, sizeof d->name, val);
		else if (strcmp(key, "uuid") == 0)
			set_str(d->uuid, sizeof d->uuid, val);
		else if (strcmp(key, "bus") == 0)
			set_str(d->bus, sizeof d->bus, val);
		else {
			for (k = 0; k < K_N && strcmp(key, key_names[k]) != 0; k++)
				;
			if (k == K_N) {
				fprintf(stderr, "fake-nvml: line %d: unknown device key '%s'\n", line, key);
				continue;
			}
			d->has[k] = true;
			d->v[k] = strtoull(val, NULL, 0);
		}
	}
}

static void parse_process(struct fake_scenario *s, const char *p, int line)
{
	char key[64], val[128];
	struct fake_process pr = {.lists = FAKE_COMPUTE, .gi = 0xFFFFFFFFu, .ci = 0xFFFFFFFFu};

	while (scenario_next_word(&p, key, sizeof key, val, sizeof val)) {
		if (strcmp(key, "dev") == 0)
			pr.dev = (unsigned)strtoul(val, NULL, 0);
		else if (strcmp(key, "pid") == 0)
			pr.pid = (unsigned)strtoul(val, NULL, 0);
		else if (strcmp(key, "list") == 0)
			pr.lists = strcmp(val, "graphics") == 0 ? FAKE_GRAPHICS
				   : strcmp(val, "both") == 0  ? FAKE_COMPUTE | FAKE_GRAPHICS
							       : FAKE_COMPUTE;
		else if (strcmp(key, "mem") == 0) {
			pr.mem_na = strcmp(val, "na") == 0;
			pr.mem = pr.mem_na ? 0 : strtoull(val, NULL, 0);
		} else if (strcmp(key, "sm") == 0 || strcmp(key, "enc") == 0 || strcmp(key, "dec") == 0 ||
			   strcmp(key, "mem_util") == 0) {
			unsigned v = (unsigned)strtoul(val, NULL, 0);
			pr.has_load = true;
			*(key[0] == 's' ? &pr.sm : key[0] == 'e' ? &pr.enc : key[0] == 'd' ? &pr.dec : &pr.mem_util) = v;
		} else if (strcmp(key, "late") == 0)
			pr.late = true;
		else if (strcmp(key, "gi") == 0 || strcmp(key, "ci") == 0)
			*(key[0] == 'g' ? &pr.gi : &pr.ci) = (unsigned)strtoul(val, NULL, 0);
		else
			fprintf(stderr, "fake-nvml: line %d: unknown process key '%s'\n", line, key);
	}
	if (s->n_procs == s->cap_procs) {
		s->cap_procs = s->cap_procs ? s->cap_procs * 2 : 64;
		s->procs = realloc(s->procs, s->cap_procs * sizeof *s->procs);
		if (!s->procs)
			abort();
	}
	s->procs[s->n_procs++] = pr;
}

static void parse_fail(struct fake_scenario *s, const char *p)
{
	char key[64], val[128];
	while (scenario_next_word(&p, key, sizeof key, val, sizeof val)) {
		if (strcmp(key, "init") == 0)
			s->fail_init = true;
		else if (strcmp(key, "all") == 0)
			s->fail_all = true;
		else if (strcmp(key, "dev") == 0 && strtoul(val, NULL, 0) < FAKE_MAX_DEVICES)
			s->devs[strtoul(val, NULL, 0)].fail = true; /* device lines do not clear it */
	}
}

static void parse_line(struct fake_scenario *s, const char *p, int line)
{
	char word[64], val[128];
	const char *rest = p;

	if (!scenario_next_word(&rest, word, sizeof word, val, sizeof val))
		return;
	if (strcmp(word, "device") == 0)
		parse_device(s, rest, line);
	else if (strcmp(word, "process") == 0)
		parse_process(s, rest, line);
	else if (strcmp(word, "fail") == 0)
		parse_fail(s, rest);
	else if (strcmp(word, "driver") == 0 && scenario_next_word(&rest, word, sizeof word, val, sizeof val))
		snprintf(s->driver, sizeof s->driver, "%s", word);
	else if (strcmp(word, "cuda") == 0 && scenario_next_word(&rest, word, sizeof word, val, sizeof val)) {
		unsigned maj = 0, min = 0;
		if (sscanf(word, "%u.%u", &maj, &min) >= 1)
			s->cuda = (int)(maj * 1000 + min * 10);
	} else if (strcmp(word, "api") == 0 && scenario_next_word(&rest, word, sizeof word, val, sizeof val))
		s->api = word[0] == 'v' ? atoi(word + 1) : atoi(word);
	else if (strcmp(word, "missing") == 0 && scenario_next_word(&rest, word, sizeof word, val, sizeof val)) {
		s->missing = realloc(s->missing, (s->n_missing + 1) * sizeof *s->missing);
		if (!s->missing)
			abort();
		snprintf(s->missing[s->n_missing++], sizeof *s->missing, "%s", word);
	} else
		fprintf(stderr, "fake-nvml: line %d: unknown directive '%s'\n", line, word);
}

void fake_scenario_parse(struct fake_scenario *s, const char *text)
{
	int line = 1;

	fake_scenario_clear(s);
	s->api = 3;
	snprintf(s->driver, sizeof s->driver, "%s", "550.54.15");
	s->cuda = 12040;
	for (const char *p = text; p && *p; line++) {
		parse_line(s, p, line);
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
}
