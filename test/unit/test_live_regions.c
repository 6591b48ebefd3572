/*
 * test_live_regions.c
 *		Lifting sums keyed by public regions (live_regions.h): which tree
 *		nodes the state may drop, the rows its signed nodes hold at every
 *		release of a sliding window, exact centres without noise, the stored
 *		form, the refusal of a state out of step, and the switch of new
 *		tables.
 */
#include <math.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "cellmap.h"
#include "dpk_mem.h"
#include "grid.h"
#include "live_core.h"
#include "lift.h"
#include "live_reach.h"
#include "live_regions.h"
#include "noise.h"
#include "projection.h"
#include "tree_estimator.h"
#include "unit.h"

#define MAXD 64

/* Rows of a batch: ROWS_MIN to ROWS_MIN + 22. */
#define ROWS_MIN 100

/*
 * A step with no rows inserted and none deleted (at most W, so nothing is
 * deleted yet), and W steps later another.
 */
#define EMPTY_STEP 10

/*
 * A stream of rows in [0, 100]^d: batch t (t = 1..T) inserted at step t
 * and, in a window of W steps, deleted at step t + W.  Batches `empty`
 * (EMPTY_STEP or W) and empty + W are empty, so those steps have no events
 * at all.  Clustered rows go round k well separated centres (every batch
 * holds each cluster), jittered by +-1; the others are uniform over the box.
 */
typedef struct Stream
{
	int			d,
				k;
	uint32_t	T,
				W,
				empty;
	size_t	   *start;			/* T + 2: batch t is rows start[t] ..
								 * start[t + 1] - 1 */
	int		   *cluster;		/* per row, -1 for uniform rows */
	double	   *x;
} Stream;

/* Coordinate j of cluster c's centre: 20 or 80 in four patterns. */
static double
centre_coord(int c, int j)
{
	switch (c % 4)
	{
		case 0:
			return 20.0;
		case 1:
			return 80.0;
		case 2:
			return j % 2 ? 80.0 : 20.0;
		default:
			return j % 2 ? 20.0 : 80.0;
	}
}

static void
stream_make(Stream *st, int d, int k, uint32_t T, uint32_t W, bool uniform, uint64_t seed)
{
	uint64_t	rng = seed * 2654435761u + 88172645463325252ULL;
	size_t		n = 0,
				i;
	uint32_t	t;
	int			j;

	st->d = d;
	st->k = k;
	st->T = T;
	st->W = W;
	st->empty = W < EMPTY_STEP ? W : EMPTY_STEP;
	st->start = dpk_alloc(sizeof(size_t) * (T + 2));
	for (t = 1; t <= T; t++)
	{
		st->start[t] = n;
		if (t != st->empty && t != st->empty + W)
			n += ROWS_MIN + (t * 7) % 23;
	}
	st->start[T + 1] = n;
	st->cluster = dpk_alloc(sizeof(int) * (n ? n : 1));
	st->x = dpk_alloc(sizeof(double) * (n ? n : 1) * d);
	for (i = 0; i < n; i++)
	{
		st->cluster[i] = uniform ? -1 : (int) (i % (size_t) k);
		for (j = 0; j < d; j++)
			st->x[i * d + j] = uniform ? 100.0 * unit_uniform(&rng)
				: centre_coord(st->cluster[i], j) + 2.0 * (unit_uniform(&rng) - 0.5);
	}
}

static void
stream_free(Stream *st)
{
	dpk_free(st->start);
	dpk_free(st->cluster);
	dpk_free(st->x);
}

/* The first batch still in the table after step t. */
static uint32_t
stream_first(const Stream *st, uint32_t t)
{
	return t > st->W ? t - st->W + 1 : 1;
}

/*
 * A projected pure table lifting by regions, configured as dp_attach does
 * on a cube box, with its cumulative state (copy 0's cells and the norm
 * counter) and the rows it holds.
 */
typedef struct Table
{
	DpkLiveConfig cfg;
	double		lower[MAXD],
				upper[MAXD];
	DpkBox		box;
	DpkProjection proj;
	DpkCellMap	map;
	DpkRegions	rs;
	uint8_t		key[DPK_KEY_BYTES];
	int64_t		rows;
} Table;

/* arity 0: the default tree of the horizon. */
static void
table_init(Table *tb, int d, int k, double eps, uint32_t horizon, int level, int arity,
		   uint64_t key_seed)
{
	int			j;

	for (j = 0; j < d; j++)
	{
		tb->lower[j] = 0.0;
		tb->upper[j] = 100.0;
	}
	tb->box.d = d;
	tb->box.lower = tb->lower;
	tb->box.upper = tb->upper;
	dpk_live_defaults(&tb->cfg, d, k, eps, horizon, false);
	dpk_live_use_projection(&tb->cfg, UINT64_C(20240611));
	dpk_live_use_box(&tb->cfg, &tb->box);
	if (arity > 0)
		tb->cfg.arity = arity;
	tb->cfg.level = level;
	dpk_live_use_norm_shift(&tb->cfg);
	dpk_cellmap_init(&tb->map, d);
	dpk_projection_init(&tb->proj, d, tb->cfg.dhat,
						dpk_projection_copy_seed(tb->cfg.proj_seed, 0), tb->cfg.half_width);
	dpk_regions_init(&tb->rs, &tb->cfg);
	dpk_key_from_seed(key_seed, tb->key);
	tb->rows = 0;
}

static void
table_free(Table *tb)
{
	dpk_regions_free(&tb->rs);
	dpk_projection_free(&tb->proj);
	dpk_cellmap_free(&tb->map);
}

/* Insert (+1) or delete (-1) one row x of the box, as the triggers do. */
static void
table_add(Table *tb, const double *x, int sign)
{
	double		u[MAXD],
				t[DPK_LIVE_DHAT];

	dpk_box_normalize(&tb->box, x, u);
	if (tb->cfg.box_metric)
		dpk_box_to_metric(&tb->box, u);
	dpk_box_ball_clamp(tb->cfg.d, tb->cfg.ball, u);
	dpk_project_batch(&tb->proj, u, 1, t);
	dpk_live_add_projected(&tb->cfg, &tb->map, u, t, sign);
	tb->rows += sign;
}

/* The events of step t of a stream (batch t in, batch t - W out): how many. */
static size_t
table_step(Table *tb, const Stream *st, uint32_t t)
{
	size_t		i,
				n = 0;

	for (i = st->start[t]; i < st->start[t + 1]; i++, n++)
		table_add(tb, st->x + i * st->d, +1);
	if (t > st->W)
		for (i = st->start[t - st->W]; i < st->start[t - st->W + 1]; i++, n++)
			table_add(tb, st->x + i * st->d, -1);
	return n;
}

/* Noisy inputs of release t: copy 0's counts (unreachable cells zeroed). */
typedef struct Noisy
{
	double	   *count,
			   *sum,
				sumnorm,
				cells;
	uint64_t	seed;
} Noisy;

static void
table_noisy(Table *tb, uint32_t t, Noisy *nz)
{
	uint64_t	total = (uint64_t) tb->cfg.copies * dpk_live_copy_cells(&tb->cfg);
	uint8_t		nonce[DPK_NONCE_BYTES] = {0};
	DpkStream	s = {0};

	nz->count = dpk_alloc(sizeof(double) * total);
	nz->sum = dpk_alloc(sizeof(double) * total * tb->cfg.d);
	if (!dpk_stream_open(&s, tb->key, nonce))
	{
		fprintf(stderr, "cannot open stream\n");
		exit(1);
	}
	dpk_live_noisy_projected_box(&tb->cfg, &tb->box, tb->key, &tb->map, t, &s, nz->count,
								 nz->sum, &nz->sumnorm);
	nz->seed = dpk_stream_u64(&s);
	dpk_stream_close(&s);
	nz->cells = dpk_live_zero_unreachable(&tb->cfg, &tb->box, &tb->proj, nz->count, nz->sum);
}

