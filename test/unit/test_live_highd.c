/*
 * test_live_highd.c
 *		A live table at d = 64 replayed in plain C: projected copies, the
 *		continual counters of their cells and lifting by noisy sums, as
 *		release.c makes a release of it (regression test sql/highd.sql,
 *		check lifted_near_mean).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cellmap.h"
#include "dpk_mem.h"
#include "grid.h"
#include "kmeans.h"
#include "live_core.h"
#include "live_reach.h"
#include "noise.h"
#include "projection.h"
#include "tree_estimator.h"
#include "unit.h"

#define LD 64
#define PER_CLUSTER 6250

/*
 * A projection seed drawn by dp_attach under which one of the three
 * clusters of the table below lands split over two light projected cells
 * while the other two share the heaviest one.
 */
#define SPLIT_SEED UINT64_C(8340311076448184254)

/*
 * Distance of release 1's k = 1 centre from the data mean for the rows of
 * sql/highd.sql after its DELETE and UPDATE (three clusters of 6250 rows at
 * 40, 60 and 80 plus j mod 3 in every coordinate j, jitter +-1, box
 * [0,100]^64, k = 4, epsilon 1, horizon 1024, the default size hint),
 * under `estimator`, projection seed proj_seed and the key of key_seed.
 */
static double
k1_distance(int estimator, uint64_t proj_seed, uint64_t key_seed)
{
	double		lower[LD],
				upper[LD],
				x[LD],
				u[LD],
				t[LD],
				mean[LD] = {0};
	DpkBox		box = {LD, lower, upper};
	DpkLiveConfig cfg;
	DpkCellMap	map;
	DpkProjection proj;
	DpkStream	s = {0};
	DpkLiveRelease rel;
	uint8_t		key[DPK_KEY_BYTES],
				nonce[DPK_NONCE_BYTES] = {0};
	uint64_t	data = 88172645463325252ULL;
	uint64_t	total;
	double	   *count,
			   *sum,
				sumnorm,
				d2 = 0.0;
	int			c,
				i,
				j;

	for (j = 0; j < LD; j++)
	{
		lower[j] = 0.0;
		upper[j] = 100.0;
	}
	dpk_live_defaults(&cfg, LD, 4, 1.0, 1024, false);
	dpk_live_use_projection(&cfg, proj_seed);
	cfg.estimator = estimator;
	cfg.level = dpk_live_choose_level(&cfg, 100000.0, 4194304.0);
	dpk_cellmap_init(&map, LD);
	dpk_projection_init(&proj, LD, cfg.dhat, dpk_projection_copy_seed(cfg.proj_seed, 0),
						cfg.half_width);
	for (c = 1; c <= 3; c++)
		for (i = 0; i < PER_CLUSTER; i++)
		{
			for (j = 0; j < LD; j++)
				x[j] = c * 20.0 + 20.0 + (unit_uniform(&data) - 0.5) * 2.0 + (j + 1) % 3;
			if (c == 3)
				x[1] += 1.0;	/* the UPDATE */
			for (j = 0; j < LD; j++)
				mean[j] += x[j] / (3.0 * PER_CLUSTER);
			dpk_box_normalize(&box, x, u);
			dpk_project_batch(&proj, u, 1, t);
			dpk_live_add_projected(&cfg, &map, u, t, 1);
		}
	total = (uint64_t) cfg.copies * dpk_live_copy_cells(&cfg);
	count = dpk_alloc(sizeof(double) * total);
	sum = dpk_alloc(sizeof(double) * total * LD);
	dpk_key_from_seed(key_seed, key);
	if (!dpk_stream_open(&s, key, nonce))
	{
		fprintf(stderr, "cannot open stream\n");
		exit(1);
	}
	dpk_live_noisy_projected(&cfg, key, &map, 1, &s, count, sum, &sumnorm);
	dpk_live_cluster_projected(&cfg, &box, count, sum, sumnorm, 1, dpk_stream_u64(&s), &rel);
	for (j = 0; j < LD; j++)
	{
		double		e = rel.centers[(size_t) dpk_live_block(1) * LD + j] - mean[j];

		d2 += e * e;
	}
	dpk_live_release_free(&rel);
	dpk_stream_close(&s);
	dpk_free(count);
	dpk_free(sum);
	dpk_projection_free(&proj);
	dpk_cellmap_free(&map);
	return sqrt(d2);
}

