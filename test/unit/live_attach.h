/*
 * live_attach.h
 *		Unit tests: a live table configured by the calls dp_attach makes on
 *		its declared box (10 centres, epsilon 1, 10^5 rows expected), the
 *		counter included for (epsilon, delta) tables.
 */
#ifndef DPK_TEST_LIVE_ATTACH_H
#define DPK_TEST_LIVE_ATTACH_H

#include <stdbool.h>
#include <stdint.h>

#include "grid.h"
#include "live_config.h"
#include "live_core.h"

/* Configure *cfg for box (d columns), horizon T, delta and norm_bound (0: none). */
static inline void
unit_live_attach(DpkLiveConfig *cfg, const DpkBox *box, uint32_t T, bool insert_only,
				 double delta, double norm_bound)
{
	dpk_live_defaults(cfg, box->d, 10, 1.0, T, insert_only);
	dpk_live_use_projection(cfg, 7);
	dpk_live_use_delta(cfg, delta);
	dpk_live_use_few_sides(cfg, box, 1e5);
	dpk_live_use_ball(cfg, box, norm_bound);
	dpk_live_use_box(cfg, box);
	cfg->level = dpk_live_choose_level_box(cfg, box, 1e5, 4194304.0);
	if (delta > 0.0)
		dpk_live_use_counter(cfg, box, 1e5, 4194304.0, false);
}

#endif