static void
noisy_free(Noisy *nz)
{
	dpk_free(nz->count);
	dpk_free(nz->sum);
}

/*
 * Release t of the state rs (the table's or a copy of it) from nz; the
 * histogram's sums overwrite nz's noisy ones, which it does not read.
 */
static void
table_release_from(Table *tb, DpkRegions *rs, uint32_t t, const Noisy *nz,
				   DpkLiveRelease *rel, int64_t *rows)
{
	dpk_regions_release(rs,
						&(DpkRegionsTable) {&tb->cfg, &tb->box, &tb->proj, tb->key},
						&(DpkRegionsInput) {t, &tb->map, nz->count, nz->cells, nz->sumnorm, nz->seed},
						&(DpkRegionsOut) {rel, nz->sum, rows});
}

/* Release t of the table's own state. */
static void
table_release(Table *tb, uint32_t t, DpkLiveRelease *rel, int64_t *rows)
{
	Noisy		nz;

	table_noisy(tb, t, &nz);
	table_release_from(tb, &tb->rs, t, &nz, rel, rows);
	noisy_free(&nz);
}

/* Entries of a cell map with a non-zero counter. */
static int
nonzero_entries(const DpkCellMap *m)
{
	size_t		pos = 0;
	uint64_t	cell;
	const int64_t *vals;
	int			n = 0,
				j;

	while (dpk_cellmap_next(m, &pos, &cell, &vals))
		for (j = 0; j <= m->d; j++)
			if (vals[j] != 0)
			{
				n++;
				break;
			}
	return n;
}

/* ---------------------------------------------------------------------- */

/*
 * The region nodes of releases 1..T (dpk_regions_nodes of a table with h
 * levels and the format signed_digits; flat, off[t] .. off[t + 1]).
 */
typedef struct Decomps
{
	int			arity,
				h;
	bool		signed_digits;
	size_t	   *off;
	int		   *level;
	uint32_t   *index;
} Decomps;

static void
decomps_make(Decomps *dc, int arity, int h, bool signed_digits, uint32_t T)
{
	int			lv[DPK_TREE_MAX_SIGNED],
				sg[DPK_TREE_MAX_SIGNED];
	uint32_t	ix[DPK_TREE_MAX_SIGNED];
	size_t		n = 0,
				cap = 4096;
	uint32_t	t;

	dc->arity = arity;
	dc->h = h;
	dc->signed_digits = signed_digits;
	dc->off = dpk_alloc(sizeof(size_t) * (T + 2));
	dc->level = dpk_alloc(sizeof(int) * cap);
	dc->index = dpk_alloc(sizeof(uint32_t) * cap);
	for (t = 1; t <= T; t++)
	{
		int			m = dpk_regions_nodes(arity, h, signed_digits, t, lv, ix, sg),
					a;

		dc->off[t] = n;
		if (n + (size_t) m > cap)
		{
			int		   *l2;
			uint32_t   *i2;

			while (n + (size_t) m > cap)
				cap *= 2;
			l2 = dpk_alloc(sizeof(int) * cap);
			i2 = dpk_alloc(sizeof(uint32_t) * cap);
			memcpy(l2, dc->level, sizeof(int) * n);
			memcpy(i2, dc->index, sizeof(uint32_t) * n);
			dpk_free(dc->level);
			dpk_free(dc->index);
			dc->level = l2;
			dc->index = i2;
		}
		for (a = 0; a < m; a++)
		{
			dc->level[n] = lv[a];
			dc->index[n] = ix[a];
			n++;
		}
	}
	dc->off[T + 1] = n;
}

static void
decomps_free(Decomps *dc)
{
	dpk_free(dc->off);
	dpk_free(dc->level);
	dpk_free(dc->index);
}

/* A node list without repeats (the nodes a state holds). */
typedef struct NodeSet
{
	int			n,
				cap;
	int		   *level;
	uint32_t   *index;
} NodeSet;

static void
nodeset_add(NodeSet *ns, int level, uint32_t index)
{
	int			i;

	for (i = 0; i < ns->n; i++)
		if (ns->level[i] == level && ns->index[i] == index)
			return;
	if (ns->n == ns->cap)
	{
		int			cap = ns->cap ? 2 * ns->cap : 256;
		int		   *l2 = dpk_alloc(sizeof(int) * cap);
		uint32_t   *i2 = dpk_alloc(sizeof(uint32_t) * cap);

		if (ns->n)
		{
			memcpy(l2, ns->level, sizeof(int) * ns->n);
			memcpy(i2, ns->index, sizeof(uint32_t) * ns->n);
		}
		dpk_free(ns->level);
		dpk_free(ns->index);
		ns->level = l2;
		ns->index = i2;
		ns->cap = cap;
	}
	ns->level[ns->n] = level;
	ns->index[ns->n] = index;
	ns->n++;
}

/*
 * dpk_regions_node_live is conservative (every node a later release uses
 * is live at every earlier release, over whole horizons, in both formats)
 * and prunes: the nodes a state holds (those the releases and steps up to
 * t opened, less the dead ones) stay within a few per level, and past
 * 2 arity + 1 steps the first one is dead.
 */
static void
test_node_live(void)
{
	static const uint32_t horizons[] = {16, 40, 64, 256, 1024, 1100};
	int			arity,
				format;
	size_t		hi;

	for (format = 0; format < 2; format++)
	for (arity = 3; arity <= 15; arity++)
		for (hi = 0; hi < sizeof(horizons) / sizeof(horizons[0]); hi++)
		{
			uint32_t	T = horizons[hi],
						t,
						tp;
			Decomps		dc;
			NodeSet		ns = {0};
			long		missed = 0,
						dropped = 0;
			int			bad_level = 0,
						maxlive = 0,
						levels = dpk_tree_shape_height(arity, T);
			uint32_t	bad_index = 0,
						bad_t = 0,
						bad_tp = 0;
			size_t		a;

			decomps_make(&dc, arity, levels, format == 1, T);
			for (tp = 2; tp <= T; tp++)
				for (a = dc.off[tp]; a < dc.off[tp + 1]; a++)
					for (t = 1; t < tp; t++)
						if (!dpk_regions_node_live(arity, levels, format == 1, dc.level[a],
												   dc.index[a], t) &&
							missed++ == 0)
						{
							bad_level = dc.level[a];
							bad_index = dc.index[a];
							bad_t = t;
							bad_tp = tp;
						}
			CHECK(missed == 0,
				  "format %d arity %d T %u: node (%d, %u) of release %u dead at release %u "
				  "(%ld misses)", format + 1, arity, T, bad_level, bad_index, bad_tp, bad_t,
				  missed);

			for (t = 1; t <= T; t++)
			{
				uint64_t	span = 1;
				int			l,
							i,
							kept = 0;

				for (l = 0; l < levels; l++, span *= (uint64_t) arity)
					nodeset_add(&ns, l, (uint32_t) ((t - 1) / span + 1));
				for (a = dc.off[t]; a < dc.off[t + 1]; a++)
					nodeset_add(&ns, dc.level[a], dc.index[a]);
				for (i = 0; i < ns.n; i++)
					if (dpk_regions_node_live(arity, levels, format == 1, ns.level[i],
											  ns.index[i], t))
					{
						ns.level[kept] = ns.level[i];
						ns.index[kept] = ns.index[i];
						kept++;
					}
					else
						dropped++;
				ns.n = kept;
				if (ns.n > maxlive)
					maxlive = ns.n;
			}
			CHECK(maxlive <= levels * (3 * arity + 2),
				  "arity %d T %u: %d nodes live at once over %d levels", arity, T, maxlive,
				  levels);
			if (T > 2 * (uint32_t) arity + 1)
				CHECK(dropped > 0, "arity %d T %u: no node ever dead", arity, T);
			dpk_free(ns.level);
			dpk_free(ns.index);
			decomps_free(&dc);
		}
}