/*
 * The k = 1 centre is the data mean plus lifting noise (about 20-57 over
 * 100 keys and projections under either counter), also where a cluster is
 * split over light cells: a lift from the heaviest cell alone is the mean
 * of two clusters, 80 away (the box centre or a centre not lifted at all
 * is 88 away).
 */
static void
test_split_cluster_lifted(void)
{
	int			e;

	for (e = DPK_TREE_SIGNED; e <= DPK_TREE_LOCAL_BLUE; e++)
	{
		double		dist = k1_distance(e, SPLIT_SEED, 12);

		CHECK(dist < 60.0, "estimator %d: k = 1 centre %.1f from the data mean", e, dist);
	}
}

/*
 * Live k = 2 cost, over the best split, of one wide column (box side 1000,
 * spread evenly) and five narrow ones (sides 1, two tight groups): with
 * metric positions the release splits the wide column (cost 1000^2/48 per
 * row); in normalized positions it takes the narrow groups (1000^2/12 per
 * row, four times more).
 */
static double
wide_narrow_ratio(bool box_metric)
{
	enum
	{
		D = 6, N = 40000
	};
	double		lower[D] = {0, 0, 0, 0, 0, 0},
				upper[D] = {1000, 1, 1, 1, 1, 1},
				best[2 * D],
				u[D],
				t[64];
	double	   *x = dpk_alloc(sizeof(double) * N * D);
	DpkBox		box = {D, lower, upper};
	DpkLiveConfig cfg;
	DpkCellMap	map;
	DpkProjection proj;
	DpkStream	s = {0};
	DpkLiveRelease rel;
	uint8_t		key[DPK_KEY_BYTES],
				nonce[DPK_NONCE_BYTES] = {0};
	uint64_t	data = 88172645463325252ULL;
	uint64_t	total;
	double	   *count,
			   *sum,
				sumnorm,
				ratio;
	int			i,
				j;

	dpk_live_defaults(&cfg, D, 2, 1.0, 16, true);
	dpk_live_use_projection(&cfg, UINT64_C(4242));
	cfg.box_metric = box_metric;
	cfg.level = dpk_live_choose_level_box(&cfg, &box, N, 4194304.0);
	dpk_cellmap_init(&map, D);
	dpk_projection_init(&proj, D, cfg.dhat, dpk_projection_copy_seed(cfg.proj_seed, 0),
						cfg.half_width);
	for (i = 0; i < N; i++)
	{
		double	   *xi = x + (size_t) i * D;

		xi[0] = 1000.0 * unit_uniform(&data);
		for (j = 1; j < D; j++)
			xi[j] = fmin(1.0, fmax(0.0, ((i % 2) ? 0.8 : 0.2) +
								   0.06 * (unit_uniform(&data) - 0.5)));
		dpk_box_normalize(&box, xi, u);
		if (box_metric)
			dpk_box_to_metric(&box, u);
		dpk_project_batch(&proj, u, 1, t);
		dpk_live_add_projected(&cfg, &map, u, t, 1);
	}
	total = (uint64_t) cfg.copies * dpk_live_copy_cells(&cfg);
	count = dpk_alloc(sizeof(double) * total);
	sum = dpk_alloc(sizeof(double) * total * D);
	dpk_key_from_seed(31, key);
	if (!dpk_stream_open(&s, key, nonce))
	{
		fprintf(stderr, "cannot open stream\n");
		exit(1);
	}
	dpk_live_noisy_projected(&cfg, key, &map, 16, &s, count, sum, &sumnorm);
	dpk_live_cluster_projected(&cfg, &box, count, sum, sumnorm, 16, dpk_stream_u64(&s), &rel);
	for (j = 0; j < D; j++)
		best[j] = best[D + j] = 0.5;
	best[0] = 250.0;
	best[D] = 750.0;
	ratio = dpk_kmeans_cost(x, NULL, N, D, rel.centers + (size_t) dpk_live_block(2) * D, 2, NULL) /
		dpk_kmeans_cost(x, NULL, N, D, best, 2, NULL);
	dpk_live_release_free(&rel);
	dpk_stream_close(&s);
	dpk_free(count);
	dpk_free(sum);
	dpk_free(x);
	dpk_projection_free(&proj);
	dpk_cellmap_free(&map);
	return ratio;
}

/* Metric positions (trigger format 3) cluster in the columns' units. */
static void
test_box_metric(void)
{
	double		metric = wide_narrow_ratio(true);

	CHECK(metric < 1.5, "metric positions: k = 2 cost %.3f of the best split", metric);
}

