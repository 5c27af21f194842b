# Sourced by the Wine tests that need a prefix of their own (wine_adapters.sh
# writes System32; wine_listing.sh wants no other test's processes in its
# listing). own_prefix DIR makes DIR a copy of the run's prefix (hard links,
# but the registry files, which Wine rewrites in place), or a fresh one when
# there is none; false when the copy fails. Needs $here, the tests' folder.
# own_prefix_stop DIR ends that prefix's wineserver (and every process in it);
# fail says why and exits 1.
own_prefix() {
	op_base=${WINEPREFIX:-${GTM_WINEPREFIX:-$HOME/.wine-gputaskman}}
	if [ -f "$op_base/system.reg" ]; then
		cp -al "$op_base" "$1" 2>/dev/null || cp -a "$op_base" "$1" || return 1
		for f in system.reg user.reg userdef.reg .update-timestamp; do
			[ -e "$op_base/$f" ] && cp --remove-destination "$op_base/$f" "$1/$f"
		done
	else
		WINEPREFIX="$1" GTM_WINE_TIMEOUT=120 sh "$here/../../scripts/wine-run.sh" wineboot --init >/dev/null 2>&1
	fi
	return 0
}

own_prefix_stop() {
	WINEPREFIX="$1" WINEDEBUG=-all timeout 30 wineserver -k >/dev/null 2>&1
}

fail() {
	echo "FAIL: $*"
	exit 1
}
