/* A library named libcuda.so.1 for stand-in processes: what matters to
 * gputaskman is only that a file of that name is mapped. */
__attribute__((visibility("default"))) int cuInit(unsigned flags)
{
	return flags == 0 ? 0 : 1;
}
