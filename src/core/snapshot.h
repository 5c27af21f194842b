/* The snapshot: one refresh's devices and processes, each reading with its
 * provenance. Built by the collector, then immutable; views only read it. */
#ifndef GTM_SNAPSHOT_H
#define GTM_SNAPSHOT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/reading.h"
#include "portable.h"

#define GTM_SCHEMA_VERSION 1
#define GTM_MAX_ENGINES 16

enum gtm_vendor { GTM_VENDOR_OTHER = 0, GTM_VENDOR_NVIDIA, GTM_VENDOR_AMD, GTM_VENDOR_INTEL, GTM_VENDOR_APPLE };
const char *gtm_vendor_name(enum gtm_vendor v);

/* One engine's load, for vendors that expose engines by name (DRM). */
struct gtm_engine {
	char name[24]; /* "gfx", "compute", "copy", "video", "enc", "dec", "render", ... */
	gtm_f64 busy_pct;
};

struct gtm_device {
	int index;               /* gputaskman's device index (--gpu N) */
	enum gtm_vendor vendor;
	char source[12];         /* "nvml", "drm", ... */
	char name[96];
	char uuid[96];           /* NVIDIA UUID; others: a stable id (PCI address) */
	char pci_bus_id[32];     /* domain:bus:dev.fn, lower case */
	char driver_version[48];
	char cuda_version[16];   /* "12.4"; empty when not NVIDIA */
	bool is_apu;             /* system memory is its normal memory: GTT is not spill */

	gtm_u64 mem_total, mem_used, mem_free, mem_reserved; /* dedicated VRAM, bytes */
	gtm_u64 shared_total, shared_used;                   /* GPU-accessible system RAM (GTT) */
	/* WDDM: GPU Local / Non Local Adapter Memory, beside mem_used and
	 * shared_used (Dedicated / Shared Usage, Task Manager's figures);
	 * mem_note says when those fell back to these. N/A elsewhere. */
	gtm_u64 local_used, nonlocal_used;
	char mem_note[64];

	gtm_f64 util_gpu_pct, util_mem_pct;                  /* memory activity, not fullness */
	gtm_f64 temp_c, power_w, power_limit_w, fan_pct;
	gtm_f64 clock_sm_mhz, clock_mem_mhz, clock_video_mhz;
	gtm_f64 clock_sm_max_mhz, clock_mem_max_mhz;
	gtm_f64 pcie_tx_bps, pcie_rx_bps;                    /* bytes per second */
	gtm_f64 pcie_gen, pcie_width;
	gtm_f64 enc_pct, dec_pct;

	struct gtm_engine engines[GTM_MAX_ENGINES];
	int n_engines;

	int n_processes_seen;    /* processes the driver lists on this device; -1: no list available */
	char driver[24];         /* kernel driver name ("amdgpu", "i915", "xe"); "" unknown */
	char luid[24];           /* Windows adapter LUID as PDH prints it ("0x00000000_0x0000A18D"); "" elsewhere */

	/* The driver's own number for the card, stable whatever gputaskman's
	 * display order: the NVML index, the DRM card minor; -1 unknown. */
	int driver_index;
	/* Why the device did not answer in this refresh: the failing call and
	 * the driver's error ("nvmlDeviceGetHandleByIndex", "GPU is lost");
	 * both "" when it answered. name_unread: name is a placeholder (the
	 * card could not be asked its own). */
	char fault_call[48];
	char fault_reason[48];
	bool name_unread;

	/* Counters the driver keeps (never derived from sampled gauges). */
	gtm_u64 energy_mj;       /* NVML total energy since the driver loaded, millijoules */
	gtm_u64 pcie_replays;    /* PCIe replay counter */
	gtm_u64 ecc_corrected, ecc_uncorrected; /* volatile ECC error counts (since the driver loaded) */
	gtm_u64 throttle_reasons; /* NVML clock throttle reasons bitmask (a state, not a counter) */
};

/* How the owner of a GPU row was established. */
enum gtm_owner {
	GTM_OWNER_LOCAL = 0, /* the source's PID is a process in this /proc */
	GTM_OWNER_MATCHED,   /* host PID paired with a local process, certain ('*') */
	GTM_OWNER_GUESSED,   /* host PID paired, more candidates than certainty ('?') */
	GTM_OWNER_HOST,      /* host PID with no local process: 'H:<pid>' */
	GTM_OWNER_NONE,      /* a local process with no GPU usage (all-processes view) */
	GTM_OWNER_UNATTRIBUTED, /* bytes no process can be charged with (shared DRM buffers) */
	GTM_OWNER_EXITED,    /* host PID whose paired local process exited while the driver
	                      * still lists it: '*x<pid>' / '?x<pid>', never paired again; or
	                      * a PID that was a local process and exited: '*x<pid>' */
};
const char *gtm_owner_name(enum gtm_owner o);