/* The diamonds table's box (7 columns of very different scales) and a cube. */
static const double diamonds_lo[7] = {0, 40, 40, 0, 0, 0, 0},
			diamonds_hi[7] = {5.5, 80, 100, 20000, 12, 12, 12},
			cube_lo[7] = {0, 0, 0, 0, 0, 0, 0},
			cube_hi[7] = {1, 1, 1, 1, 1, 1, 1};

/*
 * A new table's projection keeps its box (dpk_live_use_box): on the
 * diamonds box some seeds map the price column, nearly all of the box in
 * metric positions, to a short vector (17-19x the optimum in
 * bench_real_live); such a seed is replaced, a cube's never.
 */
static void
test_proj_box_share(void)
{
	DpkBox		box = {7, diamonds_lo, diamonds_hi},
				cube = {7, cube_lo, cube_hi};
	DpkLiveConfig cfg;
	DpkProjection p;
	uint64_t	bad = 0,
				s;
	double		col = 0.0,
				cube_share = 1.0;
	int			i;
	bool		cube_kept = true;

	dpk_live_defaults(&cfg, 7, 10, 1.0, 16, false);
	dpk_live_use_projection(&cfg, 1);
	cfg.dhat = 4;
	for (s = 1; s <= 200 && bad == 0; s++)
		if (dpk_live_proj_box_share(&cfg, &box, s) < DPK_LIVE_PROJ_MIN_SHARE)
			bad = s;
	CHECK(bad != 0, "a seed below the share on the diamonds box (of 200)");
	dpk_projection_init(&p, 7, 4, dpk_projection_copy_seed(bad, 0), cfg.half_width);
	for (i = 0; i < 4; i++)
		col += p.mat[i * 7 + 3] * p.mat[i * 7 + 3];
	dpk_projection_free(&p);
	CHECK(sqrt(col) < sqrt(DPK_LIVE_PROJ_MIN_SHARE * 4.0 / 7.0) + 0.01,
		  "its price column is short: %.3f", sqrt(col));
	cfg.proj_seed = bad;
	dpk_live_use_box(&cfg, &box);
	CHECK(cfg.proj_seed != bad &&
		  dpk_live_proj_box_share(&cfg, &box, cfg.proj_seed) >= DPK_LIVE_PROJ_MIN_SHARE,
		  "a new table's seed is replaced: share %.3f",
		  dpk_live_proj_box_share(&cfg, &box, cfg.proj_seed));
	for (s = 1; s <= 50; s++)
	{
		DpkLiveConfig c2;

		dpk_live_defaults(&c2, 7, 10, 1.0, 16, false);
		dpk_live_use_projection(&c2, s);
		dpk_live_use_box(&c2, &cube);
		cube_kept = cube_kept && c2.proj_seed == s;
		cube_share = fmin(cube_share, dpk_live_proj_box_share(&c2, &cube, s));
	}
	CHECK(cube_kept && cube_share > 1.0 - 1e-9,
		  "a cube keeps every seed (smallest share %.12f)", cube_share);
}

/*
 * Large d (dpk_live_use_projection): from DPK_LIVE_WEIGHTED_D on the
 * count-weighted lift, its guard and more restarts; below it neither.
 */
static void
test_large_d_rule(void)
{
	DpkLiveConfig lo,
				hi;

	dpk_live_defaults(&lo, 16, 10, 1.0, 16, true);
	dpk_live_use_projection(&lo, 1);
	dpk_live_defaults(&hi, 384, 10, 1.0, 16, true);
	dpk_live_use_projection(&hi, 1);
	CHECK(!lo.lift_weighted && lo.restarts == 10, "d = 16: heavy lift, 10 restarts (%d, %d)",
		  (int) lo.lift_weighted, lo.restarts);
	CHECK(hi.lift_weighted && hi.restarts == DPK_LIVE_WEIGHTED_RESTARTS,
		  "d = 384: weighted lift, %d restarts (%d, %d)", DPK_LIVE_WEIGHTED_RESTARTS,
		  (int) hi.lift_weighted, hi.restarts);
	dpk_live_defaults(&hi, DPK_LIVE_WEIGHTED_D, 10, 1.0, 16, true);
	dpk_live_use_projection(&hi, 1);
	CHECK(hi.lift_weighted, "d = %d: weighted lift", DPK_LIVE_WEIGHTED_D);
}

