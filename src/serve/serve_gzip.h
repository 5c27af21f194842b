/* gzip for scrapers that ask for it (Accept-Encoding: gzip, as Prometheus
 * does), through zlib loaded with dlopen when serve starts: compressed once
 * per collection, never per scrape. */
#ifndef GTM_SERVE_GZIP_H
#define GTM_SERVE_GZIP_H

#include <stdbool.h>
#include <stddef.h>

/* Whether libz.so.1 could be loaded; why not in why. */
bool serve_gzip_available(char *why, size_t n);
/* A malloc'd gzip member of text[0, len) into *out (*out_len bytes), or false. */
bool serve_gzip(const char *text, size_t len, char **out, size_t *out_len);

#endif
