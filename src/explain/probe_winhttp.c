/* The probe's HTTP through WinHTTP (winhttp.dll, part of every Windows):
 * WinHttpOpen without a proxy, redirects off (WINHTTP_OPTION_REDIRECT_POLICY
 * NEVER and WINHTTP_DISABLE_REDIRECTS), no cookies or credentials. WinHTTP's
 * timeouts bound each step; the deadline below bounds them all together, as
 * libcurl's CURLOPT_TIMEOUT_MS does. Functions and error codes from
 * Microsoft's winhttp.h reference (learn.microsoft.com/windows/win32/winhttp). */
#include "explain/probe_backend.h"

#include <windows.h>
#include <winhttp.h>

#include <stdio.h>

#include "core/util.h"

static HINTERNET session;

/* linked, not loaded: part of every Windows */
const char *const probe_backend_libs[] = {"winhttp.dll", NULL};

bool probe_backend_load(char *why, size_t n)
{
	session = WinHttpOpen(L"gputaskman/" GTM_VERSION, WINHTTP_ACCESS_TYPE_NO_PROXY, WINHTTP_NO_PROXY_NAME,
			      WINHTTP_NO_PROXY_BYPASS, 0);
	if (!session) {
		snprintf(why, n, "WinHttpOpen failed (error %lu)", (unsigned long)GetLastError());
		return false;
	}
	return true;
}

/* What a WinHTTP error means for an endpoint, in libcurl's words where one fits. */
static const struct {
	DWORD code;
	enum ex_ep_state state;
	const char *text;
} errors[] = {
	{ERROR_WINHTTP_TIMEOUT, EP_TIMEOUT, "Timeout was reached"},
	{ERROR_WINHTTP_CANNOT_CONNECT, EP_REFUSED, "Could not connect to server"},
	{ERROR_WINHTTP_CONNECTION_ERROR, EP_REFUSED, "Connection reset"},
	{ERROR_WINHTTP_INVALID_SERVER_RESPONSE, EP_GARBAGE, "Weird server reply"},
	{ERROR_WINHTTP_HEADER_NOT_FOUND, EP_GARBAGE, "No HTTP status in the reply"},
};

static enum ex_ep_state fail(struct probe_result *r, DWORD code)
{
	for (size_t i = 0; i < ARRAY_LEN(errors); i++)
		if (errors[i].code == code) {
			snprintf(r->error, sizeof r->error, "%s", errors[i].text);
			return errors[i].state;
		}
	snprintf(r->error, sizeof r->error, "WinHTTP error %lu", (unsigned long)code);
	return EP_ERROR;
}

/* Milliseconds left before the deadline, at least 1 while any is left, 0 after. */
static DWORD left_ms(uint64_t deadline_ns)
{
	uint64_t now = now_monotonic_ns();
	if (now >= deadline_ns)
		return 0;
	return (DWORD)((deadline_ns - now + 999999u) / 1000000u);
}

/* Bounds the next step by what is left; false when nothing is. The wait for
 * the status line has its own option (RECEIVE_RESPONSE_TIMEOUT, 90 s by
 * default), which WinHttpSetTimeouts leaves alone; Wine applies it to the
 * connection when the request is sent, so it is set before that too. */
static bool bound_next_step(HINTERNET req, uint64_t deadline_ns)
{
	DWORD ms = left_ms(deadline_ns);
	return ms && WinHttpSetOption(req, WINHTTP_OPTION_RECEIVE_TIMEOUT, &ms, sizeof ms) &&
	       WinHttpSetOption(req, WINHTTP_OPTION_RECEIVE_RESPONSE_TIMEOUT, &ms, sizeof ms);
}

static bool set_options(HINTERNET req, uint32_t timeout_ms)
{
	DWORD never = WINHTTP_OPTION_REDIRECT_POLICY_NEVER;
	DWORD off = WINHTTP_DISABLE_REDIRECTS | WINHTTP_DISABLE_COOKIES | WINHTTP_DISABLE_AUTHENTICATION;
	DWORD logon = WINHTTP_AUTOLOGON_SECURITY_LEVEL_HIGH;
	int t = (int)(timeout_ms > 0x7fffffffu ? 0x7fffffffu : timeout_ms);
	return WinHttpSetOption(req, WINHTTP_OPTION_REDIRECT_POLICY, &never, sizeof never) &&
	       WinHttpSetOption(req, WINHTTP_OPTION_DISABLE_FEATURE, &off, sizeof off) &&
	       WinHttpSetOption(req, WINHTTP_OPTION_AUTOLOGON_POLICY, &logon, sizeof logon) &&
	       WinHttpSetTimeouts(req, t, t, t, t);
}