/* One process's use of one device. */
struct gtm_gpu_use {
	int dev_index;
	uint32_t source_pid;     /* the PID as the source reported it (host namespace for NVML) */
	bool compute, graphics;  /* which NVML list(s) it was in */
	gtm_u64 vram;            /* dedicated memory */
	gtm_u64 spill;           /* GPU-accessible system RAM (GTT), not on APUs */
	gtm_u64 paged;           /* demand-paged / unified memory, where a platform exposes it */
	gtm_f64 sm_pct, enc_pct, dec_pct, gfx_pct, copy_pct, video_pct;
	char na_reason[48];      /* why vram is N/A, when it is */
	/* DRM: every byte the process's clients can reach (imported and shared
	 * buffers included), for the inspector and JSON. A reference that is
	 * never summed into any total; N/A where the source has no such view. */
	gtm_u64 ref_vram, ref_spill, ref_shared;
	int n_clients;           /* distinct DRM clients (open DRM files) on this device */
	/* WDDM (Windows PDH): the load per engine type as the driver names them
	 * ("3D", "Compute_0", "Copy", "VideoDecode", "High Priority 3D"), the
	 * busiest engine's share (Task Manager's GPU % of a process; N/A
	 * elsewhere), and mem_note: which counters the memory came from when
	 * not the usual ones ("" otherwise). The engines are WDDM's alone, so
	 * they sit behind a pointer (NULL when none, at most GTM_MAX_ENGINES,
	 * owned by the use: gpu_use_set_engines, gpu_use_copy, gpu_use_release):
	 * 16 inline slots made every use 1 KiB, pages that a Linux run touched
	 * twice per GPU process (raw use and row) for nothing. */
	struct gtm_engine *engines;
	int n_engines;
	gtm_f64 busy_pct;
	char mem_note[96];
	/* NVML under MIG: the GPU and compute instance the process runs in,
	 * when every record of it names the same pair (mig false otherwise). */
	bool mig;
	unsigned gpu_instance_id, compute_instance_id;
};

/* A process's environment: NUL-separated entries, len bytes (bounded),
 * followed by one more NUL. */
struct gtm_proc_env {
	size_t len;
	char blob[];
};

/* Details read from /proc for one (pid, start time). Shared, refcounted and
 * immutable once published, but for the environment: most processes' is never
 * looked at, so a scan may defer it (environ_deferred) and identification asks
 * for it (proc_detail_load_environ) when a runtime is found; it is then set
 * once, atomically, and never changes again. */
struct gtm_proc_detail {
	atomic_int refs;
	char **argv;             /* NUL-terminated vector; argv[0] may be absent for kernel threads */
	int argc;
	char *exe;               /* readlink of /proc/PID/exe, or NULL */
	char *cwd;               /* readlink of /proc/PID/cwd, or NULL */
	char **maps;             /* distinct mapped file paths, in map order */
	size_t n_maps;
	_Atomic(struct gtm_proc_env *) env; /* NULL until read (an unreadable one is read as empty) */
	bool environ_deferred;   /* the scan left env to be read on request */
};

struct gtm_proc_detail *proc_detail_ref(struct gtm_proc_detail *d);
void proc_detail_unref(struct gtm_proc_detail *d);
/* The value of NAME in the detail's environment, or NULL (also while it is
 * deferred and not read). */
const char *proc_detail_getenv(const struct gtm_proc_detail *d, const char *name);
/* The environment as read, or NULL while not read. */
const struct gtm_proc_env *proc_detail_environ(const struct gtm_proc_detail *d);
/* Sets the environment once (a copy of len bytes); later calls change nothing. */
void proc_detail_set_environ(struct gtm_proc_detail *d, const char *blob, size_t len);

struct gtm_ident;   /* identify/: runtimes, category, models (opaque here) */
struct gtm_explain; /* explain/: logs, probes, breakdown (opaque here) */

struct gtm_process {
	uint32_t pid;            /* local PID; 0 for host-only rows */
	uint32_t host_pid;       /* the source's PID when it differs (containers) */
	char label[24];          /* "1234", "*1234", "?1234", "H:1234", "*x1234" */
	enum gtm_owner owner;
	char owner_reason[96];   /* how the owner was established */
	/* GTM_OWNER_EXITED: the local PID the host PID was paired with, gone now
	 * (name, user and start_time are that process's last), and whether that
	 * pairing was GTM_OWNER_MATCHED or GTM_OWNER_GUESSED (GTM_OWNER_LOCAL:
	 * the driver listed the process by its own PID). */
	uint32_t exited_pid;
	enum gtm_owner exited_pairing;

	uint64_t start_time;     /* clock ticks after boot (/proc/PID/stat field 22) */
	uint32_t ppid;
	uid_t uid;
	char user[33];
	char name[64];           /* comm */
	gtm_u64 rss;             /* resident set, bytes */
	uint16_t ports[16];      /* listening loopback TCP ports */
	int n_ports;
	bool ports_read;         /* false: not looked at (JSON null), not "none" */

