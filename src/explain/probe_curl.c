/* The probe's HTTP through libcurl, by a small dlsym table (design.md:
 * measured ~5 ms of start-up when linked), compiled against the Debian
 * <curl/curl.h> types. Options from the libcurl documentation
 * (curl_easy_setopt(3)). The fallback where libevent is not installed
 * (probe_posix.c): libcurl initialises its TLS stack for any URL. */
#include "explain/probe_posix.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"

static struct {
	void *lib;
	CURLcode (*global_init)(long);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
	CURLcode (*easy_perform)(CURL *);
	CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
	void (*easy_cleanup)(CURL *);
	const char *(*easy_strerror)(CURLcode);
} cu;

bool curl_backend_load(const char *soname, char *why, size_t n)
{
	if (!cu.lib)
		cu.lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!cu.lib) {
		snprintf(why, n, "%s not loadable: %s", soname, dlerror());
		return false;
	}
	*(void **)&cu.global_init = dlsym(cu.lib, "curl_global_init");
	*(void **)&cu.easy_init = dlsym(cu.lib, "curl_easy_init");
	*(void **)&cu.easy_setopt = dlsym(cu.lib, "curl_easy_setopt");
	*(void **)&cu.easy_perform = dlsym(cu.lib, "curl_easy_perform");
	*(void **)&cu.easy_getinfo = dlsym(cu.lib, "curl_easy_getinfo");
	*(void **)&cu.easy_cleanup = dlsym(cu.lib, "curl_easy_cleanup");
	*(void **)&cu.easy_strerror = dlsym(cu.lib, "curl_easy_strerror");
	if (!cu.global_init || !cu.easy_init || !cu.easy_setopt || !cu.easy_perform || !cu.easy_getinfo ||
	    !cu.easy_cleanup || !cu.easy_strerror) {
		snprintf(why, n, "%s lacks an entry point", soname);
		dlclose(cu.lib);
		cu.lib = NULL;
		return false;
	}
	if (cu.global_init(CURL_GLOBAL_NOTHING) != CURLE_OK) {
		snprintf(why, n, "curl_global_init failed");
		return false;
	}
	return true;
}

static size_t sink_write(char *data, size_t size, size_t nmemb, void *arg)
{
	size_t n = size * nmemb;
	if (nmemb && n / nmemb != size)
		return 0;
	/* a short count aborts the transfer: CURLE_WRITE_ERROR */
	return probe_body_add(arg, data, n) ? n : 0;
}

static enum ex_ep_state state_of_error(CURLcode rc)
{
	switch (rc) {
	case CURLE_OPERATION_TIMEDOUT:
		return EP_TIMEOUT;
	case CURLE_COULDNT_CONNECT:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
		return EP_REFUSED;
	case CURLE_FILESIZE_EXCEEDED:
		return EP_TOO_LARGE;
	case CURLE_WEIRD_SERVER_REPLY:
	case CURLE_UNSUPPORTED_PROTOCOL:
		return EP_GARBAGE;
	default:
		return EP_ERROR;
	}
}

static void set_options(CURL *h, const char *url, uint32_t timeout_ms, struct probe_body *b)
{
	cu.easy_setopt(h, CURLOPT_URL, url);
	cu.easy_setopt(h, CURLOPT_HTTPGET, 1L);
	cu.easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	cu.easy_setopt(h, CURLOPT_PROXY, "");
	cu.easy_setopt(h, CURLOPT_NOPROXY, "*");
	cu.easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	cu.easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)timeout_ms);
	cu.easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)timeout_ms);
	cu.easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)EX_MAX_BODY);
	cu.easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http");
	cu.easy_setopt(h, CURLOPT_USERAGENT, "gputaskman/" GTM_VERSION);
	cu.easy_setopt(h, CURLOPT_WRITEFUNCTION, sink_write);
	cu.easy_setopt(h, CURLOPT_WRITEDATA, b);
}

enum ex_ep_state curl_backend_get(bool v6, uint16_t port, const char *path, uint32_t timeout_ms,
				  struct probe_body *b, struct probe_result *r)
{
	char url[128];
	snprintf(url, sizeof url, v6 ? "http://[::1]:%u%s" : "http://127.0.0.1:%u%s", port, path);
	CURL *h = cu.easy_init();
	if (!h) {
		snprintf(r->error, sizeof r->error, "curl_easy_init failed");
		return EP_ERROR;
	}
	set_options(h, url, timeout_ms, b);
	CURLcode rc = cu.easy_perform(h);
	long status = 0;
	cu.easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	cu.easy_cleanup(h);
	r->http_status = (int)status;
	if (rc != CURLE_OK) {
		snprintf(r->error, sizeof r->error, "%s", cu.easy_strerror(rc));
		return state_of_error(rc);
	}
	return EP_OK;
}
