/*
 * live_sign.c
 *		Sign cells for new projected Gaussian tables of about 64 columns
 *		(see live_config.h, dpk_live_use_sign_cells).
 */
#include "live_config.h"

/*
 * Sign cells (see live_config.h).  Public parameters only: d, the mode,
 * the counter and level just chosen, the ball and the copies.  A projected table keeps
 * DPK_LIVE_DHAT only in a cube box (dpk_live_use_box gives boxes of unequal
 * sides fewer), where every projection keeps the box's share, so the
 * projection seed chosen for DPK_LIVE_DHAT dimensions serves as well.
 */
void
dpk_live_use_sign_cells(DpkLiveConfig *cfg)
{
	if (!(cfg->delta > 0.0) || !cfg->insert_only || cfg->counter != DPK_LIVE_COUNTER_SQRT_SUMS ||
		cfg->d < DPK_LIVE_SIGN_MIN_D || cfg->d > DPK_LIVE_SIGN_MAX_D ||
		cfg->dhat != DPK_LIVE_DHAT || cfg->copies != 1 || cfg->ball > 0.0 ||
		cfg->level < 2)
		return;
	cfg->dhat = DPK_LIVE_SIGN_DHAT;
	cfg->level = 1;
}
