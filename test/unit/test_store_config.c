/*
 * test_store_config.c
 *		A tracked table's configuration saved and read again: what dp_attach
 *		stores of a new live table and dpk_tracked_config
 *		(src/store/store_config.c, compiled here against the server headers)
 *		gives back, per-coordinate lifting sums (trigger format 4) above all.
 */
#include "../../src/store/store_config.c"

#include <math.h>

#include "grid.h"
#include "highd.h"
#include "tree_estimator.h"

/* the server's printf macros; the harness prints with the C library's */
#undef printf
#undef fprintf
#include "unit.h"

/* What store_config.c needs of the server and of the glue, for this test. */
int			dpk_counter_estimator = 1;

uint64
GetSystemIdentifier(void)
{
	return 1;
}

TimeLineID
GetWALInsertionTimeLine(void)
{
	return 1;
}

Oid			MyDatabaseId = 1;

/*
 * A new table's configuration as dp_attach (src/api/attach.c) makes it, and
 * the tracked row it stores of it.
 */
static void
attach(DpkTracked *tr, DpkLiveConfig *cfg, int d, const double *lower, const double *upper,
	   int horizon, bool insert_only, double delta, uint64 seed)
{
	DpkBox		box = {d, lower, upper};

	memset(tr, 0, sizeof(*tr));
	tr->d = d;
	tr->k = 5;
	tr->epsilon = 1.5;
	tr->lower = (double *) lower;
	tr->upper = (double *) upper;
	tr->horizon = horizon;
	tr->insert_only = insert_only;
	tr->size_hint = 50000.0;
	tr->delta = delta;
	dpk_live_defaults(cfg, d, tr->k, tr->epsilon, (uint32_t) horizon, insert_only);
	if (d >= DPK_HIGHD_MIN_D)
		dpk_live_use_projection(cfg, seed);
	dpk_live_use_delta(cfg, delta);
	dpk_live_use_few_sides(cfg, &box, tr->size_hint);
	dpk_live_use_box(cfg, &box);
	tr->tree_arity = cfg->arity;
	cfg->level = dpk_live_choose_level_box(cfg, &box, tr->size_hint, 4194304.0);
	tr->level = cfg->level;
	tr->sum_share = cfg->sum_share;
	tr->dhat = cfg->dhat;
	tr->copies = cfg->copies;
	tr->proj_seed = cfg->proj_seed;
	tr->norm_share = cfg->norm_share;
	tr->trigger_format = DPK_TRIGGER_FORMAT;
}

/* The noise a reopened table draws on its sums is the attached table's. */
static bool
same_sums(const DpkLiveConfig *a, const DpkLiveConfig *b)
{
	DpkNoise	na = dpk_live_sum_noise(a),
				nb = dpk_live_sum_noise(b);

	return a->sum_l1 == b->sum_l1 && a->sum_share == b->sum_share &&
		a->dhat == b->dhat && na.gauss == nb.gauss && na.coords == nb.coords &&
		(na.gauss ? dpk_gauss_scale_value(na.var) == dpk_gauss_scale_value(nb.var)
		 : dpk_scale_value(na.lap) == dpk_scale_value(nb.lap));
}

static const double diamonds_lo[7] = {0, 40, 40, 0, 0, 0, 0},
			diamonds_hi[7] = {5.5, 80, 100, 20000, 12, 12, 12},
			cube_lo[7] = {0, 0, 0, 0, 0, 0, 0},
			cube_hi[7] = {1, 1, 1, 1, 1, 1, 1};

/*
 * Trigger format 4: a projected pure table's per-coordinate sums (and
 * their share of epsilon) are decided from the box again on every read of
 * its row, and must come out as they were at attach, whatever the box,
 * horizon, deletions; Gaussian, cube and low-d tables never get them.
 */
