/* Our own declarations of the few CoreFoundation and IOKit calls, types and
 * constants gputaskman uses (as sources/nvml_abi.h declares NVML's), from
 * Apple's published headers (CoreFoundation's CFBase.h, CFString.h,
 * CFNumber.h, CFDictionary.h, CFArray.h; IOKit's IOKitLib.h, IOTypes.h;
 * apple/swift-corelibs-foundation and apple-oss-distributions/IOKitUser
 * carry the same). The build has no macOS SDK: the C library, mach and
 * libproc headers come from the set-up script's cache, these two
 * frameworks from here and cross/macos/frameworks (the linker's text-based
 * stubs, listing exactly these symbols). */
#ifndef GTM_APPLE_ABI_H
#define GTM_APPLE_ABI_H

#include <mach/mach.h>
#include <stdbool.h>
#include <stdint.h>

/* CoreFoundation (CFBase.h and neighbours) */
typedef const void *CFTypeRef;
typedef const struct __CFString *CFStringRef;
typedef const struct __CFDictionary *CFDictionaryRef;
typedef struct __CFDictionary *CFMutableDictionaryRef;
typedef const struct __CFArray *CFArrayRef;
typedef const struct __CFNumber *CFNumberRef;
typedef const struct __CFAllocator *CFAllocatorRef;
typedef unsigned long CFTypeID;
typedef long CFIndex;
typedef unsigned char Boolean;
typedef uint32_t CFStringEncoding;
typedef CFIndex CFNumberType;

#define kCFStringEncodingUTF8 ((CFStringEncoding)0x08000100)
#define kCFNumberSInt64Type ((CFNumberType)4)

extern const CFAllocatorRef kCFAllocatorDefault;
CFTypeID CFGetTypeID(CFTypeRef cf);
void CFRelease(CFTypeRef cf);
CFTypeID CFStringGetTypeID(void);
CFTypeID CFNumberGetTypeID(void);
CFTypeID CFDictionaryGetTypeID(void);
CFTypeID CFArrayGetTypeID(void);
CFStringRef CFStringCreateWithCString(CFAllocatorRef alloc, const char *cstr, CFStringEncoding encoding);
Boolean CFStringGetCString(CFStringRef s, char *buffer, CFIndex size, CFStringEncoding encoding);
CFIndex CFStringGetLength(CFStringRef s);
CFIndex CFStringGetMaximumSizeForEncoding(CFIndex length, CFStringEncoding encoding);
Boolean CFNumberGetValue(CFNumberRef number, CFNumberType type, void *value);
CFIndex CFDictionaryGetCount(CFDictionaryRef d);
void CFDictionaryGetKeysAndValues(CFDictionaryRef d, const void **keys, const void **values);
const void *CFDictionaryGetValue(CFDictionaryRef d, const void *key);
CFIndex CFArrayGetCount(CFArrayRef a);
const void *CFArrayGetValueAtIndex(CFArrayRef a, CFIndex idx);

/* IOKit (IOKitLib.h, IOTypes.h) */
typedef mach_port_t io_object_t;
typedef io_object_t io_iterator_t;
typedef io_object_t io_registry_entry_t;
typedef io_object_t io_service_t;
typedef char io_name_t[128];
typedef uint32_t IOOptionBits;

/* The default main port: MACH_PORT_NULL asks IOKit to pick it (what
 * kIOMainPortDefault, macOS 12+, and kIOMasterPortDefault are). */
#define GTM_IO_MAIN_PORT ((mach_port_t)0)
#define kIOServicePlane "IOService"

CFMutableDictionaryRef IOServiceMatching(const char *name);
kern_return_t IOServiceGetMatchingServices(mach_port_t main_port, CFDictionaryRef matching, io_iterator_t *existing);
io_object_t IOIteratorNext(io_iterator_t iterator);
kern_return_t IOObjectRelease(io_object_t object);
kern_return_t IOObjectGetClass(io_object_t object, io_name_t class_name);
kern_return_t IORegistryEntryGetChildIterator(io_registry_entry_t entry, const io_name_t plane, io_iterator_t *iterator);
kern_return_t IORegistryEntryCreateCFProperties(io_registry_entry_t entry, CFMutableDictionaryRef *properties,
						CFAllocatorRef allocator, IOOptionBits options);
kern_return_t IORegistryEntryGetRegistryEntryID(io_registry_entry_t entry, uint64_t *entry_id);

#endif