/* ---------------------------------------------------------------------- */

/* The first release up to t whose signed decomposition uses a node, 0: none. */
static uint32_t
first_use(const Decomps *dc, uint32_t t, int level, uint32_t index)
{
	uint32_t	u;
	size_t		a;

	for (u = 1; u <= t; u++)
		for (a = dc->off[u]; a < dc->off[u + 1]; a++)
			if (dc->level[a] == level && dc->index[a] == index)
				return u;
	return 0;
}

/*
 * The map a kept node must have after release t: the latest release before
 * its first events (its first step s0 - 1); a node holding step 1 takes
 * its first publication's, 0 (pending) until then.  With signed digits a
 * node below the top level, past the first top-level node, takes the map
 * of the top-level node holding it: the release before that one's first
 * step.
 */
static uint32_t
expected_map(const Decomps *dc, uint32_t t, int level, uint32_t index)
{
	uint64_t	span = 1,
				top_span = 1;
	uint32_t	s0,
				fu,
				top;
	int			l;

	for (l = 0; l < level; l++)
		span *= (uint64_t) dc->arity;
	for (l = 0; l < dc->h - 1; l++)
		top_span *= (uint64_t) dc->arity;
	s0 = (uint32_t) ((index - 1) * span + 1);
	top = (uint32_t) ((s0 - 1) / top_span + 1);
	if (dc->signed_digits && level < dc->h - 1 && top > 1)
		return (uint32_t) ((top - 1) * top_span);
	fu = first_use(dc, t, level, index);
	if (s0 == 1)
		return fu;
	return fu != 0 && fu < s0 ? fu : s0 - 1;
}

/*
 * A sliding window (inserts at every step but two empty ones, deletions
 * from step W + 1): at every release the signed nodes hold exactly the
 * table's rows and every kept node is keyed by the map its first events,
 * publication or top-level node fixed, under the default tree of the
 * horizon and under ternary ones (five levels at T = 64: pending nodes,
 * pruning; four at T = 40, whose releases past step 27 sum signed digits
 * with nodes not yet open); the state keeps few nodes and drops the old
 * ones.
 */
static void
window_rows(int d, int k, uint32_t T, uint32_t W, int level, int arity)
{
	Stream		st;
	Table		tb;
	uint32_t	t;
	int			wrong = 0,
				empty_rows_ok = 1,
				maxnodes = 0,
				maxcoreset = 0,
				i;
	uint32_t	first_wrong = 0;
	int64_t		got_wrong = 0,
				want_wrong = 0;
	Decomps		dc;
	int			map_wrong = 0,
				map_level = 0,
				signed_releases = 0;
	uint32_t	map_t = 0,
				map_index = 0,
				map_got = 0,
				map_want = 0;

	stream_make(&st, d, k, T, W, false, (uint64_t) d * 1000 + (uint64_t) arity);
	table_init(&tb, d, k, 1.0, T, level, arity, 7000 + (uint64_t) arity);
	decomps_make(&dc, tb.cfg.arity, tb.rs.h, tb.rs.signed_digits, T);
	CHECK(tb.cfg.arity >= 3 && dpk_regions_supported(&tb.cfg),
		  "d %d arity %d: the table lifts by regions", d, tb.cfg.arity);
	for (t = 1; t <= T; t++)
	{
		DpkLiveRelease rel;
		int64_t		rows = -1,
					before = tb.rows;
		size_t		events;

		events = table_step(&tb, &st, t);
		if (t == st.empty || t == st.empty + W)
			empty_rows_ok &= events == 0 && tb.rows == before;
		table_release(&tb, t, &rel, &rows);
		{
			int			lv[DPK_TREE_MAX_SIGNED],
						sg[DPK_TREE_MAX_SIGNED],
						n,
						a;
			uint32_t	ix[DPK_TREE_MAX_SIGNED];

			n = dpk_regions_nodes(tb.rs.arity, tb.rs.h, tb.rs.signed_digits, t, lv, ix, sg);

			for (a = 0; a < n && sg[a] > 0; a++)
				;
			signed_releases += a < n;
		}
		if (rows != tb.rows && wrong++ == 0)
		{
			first_wrong = t;
			got_wrong = rows;
			want_wrong = tb.rows;
		}
		if (tb.rs.nnodes > maxnodes)
			maxnodes = tb.rs.nnodes;
		if (rel.coreset_size > maxcoreset)
			maxcoreset = rel.coreset_size;
		dpk_live_release_free(&rel);
		for (i = 0; i < tb.rs.nnodes; i++)
		{
			const DpkRegionNode *nd = &tb.rs.nodes[i];
			uint32_t	want = expected_map(&dc, t, nd->level, nd->index);

			if (nd->map != want && map_wrong++ == 0)
			{
				map_t = t;
				map_level = nd->level;
				map_index = nd->index;
				map_got = nd->map;
				map_want = want;
			}
		}
	}
	CHECK(map_wrong == 0,
		  "d %d arity %d: %d nodes keyed by the wrong map, first after release %u: "
		  "node (%d, %u) map %u, not %u", d, tb.cfg.arity, map_wrong, map_t, map_level,
		  map_index, map_got, map_want);
	CHECK(empty_rows_ok, "d %d arity %d: the empty steps had events", d, tb.cfg.arity);
	CHECK(maxcoreset >= 2, "d %d arity %d: every coreset below 2 cells", d, tb.cfg.arity);
	CHECK(wrong == 0,
		  "d %d arity %d: %d releases hold the wrong rows, first t = %u: %lld, the table %lld",
		  d, tb.cfg.arity, wrong, first_wrong, (long long) got_wrong, (long long) want_wrong);
	CHECK(tb.rs.t == T, "d %d arity %d: state at %u after release %u", d, tb.cfg.arity,
		  tb.rs.t, T);
	{
		uint64_t	top_span = 1;

		for (i = 0; i < tb.rs.h - 1; i++)
			top_span *= (uint64_t) tb.cfg.arity;
		CHECK(tb.rs.signed_digits && (T <= top_span + 1 || signed_releases > 0),
			  "d %d arity %d T %u: a new state sums signed digits past step %llu "
			  "(%d releases with a negative node)", d, tb.cfg.arity, T,
			  (unsigned long long) top_span, signed_releases);
	}
	CHECK(maxnodes <= tb.rs.h * (3 * tb.cfg.arity + 2),
		  "d %d arity %d: %d nodes kept over %d levels", d, tb.cfg.arity, maxnodes, tb.rs.h);
	if (T > 2 * (uint32_t) tb.cfg.arity + 1)
		CHECK(tb.rs.pruned_below[0] > 1,
			  "d %d arity %d: no level-0 node dropped by T = %u", d, tb.cfg.arity, T);
	decomps_free(&dc);
	table_free(&tb);
	stream_free(&st);
}

/*
 * Level 1 (64 cells a copy) keeps 64 releases fast: the noisy histogram
 * draws every cell's tree noise, 0.2-0.5 s a release at level 2 (4096
 * cells); one short run at level 2.
 */
static void
test_window_rows(void)
{
	window_rows(8, 3, 64, 16, 1, 0);
	window_rows(16, 4, 64, 16, 1, 3);
	window_rows(8, 3, 40, 12, 1, 3);
	window_rows(8, 3, 16, 6, 2, 0);
}

/* ---------------------------------------------------------------------- */

/*
 * The centres' sizes weigh the regions' count coordinate (a row adds U/2
 * to it, so at d = 64 it carries the cube noise of 65 coordinates: far
 * noisier than the cells' counts) against the cells' noisy counts: over
 * many keys whose release has a centre per cluster, the sizes' squared
 * error is below that coordinate's variance alone, and not far below the
 * combined variance of the two estimates (the weights are inverse
 * variances: no weighting of the two does better).
 */
