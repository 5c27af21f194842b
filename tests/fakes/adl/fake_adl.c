/* A test double of AMD's atiadlxx.dll for the Windows suite under Wine: the
 * ADL2 entry points gputaskman calls (context, adapters, Overdrive8 PMLog
 * shared memory, Overdrive5), answering from the scenario file named by
 * GTM_FAKE_ADL_SCENARIO, read at ADL2_Main_Control_Create (format:
 * tests/fakes/README.md). The ABI is gputaskman's own declaration
 * (src/platform/windows/adl_abi.h), so both sides share one layout.
 * fake_adl_open_sessions() tells a test whether every context, PMLog device
 * and PMLog session was closed again. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "adl_abi.h"
#include "scenario_words.h"

#define MAX_ADAPTERS 32
#define MAX_SENSORS 32
#define ADL_ERR (-1)
#define ADL_ERR_INVALID_PARAM (-3)

struct fake_adapter {
	struct gtm_adl_adapter_info info;
	bool pmlog;                 /* ShareMemory_Support says supported */
	int n_sensors;
	int sensor_id[MAX_SENSORS];
	int sensor_value[MAX_SENSORS];
	bool has_od5;               /* an "od5" line: Overdrive5 answers */
	struct gtm_adl_pm_activity od5;
	int od5_reporting, od5_temp_mc, od5_fan_pct;
};

static struct {
	gtm_adl_malloc_cb alloc;
	struct fake_adapter ad[MAX_ADAPTERS];
	int n;
	int contexts, devices, sessions;
} st;

__declspec(dllexport) int fake_adl_open_sessions(void)
{
	return st.contexts + st.devices + st.sessions;
}

static void parse_adapter(const char *p)
{
	char key[32], val[160];
	struct fake_adapter *a = &st.ad[st.n++];
	memset(a, 0, sizeof *a);
	a->info.iSize = (int)sizeof a->info;
	a->info.iVendorID = 0x1002;
	a->info.iPresent = a->info.iExist = 1;
	a->pmlog = true;
	while (scenario_next_word(&p, key, sizeof key, val, sizeof val)) {
		int n = (int)strtol(val, NULL, 0);
		if (!strcmp(key, "index"))
			a->info.iAdapterIndex = n;
		else if (!strcmp(key, "bus"))
			a->info.iBusNumber = n;
		else if (!strcmp(key, "dev"))
			a->info.iDeviceNumber = n;
		else if (!strcmp(key, "fn"))
			a->info.iFunctionNumber = n;
		else if (!strcmp(key, "name"))
			snprintf(a->info.strAdapterName, sizeof a->info.strAdapterName, "%s", val);
		else if (!strcmp(key, "pmlog"))
			a->pmlog = n != 0;
		else
			fprintf(stderr, "fake-adl: unknown adapter key '%s'\n", key);
	}
}

static struct fake_adapter *by_index(int index)
{
	for (int i = 0; i < st.n; i++)
		if (st.ad[i].info.iAdapterIndex == index)
			return &st.ad[i];
	return NULL;
}

/* sensor adapter=INDEX id=ADL_PMLOG_NUMBER value=V */
static void parse_sensor(const char *p)
{
	char key[32], val[160];
	int index = -1, id = -1, value = 0;
	while (scenario_next_word(&p, key, sizeof key, val, sizeof val)) {
		int n = (int)strtol(val, NULL, 0);
		if (!strcmp(key, "adapter"))
			index = n;
		else if (!strcmp(key, "id"))
			id = n;
		else if (!strcmp(key, "value"))
			value = n;
	}
	struct fake_adapter *a = by_index(index);
	if (a && id >= 0 && id < WDDM_ADL_PMLOG_MAX_SENSORS && a->n_sensors < MAX_SENSORS) {
		a->sensor_id[a->n_sensors] = id;
		a->sensor_value[a->n_sensors++] = value;
	}
}

/* od5 adapter=INDEX activity=% engine_clock=10kHz memory_clock=10kHz lanes=N
 *     reporting=0|1 temp_mc=millidegrees fan_pct=% */