static void
test_sum_l1_roundtrip(void)
{
	static const int horizons[2] = {16, 1024};
	DpkTracked	tr;
	DpkLiveConfig at,
				back;
	int			h,
				ins,
				b,
				l1_tables = 0,
				cube_tables = 0,
				differ = 0;

	CHECK(DPK_TRIGGER_FORMAT == 5, "trigger format %d", DPK_TRIGGER_FORMAT);
	for (h = 0; h < 2; h++)
		for (ins = 0; ins < 2; ins++)
		{
			attach(&tr, &at, 7, diamonds_lo, diamonds_hi, horizons[h], ins == 1, 0.0, 77);
			dpk_tracked_config(&tr, &back);
			CHECK(at.sum_l1 > 0.0 && at.sum_share == DPK_LIVE_L1_SUM_SHARE,
				  "diamonds, T = %d: attached with sum_l1 %g, share %g", horizons[h],
				  at.sum_l1, at.sum_share);
			CHECK(same_sums(&at, &back),
				  "diamonds, T = %d, insert_only %d: reopened sum_l1 %g share %g (attached %g %g)",
				  horizons[h], ins, back.sum_l1, back.sum_share, at.sum_l1, at.sum_share);
			CHECK(back.box_metric && dpk_live_sum_sensitivity(&back) ==
				  dpk_live_sum_sensitivity(&at), "diamonds: reopened sensitivity %g (%g)",
				  dpk_live_sum_sensitivity(&back), dpk_live_sum_sensitivity(&at));

			attach(&tr, &at, 7, cube_lo, cube_hi, horizons[h], ins == 1, 0.0, 77);
			dpk_tracked_config(&tr, &back);
			CHECK(at.sum_l1 == 0.0 && same_sums(&at, &back),
				  "cube, T = %d: reopened sum_l1 %g share %g (attached %g %g)", horizons[h],
				  back.sum_l1, back.sum_share, at.sum_l1, at.sum_share);

			attach(&tr, &at, 7, diamonds_lo, diamonds_hi, horizons[h], ins == 1, 1e-6, 77);
			dpk_tracked_config(&tr, &back);
			CHECK(at.sum_l1 == 0.0 && same_sums(&at, &back) && dpk_live_sum_noise(&back).gauss,
				  "delta > 0, T = %d: reopened sum_l1 %g share %g (attached %g %g)",
				  horizons[h], back.sum_l1, back.sum_share, at.sum_l1, at.sum_share);

			attach(&tr, &at, 2, diamonds_lo + 3, diamonds_hi + 3, horizons[h], ins == 1, 0.0, 77);
			dpk_tracked_config(&tr, &back);
			CHECK(at.dhat == 0 && back.sum_l1 == 0.0 && same_sums(&at, &back),
				  "low d, T = %d: reopened sum_l1 %g share %g", horizons[h], back.sum_l1,
				  back.sum_share);
		}

	/* d = 6..8, one side 3, the others narrower: both choices, each kept */
	for (b = 0; b < 60; b++)
	{
		double		lo[8],
					hi[8];
		int			d = 6 + b % 3,
					j;

		for (j = 0; j < d; j++)
		{
			lo[j] = -1.0 * j;
			hi[j] = lo[j] + (j == 2 ? 3.0 : 3.0 * (b / 3 + 1) / 21.0 - 0.003 * j);
		}
		attach(&tr, &at, d, lo, hi, 64, b % 2 == 0, 0.0, 1000 + b);
		dpk_tracked_config(&tr, &back);
		differ += !same_sums(&at, &back);
		l1_tables += at.sum_l1 > 0.0;
		cube_tables += at.sum_l1 == 0.0;
	}
	CHECK(differ == 0 && l1_tables > 0 && cube_tables > 0,
		  "boxes: %d of 60 reopened with other sums (%d per coordinate, %d cube)", differ,
		  l1_tables, cube_tables);

	/* low-d sums: centred from trigger format 5, from the corner before */
	attach(&tr, &at, 3, cube_lo, cube_hi, 64, false, 0.0, 0);
	dpk_tracked_config(&tr, &back);
	CHECK(at.centred_offsets && back.centred_offsets && same_sums(&at, &back),
		  "trigger format 5: centred in-cell sums");
	tr.trigger_format = 4;
	dpk_tracked_config(&tr, &back);
	CHECK(!back.centred_offsets &&
		  dpk_live_sum_sensitivity(&back) == 2.0 * dpk_live_sum_sensitivity(&at),
		  "trigger format 4: in-cell sums from the corner, twice the sensitivity");

	/* a table attached with trigger format 3 keeps the cube noise */
	attach(&tr, &at, 7, diamonds_lo, diamonds_hi, 16, false, 0.0, 77);
	tr.trigger_format = 3;
	dpk_tracked_config(&tr, &back);
	CHECK(back.box_metric && back.sum_l1 == 0.0 && !dpk_live_sum_noise(&back).coords,
		  "trigger format 3: sum_l1 %g", back.sum_l1);
}

/*
 * The tree of a new projected pure table: the k-ary tree of
 * dpk_tree_choose_arity at every horizon and box, whose fewer levels cut
 * the lifting sums' noise (doc/benchmarks.md, "The tree of projected
 * tables"); a reopened table keeps the tree it was attached with.
 */
