/*
 * test_live_heldout.c
 *		The held-out guard of projected releases under delta
 *		(dpk_live_heldout_guard, live_core.h): on a table's own noisy
 *		statistics it replaces k' centres that cost about twice one centre
 *		at the mean, and it leaves alone the true centres of well separated
 *		loose clusters; pure tables as Gaussian ones; the constructed case
 *		half a deviation above DpkLiveConfig.heldout_z's default too.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "cellmap.h"
#include "dpk_mem.h"
#include "grid.h"
#include "kmeans.h"
#include "lift.h"
#include "live_core.h"
#include "live_reach.h"
#include "noise.h"
#include "projection.h"
#include "unit.h"

#define BD 64
#define K 4
#define ROWS 20000
#define KEYS 5

/*
 * The norm-bound table of test_ball_loose_release (d = 64, horizon 16):
 * Gaussian at eps 1 with delta > 0, else pure at eps.
 */
static void
make_table(DpkLiveConfig *cfg, const DpkBox *box, double eps, double delta)
{
	dpk_live_defaults(cfg, BD, K, eps, 16, true);
	dpk_live_use_projection(cfg, 12);
	if (delta > 0.0)
		dpk_live_use_delta(cfg, delta);
	dpk_live_use_ball(cfg, box, 1.0);
	dpk_live_use_box(cfg, box);
	cfg->level = dpk_live_choose_level_box(cfg, box, (double) ROWS, 4194304.0);
}

/* A row's position (as the capture makes it) from its box coordinates. */
static void
position(const DpkLiveConfig *cfg, const DpkBox *box, const double *x, double *u)
{
	dpk_box_normalize(box, x, u);
	dpk_box_to_metric(box, u);
	dpk_box_ball_clamp(cfg->d, cfg->ball, u);
}

/*
 * Insert the rows: with loose, unit rows around K orthogonal directions
 * (spread 0.65, cluster i % K); else an isotropic blob of unit rows.  gen
 * (K * BD) gets the clusters' true means, mean (BD) the rows' mean.
 */
static void
fill(const DpkLiveConfig *cfg, const DpkBox *box, DpkCellMap *map, bool loose,
	 double *gen, double *mean)
{
	DpkProjection proj;
	double		x[BD],
				u[BD],
				t[64];
	double		n[K] = {0};
	uint64_t	data = loose ? 0xC0A45EULL : 0xB10BULL;
	int			i,
				j,
				c;

	dpk_projection_init(&proj, BD, cfg->dhat, dpk_projection_copy_seed(cfg->proj_seed, 0),
						cfg->half_width);
	memset(gen, 0, sizeof(double) * K * BD);
	memset(mean, 0, sizeof(double) * BD);
	for (i = 0; i < ROWS; i++)
	{
		double		n2 = 0.0;

		c = i % K;
		for (j = 0; j < BD; j++)
		{
			x[j] = (loose && j / (BD / K) == c ? 1.0 / sqrt(BD / K) : 0.0) +
				(loose ? 0.65 : 1.0) * unit_normal(&data) / sqrt((double) BD);
			n2 += x[j] * x[j];
		}
		for (j = 0; j < BD; j++)
		{
			x[j] /= sqrt(n2);
			gen[c * BD + j] += x[j];
			mean[j] += x[j] / ROWS;
		}
		n[c] += 1.0;
		position(cfg, box, x, u);
		dpk_project_batch(&proj, u, 1, t);
		dpk_live_add_projected(cfg, map, u, t, 1);
	}
	for (c = 0; c < K; c++)
		for (j = 0; j < BD; j++)
			gen[c * BD + j] /= n[c];
	dpk_projection_free(&proj);
}

/*
 * Release t = 16 of the table under key_seed with every k' block holding
 * the centres given (box coordinates: block k' = K holds cent, the others
 * and block 1 the single centre one), and apply the guard as
 * dpk_live_cluster_projected does.  Returns the number of blocks replaced;
 * *moved says whether block K now differs from cent.
 */