static void parse_od5(const char *p)
{
	char key[32], val[160];
	struct fake_adapter tmp = {0}, *a = NULL;
	while (scenario_next_word(&p, key, sizeof key, val, sizeof val)) {
		int n = (int)strtol(val, NULL, 0);
		static const struct {
			const char *key;
			size_t off;
		} keys[] = {
			{"activity", offsetof(struct fake_adapter, od5.iActivityPercent)},
			{"engine_clock", offsetof(struct fake_adapter, od5.iEngineClock)},
			{"memory_clock", offsetof(struct fake_adapter, od5.iMemoryClock)},
			{"lanes", offsetof(struct fake_adapter, od5.iCurrentBusLanes)},
			{"reporting", offsetof(struct fake_adapter, od5_reporting)},
			{"temp_mc", offsetof(struct fake_adapter, od5_temp_mc)},
			{"fan_pct", offsetof(struct fake_adapter, od5_fan_pct)},
		};
		if (!strcmp(key, "adapter"))
			a = by_index(n);
		for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
			if (!strcmp(key, keys[k].key))
				memcpy((char *)&tmp + keys[k].off, &n, sizeof n);
	}
	if (!a)
		return;
	a->has_od5 = true;
	a->od5 = tmp.od5;
	a->od5_reporting = tmp.od5_reporting;
	a->od5_temp_mc = tmp.od5_temp_mc;
	a->od5_fan_pct = tmp.od5_fan_pct;
}

/* Returns false for "fail create". */
static bool load_scenario(void)
{
	char *text = scenario_read_file(getenv("GTM_FAKE_ADL_SCENARIO"));
	char word[32], val[160];
	bool ok = text != NULL;

	st.n = 0;
	for (const char *line = text; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *p = line;
		if (!scenario_next_word(&p, word, sizeof word, val, sizeof val))
			continue;
		if (!strcmp(word, "adapter") && st.n < MAX_ADAPTERS)
			parse_adapter(p);
		else if (!strcmp(word, "sensor"))
			parse_sensor(p);
		else if (!strcmp(word, "od5"))
			parse_od5(p);
		else if (!strcmp(word, "fail"))
			ok = false;
	}
	free(text);
	return ok;
}

__declspec(dllexport) int ADL2_Main_Control_Create(gtm_adl_malloc_cb cb, int enum_connected, gtm_adl_context *ctx)
{
	(void)enum_connected;
	if (!cb || !load_scenario())
		return ADL_ERR;
	st.alloc = cb;
	st.contexts++;
	*ctx = &st;
	return GTM_ADL_OK;
}

__declspec(dllexport) int ADL2_Main_Control_Destroy(gtm_adl_context ctx)
{
	if (ctx != &st)
		return ADL_ERR_INVALID_PARAM;
	st.contexts--;
	return GTM_ADL_OK;
}

__declspec(dllexport) int ADL2_Adapter_NumberOfAdapters_Get(gtm_adl_context ctx, int *n)
{
	if (ctx != &st)
		return ADL_ERR_INVALID_PARAM;
	*n = st.n;
	return GTM_ADL_OK;
}

__declspec(dllexport) int ADL2_Adapter_AdapterInfo_Get(gtm_adl_context ctx, struct gtm_adl_adapter_info *info, int size)
{
	if (ctx != &st || size < (int)sizeof *info * st.n)
		return ADL_ERR_INVALID_PARAM;
	for (int i = 0; i < st.n; i++)
		info[i] = st.ad[i].info;
	return GTM_ADL_OK;
}

__declspec(dllexport) int ADL2_Overdrive8_PMLog_ShareMemory_Support(gtm_adl_context ctx, int index, int *supported, int option)
{
	(void)option;
	struct fake_adapter *a = by_index(index);
	if (ctx != &st || !a)
		return ADL_ERR_INVALID_PARAM;
	*supported = a->pmlog;
	return GTM_ADL_OK;
}

__declspec(dllexport) int ADL2_Device_PMLog_Device_Create(gtm_adl_context ctx, int index, gtm_adl_kmt *dev)
{
	if (ctx != &st || !by_index(index))
		return ADL_ERR_INVALID_PARAM;
	*dev = 0x100u + (unsigned)index;
	st.devices++;
	return GTM_ADL_OK;
}

__declspec(dllexport) int ADL2_Device_PMLog_Device_Destroy(gtm_adl_context ctx, gtm_adl_kmt dev)
{
	if (ctx != &st || dev < 0x100u)
		return ADL_ERR_INVALID_PARAM;
	st.devices--;
	return GTM_ADL_OK;
}