static void
test_sizes(void)
{
	enum
	{
		D = 64, K = 3, KEYS = 60
	};
	const double EPS = 4.0;
	const uint32_t T = 8;
	Stream		st;
	double		sq = 0.0,
				var_r = 0.0,
				var_c = 0.0,
				both;
	int			n = 0,
				key;

	stream_make(&st, D, K, T, T, false, 77);
	for (key = 0; key < KEYS; key++)
	{
		Table		tb;
		DpkLiveRelease rel;
		DpkLiveConfig wide;
		DpkNoise	sn;
		int64_t		rows;
		uint32_t	t;
		int			lv[DPK_TREE_MAX_SIGNED],
					c;
		uint32_t	ix[DPK_TREE_MAX_SIGNED];
		int			nearest[K],
					hit[K] = {0};
		double		err[K];
		bool		bijection = true;

		table_init(&tb, D, K, EPS, T, 1, 0, 9000 + (uint64_t) key);
		for (t = 1; t <= T; t++)
		{
			table_step(&tb, &st, t);
			table_release(&tb, t, &rel, &rows);
			if (t < T)
				dpk_live_release_free(&rel);
		}
		if (key == 0)
		{
			/*
			 * a centre's count coordinate: one draw per node (one region
			 * each when the owners are a bijection), 4 node_var rows^2
			 */
			dpk_regions_sum_config(&tb.cfg, &wide);
			sn = dpk_live_sum_noise(&wide);
			var_r = dpk_regions_decompose(tb.rs.arity, T, lv, ix) * 4.0 *
				dpk_noise_variance(&sn, D + 1) / ((double) DPK_LIFT_UNITS * DPK_LIFT_UNITS);
			/* the cells' count: the counted level's cells, shared by k */
			var_c = (double) dpk_live_copy_cells(&tb.cfg) / K *
				dpk_live_projected_count_var(&tb.cfg, T);
		}
		for (c = 0; c < K; c++)
		{
			double		mean[D],
						best = HUGE_VAL,
						cn = 0.0;
			const double *centres = rel.centers + (size_t) dpk_live_block(K) * D;
			size_t		i;
			int			a,
						b = 0,
						j;

			memset(mean, 0, sizeof(mean));
			for (i = st.start[1]; i < st.start[T + 1]; i++)
				if (st.cluster[i] == c)
				{
					cn += 1.0;
					for (j = 0; j < D; j++)
						mean[j] += st.x[i * D + j];
				}
			for (a = 0; a < K; a++)
			{
				double		d2 = 0.0;

				for (j = 0; j < D; j++)
					d2 += (centres[a * D + j] - mean[j] / cn) *
						(centres[a * D + j] - mean[j] / cn);
				if (d2 < best)
				{
					best = d2;
					b = a;
				}
			}
			nearest[c] = b;
			err[c] = rel.sizes[dpk_live_block(K) + b] - cn;
		}
		/* sizes of the right partition only (a centre per cluster) */
		for (c = 0; c < K; c++)
			bijection = bijection && hit[nearest[c]]++ == 0;
		for (c = 0; c < K && bijection; c++)
		{
			sq += err[c] * err[c];
			n++;
		}
		dpk_live_release_free(&rel);
		table_free(&tb);
	}
	both = var_r * var_c / (var_r + var_c);
	CHECK(n >= 2 * KEYS, "%d of %d keys with a centre per cluster", n / K, KEYS);
	CHECK(both < 0.6 * var_r, "d = %d: the cells' count (variance %.0f) adds little to the "
		  "regions' (%.0f)", D, var_c, var_r);
	CHECK(n > 0 && sq / n < 0.8 * var_r && sq / n > 0.5 * both,
		  "sizes' mean squared error %.0f over %d centres: the regions' count alone %.0f, "
		  "both %.0f", n ? sq / n : 0.0, n, var_r, both);
	stream_free(&st);
}

/* ---------------------------------------------------------------------- */

/*
 * How far release t's k centres are from the means of the clusters the
 * table holds after step t: the largest coordinate error of each cluster's
 * nearest centre, the largest error of that centre's size against the
 * cluster's rows, and the sum of the k sizes.
 */
static void
exact_errors(const Stream *st, uint32_t t, const DpkLiveRelease *rel, double *centre_err,
			 double *size_err, double *total)
{
	int			d = st->d,
				k = st->k,
				c,
				j,
				a;
	const double *centres = rel->centers + (size_t) dpk_live_block(k) * d;
	double	   *mean = dpk_alloc0(sizeof(double) * k * d),
			   *n = dpk_alloc0(sizeof(double) * k);
	size_t		i;

	*centre_err = *size_err = *total = 0.0;
	for (i = st->start[stream_first(st, t)]; i < st->start[t + 1]; i++)
	{
		c = st->cluster[i];
		n[c] += 1.0;
		for (j = 0; j < d; j++)
			mean[c * d + j] += st->x[i * d + j];
	}
	for (c = 0; c < k; c++)
	{
		double		best = HUGE_VAL;
		int			b = 0;

		for (j = 0; j < d; j++)
			mean[c * d + j] /= n[c];
		for (a = 0; a < k; a++)
		{
			double		d2 = 0.0;

			for (j = 0; j < d; j++)
				d2 += (centres[a * d + j] - mean[c * d + j]) *
					(centres[a * d + j] - mean[c * d + j]);
			if (d2 < best)
			{
				best = d2;
				b = a;
			}
		}
		for (j = 0; j < d; j++)
			*centre_err = fmax(*centre_err, fabs(centres[b * d + j] - mean[c * d + j]));
		*size_err = fmax(*size_err, fabs(rel->sizes[dpk_live_block(k) + b] - n[c]));
	}
	for (a = 0; a < k; a++)
		*total += rel->sizes[dpk_live_block(k) + a];
	dpk_free(mean);
	dpk_free(n);
}

/*
 * Without noise (epsilon 1e9) the k centres are the clusters' exact means
 * (to the lifting's quantization, 100 / 2048 of the box) and their sizes
 * the clusters' rows: at the last release, and at every release of the
 * window (nodes keyed by older maps; in the ternary tree negative digits
 * whose nodes hold the current step's events).
 */
static void
exact(int arity)
{
	enum
	{
		D = 8, K = 3
	};
	const uint32_t T = 64,
				W = 16;
	const double tol = 100.0 / 2048.0;
	Stream		st;
	Table		tb;
	double		largest,
				worst_centre = 0.0,
				worst_size = 0.0,
				centre_err = 0.0,
				size_err = 0.0,
				total = 0.0;
	uint32_t	t,
				t_centre = 0,
				t_size = 0;
	int64_t		rows = -1;

	stream_make(&st, D, K, T, W, false, 31);
	table_init(&tb, D, K, 1e9, T, 1, arity, 4242);
	CHECK(dpk_live_scales_representable(&tb.cfg, &largest),
		  "epsilon 1e9: scales not representable");
	for (t = 1; t <= T; t++)
	{
		DpkLiveRelease rel;

		table_step(&tb, &st, t);
		table_release(&tb, t, &rel, &rows);
		exact_errors(&st, t, &rel, &centre_err, &size_err, &total);
		if (centre_err > worst_centre)
		{
			worst_centre = centre_err;
			t_centre = t;
		}
		if (size_err > worst_size)
		{
			worst_size = size_err;
			t_size = t;
		}
		dpk_live_release_free(&rel);
	}
	CHECK(rows == tb.rows, "noiseless, arity %d: %lld rows, the table %lld", tb.cfg.arity,
		  (long long) rows, (long long) tb.rows);
	CHECK(centre_err < tol, "noiseless, arity %d: a centre %.4f off its cluster's mean at %u",
		  tb.cfg.arity, centre_err, T);
	CHECK(size_err < 0.5, "noiseless, arity %d: a size %.3f off its cluster's rows at %u",
		  tb.cfg.arity, size_err, T);
	CHECK(fabs(total - (double) tb.rows) < 0.5,
		  "noiseless, arity %d: sizes sum to %.3f, %lld rows", tb.cfg.arity, total,
		  (long long) tb.rows);
	CHECK(worst_centre < tol, "noiseless, arity %d: a centre %.4f off its cluster's mean at %u",
		  tb.cfg.arity, worst_centre, t_centre);
	CHECK(worst_size < 0.5, "noiseless, arity %d: a size %.3f off its cluster's rows at %u",
		  tb.cfg.arity, worst_size, t_size);
	table_free(&tb);
	stream_free(&st);
}

