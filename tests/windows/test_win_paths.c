/* The pure seams of the Windows process layer (src/platform/windows/
 * win_paths.c), which Wine cannot exercise through real processes: NT device
 * paths to drive letters (Wine maps files as \??\Z:\..., never through
 * \Device\HarddiskVolumeN) and listening ports per PID (Wine's
 * GetExtendedTcpTable reports PID 0 for every listener). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "core/util.h"
#include "platform.h"
#include "win_seam.h"

static const struct win_dos_device devices[] = {
	{"\\Device\\HarddiskVolume3", "C:"},
	{"\\Device\\HarddiskVolume12", "D:"},
	{"\\Device\\Mup", "\\"},
};

static void test_device_paths(void **state)
{
	(void)state;
	char out[64];
	assert_int_equal(win_device_path_to_dos("\\Device\\HarddiskVolume3\\models\\x.gguf", devices, 3, out, sizeof out),
			 0);
	assert_string_equal(out, "C:\\models\\x.gguf");
	/* HarddiskVolume1 is no prefix of HarddiskVolume12: the device ends at a separator */
	assert_int_equal(win_device_path_to_dos("\\Device\\HarddiskVolume12\\m.gguf", devices, 3, out, sizeof out), 0);
	assert_string_equal(out, "D:\\m.gguf");
	assert_int_equal(win_device_path_to_dos("\\Device\\HarddiskVolume1\\m.gguf", devices, 3, out, sizeof out), -1);
	assert_int_equal(win_device_path_to_dos("\\Device\\HarddiskVolume3", devices, 3, out, sizeof out), 0);
	assert_string_equal(out, "C:");
	/* a network redirector's path becomes a UNC path */
	assert_int_equal(win_device_path_to_dos("\\Device\\Mup\\server\\share\\m.gguf", devices, 3, out, sizeof out), 0);
	assert_string_equal(out, "\\\\server\\share\\m.gguf");
	assert_true(path_is_dos_absolute(out));
	/* too long for out: refused, never cut */
	char small[8];
	assert_int_equal(win_device_path_to_dos("\\Device\\HarddiskVolume3\\models\\x.gguf", devices, 3, small, sizeof small),
			 -1);
	assert_int_equal(win_device_path_to_dos("\\Device\\Floppy0\\x", devices, 3, out, sizeof out), -1);
	/* the Win32 namespace, as Wine names mapped files: no table needed */
	assert_int_equal(win_device_path_to_dos("\\??\\Z:\\tmp\\m.gguf", NULL, 0, out, sizeof out), 0);
	assert_string_equal(out, "Z:\\tmp\\m.gguf");
	assert_int_equal(win_device_path_to_dos("\\??\\UNC\\srv\\share\\m.gguf", NULL, 0, out, sizeof out), 0);
	assert_string_equal(out, "\\\\srv\\share\\m.gguf");
	assert_int_equal(win_device_path_to_dos("\\??\\pipe\\x", NULL, 0, out, sizeof out), -1);
	assert_int_equal(win_device_path_to_dos("\\??\\Z:\\tmp\\m.gguf", NULL, 0, small, sizeof small), -1);
}

#define V4 4
#define V6 6
#define LO WIN_ADDR_LOOPBACK
#define ANY WIN_ADDR_ANY
#define OTHER WIN_ADDR_OTHER

static void test_ports_of(void **state)
{
	(void)state;
	const struct win_tcp_listener rows[] = {
		{1234, 8080, V4, LO}, {1234, 8080, V6, LO}, /* IPv4 and IPv6 on one port: listed once */
		{1234, 9000, V4, OTHER},                     /* an interface's address (10.0.0.5): not loopback */
		{1234, 11434, V4, ANY}, {77, 5000, V4, LO},  /* another process's */
		{0, 1234, V4, LO},                           /* Wine: every row says PID 0 */
	};
	uint16_t ports[4];
	assert_int_equal(win_ports_of(rows, ARRAY_LEN(rows), 1234, ports, 4), 2);
	assert_int_equal(ports[0], 8080);
	assert_int_equal(ports[1], 11434);
	assert_int_equal(win_ports_of(rows, ARRAY_LEN(rows), 77, ports, 4), 1);
	assert_int_equal(ports[0], 5000);
	/* PID 0 (the System Idle Process, and Wine's answer for every row) owns nothing */
	assert_int_equal(win_ports_of(rows, ARRAY_LEN(rows), 0, ports, 4), 0);
	assert_int_equal(win_ports_of(rows, ARRAY_LEN(rows), 1234, ports, 1), 1);
	assert_int_equal(win_ports_of(rows, 0, 1234, ports, 4), 0);
}

/* A port is joined to the process whose socket the probe reaches there
 * (127.0.0.1 first, ::1 when refused), never to a wildcard listener that a
 * more specific bind or the other family shadows. */
