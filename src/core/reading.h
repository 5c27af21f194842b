/* A reading is a value plus where it came from. Unavailable is its own state,
 * never a zero: views print "N/A" and JSON prints null for it. */
#ifndef GTM_READING_H
#define GTM_READING_H

#include <stdbool.h>
#include <stdint.h>

enum gtm_prov {
	GTM_UNAVAILABLE = 0, /* no evidence: N/A / null */
	GTM_MEASURED,        /* a driver or OS counter */
	GTM_REPORTED,        /* a runtime's log or local API */
	GTM_MATCHED,         /* owner inferred, one explanation fits ('*') */
	GTM_GUESSED,         /* owner inferred, several fit ('?') */
	GTM_ESTIMATED,       /* computed from a model header and flags */
};

typedef struct {
	uint64_t v;
	enum gtm_prov prov;
} gtm_u64;

typedef struct {
	double v;
	enum gtm_prov prov;
} gtm_f64;

#define GTM_U64_NA ((gtm_u64){0, GTM_UNAVAILABLE})
#define GTM_F64_NA ((gtm_f64){0.0, GTM_UNAVAILABLE})

static inline gtm_u64 gtm_u64_of(uint64_t v, enum gtm_prov p) { return (gtm_u64){v, p}; }
static inline gtm_f64 gtm_f64_of(double v, enum gtm_prov p) { return (gtm_f64){v, p}; }
static inline bool gtm_u64_ok(gtm_u64 r) { return r.prov != GTM_UNAVAILABLE; }
static inline bool gtm_f64_ok(gtm_f64 r) { return r.prov != GTM_UNAVAILABLE; }

/* "measured", "reported", ... ; "unavailable" for GTM_UNAVAILABLE. */
const char *gtm_prov_name(enum gtm_prov p);

#endif