static void
test_exact(void)
{
	exact(0);
	exact(3);
}

/* ---------------------------------------------------------------------- */

/* Releases 1..t of a window stream. */
static void
table_run(Table *tb, const Stream *st, uint32_t t_end)
{
	uint32_t	t;

	for (t = 1; t <= t_end; t++)
	{
		DpkLiveRelease rel;
		int64_t		rows;

		table_step(tb, st, t);
		table_release(tb, t, &rel, &rows);
		dpk_live_release_free(&rel);
	}
}

/* Whether two releases of k centres in d are bit-identical. */
static bool
same_release(const DpkLiveRelease *a, const DpkLiveRelease *b, int k, int d)
{
	size_t		nb = (size_t) dpk_live_block(k + 1);

	return a->level == b->level && a->coreset_size == b->coreset_size &&
		memcmp(&a->noisy_n, &b->noisy_n, sizeof(double)) == 0 &&
		memcmp(a->centers, b->centers, sizeof(double) * nb * d) == 0 &&
		memcmp(a->sizes, b->sizes, sizeof(double) * nb) == 0 &&
		memcmp(a->costs, b->costs, sizeof(double) * k) == 0;
}

/* Whether buf[0 .. len) deserializes under cfg (the state freed again). */
static bool
loads(const DpkLiveConfig *cfg, const uint8_t *buf, size_t len)
{
	DpkRegions	rs;

	if (!dpk_regions_deserialize(&rs, cfg, buf, len))
		return false;
	dpk_regions_free(&rs);
	return true;
}

/*
 * Whether a clustered and a uniform table at the same release store the
 * same number of bytes although fewer cells and regions hold rows in the
 * first.
 */
static void
check_same_size(const Table *ta, const Table *tu, uint64_t prev_pad)
{
	uint8_t    *buf;
	size_t		la,
				lu;
	int			i,
				ea = 0,
				eu = 0;

	for (i = 0; i < ta->rs.nnodes; i++)
		ea += nonzero_entries(&ta->rs.nodes[i].sums);
	for (i = 0; i < tu->rs.nnodes; i++)
		eu += nonzero_entries(&tu->rs.nodes[i].sums);
	CHECK(ta->rs.t == tu->rs.t && nonzero_entries(&ta->rs.prev) < nonzero_entries(&tu->rs.prev) &&
		  ea < eu, "size at %u: the data should differ: %d and %d cells, %d and %d regions",
		  ta->rs.t, nonzero_entries(&ta->rs.prev), nonzero_entries(&tu->rs.prev), ea, eu);
	buf = dpk_regions_serialize(&ta->rs, prev_pad, &la);
	dpk_free(buf);
	buf = dpk_regions_serialize(&tu->rs, prev_pad, &lu);
	dpk_free(buf);
	CHECK(la == lu, "size at %u: %zu bytes for clusters, %zu for uniform rows", ta->rs.t, la,
		  lu);
}

/*
 * The stored form: a round trip gives the same bytes and the same next
 * release, bit for bit; its size does not depend on the data; truncated,
 * extended or corrupted bytes and another k, d or level are refused.
 */
static void
test_serialize(void)
{
	enum
	{
		D = 8, K = 3
	};
	const uint32_t T = 64,
				W = 16,
				TS = 20;
	const uint64_t prev_pad = 128;
	Stream		sa,
				su;
	Table		ta,
				tu;
	DpkRegions	copy;
	DpkLiveRelease ra,
				rb;
	DpkLiveConfig other;
	Noisy		nz;
	uint8_t    *buf,
			   *buf2,
			   *bad;
	size_t		len,
				len2,
				cut,
				map0,
				first_loaded = 0;
	int64_t		rowa = -1,
				rowb = -2;
	int			truncated_ok = 1;

	stream_make(&sa, D, 1, T, W, false, 5);
	stream_make(&su, D, K, T, W, true, 6);
	table_init(&ta, D, K, 50.0, T, 1, 0, 99);
	table_init(&tu, D, K, 50.0, T, 1, 0, 99);
	table_run(&ta, &sa, TS);
	table_run(&tu, &su, TS);
	check_same_size(&ta, &tu, prev_pad);

	/* round trip */
	buf = dpk_regions_serialize(&ta.rs, prev_pad, &len);
	CHECK(dpk_regions_deserialize(&copy, &ta.cfg, buf, len), "round trip: refused");
	buf2 = dpk_regions_serialize(&copy, prev_pad, &len2);
	CHECK(len2 == len && memcmp(buf, buf2, len) == 0,
		  "round trip: %zu bytes, again %zu, or different bytes", len, len2);
	dpk_free(buf2);
	/* the padded map of the released cells last: its length, then its bytes */
	{
		size_t		plen;
		uint8_t    *pm = dpk_cellmap_serialize_padded(&ta.rs.prev, prev_pad, &plen);
		uint64_t	n = 0;

		CHECK(len >= plen + 8, "stored map: %zu bytes in all, the map %zu", len, plen);
		if (len >= plen + 8)
			memcpy(&n, buf + len - plen - 8, 8);
		CHECK(len >= plen + 8 && n == plen && memcmp(buf + len - plen, pm, plen) == 0,
			  "stored map: not the padded map's %zu bytes", plen);
		dpk_free(pm);
	}

	/* the next release from either state, on the same inputs */
	table_step(&ta, &sa, TS + 1);
	table_noisy(&ta, TS + 1, &nz);
	table_release_from(&ta, &ta.rs, TS + 1, &nz, &ra, &rowa);
	table_release_from(&ta, &copy, TS + 1, &nz, &rb, &rowb);
	noisy_free(&nz);
	CHECK(same_release(&ra, &rb, K, D), "round trip: the next release differs");
	CHECK(rowa == rowb && rowa == ta.rows, "round trip: rows %lld and %lld, the table %lld",
		  (long long) rowa, (long long) rowb, (long long) ta.rows);
	{
		size_t		l1,
					l2;
		uint8_t    *b1 = dpk_regions_serialize(&ta.rs, prev_pad, &l1),
				   *b2 = dpk_regions_serialize(&copy, prev_pad, &l2);

		CHECK(l1 == l2 && memcmp(b1, b2, l1) == 0,
			  "round trip: the states differ after the next release");
		dpk_free(b1);
		dpk_free(b2);
	}
	dpk_live_release_free(&ra);
	dpk_live_release_free(&rb);
	dpk_regions_free(&copy);
	table_step(&tu, &su, TS + 1);
	table_release(&tu, TS + 1, &ra, &rowa);
	dpk_live_release_free(&ra);
	check_same_size(&ta, &tu, prev_pad);

	/* malformed bytes (the state at TS) */
	CHECK(loads(&ta.cfg, buf, len), "malformed: the intact bytes refused");
	for (cut = 0; cut < len; cut += cut < 96 ? 1 : 173)
		if (loads(&ta.cfg, buf, cut) && truncated_ok)
		{
			truncated_ok = 0;
			first_loaded = cut;
		}
	if (loads(&ta.cfg, buf, len - 1) && truncated_ok)
	{
		truncated_ok = 0;
		first_loaded = len - 1;
	}
	CHECK(truncated_ok, "malformed: %zu of %zu bytes accepted", first_loaded, len);
	bad = dpk_alloc(len + 1);
	memcpy(bad, buf, len);
	bad[len] = 0;
	CHECK(!loads(&ta.cfg, bad, len + 1), "malformed: a trailing byte accepted");
	bad[0] ^= 0x5a;
	CHECK(!loads(&ta.cfg, bad, len), "malformed: a wrong magic accepted");
	bad[0] ^= 0x5a;
	bad[4] ^= 0x01;
	CHECK(!loads(&ta.cfg, bad, len), "malformed: a wrong version accepted");
	bad[4] ^= 0x01;
	/* the format flag: 0 or 1 */
	bad[32] = 2;
	CHECK(!loads(&ta.cfg, bad, len), "malformed: a format flag of 2 accepted");
	bad[32] = 1;
	/* the first map's first region: after the header, pc and pruned_below */
	map0 = 9 * 4 + 8 + 4 + 4 + sizeof(double) * K * ta.cfg.dhat + 4 * (size_t) ta.rs.h + 4 + 4;
	CHECK(map0 < len && bad[map0] < K, "malformed: no map where expected");
	bad[map0] = K;
	CHECK(!loads(&ta.cfg, bad, len), "malformed: a region beyond k accepted");
	bad[map0] = K - 1;
	CHECK(loads(&ta.cfg, bad, len), "malformed: region %d refused", K - 1);
	/* format 1 (no flag after the header) reads back as complete nodes */
	{
		uint32_t	v1 = 1;

		memcpy(bad, buf, 32);
		memcpy(bad + 32, buf + 36, len - 36);
		memcpy(bad + 4, &v1, 4);
		CHECK(dpk_regions_deserialize(&copy, &ta.cfg, bad, len - 4) && !copy.signed_digits &&
			  copy.t == ta.rs.t - 1 && ta.rs.signed_digits,
			  "format 1: refused, or read as signed digits");
		dpk_regions_free(&copy);
	}
	dpk_free(bad);
	other = ta.cfg;
	other.k = K + 1;
	CHECK(!loads(&other, buf, len), "malformed: accepted for k = %d", other.k);
	other.k = K - 1;
	CHECK(!loads(&other, buf, len), "malformed: accepted for k = %d", other.k);
	other = ta.cfg;
	other.d = D + 1;
	CHECK(!loads(&other, buf, len), "malformed: accepted for d = %d", other.d);
	other.d = D - 1;
	CHECK(!loads(&other, buf, len), "malformed: accepted for d = %d", other.d);
	other = ta.cfg;
	other.level = ta.cfg.level + 1;
	CHECK(!loads(&other, buf, len), "malformed: accepted for level %d", other.level);
	dpk_free(buf);
	table_free(&ta);
	table_free(&tu);
	stream_free(&sa);
	stream_free(&su);
}

