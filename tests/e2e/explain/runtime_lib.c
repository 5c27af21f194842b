/* An empty library, built under runtime names (libllama.so, libggml-cuda.so)
 * so the stand-in maps what a real llama-server maps. */
int gtm_e2e_explain_runtime_lib(void);
int gtm_e2e_explain_runtime_lib(void) { return 0; }