static int
guard_release(const DpkLiveConfig *cfg, const DpkBox *box, const DpkCellMap *map,
			  uint64_t key_seed, const double *cent, const double *one, bool *moved)
{
	uint64_t	ncells = dpk_live_copy_cells(cfg),
				total = (uint64_t) cfg->copies * ncells,
				c;
	double	   *count = dpk_alloc(sizeof(double) * total),
			   *sum = dpk_alloc(sizeof(double) * total * BD),
			   *reach = dpk_alloc(sizeof(double) * cfg->copies),
			   *pos = dpk_alloc0(sizeof(double) * dpk_live_block(K + 1) * BD),
				sumnorm;
	int			best_copy[K] = {0},
				kp,
				i,
				r,
				fired;
	uint8_t		key[DPK_KEY_BYTES],
				nonce[DPK_NONCE_BYTES] = {0};
	DpkStream	s = {0};
	DpkProjection *proj = dpk_alloc(sizeof(DpkProjection) * cfg->copies);
	DpkLiveRelease rel;

	dpk_key_from_seed(key_seed, key);
	if (!dpk_stream_open(&s, key, nonce))
		exit(1);
	dpk_live_noisy_projected(cfg, key, map, 16, &s, count, sum, &sumnorm);
	dpk_stream_close(&s);
	for (c = 0; c < total * BD; c++)
		sum[c] /= DPK_LIFT_UNITS;
	for (r = 0; r < cfg->copies; r++)
	{
		dpk_live_projection(cfg, r, &proj[r]);
		reach[r] = dpk_live_zero_unreachable(cfg, box, &proj[r], count + r * ncells,
											 sum + r * ncells * BD);
	}
	dpk_live_release_alloc(&rel, K, BD);
	for (kp = 1; kp <= K; kp++)
		for (i = 0; i < kp; i++)
		{
			const double *x = kp == K ? cent + (size_t) i * BD : one;

			memcpy(rel.centers + ((size_t) dpk_live_block(kp) + i) * BD, x, sizeof(double) * BD);
			position(cfg, box, x, pos + ((size_t) dpk_live_block(kp) + i) * BD);
			rel.sizes[dpk_live_block(kp) + i] = (double) ROWS / kp;
		}
	fired = dpk_live_heldout_guard(cfg, proj, count, sum, reach, 16, best_copy, pos, &rel);
	*moved = memcmp(rel.centers + (size_t) dpk_live_block(K) * BD, cent,
					sizeof(double) * K * BD) != 0;
	dpk_live_release_free(&rel);
	for (r = 0; r < cfg->copies; r++)
		dpk_projection_free(&proj[r]);
	dpk_free(proj);
	dpk_free(count);
	dpk_free(sum);
	dpk_free(reach);
	dpk_free(pos);
	return fired;
}

/*
 * The constructed case: an isotropic blob of unit rows, K centres at random
 * unit directions (each row about 2 from them, 1 from the mean): the guard
 * replaces block K under every key, under delta (eps 1) and pure epsilon
 * (eps 4: at eps 1 the pure table's noise hides it under 2 of 5 keys).
 */
