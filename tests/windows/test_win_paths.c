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
#include <string.h>

#include "core/util.h"
#include "platform.h"

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

static void test_ports_of(void **state)
{
	(void)state;
	const struct win_tcp_listener rows[] = {
		{1234, 8080, true}, {1234, 8080, true}, /* IPv4 and IPv6 on one port: listed once */
		{1234, 9000, false},                    /* an interface's address (10.0.0.5): not loopback */
		{1234, 11434, true}, {77, 5000, true},  /* another process's */
		{0, 1234, true},                        /* Wine: every row says PID 0 */
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

/* Which addresses count as reachable on loopback: a wildcard listener
 * accepts loopback connections (llama-server --host 0.0.0.0), an interface's
 * address does not. */
static void test_on_loopback(void **state)
{
	(void)state;
	assert_true(win_v4_on_loopback(0x7F000001u));  /* 127.0.0.1 */
	assert_true(win_v4_on_loopback(0x7F0A0B0Cu));  /* 127.10.11.12 */
	assert_true(win_v4_on_loopback(0));            /* 0.0.0.0 */
	assert_false(win_v4_on_loopback(0x0A000005u)); /* 10.0.0.5 */
	assert_false(win_v4_on_loopback(0x807F0001u)); /* 128.127.0.1 */
	const uint8_t one[16] = {[15] = 1}, any[16] = {0}, two[16] = {[15] = 2};
	assert_true(win_v6_on_loopback(one));
	assert_true(win_v6_on_loopback(any));
	assert_false(win_v6_on_loopback(two));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_device_paths),
		cmocka_unit_test(test_ports_of),
		cmocka_unit_test(test_on_loopback),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