	struct gtm_proc_detail *detail; /* NULL when not inspectable, host-only, or not read: a process
	                                 * that uses no GPU gets only what ps reads (--all reads all) */
	bool runner_parent;      /* the parent of a GPU runner (Ollama's server): listed beside the
	                          * GPU rows */

	struct gtm_gpu_use *uses;
	int n_uses;

	struct gtm_ident *ident;
	struct gtm_explain *explain;

	/* How this row's VRAM was inferred when no driver measured it for this
	 * process: "wsl-context-match" (a vmwp.exe context matched to it, owner
	 * MATCHED or GUESSED); NULL when measured. */
	const char *vram_inferred_by;
	bool windows_row;        /* a Windows process or the WSL VM (W:<pid>): never looked up here */
	bool wsl_vm_row;         /* the WSL VM's row (vmwp.exe): its measured VRAM holds the rows
	                          * matched to its contexts ('*'/'?'); a sum never adds both */
};

enum gtm_mode { GTM_MODE_NATIVE = 0, GTM_MODE_CONTAINER, GTM_MODE_WSL };
const char *gtm_mode_name(enum gtm_mode m);

struct gtm_source_status {
	char name[12];           /* "nvml", "drm" */
	bool available;
	bool failed;             /* present but broken (missing symbols, init or mid-run error),
	                          * as opposed to simply absent (no driver): exit status 1 */
	char message[256];       /* why not available, or a note ("driver 550.54, NVML 12") */
};

/* WSL2's host stream (docs/wsl.md): the helper on the Windows side and what it
 * said last. present is false outside WSL. */
struct gtm_host_stream {
	bool present;
	char state[16];          /* "starting", "on", "off", "failed", "stale" */
	char why[256];           /* "WSL interop is disabled", "--no-host", the failure (the step, the reason) */
	char helper[24];         /* "gputaskman.exe", "powershell.exe", "GPUTASKMAN_WSL_RUN" */
	uint64_t seq;            /* the last sample's sequence number */
	uint64_t lines, bad_lines; /* lines read, and bad: skipped (garbage, truncated, over-long, no
	                            * newline before the helper was restarted) or with a record refused */
	char last_bad[64];       /* the last bad line's reason; "" when none */
	int restarts;
	int n_vms;               /* vmwp.exe processes the host has: more than 1 ⇒ "VM worker" */
};

struct gtm_snapshot {
	int schema_version;
	uint64_t taken_at_ns;    /* CLOCK_REALTIME */
	uint64_t monotonic_ns;
	char hostname[64];
	enum gtm_mode mode;

	struct gtm_device *devices;
	int n_devices;

	struct gtm_process *processes; /* GPU rows first, then the other collected processes */
	int n_processes;
	int n_gpu_processes;           /* the first n_gpu_processes rows use a GPU */

	bool procs_unlisted;           /* /proc could not be listed: the counts below are unavailable */
	int n_procs_total;             /* PIDs seen in /proc */
	int n_procs_uninspectable;     /* PIDs whose details could not be read */
	bool partial_scan;             /* a budget cut the scan short */

	struct gtm_source_status sources[4];
	int n_sources;

	char **notes;                  /* free-form, views list them */
	int n_notes;

	struct gtm_host_stream host;   /* WSL2 only */
};

struct gtm_snapshot *snapshot_new(void);
void snapshot_free(struct gtm_snapshot *s);
struct gtm_device *snapshot_add_device(struct gtm_snapshot *s);
struct gtm_process *snapshot_add_process(struct gtm_snapshot *s);
struct gtm_gpu_use *process_add_use(struct gtm_process *p);
/* The use's engines become a copy of the first n (at most GTM_MAX_ENGINES)
 * of e; n 0 leaves none. */
void gpu_use_set_engines(struct gtm_gpu_use *u, const struct gtm_engine *e, int n);
/* *dst = *src with a copy of src's engines (dst's own are not freed). */
void gpu_use_copy(struct gtm_gpu_use *dst, const struct gtm_gpu_use *src);
/* Frees the use's engines; the rest of it stays. */
void gpu_use_release(struct gtm_gpu_use *u);
void snapshot_add_note(struct gtm_snapshot *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
struct gtm_source_status *snapshot_add_source(struct gtm_snapshot *s, const char *name);

/* Total of a process's VRAM across devices (N/A when no device measured it); its
 * provenance is MATCHED/GUESSED when a part is (WSL), else MEASURED. */
gtm_u64 process_vram_total(const struct gtm_process *p);

/* Per-layer release hooks, set by the layers that own ident/explain. */
extern void (*gtm_ident_free_hook)(struct gtm_ident *);
extern void (*gtm_explain_free_hook)(struct gtm_explain *);

#endif
