#include "core/reading.h"

const char *gtm_prov_name(enum gtm_prov p)
{
	static const char *const names[] = {
		[GTM_UNAVAILABLE] = "unavailable", [GTM_MEASURED] = "measured",
		[GTM_REPORTED] = "reported",       [GTM_MATCHED] = "matched",
		[GTM_GUESSED] = "guessed",         [GTM_ESTIMATED] = "estimated",
	};
	if ((unsigned)p >= sizeof names / sizeof names[0])
		return "unavailable";
	return names[p];
}
