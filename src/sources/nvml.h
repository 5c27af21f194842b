/* NVIDIA GPUs through NVML (libnvidia-ml.so.1 loaded with dlopen). */
#ifndef GTM_NVML_H
#define GTM_NVML_H

#include "sources/source.h"

extern const struct gtm_source_ops nvml_source_ops;

#endif