/* ---------------------------------------------------------------------- */

/*
 * dpk_fail caught as a backend's ereport would: the hook jumps back, and the
 * memory the failed call allocated is freed as its memory context would be
 * (the arena's hooks track every allocation while they are set).
 */
static jmp_buf fail_jump;
static char fail_what[256];
static void **arena;
static size_t arena_n,
			arena_cap;

static void
fail_catch(const char *what)
{
	snprintf(fail_what, sizeof(fail_what), "%s", what);
	longjmp(fail_jump, 1);
}

static void *
arena_alloc(size_t size)
{
	void	   *p = malloc(size ? size : 1);

	if (p == NULL)
		abort();
	if (arena_n == arena_cap)
	{
		size_t		cap = arena_cap ? 2 * arena_cap : 256;
		void	  **a = realloc(arena, sizeof(void *) * cap);

		if (a == NULL)
			abort();
		arena = a;
		arena_cap = cap;
	}
	arena[arena_n++] = p;
	return p;
}

static void
arena_free(void *p)
{
	size_t		i;

	for (i = arena_n; i > 0; i--)
		if (arena[i - 1] == p)
		{
			arena[i - 1] = arena[--arena_n];
			break;
		}
	free(p);
}

/*
 * Whether release t of tb's state under cfg stops through dpk_fail (its
 * message in fail_what); when it does not, the release is made and freed.
 */
static bool
release_fails(Table *tb, const DpkLiveConfig *cfg, uint32_t t)
{
	dpk_alloc_fn saved_alloc = dpk_alloc_hook;
	dpk_free_fn saved_free = dpk_free_hook;
	dpk_fail_fn saved_fail = dpk_fail_hook;
	volatile bool failed = false;
	Noisy		nz;
	DpkLiveRelease rel;
	int64_t		rows;

	table_noisy(tb, tb->rs.t + 1, &nz);
	fail_what[0] = '\0';
	arena_n = 0;
	dpk_fail_hook = fail_catch;
	dpk_alloc_hook = arena_alloc;
	dpk_free_hook = arena_free;
	if (setjmp(fail_jump) == 0)
		dpk_regions_release(&tb->rs,
							&(DpkRegionsTable) {cfg, &tb->box, &tb->proj, tb->key},
							&(DpkRegionsInput) {t, &tb->map, nz.count, nz.cells, nz.sumnorm, nz.seed},
							&(DpkRegionsOut) {&rel, NULL, &rows});
	else
		failed = true;
	dpk_alloc_hook = saved_alloc;
	dpk_free_hook = saved_free;
	dpk_fail_hook = saved_fail;
	if (failed)
	{
		/* the failed call's memory context */
		while (arena_n > 0)
			free(arena[--arena_n]);
	}
	else
	{
		arena_n = 0;			/* the release's and the state's, freed later */
		dpk_live_release_free(&rel);
	}
	noisy_free(&nz);
	return failed;
}

/*
 * A release refuses a state that is not at the release before it (a
 * repeated or skipped release, another k), leaving the state usable.
 */
static void
test_out_of_step(void)
{
	const uint32_t T = 64,
				W = 16;
	Stream		st;
	Table		tb;
	DpkLiveConfig other;
	DpkLiveRelease rel;
	int64_t		rows;

	stream_make(&st, 8, 3, T, W, false, 17);
	table_init(&tb, 8, 3, 1.0, T, 1, 0, 17);
	table_run(&tb, &st, 5);
	table_step(&tb, &st, 6);
	CHECK(release_fails(&tb, &tb.cfg, 5), "out of step: release 5 repeated");
	CHECK(strstr(fail_what, "not at the release before") != NULL,
		  "out of step: failed with \"%s\"", fail_what);
	CHECK(release_fails(&tb, &tb.cfg, 7), "out of step: release 6 skipped");
	CHECK(release_fails(&tb, &tb.cfg, 0), "out of step: release 0");
	other = tb.cfg;
	other.k = 2;
	CHECK(release_fails(&tb, &other, 6), "out of step: another k");
	CHECK(tb.rs.t == 5, "out of step: the state moved to %u", tb.rs.t);
	CHECK(!release_fails(&tb, &tb.cfg, 6), "out of step: release 6 refused (%s)", fail_what);
	CHECK(tb.rs.t == 6, "out of step: the state at %u after release 6", tb.rs.t);
	table_step(&tb, &st, 7);
	table_release(&tb, 7, &rel, &rows);
	CHECK(rows == tb.rows, "out of step: %lld rows at 7, the table %lld", (long long) rows,
		  (long long) tb.rows);
	dpk_live_release_free(&rel);
	table_free(&tb);
	stream_free(&st);
	free(arena);
	arena = NULL;
	arena_cap = 0;
}

