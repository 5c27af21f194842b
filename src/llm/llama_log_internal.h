/* Shared between the llama.cpp log reader's files (llama_log.c: load blocks
 * and buffers; llama_log_dev.c: the device and layer-placement lines). */
#ifndef GTM_LLAMA_LOG_INTERNAL_H
#define GTM_LLAMA_LOG_INTERNAL_H

#include "llm/llama_log.h"
#include "llm/log_scan.h"

/* The block new facts go to: the latest of this run, or a fresh one. */
struct llog_load *llog_cur(struct llama_log *lg, double t, int64_t tw);
void llog_add_buffer(struct llog_load *l, enum llog_seg seg, const char *dev, size_t dn, uint64_t bytes, bool approx);

/* Each returns true when the line was one of its kind (consumed). */
bool llog_parse_using_device(struct llama_log *lg, struct ls_line *ln);
bool llog_parse_device_list(struct llama_log *lg, struct ls_line *ln);
bool llog_parse_layer_assigned(struct llama_log *lg, struct ls_line *ln);
bool llog_parse_vram_used(struct llama_log *lg, struct ls_line *ln);

#endif
