/* macOS's half of platform_detect_mode: no containers with PIDs of their
 * own to pair with, no WSL. */
#include "platform.h"

enum gtm_mode platform_detect_mode(void)
{
	return GTM_MODE_NATIVE;
}
