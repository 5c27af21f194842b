/* Our own declarations of the parts of AMD's ADL (atiadlxx.dll) that
 * gputaskman calls, written from the facts of AMD's display-library headers
 * (GPUOpen-LibrariesAndSDKs/display-library, ADL 18.1: include/adl_sdk.h,
 * adl_structures.h, adl_defines.h) and its Overdrive8 sample's call
 * sequence: no AMD header is needed to build. Layouts are exact: the driver
 * writes into these structs. The ADL test double (tests/fakes/adl) includes
 * this header too, so both sides share one definition. */
#ifndef GTM_ADL_ABI_H
#define GTM_ADL_ABI_H

#include "sources/wddm/wddm_adl_sensors.h"

#define GTM_ADL_OK 0          /* ADL_OK */
#define GTM_ADL_MAX_PATH 256  /* ADL_MAX_PATH */

typedef void *gtm_adl_context;       /* ADL_CONTEXT_HANDLE */
typedef unsigned int gtm_adl_kmt;    /* ADL_D3DKMT_HANDLE */
/* ADL_MAIN_MALLOC_CALLBACK: ADL allocates what it returns through it. */
typedef void *(__stdcall *gtm_adl_malloc_cb)(int size);

/* AdapterInfo, with the members only Windows builds have. */
struct gtm_adl_adapter_info {
	int iSize;
	int iAdapterIndex;
	char strUDID[GTM_ADL_MAX_PATH];
	int iBusNumber;
	int iDeviceNumber;
	int iFunctionNumber;
	int iVendorID;
	char strAdapterName[GTM_ADL_MAX_PATH];
	char strDisplayName[GTM_ADL_MAX_PATH];
	int iPresent;
	int iExist;
	char strDriverPath[GTM_ADL_MAX_PATH];
	char strDriverPathExt[GTM_ADL_MAX_PATH];
	char strPNPString[GTM_ADL_MAX_PATH];
	int iOSDisplayIndex;
};

/* ADLPMLogDataOutput: sensors indexed by ADL_PMLOG_* numbers. */
struct gtm_adl_pmlog_output {
	int size;
	struct wddm_adl_sensor sensors[WDDM_ADL_PMLOG_MAX_SENSORS];
};

/* Overdrive5 (adl_structures.h): ADLPMActivity, ADLODParameters,
 * ADLTemperature, ADLFanSpeedValue. */
struct gtm_adl_pm_activity {
	int iSize;
	int iEngineClock;  /* 10 kHz */
	int iMemoryClock;  /* 10 kHz */
	int iVddc;
	int iActivityPercent;
	int iCurrentPerformanceLevel;
	int iCurrentBusSpeed;
	int iCurrentBusLanes;
	int iMaximumBusLanes;
	int iReserved;
};

struct gtm_adl_od_range { /* ADLODParameterRange */
	int iMin, iMax, iStep;
};

struct gtm_adl_od_parameters {
	int iSize;
	int iNumberOfPerformanceLevels;
	int iActivityReportingSupported;
	int iDiscretePerformanceLevels;
	int iReserved;
	struct gtm_adl_od_range sEngineClock, sMemoryClock, sVddc;
};

struct gtm_adl_temperature {
	int iSize;
	int iTemperature; /* millidegrees Celsius */
};

#define GTM_ADL_FANCTRL_SPEED_TYPE_PERCENT 1 /* ADL_DL_FANCTRL_SPEED_TYPE_PERCENT */
struct gtm_adl_fan_speed {
	int iSize;
	int iSpeedType;
	int iFanSpeed;
	int iFlags;
};

/* Entry points (the names are the exported symbols, ADL2_ prefixed). */
typedef int (*gtm_adl_create_fn)(gtm_adl_malloc_cb cb, int enum_connected, gtm_adl_context *ctx);
typedef int (*gtm_adl_destroy_fn)(gtm_adl_context ctx);
typedef int (*gtm_adl_count_fn)(gtm_adl_context ctx, int *n);
typedef int (*gtm_adl_info_fn)(gtm_adl_context ctx, struct gtm_adl_adapter_info *info, int input_size);
typedef int (*gtm_adl_shm_support_fn)(gtm_adl_context ctx, int adapter, int *supported, int option);
typedef int (*gtm_adl_dev_create_fn)(gtm_adl_context ctx, int adapter, gtm_adl_kmt *dev);
typedef int (*gtm_adl_dev_destroy_fn)(gtm_adl_context ctx, gtm_adl_kmt dev);
typedef int (*gtm_adl_sensor_types_fn)(gtm_adl_context ctx, int adapter, int *n, int **list);
typedef int (*gtm_adl_shm_start_fn)(gtm_adl_context ctx, int adapter, int sample_ms, int n_sensors, int *sensors,
				    gtm_adl_kmt *dev, void **shm, int option);
typedef int (*gtm_adl_shm_read_fn)(gtm_adl_context ctx, int adapter, int n_sensors, int *sensors, void **shm,
				   struct gtm_adl_pmlog_output *out);
typedef int (*gtm_adl_shm_stop_fn)(gtm_adl_context ctx, int adapter, gtm_adl_kmt *dev);

typedef int (*gtm_adl_od5_activity_fn)(gtm_adl_context ctx, int adapter, struct gtm_adl_pm_activity *a);
typedef int (*gtm_adl_od5_params_fn)(gtm_adl_context ctx, int adapter, struct gtm_adl_od_parameters *p);
typedef int (*gtm_adl_od5_temp_fn)(gtm_adl_context ctx, int adapter, int thermal_controller, struct gtm_adl_temperature *t);
typedef int (*gtm_adl_od5_fan_fn)(gtm_adl_context ctx, int adapter, int thermal_controller, struct gtm_adl_fan_speed *f);

#endif
