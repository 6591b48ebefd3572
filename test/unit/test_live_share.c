/*
 * test_live_share.c
 *		Pure low-d live tables counted by the share tree (live_noise.c,
 *		live_scales.c, live_config.c): which tables get it, their
 *		full-budget scales and per-node factors, a release equal to the
 *		exact rounding of its node draws, and its variance.
 */
#include <math.h>
#include <string.h>

#include "cellmap.h"
#include "dpk_mem.h"
#include "grid.h"
#include "live_core.h"
#include "noise.h"
#include "share_tree.h"
#include "unit.h"

/* A pure d = 2 table of horizon T counted by the share tree at `level`. */
static void
share_config(DpkLiveConfig *cfg, uint32_t horizon, int level, bool insert_only)
{
	dpk_live_defaults(cfg, 2, 6, 1.0, horizon, insert_only);
	cfg->counter = DPK_LIVE_COUNTER_SHARE;
	cfg->level = level;
}

/* Which new tables dpk_live_use_share_tree gives the share tree. */
static void
test_choice(void)
{
	DpkLiveConfig cfg,
				before;

	dpk_live_defaults(&cfg, 2, 6, 1.0, 64, false);
	cfg.level = dpk_live_choose_level(&cfg, 1e4, 1e6);
	before = cfg;
	dpk_live_use_share_tree(&cfg, NULL, 1e4, 1e6);
	CHECK(cfg.counter == DPK_LIVE_COUNTER_SHARE && DPK_LIVE_SHARE(&cfg),
		  "d = 2, T = 64: the share tree (counter %d)", cfg.counter);
	CHECK(cfg.level == dpk_live_choose_level(&cfg, 1e4, 1e6) && cfg.level >= before.level,
		  "its level read the share tree's variance (%d, k-ary %d)", cfg.level, before.level);
	CHECK(strcmp(dpk_live_counter_name(cfg.counter), "share_tree") == 0, "stored name");

	/* the default asks for it from a horizon of 16, pure low-d tables only */
	dpk_live_defaults(&cfg, 2, 6, 1.0, 16, false);
	CHECK(dpk_live_share_tree_by_default(&cfg), "default: T = 16 asks for the share tree");
	dpk_live_defaults(&cfg, 2, 6, 1.0, 15, false);
	CHECK(!dpk_live_share_tree_by_default(&cfg), "default: T = 15 keeps the k-ary tree");
	dpk_live_defaults(&cfg, 2, 6, 1.0, 1024, false);
	dpk_live_use_delta(&cfg, 1e-6);
	CHECK(!dpk_live_share_tree_by_default(&cfg), "default: Gaussian keeps its counter");
	dpk_live_defaults(&cfg, 8, 6, 1.0, 1024, false);
	dpk_live_use_projection(&cfg, 1);
	CHECK(!dpk_live_share_tree_by_default(&cfg), "default: projected keeps the k-ary tree");

	/* horizons where it does not beat the k-ary tree, or without a configuration */
	dpk_live_defaults(&cfg, 2, 6, 1.0, 8, false);
	dpk_live_use_share_tree(&cfg, NULL, 1e4, 1e6);
	CHECK(cfg.counter == DPK_LIVE_COUNTER_TREE, "T = 8 keeps the k-ary tree");
	dpk_live_defaults(&cfg, 2, 6, 1.0, 2048, false);
	dpk_live_use_share_tree(&cfg, NULL, 1e4, 1e6);
	CHECK(cfg.counter == DPK_LIVE_COUNTER_TREE, "T = 2048 keeps the k-ary tree");
	/* Gaussian and projected tables keep their counters */
	dpk_live_defaults(&cfg, 2, 6, 1.0, 64, false);
	dpk_live_use_delta(&cfg, 1e-6);
	dpk_live_use_share_tree(&cfg, NULL, 1e4, 1e6);
	CHECK(cfg.counter == DPK_LIVE_COUNTER_TREE, "Gaussian keeps its counter");
	dpk_live_defaults(&cfg, 8, 6, 1.0, 64, false);
	dpk_live_use_projection(&cfg, 1);
	dpk_live_use_share_tree(&cfg, NULL, 1e4, 1e6);
	CHECK(cfg.counter == DPK_LIVE_COUNTER_TREE, "projected keeps the k-ary tree");
	/* a release reading more draws than the cap: the k-ary tree */
	dpk_live_defaults(&cfg, 2, 6, 1e6, 64, false);
	dpk_live_use_share_tree(&cfg, NULL, 1e9, 1e9);
	CHECK(cfg.counter == DPK_LIVE_COUNTER_TREE, "draws above the cap keep the k-ary tree");
	share_config(&cfg, 64, 9, false);
	CHECK(dpk_live_share_draws(&cfg) > DPK_LIVE_SHARE_MAX_DRAWS &&
		  dpk_live_share_draws(&cfg) ==
		  262144.0 * dpk_share_tree_max_nodes(dpk_live_share_tree(&cfg)) * 3.0,
		  "draws of level 9: %g", dpk_live_share_draws(&cfg));
	/* 16 384 cells at d = 2: within the cap at T = 256, not at T = 1024 */
	share_config(&cfg, 256, 7, false);
	CHECK(dpk_live_share_draws(&cfg) <= DPK_LIVE_SHARE_MAX_DRAWS, "T = 256, 16 384 cells");
	share_config(&cfg, 1024, 7, false);
	CHECK(dpk_live_share_draws(&cfg) > DPK_LIVE_SHARE_MAX_DRAWS, "T = 1024, 16 384 cells");
}

