/* Included by the files that call libzstd, after <zstd.h> (through
 * zstd_ep.h): each name ZSTD_EP_NAMES lists is its slot in zstd_ep, so the
 * code reads as plain libzstd calls. A call before zstd_ep_load succeeded
 * is a NULL call: the recorder's entry points load first. */
#ifndef GTM_ZSTD_NAMES_H
#define GTM_ZSTD_NAMES_H

#include "record/zstd_ep.h"

#define ZSTD_createCCtx (*zstd_ep.ZSTD_createCCtx)
#define ZSTD_freeCCtx (*zstd_ep.ZSTD_freeCCtx)
#define ZSTD_CCtx_reset (*zstd_ep.ZSTD_CCtx_reset)
#define ZSTD_CCtx_setParameter (*zstd_ep.ZSTD_CCtx_setParameter)
#define ZSTD_compressStream2 (*zstd_ep.ZSTD_compressStream2)
#define ZSTD_CStreamOutSize (*zstd_ep.ZSTD_CStreamOutSize)
#define ZSTD_createDCtx (*zstd_ep.ZSTD_createDCtx)
#define ZSTD_freeDCtx (*zstd_ep.ZSTD_freeDCtx)
#define ZSTD_DCtx_reset (*zstd_ep.ZSTD_DCtx_reset)
#define ZSTD_DCtx_setParameter (*zstd_ep.ZSTD_DCtx_setParameter)
#define ZSTD_decompressStream (*zstd_ep.ZSTD_decompressStream)
#define ZSTD_findFrameCompressedSize (*zstd_ep.ZSTD_findFrameCompressedSize)
#define ZSTD_isError (*zstd_ep.ZSTD_isError)
#define ZSTD_getErrorName (*zstd_ep.ZSTD_getErrorName)

#endif
