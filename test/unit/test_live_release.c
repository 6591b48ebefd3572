/*
 * test_live_release.c
 *		The rules of a low-d live release on hand-made noisy histograms:
 *		where the cost proxy puts each counted cell (dpk_live_cell_refs),
 *		and the low threshold candidate (DPK_LIVE_LOW_SIGMAS) that keeps a
 *		small far cluster the default threshold drops.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "dpk_mem.h"
#include "grid.h"
#include "live_core.h"
#include "unit.h"

/* Set cell (a, b) of a d = 2 histogram: count and in-cell mean offset (0..1). */
static void
set_cell(DpkDenseHist *h, int a, int b, int64_t count, double off_a, double off_b)
{
	uint64_t	c = (uint64_t) a * h->m + (uint64_t) b;

	h->count[c] = count;
	/* coreset.c: mean offset = sum / (count units) + 0.5 / units */
	h->sum[c * 2] = llround((double) count * (off_a * h->units - 0.5));
	h->sum[c * 2 + 1] = llround((double) count * (off_b * h->units - 0.5));
}

/* The box of these tests: [0, 100]^2. */
static const double box_lo[2] = {0, 0},
			box_hi[2] = {100, 100};

/*
 * A heavy cell's proxy point is its noisy in-cell mean (the shrinkage is
 * negligible at 100 000 rows), an empty or negative cell's its centre, a
 * light cell's is pulled toward the centre.
 */
static void
test_cell_refs(void)
{
	DpkBox		box = {2, box_lo, box_hi};
	DpkLiveConfig cfg;
	DpkDenseHist h;
	double	   *ref;
	uint64_t	heavy = 1 * 4 + 2,
				light = 3 * 4 + 0;

	dpk_live_defaults(&cfg, 2, 3, 1.0, 64, true);
	cfg.level = 2;
	dpk_hist_init(&h, 2, 4, true);
	set_cell(&h, 1, 2, 100000, 0.8, 0.1);
	set_cell(&h, 3, 0, 3, 0.9, 0.9);
	h.count[0] = -40;
	ref = dpk_live_cell_refs(&cfg, &box, &h, 40);
	CHECK(fabs(ref[heavy * 2] - 45.0) < 0.1 && fabs(ref[heavy * 2 + 1] - 52.5) < 0.1,
		  "heavy cell at its mean (45, 52.5): (%g, %g)", ref[heavy * 2], ref[heavy * 2 + 1]);
	CHECK(ref[0] == 12.5 && ref[1] == 12.5, "negative cell at its centre: (%g, %g)",
		  ref[0], ref[1]);
	CHECK(ref[5 * 2] == 37.5 && ref[5 * 2 + 1] == 37.5, "empty cell at its centre");
	CHECK(ref[light * 2] >= 87.5 && ref[light * 2] < 96.25 &&
		  ref[light * 2 + 1] >= 12.5 && ref[light * 2 + 1] < 21.25,
		  "3-row cell between its centre and its mean: (%g, %g)",
		  ref[light * 2], ref[light * 2 + 1]);
	dpk_free(ref);
	dpk_hist_free(&h);
}

/*
 * Two heavy clusters and a far cell of 2.2 sigma: above the low threshold
 * (1.5 sigma), below the default one of 8 x 8 cells (about 2.9 sigma).  With
 * k = 3 the release must put a centre on it: only the low threshold's
 * coreset sees it, and its centres cost less on the counted level.
 */
static void
test_low_threshold(void)
{
	DpkBox		box = {2, box_lo, box_hi};
	DpkLiveConfig cfg;
	DpkDenseHist h;
	DpkLiveRelease rel;
	uint32_t	t = 40;
	double		sd,
				best = INFINITY;
	int			i;

	dpk_live_defaults(&cfg, 2, 3, 1.0, 64, true);
	cfg.level = 3;
	sd = sqrt(dpk_live_count_variance(&cfg, 3, t));
	dpk_hist_init(&h, 2, 8, true);
	set_cell(&h, 1, 1, 5000, 0.5, 0.5);
	set_cell(&h, 1, 6, 5000, 0.5, 0.5);
	set_cell(&h, 6, 6, llround(2.2 * sd), 0.5, 0.5);
	CHECK(2.2 * sd > DPK_LIVE_LOW_SIGMAS * sd &&
		  2.2 * sd < 2.5 * sd, "the far cell lies between the thresholds (sd %g)", sd);
	dpk_live_cluster(&cfg, &box, &h, t, 12345, &rel);
	for (i = 0; i < 3; i++)
	{
		const double *c = rel.centers + ((size_t) dpk_live_block(3) + i) * 2;

		best = fmin(best, hypot(c[0] - 81.25, c[1] - 81.25));
	}
	CHECK(best < 6.25, "a centre on the far cell (81.25, 81.25): nearest at %g", best);
	dpk_live_release_free(&rel);
	dpk_hist_free(&h);
}

int
main(void)
{
	test_cell_refs();
	test_low_threshold();
	UNIT_DONE("test_live_release");
}