/*
 * The guard: a k' whose cost exceeds the cheapest smaller k'' publishes
 * the centres of that k'', padded with its heaviest one at size 0, and its cost;
 * a cheaper k' keeps its own answer.
 */
static void
test_guard_blocks(void)
{
	enum
	{
		GD = 2, GK = 3
	};
	/* blocks 1, 2, 3: 1 + 2 + 3 centres */
	double		centers[6 * GD] = {0.5, 0.5, 0.1, 0.1, 0.9, 0.9, 0.2, 0.2, 0.3, 0.3, 0.4, 0.4};
	double		sizes[6] = {100, 30, 70, 20, 30, 50};
	double		costs[GK] = {10.0, 5.0, 7.0};
	double		c2[6 * GD],
				s2[6],
				k2[GK] = {10.0, 12.0, 3.0};
	int			ok;

	memcpy(c2, centers, sizeof(c2));
	memcpy(s2, sizes, sizeof(s2));
	dpk_live_guard_blocks(GD, GK, centers, sizes, costs);
	/* k' = 3 costs more than k' = 2: k' = 2's centres, then its heaviest (0.9) */
	ok = centers[6] == 0.1 && centers[8] == 0.9 && centers[10] == 0.9 &&
		sizes[3] == 30 && sizes[4] == 70 && sizes[5] == 0.0 && costs[2] == 5.0;
	CHECK(ok, "k' = 3 replaced by k' = 2: %g %g %g, sizes %g %g %g, cost %g", centers[6],
		  centers[8], centers[10], sizes[3], sizes[4], sizes[5], costs[2]);
	CHECK(centers[2] == 0.1 && centers[4] == 0.9 && costs[1] == 5.0, "k' = 2 kept");

	dpk_live_guard_blocks(GD, GK, c2, s2, k2);
	ok = c2[2] == 0.5 && c2[4] == 0.5 && s2[1] == 100 && s2[2] == 0.0 && k2[1] == 10.0 &&
		c2[6] == 0.2 && k2[2] == 3.0;
	CHECK(ok, "k' = 2 replaced by one centre, k' = 3 kept: %g %g cost %g, %g cost %g",
		  c2[2], c2[4], k2[1], c2[6], k2[2]);
}

/*
 * dpk_live_projected_reach: every point of a box with a wide side beside
 * narrow ones falls in a cell it marks reachable, far fewer cells than the
 * grid's are reachable, and a cube reaches every cell.
 */