/* The sensor list is allocated with the caller's callback, as ADL does. */
__declspec(dllexport) int ADL2_Overdrive8_PMLogSenorType_Support_Get(gtm_adl_context ctx, int index, int *n, int **list)
{
	struct fake_adapter *a = by_index(index);
	if (ctx != &st || !a)
		return ADL_ERR_INVALID_PARAM;
	*n = a->n_sensors;
	*list = st.alloc((int)sizeof(int) * (a->n_sensors ? a->n_sensors : 1));
	memcpy(*list, a->sensor_id, sizeof(int) * (size_t)a->n_sensors);
	return GTM_ADL_OK;
}

__declspec(dllexport) int ADL2_Overdrive8_PMLog_ShareMemory_Start(gtm_adl_context ctx, int index, int sample_ms, int n,
								  int *sensors, gtm_adl_kmt *dev, void **shm, int option)
{
	(void)sample_ms;
	(void)n;
	(void)sensors;
	(void)option;
	struct fake_adapter *a = by_index(index);
	if (ctx != &st || !a || !dev || *dev != 0x100u + (unsigned)index)
		return ADL_ERR_INVALID_PARAM;
	*shm = a;
	st.sessions++;
	return GTM_ADL_OK;
}

__declspec(dllexport) int ADL2_Overdrive8_PMLog_ShareMemory_Read(gtm_adl_context ctx, int index, int n, int *sensors,
								 void **shm, struct gtm_adl_pmlog_output *out)
{
	(void)n;
	(void)sensors;
	struct fake_adapter *a = by_index(index);
	if (ctx != &st || !a || !shm || *shm != a)
		return ADL_ERR_INVALID_PARAM;
	memset(out, 0, sizeof *out);
	out->size = (int)sizeof *out;
	for (int i = 0; i < a->n_sensors; i++)
		out->sensors[a->sensor_id[i]] = (struct wddm_adl_sensor){1, a->sensor_value[i]};
	return GTM_ADL_OK;
}

__declspec(dllexport) int ADL2_Overdrive8_PMLog_ShareMemory_Stop(gtm_adl_context ctx, int index, gtm_adl_kmt *dev)
{
	if (ctx != &st || !by_index(index) || !dev)
		return ADL_ERR_INVALID_PARAM;
	st.sessions--;
	return GTM_ADL_OK;
}

/* Overdrive5: answers for adapters with an "od5" line, ADL_ERR otherwise;
 * the structs' iSize must be set, as ADL requires. */
static struct fake_adapter *od5_of(gtm_adl_context ctx, int index, int size, int want)
{
	struct fake_adapter *a = by_index(index);
	return ctx == &st && a && a->has_od5 && size == want ? a : NULL;
}

__declspec(dllexport) int ADL2_Overdrive5_CurrentActivity_Get(gtm_adl_context ctx, int index, struct gtm_adl_pm_activity *out)
{
	struct fake_adapter *a = od5_of(ctx, index, out->iSize, (int)sizeof *out);
	if (!a)
		return ADL_ERR;
	*out = a->od5;
	out->iSize = (int)sizeof *out;
	return GTM_ADL_OK;
}

__declspec(dllexport) int ADL2_Overdrive5_ODParameters_Get(gtm_adl_context ctx, int index, struct gtm_adl_od_parameters *out)
{
	struct fake_adapter *a = od5_of(ctx, index, out->iSize, (int)sizeof *out);
	if (!a)
		return ADL_ERR;
	out->iActivityReportingSupported = a->od5_reporting;
	return GTM_ADL_OK;
}

__declspec(dllexport) int ADL2_Overdrive5_Temperature_Get(gtm_adl_context ctx, int index, int controller,
							  struct gtm_adl_temperature *out)
{
	struct fake_adapter *a = od5_of(ctx, index, out->iSize, (int)sizeof *out);
	if (!a || controller != 0)
		return ADL_ERR;
	out->iTemperature = a->od5_temp_mc;
	return GTM_ADL_OK;
}

__declspec(dllexport) int ADL2_Overdrive5_FanSpeed_Get(gtm_adl_context ctx, int index, int controller,
						       struct gtm_adl_fan_speed *out)
{
	struct fake_adapter *a = od5_of(ctx, index, out->iSize, (int)sizeof *out);
	if (!a || controller != 0 || out->iSpeedType != GTM_ADL_FANCTRL_SPEED_TYPE_PERCENT)
		return ADL_ERR;
	out->iFanSpeed = a->od5_fan_pct;
	return GTM_ADL_OK;
}