/* Full-budget scales: one node per event, twice with deletions. */
static void
test_scales(void)
{
	DpkLiveConfig cfg;
	double		eps_count;

	share_config(&cfg, 64, 3, false);
	eps_count = 1.0 * (1.0 - cfg.sum_share - cfg.norm_share);
	CHECK(dpk_live_count_sensitivity(&cfg) == 2.0, "count sensitivity %g",
		  dpk_live_count_sensitivity(&cfg));
	/* rounded up, by at most a few parts in a million */
	CHECK(dpk_scale_value(dpk_live_count_scale(&cfg)) >= 2.0 / eps_count &&
		  dpk_scale_value(dpk_live_count_scale(&cfg)) / (2.0 / eps_count) - 1.0 < 1e-5,
		  "count scale %g, want %g", dpk_scale_value(dpk_live_count_scale(&cfg)),
		  2.0 / eps_count);
	share_config(&cfg, 64, 3, true);
	CHECK(dpk_live_count_sensitivity(&cfg) == 1.0, "insert-only count sensitivity");
	for (uint32_t t = 1; t <= 64; t += 9)
		CHECK(dpk_live_tree_norm2(&cfg, t) ==
			  dpk_share_tree_release_units(dpk_live_share_tree(&cfg), t, NULL),
			  "t = %u: the release variance is the share tree's", t);
}

/*
 * A release of a table with rows equals the true counters plus the exact
 * rounding of its node draws, at scales computed here from the budget.
 */
static void
test_release(void)
{
	DpkLiveConfig cfg;
	DpkCellMap	map;
	DpkDenseHist hist;
	DpkStream	s,
				r;
	uint8_t		key[DPK_KEY_BYTES];
	uint64_t	st = 99;
	int			bad = 0,
				moved = 0;

	share_config(&cfg, 64, 3, false);
	dpk_key_from_seed(7, key);
	dpk_cellmap_init(&map, 2);
	for (int i = 0; i < 500; i++)
	{
		int64_t		rel[2] = {(int64_t) (unit_uniform(&st) * DPK_REL_UNITS),
		(int64_t) (unit_uniform(&st) * DPK_REL_UNITS)};

		dpk_cellmap_add_point(&map, (uint64_t) (unit_uniform(&st) * 64), rel, 1);
	}
	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	for (uint32_t t = 16; t <= 64; t += 16)
	{
		DpkShareWeights w;
		DpkCellScales *sc;
		double		eps_count = 1.0 - cfg.sum_share,
					eps_sum = cfg.sum_share;

		dpk_live_noisy_histogram(&cfg, key, &map, t, &s, &hist);
		dpk_share_tree_weights(dpk_live_share_tree(&cfg), t, &w);
		sc = dpk_alloc(w.n * sizeof(DpkCellScales));
		dpk_share_node_scales(&w, 2.0 / eps_count, 2.0 * DPK_REL_CENTRE / eps_sum, 2,
							  DPK_SUMS_VECTOR, sc);
		for (uint64_t c = 0; c < hist.ncells; c++)
		{
			const int64_t *vals = dpk_cellmap_find(&map, c);
			int64_t		truth[3] = {0, 0, 0},
						out[3],
						tmp[3];
			__int128	acc[3];

			if (vals)
				memcpy(truth, vals, sizeof(truth));
			dpk_cell_noise_share(&r, &(DpkCellKey) {key, 3, c}, &w, sc, truth, out,
								 &(DpkNoiseScratch) {tmp, acc});
			/* the centred sums published with the count's noise (grid.h) */
			dpk_hist_recentre(out + 1, 2, out[0] - truth[0]);
			bad += hist.count[c] != out[0] || hist.sum[c * 2] != out[1] ||
				hist.sum[c * 2 + 1] != out[2];
			moved += hist.count[c] != truth[0];
		}
		dpk_free(sc);
		dpk_share_weights_free(&w);
		dpk_hist_free(&hist);
	}
	CHECK(bad == 0, "share-tree releases: %d cells differ from their node draws", bad);
	CHECK(moved > 0, "share-tree releases: no noise");
	dpk_stream_close(&s);
	dpk_stream_close(&r);
	dpk_cellmap_free(&map);
}

/* The counts' empirical variance matches dpk_live_count_variance. */
static void
test_variance(void)
{
	DpkLiveConfig cfg;
	DpkCellMap	empty;
	DpkDenseHist hist;
	DpkStream	s;
	uint8_t		key[DPK_KEY_BYTES];
	static const uint32_t ts[] = {16, 40, 64};

	share_config(&cfg, 64, 7, false);	/* 16 384 cells */
	dpk_key_from_seed(8, key);
	dpk_cellmap_init(&empty, 2);
	memset(&s, 0, sizeof(s));
	for (size_t a = 0; a < sizeof(ts) / sizeof(ts[0]); a++)
	{
		double		ss = 0.0,
					want = dpk_live_count_variance(&cfg, cfg.level, ts[a]),
					got,
					z;

		dpk_live_noisy_histogram(&cfg, key, &empty, ts[a], &s, &hist);
		for (uint64_t c = 0; c < hist.ncells; c++)
			ss += (double) hist.count[c] * hist.count[c];
		got = ss / hist.ncells;
		/* Laplace sums: the sample variance's sd is within sqrt(5 / n) of it */
		z = fabs(got - want) / (sqrt(5.0 / hist.ncells) * want);
		printf("  share-tree count variance t=%u: %.1f (formula %.1f)\n", ts[a], got, want);
		CHECK(z < 4.0, "t = %u: variance %.1f, formula %.1f (%.1f sd)", ts[a], got, want, z);
		dpk_hist_free(&hist);
	}
	dpk_stream_close(&s);
	dpk_cellmap_free(&empty);
}

int
main(void)
{
	printf("test_live_share:\n");
	test_choice();
	test_scales();
	test_release();
	test_variance();
	UNIT_DONE("test_live_share");
}
