/* A DLL that stands in for a runtime library: built as ggml-cuda.dll and
 * llama.dll (tests/windows/standin/meson.build), it carries only the name
 * the runtime table knows and one export, GTM_RUNTIME_FN, which the
 * stand-in calls, so that the loader maps it. */
__declspec(dllexport) int GTM_RUNTIME_FN(int x);

int GTM_RUNTIME_FN(int x)
{
	return x + 1;
}