/* The status line and the declared length; a body declared above the bound is
 * refused before it is read (libcurl: CURLOPT_MAXFILESIZE_LARGE). */
static enum ex_ep_state read_head(HINTERNET req, struct probe_result *r)
{
	DWORD status = 0, len = sizeof status, declared = 0;
	if (!WinHttpQueryHeaders(req, WINHTTP_QUERY_STATUS_CODE | WINHTTP_QUERY_FLAG_NUMBER, WINHTTP_HEADER_NAME_BY_INDEX,
				 &status, &len, WINHTTP_NO_HEADER_INDEX))
		return fail(r, GetLastError());
	r->http_status = (int)status;
	len = sizeof declared;
	if (WinHttpQueryHeaders(req, WINHTTP_QUERY_CONTENT_LENGTH | WINHTTP_QUERY_FLAG_NUMBER, WINHTTP_HEADER_NAME_BY_INDEX,
				&declared, &len, WINHTTP_NO_HEADER_INDEX) &&
	    declared > EX_MAX_BODY) {
		snprintf(r->error, sizeof r->error, "Maximum file size exceeded");
		return EP_TOO_LARGE;
	}
	return EP_OK;
}

static enum ex_ep_state read_body(HINTERNET req, uint64_t deadline_ns, struct probe_body *b, struct probe_result *r)
{
	char chunk[16384];
	for (;;) {
		DWORD got = 0;
		if (!bound_next_step(req, deadline_ns))
			return fail(r, ERROR_WINHTTP_TIMEOUT);
		if (!WinHttpReadData(req, chunk, sizeof chunk, &got))
			return fail(r, GetLastError());
		if (got == 0)
			return EP_OK;
		if (!probe_body_add(b, chunk, got)) {
			snprintf(r->error, sizeof r->error, "Failure writing output to destination");
			return EP_TOO_LARGE;
		}
	}
}

static enum ex_ep_state exchange(HINTERNET req, uint32_t timeout_ms, struct probe_body *b, struct probe_result *r)
{
	uint64_t deadline = now_monotonic_ns() + (uint64_t)timeout_ms * 1000000u;
	enum ex_ep_state st;

	if (!set_options(req, timeout_ms) || !bound_next_step(req, deadline))
		return fail(r, GetLastError());
	if (!WinHttpSendRequest(req, WINHTTP_NO_ADDITIONAL_HEADERS, 0, WINHTTP_NO_REQUEST_DATA, 0, 0, 0))
		return fail(r, GetLastError());
	if (!bound_next_step(req, deadline))
		return fail(r, ERROR_WINHTTP_TIMEOUT);
	if (!WinHttpReceiveResponse(req, NULL))
		return fail(r, GetLastError());
	if ((st = read_head(req, r)) != EP_OK)
		return st;
	return read_body(req, deadline, b, r);
}

enum ex_ep_state probe_backend_get(bool v6, uint16_t port, const char *path, uint32_t timeout_ms,
				   struct probe_body *b, struct probe_result *r)
{
	wchar_t wpath[64];
	size_t i;
	enum ex_ep_state st;

	/* probe.c allows only short ASCII paths */
	for (i = 0; path[i] && i + 1 < ARRAY_LEN(wpath); i++)
		wpath[i] = (wchar_t)(unsigned char)path[i];
	wpath[i] = 0;
	HINTERNET con = WinHttpConnect(session, v6 ? L"[::1]" : L"127.0.0.1", port, 0);
	if (!con)
		return fail(r, GetLastError());
	HINTERNET req = WinHttpOpenRequest(con, L"GET", wpath, NULL, WINHTTP_NO_REFERER, WINHTTP_DEFAULT_ACCEPT_TYPES, 0);
	if (!req) {
		st = fail(r, GetLastError());
		WinHttpCloseHandle(con);
		return st;
	}
	st = exchange(req, timeout_ms, b, r);
	WinHttpCloseHandle(req);
	WinHttpCloseHandle(con);
	return st;
}
