/* A library built under a runtime's name (libllama.so, libggml-cuda.so) so
 * the stand-in maps a file named like the real one. It does nothing. */
int gtm_fake_runtime_marker(void);
int gtm_fake_runtime_marker(void)
{
	return 42;
}