/* ---------------------------------------------------------------------- */

/*
 * The switch: a pure projected d = 384 table with the defaults lifts by
 * regions at horizons 4 and 16; d = 16, Gaussian noise, two copies, the
 * binary tree and a table without projection do not.
 */
static void
test_use_regions(void)
{
	static const uint32_t horizons[] = {4, 16};
	size_t		i;
	int			window;

	for (i = 0; i < 2; i++)
		for (window = 0; window <= 1; window++)
		{
			DpkLiveConfig cfg,
						alt;

			dpk_live_defaults(&cfg, 384, 10, 1.0, horizons[i], !window);
			dpk_live_use_projection(&cfg, 1);
			cfg.level = 2;		/* a counted level with cells to key */
			/* with or without deletions (signed digits, region state format 2) */
			CHECK(dpk_live_use_regions(&cfg),
				  "d 384 T %u window %d: regions %d (sum sd %.1f)", horizons[i], window,
				  dpk_live_use_regions(&cfg), dpk_live_level_sum_sd(&cfg));
			alt = cfg;
			alt.level = 0;		/* one cell a copy, the mean only */
			CHECK(!dpk_live_use_regions(&alt), "d 384 T %u window %d: regions at level 0",
				  horizons[i], window);
			alt = cfg;
			dpk_live_use_delta(&alt, 1e-6);
			CHECK(!dpk_live_use_regions(&alt) && !dpk_regions_supported(&alt),
				  "d 384 T %u window %d: regions with delta", horizons[i], window);
			alt = cfg;
			alt.delta = 1e-6;	/* the tree kept */
			CHECK(!dpk_regions_supported(&alt),
				  "d 384 T %u window %d: supported with delta", horizons[i], window);
			alt = cfg;
			alt.copies = 2;
			CHECK(!dpk_live_use_regions(&alt) && !dpk_regions_supported(&alt),
				  "d 384 T %u window %d: regions with 2 copies", horizons[i], window);
			alt = cfg;
			alt.arity = DPK_TREE_ARITY_BINARY;
			CHECK(!dpk_live_use_regions(&alt) && !dpk_regions_supported(&alt),
				  "d 384 T %u window %d: regions, binary tree", horizons[i], window);
			dpk_live_defaults(&alt, 384, 10, 1.0, horizons[i], !window);
			CHECK(!dpk_live_use_regions(&alt) && !dpk_regions_supported(&alt),
				  "d 384 T %u window %d: regions, no projection", horizons[i], window);
			alt = cfg;
			alt.k = 256;
			CHECK(!dpk_regions_supported(&alt), "d 384 T %u window %d: k = 256 supported",
				  horizons[i], window);
			alt.k = 255;
			CHECK(dpk_regions_supported(&alt), "d 384 T %u window %d: k = 255 unsupported",
				  horizons[i], window);
		}
	{
		/*
		 * tables with deletions switch on the sum noise's norm
		 * (DPK_LIVE_REGIONS_DELETE_SUM_NORM): some window here has a noise
		 * above the insert-only switch and keeps the cells, some lifts by
		 * regions
		 */
		static const int dims[] = {32, 64};
		static const uint32_t hz[] = {64, 256, 1024};
		int			between = 0,
					regions = 0,
					wrong = 0,
					di,
					hi;

		for (di = 0; di < 2; di++)
			for (hi = 0; hi < 3; hi++)
			{
				DpkLiveConfig cfg;
				double		sd;

				dpk_live_defaults(&cfg, dims[di], 10, 1.0, hz[hi], false);
				dpk_live_use_projection(&cfg, 1);
				cfg.level = 2;
				sd = dpk_live_level_sum_sd(&cfg);
				if (dpk_live_use_regions(&cfg) !=
					(sd * sqrt((double) dims[di]) >= DPK_LIVE_REGIONS_DELETE_SUM_NORM))
					wrong++;
				between += sd >= DPK_LIVE_REGIONS_SUM_SD && !dpk_live_use_regions(&cfg);
				regions += dpk_live_use_regions(&cfg);
			}
		CHECK(wrong == 0 && between > 0 && regions > 0,
			  "windows: %d switched against DPK_LIVE_REGIONS_DELETE_SUM_NORM, %d above the "
			  "insert-only switch on cells, %d by regions", wrong, between, regions);
	}
	for (window = 0; window <= 1; window++)
	{
		DpkLiveConfig cfg;

		dpk_live_defaults(&cfg, 16, 10, 1.0, 16, !window);
		dpk_live_use_projection(&cfg, 1);
		cfg.level = 2;
		CHECK(dpk_regions_supported(&cfg), "d 16 window %d: unsupported", window);
		CHECK(!dpk_live_use_regions(&cfg), "d 16 T 16 window %d: regions (sum sd %.1f)",
			  window, dpk_live_level_sum_sd(&cfg));
	}
}

/*
 * The region sums' decomposition: the nodes of release t tile [1, t]
 * exactly once and every one has ended by t, so no node is published
 * before all of its rows are in it (with maps that differ between nodes, a
 * node reaching past t would let a centre's sum keep a later step's rows
 * without their cancelling noise: doc/privacy.md).
 */
static void
test_decompose(void)
{
	int			arities[] = {3, 4, 7, 11, 13, 15};
	int			lv[DPK_TREE_MAX_SIGNED];
	uint32_t	ix[DPK_TREE_MAX_SIGNED];
	uint8_t    *hit = dpk_alloc(1100);
	size_t		ai;
	int			bad_tile = 0,
				bad_end = 0,
				most = 0;

	for (ai = 0; ai < sizeof(arities) / sizeof(arities[0]); ai++)
	{
		uint32_t	t;

		for (t = 1; t <= 1024; t++)
		{
			int			n = dpk_regions_decompose(arities[ai], t, lv, ix),
						a;
			uint32_t	i;

			memset(hit, 0, 1100);
			for (a = 0; a < n; a++)
			{
				uint64_t	span = 1,
							first,
							last;
				int			l;

				for (l = 0; l < lv[a]; l++)
					span *= (uint64_t) arities[ai];
				first = (uint64_t) (ix[a] - 1) * span + 1;
				last = (uint64_t) ix[a] * span;
				if (last > t)
					bad_end++;
				for (i = (uint32_t) first; i <= last && i < 1100; i++)
					hit[i]++;
			}
			for (i = 1; i <= t; i++)
				if (hit[i] != 1)
					bad_tile++;
			if (n > most)
				most = n;
		}
	}
	CHECK(bad_end == 0, "%d region nodes reach past their release", bad_end);
	CHECK(bad_tile == 0, "%d steps not covered exactly once", bad_tile);
	CHECK(most > 1, "releases sum several nodes (%d at most)", most);
	dpk_free(hit);
}

/*
 * The nodes a format-2 table sums (dpk_regions_nodes): within the first
 * top-level node the complete nodes; past it signed nodes whose signs
 * cover every step up to t once and every later step net zero, where every
 * node reaching past t lies in the top-level node holding t (so they all
 * share its map), the nodes below the top level all lie there, and the
 * top level's nodes are positive.  Some releases do reach past t.
 */
