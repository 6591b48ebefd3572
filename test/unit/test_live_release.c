/*
 * test_live_release.c
 *		The rules of a low-d live release on hand-made noisy histograms:
 *		where the cost proxy puts each counted cell (dpk_live_cell_refs),
 *		and the low threshold candidate (DPK_LIVE_LOW_SIGMAS) that keeps a
 *		small far cluster the default threshold drops; the screened
 *		k-means restarts of every k'.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "dpk_mem.h"
#include "grid.h"
#include "kmeans.h"
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

/*
 * A dense 16 x 16 histogram of uneven counts, every cell far above both
 * thresholds: each k' < k of the release is exactly dpk_kmeans_screened
 * (the defaults' 5 updates, 3 kept of 10 restarts, seed + k') on the chosen
 * level's coreset, centres and sizes bit for bit, and k' = k the level
 * choice's own clustering of that coreset (seed, not seed + k), with the
 * cost of those centres.  Some k' must differ from full restarts
 * (dpk_kmeans), or the case would not tell the two apart.
 */
static void
test_screened_kprime(void)
{
	DpkBox		box = {2, box_lo, box_hi};
	DpkLiveConfig cfg;
	DpkDenseHist h;
	DpkLiveRelease rel;
	DpkCoreset	cs;
	uint32_t	t = 40;
	uint64_t	seed = 777;
	double		cs_c[8 * 2],
				cs_s[8],
				full_c[8 * 2],
				full_s[8];
	int			a,
				b,
				kp,
				differ = 0;

	dpk_live_defaults(&cfg, 2, 8, 1.0, 64, true);
	CHECK(cfg.screen_iter == 5 && cfg.screen_keep == 3 && cfg.restarts == 10,
		  "live defaults: screened after %d updates, %d of %d restarts kept",
		  cfg.screen_iter, cfg.screen_keep, cfg.restarts);
	cfg.level = 4;
	dpk_hist_init(&h, 2, 16, true);
	for (a = 0; a < 16; a++)
		for (b = 0; b < 16; b++)
			set_cell(&h, a, b, 2000 + ((a * 7 + b * 13) % 11) * 300 + (a == b ? 4000 : 0),
					 ((a * 5 + b) % 9) / 9.0 + 0.05, ((a + b * 3) % 7) / 7.0 + 0.05);
	dpk_live_cluster(&cfg, &box, &h, t, seed, &rel);
	dpk_live_level_coreset(&cfg, &box, &h, rel.level, t, &cs);
	CHECK(cs.n == rel.coreset_size && cs.n == 1 << (2 * rel.level),
		  "every cell of level %d in the coreset: %d of %d", rel.level, cs.n,
		  rel.coreset_size);
	for (kp = 1; kp <= 8; kp++)
	{
		const double *c = rel.centers + (size_t) dpk_live_block(kp) * 2;
		const double *s = rel.sizes + dpk_live_block(kp);
		int			j;
		bool		same = true,
					same_full = true;

		uint64_t	kseed = kp == 8 ? seed : seed + (uint64_t) kp;
		double		cost,
					total = 0.0,
					spread = 2 * pow(100.0 / (1 << rel.level), 2) / 12.0;

		cost = dpk_kmeans_screened(&(DpkPoints) {cs.points, cs.weights, cs.n, 2},
								   &(DpkClusterOpts) {kp, cfg.restarts, cfg.max_iter, kseed},
								   cfg.screen_iter, cfg.screen_keep,
								   &(DpkClusterOut) {cs_c, cs_s});
		dpk_kmeans(&(DpkPoints) {cs.points, cs.weights, cs.n, 2},
				   &(DpkClusterOpts) {kp, cfg.restarts, cfg.max_iter, kseed},
				   &(DpkClusterOut) {full_c, full_s});
		for (j = 0; j < cs.n; j++)
			total += cs.weights[j];
		cost += total * spread;
		CHECK(fabs(rel.costs[kp - 1] - cost) <= 1e-12 * cost, "k' = %d: cost %.17g, want %.17g",
			  kp, rel.costs[kp - 1], cost);
		for (j = 0; j < kp * 2; j++)
		{
			same = same && c[j] == cs_c[j];
			same_full = same_full && cs_c[j] == full_c[j];
		}
		for (j = 0; j < kp; j++)
			same = same && s[j] == cs_s[j];
		CHECK(same, "k' = %d: the release's centres and sizes are not those of "
			  "screened restarts", kp);
		differ += !same_full;
	}
	CHECK(differ > 0, "screened and full restarts agree on every k' (the case tells "
		  "nothing)");
	dpk_coreset_free(&cs);
	dpk_live_release_free(&rel);
	dpk_hist_free(&h);
}

int
main(void)
{
	test_cell_refs();
	test_low_threshold();
	test_screened_kprime();
	UNIT_DONE("test_live_release");
}
