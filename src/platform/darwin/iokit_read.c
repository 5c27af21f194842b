/* The live registry (iokit_read.h), through the calls of apple_abi.h: the
 * walk nvtop's extract_gpuinfo_apple.m and stats' reader.swift make
 * (IOServiceMatching("IOAccelerator"), the child iterator in the IOService
 * plane, IORegistryEntryCreateCFProperties). */
#include "iokit_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apple_abi.h"
#include "core/util.h"

static struct ptree *cf_to_ptree(CFTypeRef v, int depth);

static char *cf_string(CFStringRef s)
{
	CFIndex cap = CFStringGetMaximumSizeForEncoding(CFStringGetLength(s), kCFStringEncodingUTF8) + 1;
	if (cap <= 0 || cap > 1 << 20)
		return NULL;
	char *buf = xmalloc((size_t)cap);
	if (!CFStringGetCString(s, buf, cap, kCFStringEncodingUTF8)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static struct ptree *cf_dict(CFDictionaryRef d, int depth)
{
	struct ptree *t = ptree_new(PT_DICT);
	CFIndex n = CFDictionaryGetCount(d);
	if (n <= 0 || n > 100000)
		return t;
	const void **keys = xcalloc((size_t)n, sizeof *keys), **vals = xcalloc((size_t)n, sizeof *vals);
	CFDictionaryGetKeysAndValues(d, keys, vals);
	for (CFIndex i = 0; i < n; i++) {
		if (CFGetTypeID(keys[i]) != CFStringGetTypeID())
			continue;
		char *k = cf_string(keys[i]);
		struct ptree *v = k ? cf_to_ptree(vals[i], depth + 1) : NULL;
		if (v)
			ptree_add(t, k, strlen(k), v);
		free(k);
	}
	free(keys);
	free(vals);
	return t;
}

/* CoreFoundation's value as a property tree; nesting past PTREE_MAX_DEPTH
 * is dropped (NULL), as the text and plist readers drop it. */
static struct ptree *cf_to_ptree(CFTypeRef v, int depth)
{
	if (!v || depth > PTREE_MAX_DEPTH)
		return NULL;
	CFTypeID id = CFGetTypeID(v);
	if (id == CFDictionaryGetTypeID())
		return cf_dict(v, depth);
	if (id == CFArrayGetTypeID()) {
		struct ptree *t = ptree_new(PT_ARRAY);
		CFIndex n = CFArrayGetCount(v);
		for (CFIndex i = 0; i < n && i < 100000; i++) {
			struct ptree *m = cf_to_ptree(CFArrayGetValueAtIndex(v, i), depth + 1);
			if (m)
				ptree_add(t, NULL, 0, m);
		}
		return t;
	}
	if (id == CFNumberGetTypeID()) {
		int64_t x;
		return CFNumberGetValue(v, kCFNumberSInt64Type, &x) ? ptree_new_num(x) : ptree_new(PT_OTHER);
	}
	if (id == CFStringGetTypeID()) {
		char *s = cf_string(v);
		struct ptree *t = s ? ptree_new_str(s, strlen(s)) : ptree_new(PT_OTHER);
		free(s);
		return t;
	}
	return ptree_new(PT_OTHER); /* booleans, data, dates */
}

/* One registry entry into the list, its properties converted. */
static bool add_entry(struct ioreg_list *l, io_registry_entry_t e, int depth, const char *cls)
{
	CFMutableDictionaryRef props = NULL;
	uint64_t id = 0;
	IORegistryEntryGetRegistryEntryID(e, &id);
	if (IORegistryEntryCreateCFProperties(e, &props, kCFAllocatorDefault, 0) != KERN_SUCCESS || !props)
		return false;
	struct ptree *t = cf_to_ptree(props, 0);
	CFRelease(props);
	return t && ioreg_list_add(l, cls, id, depth, t, t);
}

static void add_clients(struct ioreg_list *l, io_registry_entry_t acc)
{
	io_iterator_t it = 0;
	if (IORegistryEntryGetChildIterator(acc, kIOServicePlane, &it) != KERN_SUCCESS)
		return;
	for (io_object_t c; (c = IOIteratorNext(it)) != 0; IOObjectRelease(c)) {
		io_name_t cls = "";
		/* only the user clients: other children (the GPU's own services) say nothing of processes */
		if (IOObjectGetClass(c, cls) == KERN_SUCCESS && strcmp(cls, "AGXDeviceUserClient") == 0)
			add_entry(l, c, 1, cls);
	}
	IOObjectRelease(it);
}

int iokit_read_accelerators(struct ioreg_list *l, char *why, size_t cap)
{
	io_iterator_t it = 0;
	CFMutableDictionaryRef match = IOServiceMatching("IOAccelerator");
	/* IOServiceGetMatchingServices takes the matching dictionary's reference */
	if (!match || IOServiceGetMatchingServices(GTM_IO_MAIN_PORT, match, &it) != KERN_SUCCESS) {
		snprintf(why, cap, "IOKit refused to list IOAccelerator services");
		return -1;
	}
	int n = 0;
	for (io_object_t s; (s = IOIteratorNext(it)) != 0; IOObjectRelease(s)) {
		io_name_t cls = "";
		IOObjectGetClass(s, cls);
		if (add_entry(l, s, 0, cls)) {
			n++;
			add_clients(l, s);
		}
	}
	IOObjectRelease(it);
	return n;
}
