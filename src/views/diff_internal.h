/* Steps of diff_compare() split over files; internal to views/diff*. */
#ifndef GTM_DIFF_INTERNAL_H
#define GTM_DIFF_INTERNAL_H

#include "views/diff.h"

/* Pairs reported/estimated segments by label and models by path, then the KV check. */
void diff_compare_reported(struct diff_proc_row *row);
struct diff_delta diff_delta_of(bool b_listed, struct snap_val b, bool a_listed, struct snap_val a);

#endif