static void
test_signed_nodes(void)
{
	static const uint32_t horizons[] = {13, 16, 40, 64, 256, 1024, 1100};
	int			lv[DPK_TREE_MAX_SIGNED],
				sg[DPK_TREE_MAX_SIGNED];
	uint32_t	ix[DPK_TREE_MAX_SIGNED];
	int		   *cover = dpk_alloc(sizeof(int) * 4400);
	long		bad_cover = 0,
				bad_block = 0,
				bad_first = 0,
				past = 0;
	int			arity;
	size_t		hi;

	for (arity = 3; arity <= 16; arity++)
		for (hi = 0; hi < sizeof(horizons) / sizeof(horizons[0]); hi++)
		{
			uint32_t	T = horizons[hi],
						t;
			int			h = dpk_tree_shape_height(arity, T),
						l;
			uint64_t	top_span = 1;

			for (l = 0; l < h - 1; l++)
				top_span *= (uint64_t) arity;
			for (t = 1; t <= T; t++)
			{
				int			n = dpk_regions_nodes(arity, h, true, t, lv, ix, sg),
							a;
				uint64_t	s,
							far = t,
							top = (t - 1) / top_span + 1;

				memset(cover, 0, sizeof(int) * 4400);
				for (a = 0; a < n; a++)
				{
					uint64_t	span = 1,
								first,
								last;

					for (l = 0; l < lv[a]; l++)
						span *= (uint64_t) arity;
					first = (uint64_t) (ix[a] - 1) * span + 1;
					last = (uint64_t) ix[a] * span;
					if (lv[a] >= h || last >= 4400)
					{
						bad_block++;
						continue;
					}
					for (s = first; s <= last; s++)
						cover[s] += sg[a];
					if (last > far)
						far = last;
					if (t <= top_span && (sg[a] < 0 || last > t))
						bad_first++;
					if ((last > t || lv[a] < h - 1) && t > top_span &&
						((first - 1) / top_span + 1 != top || (last - 1) / top_span + 1 != top))
						bad_block++;
					if (lv[a] == h - 1 && sg[a] < 0)
						bad_block++;
				}
				for (s = 1; s <= far; s++)
					if (cover[s] != (s <= t ? 1 : 0))
						bad_cover++;
				past += far > t;
			}
		}
	CHECK(bad_cover == 0, "%ld steps covered other than once up to t and net zero after",
		  bad_cover);
	CHECK(bad_block == 0, "%ld nodes outside the top-level node of t, or negative at the top",
		  bad_block);
	CHECK(bad_first == 0, "%ld signed or unfinished nodes within the first top-level node",
		  bad_first);
	CHECK(past > 0, "no release reaches past t");
	dpk_free(cover);
}

/* ---------------------------------------------------------------------- */

/*
 * The original-space partition of the pieces.  Three clusters round A, B
 * and C (d = 64) in distinct projected cells, the projection misleading:
 * B is nearer A in the projected space (B - A = 0.45 n + 0.2 q2, C - A =
 * 0.4 q1, with q1, q2 the projection's first rows and n a unit vector of
 * its null space, so P (B - A) is 0.2 on the second axis and P (C - A) 0.4
 * on the first) but farther in R^d (|B - A| = 0.49 against |C - A| = 0.40,
 * normalized).  Without noise (epsilon 1e9) the projected k-means of two
 * centres merges A and B; the pieces' own k-means merges A and C, whose
 * cost on the rows is lower, and so two centres come out at B and at the
 * mean of A and C.  Three centres stay at A, B and C.
 */
static void
test_space_partition(void)
{
	enum
	{
		D = 64, K = 3, PER = 200
	};
	const double tol = 0.5;		/* box units, of 100 */
	Table		tb;
	DpkLiveRelease rel;
	double		ctr[K][D],
				nul[D],
				img[K][DPK_LIVE_DHAT],
				x[D],
				dist2_ab = 0.0,
				dist2_ac = 0.0;
	const double *q1,
			   *q2;
	uint64_t	rng = 77;
	int64_t		rows;
	int			dhat,
				c,
				i,
				j,
				a,
				m;
	bool		apart = true;

	table_init(&tb, D, K, 1e9, 4, 3, 0, 5151);
	dhat = tb.cfg.dhat;
	m = 1 << tb.cfg.level;
	q1 = tb.proj.mat;
	q2 = tb.proj.mat + D;
	/* e_1 less its part in P's row space: a direction P does not see */
	for (j = 0; j < D; j++)
		nul[j] = j == 0 ? 1.0 : 0.0;
	for (i = 0; i < dhat; i++)
	{
		const double *q = tb.proj.mat + (size_t) i * D;
		double		dot = q[0];

		for (j = 0; j < D; j++)
			nul[j] -= dot * q[j];
	}
	{
		double		norm = 0.0;

		for (j = 0; j < D; j++)
			norm += nul[j] * nul[j];
		for (j = 0; j < D; j++)
			nul[j] /= sqrt(norm);
	}
	for (j = 0; j < D; j++)
	{
		ctr[0][j] = 0.5;
		ctr[1][j] = 0.5 + 0.45 * nul[j] + 0.2 * q2[j];
		ctr[2][j] = 0.5 + 0.4 * q1[j];
		dist2_ab += (ctr[1][j] - ctr[0][j]) * (ctr[1][j] - ctr[0][j]);
		dist2_ac += (ctr[2][j] - ctr[0][j]) * (ctr[2][j] - ctr[0][j]);
	}
	dpk_project_batch(&tb.proj, &ctr[0][0], K, &img[0][0]);
	/* the construction: distinct projected cells, every coordinate in the box */
	for (c = 0; c < K; c++)
		for (a = c + 1; a < K; a++)
		{
			bool		pair = false;

			for (i = 0; i < dhat; i++)
				pair = pair || floor(img[c][i] * m) != floor(img[a][i] * m);
			apart = apart && pair;
		}
	CHECK(apart && dist2_ac < dist2_ab, "space partition: the clusters are not as built");
	for (c = 0; c < K; c++)
		for (j = 0; j < D; j++)
			CHECK(ctr[c][j] > 0.02 && ctr[c][j] < 0.98, "space partition: a centre off the box");

	for (c = 0; c < K; c++)
		for (i = 0; i < PER; i++)
		{
			for (j = 0; j < D; j++)
				x[j] = 100.0 * ctr[c][j] + (unit_uniform(&rng) - 0.5);
			table_add(&tb, x, +1);
		}
	table_release(&tb, 1, &rel, &rows);
	CHECK(rows == tb.rows, "space partition: %lld rows, the table %lld", (long long) rows,
		  (long long) tb.rows);

	/* two centres: one at B, the other at the mean of A and C */
	{
		const double *two = rel.centers + (size_t) dpk_live_block(2) * D;
		double		err[2][2] = {{0.0}};	/* centre, target (B, A and C) */

		for (a = 0; a < 2; a++)
			for (j = 0; j < D; j++)
			{
				err[a][0] = fmax(err[a][0], fabs(two[a * D + j] - 100.0 * ctr[1][j]));
				err[a][1] = fmax(err[a][1],
								 fabs(two[a * D + j] - 50.0 * (ctr[0][j] + ctr[2][j])));
			}
		a = err[0][0] < err[1][0] ? 0 : 1;
		CHECK(err[a][0] < tol && err[1 - a][1] < tol,
			  "space partition: two centres %.3f off B and %.3f off the mean of A and C",
			  err[a][0], err[1 - a][1]);
	}
	/* three centres: A, B and C */
	{
		const double *three = rel.centers + (size_t) dpk_live_block(3) * D;
		double		worst = 0.0;

		for (c = 0; c < K; c++)
		{
			double		best = HUGE_VAL;

			for (a = 0; a < K; a++)
			{
				double		e = 0.0;

				for (j = 0; j < D; j++)
					e = fmax(e, fabs(three[a * D + j] - 100.0 * ctr[c][j]));
				best = fmin(best, e);
			}
			worst = fmax(worst, best);
		}
		CHECK(worst < tol, "space partition: three centres, one %.3f off its cluster", worst);
	}
	dpk_live_release_free(&rel);
	table_free(&tb);
}

int
main(void)
{
	test_decompose();
	test_signed_nodes();
	test_node_live();
	test_window_rows();
	test_exact();
	test_sizes();
	test_serialize();
	test_out_of_step();
	test_use_regions();
	test_space_partition();
	UNIT_DONE("test_live_regions");
}