static void
test_highd_tree(void)
{
	static double lo[384],
				hi[384];
	static const int dims[4] = {7, 16, 64, 384};
	static const int horizons[3] = {4, 16, 1024};
	DpkTracked	tr;
	DpkLiveConfig at,
				back;
	int			i,
				h,
				j;

	for (j = 0; j < 384; j++)
	{
		lo[j] = 0.0;
		hi[j] = 100.0;
	}
	for (i = 0; i < 4; i++)
		for (h = 0; h < 3; h++)
		{
			int			want = dpk_tree_choose_arity((uint32_t) horizons[h]);

			attach(&tr, &at, dims[i], lo, hi, horizons[h], true, 0.0, 5);
			dpk_tracked_config(&tr, &back);
			CHECK(at.arity == want && tr.tree_arity == want && back.arity == want,
				  "d = %d, T = %d: arity %d attached, %d stored, %d reopened (want %d)",
				  dims[i], horizons[h], at.arity, tr.tree_arity, back.arity, want);
		}
	/* a box with few wide sides (fewer projected dimensions) too */
	attach(&tr, &at, 7, diamonds_lo, diamonds_hi, 16, false, 0.0, 77);
	dpk_tracked_config(&tr, &back);
	CHECK(at.dhat > 0 && at.dhat < DPK_LIVE_DHAT &&
		  at.arity == dpk_tree_choose_arity(16) && back.arity == at.arity,
		  "diamonds, T = 16: dhat %d, arity %d attached, %d reopened", at.dhat, at.arity,
		  back.arity);
	CHECK(dpk_tree_choose_arity(4) > DPK_TREE_ARITY_BINARY &&
		  dpk_tree_choose_arity(16) > DPK_TREE_ARITY_BINARY,
		  "short horizons choose a k-ary tree: %d, %d", dpk_tree_choose_arity(4),
		  dpk_tree_choose_arity(16));
}

/*
 * A Gaussian table's norm counter unit: its triggers get it from the stored
 * row (dpk_tracked_norm_shift) and its releases from dpk_tracked_config;
 * both must be the attached configuration's, or the counter's unit and its
 * noise disagree.  d = 384 at epsilon 1.5 shifts; d = 64 and pure do not.
 */
static void
test_norm_shift_roundtrip(void)
{
	static double lo[384],
				hi[384];
	static const int ds[3] = {384, 384, 64};
	static const double deltas[3] = {1e-6, 0.0, 1e-6};
	DpkTracked	tr;
	DpkLiveConfig at,
				back;
	int			i,
				j;

	for (j = 0; j < 384; j++)
	{
		lo[j] = -1.0;
		hi[j] = 1.0;
	}
	for (i = 0; i < 3; i++)
	{
		attach(&tr, &at, ds[i], lo, hi, 16, false, deltas[i], 5);
		dpk_live_use_norm_shift(&at);
		dpk_tracked_config(&tr, &back);
		CHECK(back.norm_shift == at.norm_shift && dpk_tracked_norm_shift(&tr) == at.norm_shift &&
			  (at.norm_shift > 0) == (i == 0),
			  "d = %d, delta %g: attached with norm shift %d, reopened %d", ds[i], deltas[i],
			  at.norm_shift, back.norm_shift);
	}
}

/*
 * A pure low-d table attached with the share tree is reopened with it (and
 * its noise, its level's); a row with counter 'tree' keeps the k-ary tree;
 * a projected or Gaussian row never takes the share tree.
 */
static void
test_share_tree_roundtrip(void)
{
	DpkTracked	tr;
	DpkLiveConfig at,
				back;

	attach(&tr, &at, 2, cube_lo, cube_hi, 64, false, 0.0, 5);
	dpk_live_use_share_tree(&at, &(DpkBox) {2, cube_lo, cube_hi}, tr.size_hint, 4194304.0);
	tr.level = at.level;
	tr.counter = at.counter;
	dpk_tracked_config(&tr, &back);
	CHECK(at.counter == DPK_LIVE_COUNTER_SHARE && back.counter == DPK_LIVE_COUNTER_SHARE &&
		  back.level == at.level &&
		  dpk_scale_value(dpk_live_count_scale(&back)) == dpk_scale_value(dpk_live_count_scale(&at)) &&
		  same_sums(&at, &back),
		  "share tree: attached counter %d, reopened %d", at.counter, back.counter);
	tr.counter = DPK_LIVE_COUNTER_TREE;
	dpk_tracked_config(&tr, &back);
	CHECK(back.counter == DPK_LIVE_COUNTER_TREE && !DPK_LIVE_SHARE(&back),
		  "a 'tree' row reopened with counter %d", back.counter);
	attach(&tr, &at, 7, cube_lo, cube_hi, 64, false, 0.0, 5);
	tr.counter = DPK_LIVE_COUNTER_SHARE;
	dpk_tracked_config(&tr, &back);
	CHECK(!DPK_LIVE_SHARE(&back), "a projected row took the share tree");
	attach(&tr, &at, 2, cube_lo, cube_hi, 64, false, 1e-6, 5);
	tr.counter = DPK_LIVE_COUNTER_SHARE;
	dpk_tracked_config(&tr, &back);
	CHECK(!DPK_LIVE_SHARE(&back), "a Gaussian row took the share tree");
}

int
main(void)
{
	test_share_tree_roundtrip();
	test_sum_l1_roundtrip();
	test_highd_tree();
	test_norm_shift_roundtrip();
	UNIT_DONE("test_store_config");
}