static void test_ports_reached(void **state)
{
	(void)state;
	uint16_t ports[4];
	/* Windows lets B bind 127.0.0.1:P while A holds 0.0.0.0:P: 127.0.0.1:P reaches B */
	const struct win_tcp_listener shadowed[] = {{10, 8080, V4, ANY}, {20, 8080, V4, LO}};
	assert_int_equal(win_ports_of(shadowed, 2, 10, ports, 4), 0);
	assert_int_equal(win_ports_of(shadowed, 2, 20, ports, 4), 1);
	assert_int_equal(ports[0], 8080);
	/* [::]:P is IPv6-only by default: 127.0.0.1:P reaches the IPv4 wildcard */
	const struct win_tcp_listener families[] = {{10, 8080, V6, ANY}, {20, 8080, V4, ANY}};
	assert_int_equal(win_ports_of(families, 2, 10, ports, 4), 0);
	assert_int_equal(win_ports_of(families, 2, 20, ports, 4), 1);
	/* 127.0.0.2 is loopback, but the probe asks 127.0.0.1 only */
	const struct win_tcp_listener other_lo[] = {{10, 8080, V4, OTHER}};
	assert_int_equal(win_ports_of(other_lo, 1, 10, ports, 4), 0);
	/* no IPv4 listener at all: ::1 is asked, [::]:P answers it */
	const struct win_tcp_listener v6_only[] = {{10, 8080, V6, ANY}};
	assert_int_equal(win_ports_of(v6_only, 1, 10, ports, 4), 1);
	assert_int_equal(ports[0], 8080);
	/* ::1 exact beats [::]; an IPv4 row of PID 0 (unknown owner) shadows both */
	const struct win_tcp_listener v6_exact[] = {{10, 8080, V6, ANY}, {20, 8080, V6, LO}};
	assert_int_equal(win_ports_of(v6_exact, 2, 10, ports, 4), 0);
	assert_int_equal(win_ports_of(v6_exact, 2, 20, ports, 4), 1);
	const struct win_tcp_listener unknown[] = {{0, 8080, V4, ANY}, {20, 8080, V6, LO}};
	assert_int_equal(win_ports_of(unknown, 2, 20, ports, 4), 0);
	/* two PIDs on one address (a socket a child inherited): joined to neither */
	const struct win_tcp_listener shared[] = {{10, 8080, V4, LO}, {20, 8080, V4, LO}};
	assert_int_equal(win_ports_of(shared, 2, 10, ports, 4), 0);
	assert_int_equal(win_ports_of(shared, 2, 20, ports, 4), 0);
}

/* Only the exact loopback addresses and the wildcards count: the probe
 * connects to 127.0.0.1 and ::1, nothing else. */
static void test_addr_kind(void **state)
{
	(void)state;
	assert_int_equal(win_v4_addr_kind(0x7F000001u), LO);     /* 127.0.0.1 */
	assert_int_equal(win_v4_addr_kind(0x7F0A0B0Cu), OTHER);  /* 127.10.11.12: never asked */
	assert_int_equal(win_v4_addr_kind(0), ANY);              /* 0.0.0.0 */
	assert_int_equal(win_v4_addr_kind(0x0A000005u), OTHER);  /* 10.0.0.5 */
	assert_int_equal(win_v4_addr_kind(0x807F0001u), OTHER);  /* 128.127.0.1 */
	const uint8_t one[16] = {[15] = 1}, any[16] = {0}, two[16] = {[15] = 2};
	assert_int_equal(win_v6_addr_kind(one), LO);
	assert_int_equal(win_v6_addr_kind(any), ANY);
	assert_int_equal(win_v6_addr_kind(two), OTHER);
}

/* A seam's DLL is named by an absolute path only: a bare name, which
 * Windows would look for in the exe's folder, PATH or System32, is no seam
 * at all (the system DLL stays); an absolute path that does not load is a
 * seam without its DLL (the caller then refuses the system one). */
static void test_seam_dll(void **state)
{
	(void)state;
	bool named = true;
	wchar_t sys[MAX_PATH], path[MAX_PATH + 32];
	assert_int_equal(_wputenv_s(L"GTM_TEST_SEAM_DLL", L""), 0); /* "" unsets it */
	assert_null(win_seam_dll(L"GTM_TEST_SEAM_DLL", &named));
	assert_false(named);
	assert_int_equal(_wputenv_s(L"GTM_TEST_SEAM_DLL", L"kernel32.dll"), 0);
	assert_null(win_seam_dll(L"GTM_TEST_SEAM_DLL", &named)); /* found by a search: refused */
	assert_false(named);
	assert_int_equal(_wputenv_s(L"GTM_TEST_SEAM_DLL", L"C:\\no-such-folder\\x.dll"), 0);
	assert_null(win_seam_dll(L"GTM_TEST_SEAM_DLL", &named));
	assert_true(named);
	UINT k = GetSystemDirectoryW(sys, MAX_PATH);
	assert_true(k > 0 && k < MAX_PATH);
	swprintf(path, ARRAY_LEN(path), L"%ls\\kernel32.dll", sys);
	assert_int_equal(_wputenv_s(L"GTM_TEST_SEAM_DLL", path), 0);
	assert_non_null(win_seam_dll(L"GTM_TEST_SEAM_DLL", &named));
	assert_true(named);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_device_paths),
		cmocka_unit_test(test_ports_of),
		cmocka_unit_test(test_ports_reached),
		cmocka_unit_test(test_addr_kind),
		cmocka_unit_test(test_seam_dll),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
