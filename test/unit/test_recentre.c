/*
 * test_recentre.c
 *		In-cell sums of live tables drawn about the cell's middle (grid.h,
 *		DPK_REL_CENTRE): the offsets' range that halves the sensitivity, and
 *		on a table's k-ary tree, share tree and Gaussian counter that the published
 *		sum is the truth plus noise at the centred scale plus DPK_REL_CENTRE
 *		times the count's own noise.  Without that last term the noise would
 *		be half of what the offsets' range needs; with the true count in its
 *		place it would not carry the count's noise at all.
 */
#include <math.h>
#include <string.h>

#include "grid.h"
#include "live_core.h"
#include "unit.h"

#define DRAWS 20000

/* Every offset dpk_grid_cell gives is within DPK_REL_CENTRE of the middle, and one reaches it. */
static void
test_offset_range(void)
{
	static const int ms[3] = {1, 4, 16};
	int64_t		worst = 0;
	int			bad = 0;
	size_t		a;

	for (a = 0; a < 3; a++)
	{
		int			m = ms[a],
					i,
					q;

		for (i = 0; i < m; i++)
			for (q = 0; q <= 64; q++)
			{
				/* from the cell's lower edge to just below its upper one */
				double		u = q < 64 ? ((double) i + q / 64.0) / m
					: nextafter((double) (i + 1) / m, 0.0);
				int64_t		idx,
							rel,
							off;

				(void) dpk_grid_cell(1, m, &u, &idx, &rel);
				off = rel - DPK_REL_CENTRE;
				if (off < 0)
					off = -off;
				bad += idx != i || rel < 0 || rel >= DPK_REL_UNITS || off > DPK_REL_CENTRE;
				if (off > worst)
					worst = off;
			}
	}
	CHECK(bad == 0, "%d offsets outside the cell or farther than DPK_REL_CENTRE", bad);
	CHECK(worst == DPK_REL_CENTRE, "the farthest offset is %lld from the middle",
		  (long long) worst);
}

/*
 * What DRAWS published cells say: the slope of (sum - truth) on (count -
 * truth), and the variance of what is left, against the sum noise's own.
 */
typedef struct Moments
{
	double		zz,
				sz,
				rr;
	int			n;
} Moments;

static void
moments_add(Moments *m, int64_t dcount, int64_t dsum)
{
	double		r = (double) dsum - (double) DPK_REL_CENTRE * (double) dcount;

	m->zz += (double) dcount * (double) dcount;
	m->sz += (double) dsum * (double) dcount;
	m->rr += r * r;
	m->n++;
}

static void
moments_check(const Moments *m, double sum_var, const char *what)
{
	double		slope = m->sz / m->zz,
				resid = m->rr / m->n / sum_var;

	/* the count noise and the sum noise are independent draws */
	CHECK(fabs(slope - DPK_REL_CENTRE) < 0.03 * DPK_REL_CENTRE,
		  "%s: sums move %.1f per unit of count noise, not %d", what, slope, DPK_REL_CENTRE);
	CHECK(fabs(resid - 1.0) < 0.05, "%s: the rest has %.3f times the centred noise's variance",
		  what, resid);
	printf("  %s: slope %.2f, rest %.4f of the centred variance (%d draws)\n", what, slope, resid,
		   m->n);
}

/* A live table's release of one cell holding 40 rows, on DRAWS keys (share: the share tree). */
static void
test_live(bool gauss, bool share)
{
	DpkLiveConfig cfg;
	DpkCellMap	state;
	DpkDenseHist h;
	DpkStream	s;
	Moments		m = {0};
	int64_t		rel[2] = {1000, 3};
	uint8_t		key[DPK_KEY_BYTES];
	uint8_t		nonce[DPK_NONCE_BYTES] = {0};
	const uint32_t t = 7;
	int			i;

	dpk_live_defaults(&cfg, 2, 3, 1.0, 16, true);
	if (gauss)
		dpk_live_use_delta(&cfg, 1e-6);
	if (share)
		cfg.counter = DPK_LIVE_COUNTER_SHARE;
	cfg.level = 0;
	CHECK(cfg.centred_offsets, "a new live table draws centred sums");
	dpk_cellmap_init(&state, 2);
	for (i = 0; i < 40; i++)
		dpk_cellmap_add_point(&state, 0, rel, 1);
	for (i = 0; i < DRAWS; i++)
	{
		dpk_key_from_seed(1000 + i, key);
		memset(&s, 0, sizeof(s));
		if (!dpk_stream_open(&s, key, nonce))
			exit(1);
		dpk_live_noisy_histogram(&cfg, key, &state, t, &s, &h);
		moments_add(&m, h.count[0] - 40, h.sum[0] - 40 * 1000);
		moments_add(&m, h.count[0] - 40, h.sum[1] - 40 * 3);
		dpk_hist_free(&h);
		dpk_stream_close(&s);
	}
	/* one cell at the counted level: the sums' own noise, no child offsets */
	moments_check(&m, dpk_live_sum_variance(&cfg, 0, t),
				  gauss ? "live, Gaussian" : share ? "live, pure, share tree" : "live, pure, k-ary tree");
	dpk_cellmap_free(&state);
}

int
main(void)
{
	printf("test_recentre:\n");
	test_offset_range();
	test_live(false, false);
	test_live(false, true);
	test_live(true, false);
	UNIT_DONE("test_recentre");
}