static void
test_fires_on_bad_centres(void)
{
	double		lower[BD],
				upper[BD],
				gen[K * BD],
				mean[BD],
				bad[K * BD];
	DpkBox		box = {BD, lower, upper};
	uint64_t	st = 0xBADC0DEULL,
				key;
	int			j,
				c,
				moved_keys = 0,
				pure_moved = 0,
				margin_moved = 0,
				off_fired = 0;
	double		cost_bad,
				cost_mean;
	int			pass;

	for (j = 0; j < BD; j++)
	{
		lower[j] = -1.0;
		upper[j] = 1.0;
	}
	for (c = 0; c < K; c++)
	{
		double		n2 = 0.0;

		for (j = 0; j < BD; j++)
		{
			bad[c * BD + j] = unit_normal(&st);
			n2 += bad[c * BD + j] * bad[c * BD + j];
		}
		for (j = 0; j < BD; j++)
			bad[c * BD + j] /= sqrt(n2);
	}
	for (pass = 0; pass < 2; pass++)
	{
		DpkLiveConfig cfg;
		DpkCellMap	map;

		make_table(&cfg, &box, pass == 0 ? 1.0 : 4.0, pass == 0 ? 1e-6 : 0.0);
		dpk_cellmap_init(&map, BD);
		fill(&cfg, &box, &map, false, gen, mean);
		if (pass == 0)
		{
			/* the rows, again, to price the constructed centres */
			double	   *rows = dpk_alloc(sizeof(double) * ROWS * BD);
			uint64_t	data = 0xB10BULL;
			int			i;

			for (i = 0; i < ROWS; i++)
			{
				double		n2 = 0.0;

				for (j = 0; j < BD; j++)
				{
					rows[(size_t) i * BD + j] = unit_normal(&data) / sqrt((double) BD);
					n2 += rows[(size_t) i * BD + j] * rows[(size_t) i * BD + j];
				}
				for (j = 0; j < BD; j++)
					rows[(size_t) i * BD + j] /= sqrt(n2);
			}
			cost_bad = dpk_kmeans_cost(rows, NULL, ROWS, BD, bad, K, NULL);
			cost_mean = dpk_kmeans_cost(rows, NULL, ROWS, BD, mean, 1, NULL);
			printf("# blob: the constructed K centres cost %.0f, one centre at the mean %.0f\n",
				   cost_bad, cost_mean);
			CHECK(cost_bad > 1.5 * cost_mean, "the constructed centres cost %.0f, the mean %.0f",
				  cost_bad, cost_mean);
			dpk_free(rows);
		}
		for (key = 1; key <= KEYS; key++)
		{
			bool		moved;
			int			fired = guard_release(&cfg, &box, &map, key, bad, mean, &moved);
			DpkLiveConfig margin = cfg,
						off = cfg;

			if (pass == 0)
				moved_keys += moved && fired > 0;
			else
				pure_moved += moved && fired > 0;
			/* half a deviation above the threshold: still replaced */
			margin.heldout_z = DPK_LIVE_HELDOUT_Z + 0.5;
			fired = guard_release(&margin, &box, &map, key, bad, mean, &moved);
			margin_moved += moved && fired > 0;
			/* a threshold of infinity: never */
			off.heldout_z = INFINITY;
			fired = guard_release(&off, &box, &map, key, bad, mean, &moved);
			off_fired += moved || fired > 0;
		}
		dpk_cellmap_free(&map);
	}
	CHECK(moved_keys == KEYS, "the guard replaced the constructed centres under %d of %d keys",
		  moved_keys, KEYS);
	CHECK(pure_moved == KEYS, "pure: the guard replaced the constructed centres under %d of %d keys",
		  pure_moved, KEYS);
	CHECK(margin_moved == 2 * KEYS,
		  "at %.1f deviations the guard replaced the constructed centres in %d of %d releases",
		  DPK_LIVE_HELDOUT_Z + 0.5, margin_moved, 2 * KEYS);
	CHECK(off_fired == 0, "with heldout_z infinite the guard fired in %d of %d releases",
		  off_fired, 2 * KEYS);
}

/*
 * Loose clusters (test_ball_loose_release's rows), block K at the
 * clusters' true means, costing well below one centre: the guard never
 * fires, under delta (> 0) or pure epsilon (0).
 */
static void
quiet_on_clusters(double delta)
{
	double		lower[BD],
				upper[BD],
				gen[K * BD],
				mean[BD];
	DpkBox		box = {BD, lower, upper};
	DpkLiveConfig cfg;
	DpkCellMap	map;
	uint64_t	key;
	int			j,
				fired = 0;

	for (j = 0; j < BD; j++)
	{
		lower[j] = -1.0;
		upper[j] = 1.0;
	}
	make_table(&cfg, &box, 1.0, delta);
	dpk_cellmap_init(&map, BD);
	fill(&cfg, &box, &map, true, gen, mean);
	for (key = 1; key <= KEYS; key++)
	{
		bool		moved;

		fired += guard_release(&cfg, &box, &map, key, gen, mean, &moved) > 0 || moved;
	}
	CHECK(fired == 0, "%s: the guard fired on well separated clusters under %d of %d keys",
		  delta > 0.0 ? "delta" : "pure", fired, KEYS);
	dpk_cellmap_free(&map);
}

static void
test_quiet_on_clusters(void)
{
	quiet_on_clusters(1e-6);
	quiet_on_clusters(0.0);
}

int
main(void)
{
	test_fires_on_bad_centres();
	test_quiet_on_clusters();
	UNIT_DONE("test_live_heldout");
}