static void
test_projected_reach(void)
{
	enum
	{
		RD = 7, RM = 8, RDHAT = 4, RPTS = 20000
	};
	double		lower[RD] = {0, 40, 40, 0, 0, 0, 0},
				upper[RD] = {5.5, 80, 100, 20000, 12, 12, 12},
				clo[RD] = {0},
				chi[RD] = {1, 1, 1, 1, 1, 1, 1},
				x[RD],
				u[RD],
				t[RDHAT];
	DpkBox		box = {RD, lower, upper},
				cube = {RD, clo, chi};
	DpkLiveConfig cfg;
	DpkProjection proj;
	uint64_t	ncells = (uint64_t) 1 << (3 * RDHAT),
				rng = 88172645463325252ULL;
	uint8_t    *reach = dpk_alloc(ncells);
	double	   *hr;
	double		n;
	int64_t		idx[RDHAT];
	int			i,
				j,
				misses = 0,
				corners = 0;

	dpk_live_defaults(&cfg, RD, 10, 1.0, 16, true);
	dpk_live_use_projection(&cfg, 12345);
	dpk_live_use_box(&cfg, &box);
	CHECK(cfg.dhat == RDHAT, "a box with narrow sides projects to 4 dimensions");
	hr = dpk_live_half_range(&cfg, &box);
	CHECK(hr && fabs(hr[3] - 0.5) < 1e-15 && fabs(hr[0] - 0.5 * 5.5 / 20000) < 1e-15,
		  "half ranges: the widest side 1/2, the others in proportion");
	dpk_projection_init(&proj, RD, RDHAT, dpk_projection_copy_seed(cfg.proj_seed, 0),
						cfg.half_width);
	n = dpk_live_projected_reach(&proj, hr, RM, reach);
	CHECK(n >= 1.0 && n < ncells / 8.0, "reachable cells %.0f of %llu", n,
		  (unsigned long long) ncells);
	for (i = 0; i < RPTS; i++)
	{
		for (j = 0; j < RD; j++)
		{
			double		r;

			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			r = (double) (rng >> 11) / 9007199254740992.0;
			/* every 4th point a corner of the box, the rest uniform */
			if (i % 4 == 0)
				r = r < 0.5 ? 0.0 : 1.0;
			x[j] = lower[j] + r * (upper[j] - lower[j]);
		}
		corners += i % 4 == 0;
		dpk_box_normalize(&box, x, u);
		dpk_box_to_metric(&box, u);
		dpk_project_batch(&proj, u, 1, t);
		if (!reach[dpk_grid_cell(RDHAT, RM, t, idx, NULL)])
			misses++;
	}
	CHECK(misses == 0, "%d of %d points (%d corners) in cells marked unreachable", misses,
		  RPTS, corners);
	/* a release copy: exactly the unreachable cells' counts and sums zeroed */
	{
		double	   *cnt = dpk_alloc(sizeof(double) * ncells),
				   *sm = dpk_alloc(sizeof(double) * ncells * RD),
					kept;
		uint64_t	c,
					wrong = 0;

		for (c = 0; c < ncells; c++)
			cnt[c] = 1.0;
		for (c = 0; c < ncells * RD; c++)
			sm[c] = 2.0;
		cfg.level = 3;
		kept = dpk_live_zero_unreachable(&cfg, &box, &proj, cnt, sm);
		for (c = 0; c < ncells; c++)
			wrong += cnt[c] != (reach[c] ? 1.0 : 0.0) ||
				sm[c * RD + RD - 1] != (reach[c] ? 2.0 : 0.0);
		CHECK(kept == n && wrong == 0,
			  "release copy: %.0f cells kept (%.0f reachable), %llu cells wrong", kept, n,
			  (unsigned long long) wrong);
		cfg.box_metric = false;
		CHECK(dpk_live_zero_unreachable(&cfg, &box, &proj, cnt, sm) == 0.0,
			  "normalized positions: every cell kept");
		cfg.box_metric = true;
		dpk_free(cnt);
		dpk_free(sm);
	}
	dpk_free(hr);
	hr = dpk_live_half_range(&cfg, &cube);
	CHECK(dpk_live_projected_reach(&proj, hr, RM, reach) == (double) ncells,
		  "a cube reaches every cell");
	dpk_free(hr);
	dpk_projection_free(&proj);
	dpk_free(reach);
}

/*
 * dpk_live_reach_level: on the diamonds box the image of the box crosses a
 * few dozen of the grid's cells, and RUGNIK over those asks for a finer
 * counted level than over all m^dhat (window of 13 488 rows, counts at
 * half of epsilon: level 5 below a cap of 5, the cap of 4 of the release,
 * not 3); a cube's level is never moved.
 */
static void
test_reach_level(void)
{
	DpkBox		box = {7, diamonds_lo, diamonds_hi},
				cube = {7, cube_lo, cube_hi};
	DpkLiveConfig cfg;
	int			l,
				moved = 0,
				window;

	dpk_live_defaults(&cfg, 7, 10, 1.0, 16, false);
	dpk_live_use_projection(&cfg, 7919);
	dpk_live_use_box(&cfg, &box);
	window = dpk_live_choose_level_box(&cfg, &box, 13488.0, 4194304.0);
	CHECK(window == 4, "diamonds window: counted level %d (4)", window);
	CHECK(dpk_live_reach_level(&cfg, &box, 13488.0, 3, 5) == 5,
		  "the reach rule moves level 3 to 5");
	CHECK(dpk_live_reach_level(&cfg, &box, 13488.0, 3, 4) == 4, "to the cap of 4");
	CHECK(dpk_live_reach_level(&cfg, &box, 13488.0, 3, 3) <= 3, "within the cap");
	dpk_live_defaults(&cfg, 7, 10, 1.0, 16, false);
	dpk_live_use_projection(&cfg, 7919);
	dpk_live_use_box(&cfg, &cube);
	for (l = 0; l <= 4; l++)
		moved += dpk_live_reach_level(&cfg, &cube, 13488.0, l, 4) != l;
	CHECK(moved == 0, "a cube's level moved at %d of 5 levels", moved);
}

int
main(void)
{
	test_split_cluster_lifted();
	test_box_metric();
	test_proj_box_share();
	test_large_d_rule();
	test_guard_blocks();
	test_projected_reach();
	test_reach_level();
	UNIT_DONE("test_live_highd");
}
