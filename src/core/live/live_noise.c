/*
 * live_noise.c
 *		Live tables: the noisy counters of a release and their noise
 *		variances, of pure tables by the configured estimator
 *		(tree_estimator.h) or the share tree (share_tree.h, low-d tables
 *		whose counter is 'share_tree'), of Gaussian tables by the plain
 *		binary decomposition.
 *
 * Gaussian tables (delta > 0) sum the nodes of the binary decomposition of t,
 * or combine the measurements of the square-root counter (sqrt_counter.h;
 * a projected table's counts, and its lifting sums with 'square_root_sums';
 * DPK_LIVE_SQRT_FAMILY), whatever the
 * estimator (dpk_live_cell_noise, live_scales.c): their zCDP accounting and
 * the privacy tests privacy_gauss* assume exactly that.
 */
#include "live_core.h"
#include "live_reach.h"

#include <math.h>
#include <string.h>

#include "dpk_mem.h"
#include "lift.h"
#include "sqrt_counter.h"
#include "tree_estimator.h"

/*
 * Variance of release t's combination of nodes, in node variances: the
 * number of nodes of the plain decomposition for Gaussian tables, in
 * measurement variances for the square-root counter.
 */
static double
live_family_norm2(const DpkLiveConfig *cfg, bool sqrt_family, uint32_t t)
{
	if (DPK_LIVE_SHARE(cfg))
		return dpk_live_share_units(cfg, t);
	if (sqrt_family)
		return dpk_sqrt_release_norm2(dpk_sqrt_counter_cached(cfg->horizon), t);
	if (cfg->delta > 0.0)
		return dpk_live_release_nodes(cfg, t);
	return dpk_tree_release_norm2((DpkTreeEstimator) cfg->estimator, cfg->arity,
								  cfg->horizon, t);
}

/* The share tree of the table's horizon (see live_core.h). */
const DpkShareTree *
dpk_live_share_tree(const DpkLiveConfig *cfg)
{
	static DpkShareTree st;
	static bool have = false;

	if (!have || st.horizon != cfg->horizon)
	{
		have = false;
		if (!dpk_share_tree_init(&st, cfg->horizon))
			dpk_fail("continual release: no share tree for this horizon");
		have = true;
	}
	return &st;
}

/* Release t's share-tree variance in full-budget nodes (see live_core.h). */
double
dpk_live_share_units(const DpkLiveConfig *cfg, uint32_t t)
{
	static uint32_t last_horizon = 0,
				last_t = 0;
	static double last_units = 0.0;

	if (last_horizon != cfg->horizon || last_t != t)
	{
		last_horizon = 0;
		last_units = dpk_share_tree_release_units(dpk_live_share_tree(cfg), t, NULL);
		last_horizon = cfg->horizon;
		last_t = t;
	}
	return last_units;
}

/*
 * A share-tree table's noisy histogram at release t: each cell's count and
 * sums are the true values plus sum_v (num_v / den) eta_v over the nodes of
 * release t (dpk_share_tree_weights), rounded once and exactly
 * (dpk_cell_noise_share); nodes drawn by (level, cell, 0x60 | j, i).
 */
static void
live_noisy_histogram_share(const DpkLiveConfig *cfg, const uint8_t key[DPK_KEY_BYTES],
						   uint32_t t, DpkStream *s, DpkDenseHist *out)
{
	int			d = cfg->d;
	bool		with_sums = cfg->sum_share > 0.0;
	int64_t    *noise = dpk_alloc((1 + d) * sizeof(int64_t));
	int64_t    *truth = dpk_alloc((1 + d) * sizeof(int64_t));
	int64_t    *tmp = dpk_alloc((1 + d) * sizeof(int64_t));
	__int128   *acc = dpk_alloc((1 + d) * sizeof(__int128));
	DpkShareWeights w;
	DpkCellScales *sc;
	uint64_t	c;
	int			j;

	dpk_share_tree_weights(dpk_live_share_tree(cfg), t, &w);
	sc = dpk_alloc((size_t) w.n * sizeof(DpkCellScales));
	dpk_live_share_scales(cfg, &w, sc);
	for (c = 0; c < out->ncells; c++)
	{
		if ((c & 255) == 0)
			dpk_check_interrupts();
		truth[0] = out->count[c];
		for (j = 0; j < d; j++)
			truth[1 + j] = with_sums ? out->sum[c * d + j] : 0;
		dpk_cell_noise_share(s, &(DpkCellKey) {key, cfg->level, c}, &w, sc, truth, noise,
							 &(DpkNoiseScratch) {tmp, acc});
		out->count[c] = noise[0];
		if (with_sums)
			for (j = 0; j < d; j++)
				out->sum[c * d + j] = noise[1 + j];
		if (with_sums && cfg->centred_offsets)
			dpk_hist_recentre(out->sum + c * d, d, noise[0] - truth[0]);
	}
	dpk_free(sc);
	dpk_share_weights_free(&w);
	dpk_free(noise);
	dpk_free(truth);
	dpk_free(tmp);
	dpk_free(acc);
}

/* The counts' (see live_core.h). */
double
dpk_live_tree_norm2(const DpkLiveConfig *cfg, uint32_t t)
{
	return live_family_norm2(cfg, DPK_LIVE_SQRT_FAMILY(cfg, 0), t);
}

/* The sums' (see live_core.h). */
double
dpk_live_sum_tree_norm2(const DpkLiveConfig *cfg, uint32_t t)
{
	return live_family_norm2(cfg, DPK_LIVE_SQRT_FAMILY(cfg, 1), t);
}

/* Count noise variance of one cell at `level`: 2^(d (L - level)) cells summed. */
double
dpk_live_count_variance(const DpkLiveConfig *cfg, int level, uint32_t t)
{
	DpkNoise	cn = dpk_live_count_noise(cfg);
	double		node = dpk_noise_variance(&cn, 0);

	return node * dpk_live_tree_norm2(cfg, t) *
		pow(2.0, (double) cfg->d * (cfg->level - level));
}

/*
 * Sum noise variance of one coarse cell in its own fixed point: the fine
 * sums' noise plus the count noise carried by each child's offset (centred
 * sums: to first order in the cell's mean, about the coarse cell's middle,
 * where dpk_hist_recentre's share of it cancels against the noisy count).
 */
double
dpk_live_sum_variance(const DpkLiveConfig *cfg, int level, uint32_t t)
{
	double		f = pow(2.0, cfg->level - level);
	double		children = pow(f, cfg->d);
	DpkNoise	cn = dpk_live_count_noise(cfg),
				sn = dpk_live_sum_noise(cfg);
	double		sum_node = cfg->sum_share > 0.0 ? dpk_noise_variance(&sn, cfg->d) : 0.0;
	double		count_node = dpk_noise_variance(&cn, 0);
	double		off2 = cfg->centred_offsets
		? (f * f - 1.0) / 12.0	/* E[(offset + 1/2 - f/2)^2] */
		: (f - 1.0) * (2.0 * f - 1.0) / 6.0;	/* E[offset^2] */

	return children * (dpk_live_sum_tree_norm2(cfg, t) * sum_node +
					   dpk_live_tree_norm2(cfg, t) * count_node * DPK_REL_UNITS * DPK_REL_UNITS * off2);
}

/* Noisy counters of every cell of the counted level at release t. */
void
dpk_live_noisy_histogram(const DpkLiveConfig *cfg, const uint8_t key[DPK_KEY_BYTES],
						 const DpkCellMap *state, uint32_t t, DpkStream *s,
						 DpkDenseHist *out)
{
	int			d = cfg->d;
	bool		with_sums = cfg->sum_share > 0.0;
	bool		gauss = cfg->delta > 0.0;
	DpkNoise	cs = dpk_live_count_noise(cfg);
	DpkNoise	ss = dpk_live_sum_noise(cfg);
	DpkSumNoise sums = with_sums ? DPK_SUMS_VECTOR : DPK_SUMS_NONE;
	int64_t    *noise = dpk_alloc((1 + d) * sizeof(int64_t));
	int64_t    *truth = dpk_alloc((1 + d) * sizeof(int64_t));
	int64_t    *tmp = dpk_alloc((1 + d) * sizeof(int64_t));
	__int128   *acc = dpk_alloc((1 + d) * sizeof(__int128));
	DpkTreeWeights w;
	uint64_t	c;
	size_t		pos = 0;
	uint64_t	cell;
	const int64_t *vals;
	int			j;

	memset(&w, 0, sizeof(w));
	if (!gauss && !DPK_LIVE_SHARE(cfg))
		dpk_tree_release_weights((DpkTreeEstimator) cfg->estimator, cfg->arity,
								 cfg->horizon, t, &w);
	dpk_hist_init(out, d, 1 << cfg->level, with_sums);
	while (dpk_cellmap_next(state, &pos, &cell, &vals))
	{
		if (cell >= out->ncells)
			continue;			/* cannot happen: cells come from this level */
		out->count[cell] = vals[0];
		if (with_sums)
			for (j = 0; j < d; j++)
				out->sum[cell * d + j] = vals[1 + j];
	}
	if (DPK_LIVE_SHARE(cfg))
		live_noisy_histogram_share(cfg, key, t, s, out);
	for (c = DPK_LIVE_SHARE(cfg) ? out->ncells : 0; c < out->ncells; c++)
	{
		if ((c & 1023) == 0)
			dpk_check_interrupts();
		if (gauss)
		{
			dpk_live_cell_noise(s, &(DpkCellKey) {key, cfg->level, c}, t,
								&(DpkCellNoise) {d, &cs, &ss, sums, DPK_LIVE_SQRT(cfg), cfg->horizon},
								noise);
			out->count[c] += noise[0];
			if (with_sums)
				for (j = 0; j < d; j++)
					out->sum[c * d + j] += noise[1 + j];
			if (with_sums && cfg->centred_offsets)
				dpk_hist_recentre(out->sum + c * d, d, noise[0]);
			continue;
		}
		/* the published values: true + weighted noise, rounded exactly */
		truth[0] = out->count[c];
		for (j = 0; j < d; j++)
			truth[1 + j] = with_sums ? out->sum[c * d + j] : 0;
		dpk_cell_noise_weighted(s, &(DpkCellKey) {key, cfg->level, c}, &w,
								&(DpkCellScales) {d, cs.lap, ss.lap, sums},
								truth, noise, &(DpkNoiseScratch) {tmp, acc});
		out->count[c] = noise[0];
		if (with_sums)
			for (j = 0; j < d; j++)
				out->sum[c * d + j] = noise[1 + j];
		if (with_sums && cfg->centred_offsets)
			dpk_hist_recentre(out->sum + c * d, d, noise[0] - truth[0]);
	}
	dpk_tree_weights_free(&w);
	dpk_free(noise);
	dpk_free(truth);
	dpk_free(tmp);
	dpk_free(acc);
}

/* Noisy statistics of every copy at release t (see live_core.h). */
void
dpk_live_noisy_projected(const DpkLiveConfig *cfg, const uint8_t key[DPK_KEY_BYTES],
						 const DpkCellMap *state, uint32_t t, DpkStream *s,
						 double *count, double *sum, double *sumnorm)
{
	dpk_live_noisy_projected_reach(cfg, NULL, key, state, t, s, count, sum, sumnorm);
}

/* Where a release's Gaussian noise may be drawn in other processes (see live_reach.h). */
const DpkNoiseSplit *dpk_live_noise_split = NULL;

/*
 * The noise of one cell of a Gaussian projected table (d sums, 0: the count
 * alone), without its true values: the draws of the sums' counter with the
 * count (the tree's, or with square_root_sums both on the square root),
 * then a square-root table's count from its own measurements where the
 * sums keep the tree or the cell draws no sums.  The count's draws come
 * first from each measurement's nonce, so they are the same with or
 * without the sums.
 */
static void
live_gauss_cell_noise(const DpkLiveConfig *cfg, const uint8_t key[DPK_KEY_BYTES], uint64_t c,
					  uint32_t t, int d, const DpkNoise *cs, const DpkNoise *ss, DpkStream *s,
					  int64_t *noise)
{
	uint64_t	ncells = dpk_live_copy_cells(cfg);

	/* The level byte carries the copy, so copies never share a node. */
	DpkCellKey	ck = {key, cfg->level + 32 * (int) (c / ncells), c % ncells};

	bool		sums_sqrt = DPK_LIVE_SQRT_FAMILY(cfg, 1);

	if (d > 0 || !DPK_LIVE_SQRT(cfg))
		dpk_live_cell_noise(s, &ck, t,
							&(DpkCellNoise) {d, cs, ss, d > 0 ? DPK_SUMS_VECTOR : DPK_SUMS_NONE,
							sums_sqrt, cfg->horizon},
							noise);
	if (DPK_LIVE_SQRT(cfg) && (d == 0 || !sums_sqrt))
		dpk_live_cell_noise(s, &ck, t,
							&(DpkCellNoise) {0, cs, ss, DPK_SUMS_NONE, true, cfg->horizon},
							noise);
}

/* The noise of a range of cells (see live_reach.h). */
void
dpk_live_projected_noise_range(const DpkLiveConfig *cfg, const uint8_t *reach,
							   const uint8_t key[DPK_KEY_BYTES], uint32_t t, bool sums,
							   uint64_t c0, uint64_t c1, int64_t *out)
{
	int			d = sums ? cfg->d : 0;
	DpkNoise	cs = dpk_live_count_noise(cfg);
	DpkNoise	ss = dpk_live_sum_noise(cfg);
	uint8_t		nonce[DPK_NONCE_BYTES] = {0};
	DpkStream	s;
	uint64_t	c;

	/* every cell reseeds the stream with its own nonces */
	if (!dpk_stream_open(&s, key, nonce))
		dpk_fail("cannot open the noise stream");
	for (c = c0; c < c1; c++)
	{
		int64_t    *noise = out + (c - c0) * (1 + d);

		if ((c & 255) == 0)
			dpk_check_interrupts();
		if (reach && !reach[c])
			memset(noise, 0, (1 + d) * sizeof(int64_t));
		else
			live_gauss_cell_noise(cfg, key, c, t, d, &cs, &ss, &s, noise);
	}
	dpk_stream_close(&s);
}

/*
 * The same, cells with reach[c] == 0 released as exact zeros without
 * noise (see live_reach.h).  Every cell's noise has its own nonces, so the
 * others' noise and the stream after it are the same, and a Gaussian
 * table's cells from `split` on may be drawn by other processes
 * (dpk_live_noise_split).
 */
void
dpk_live_noisy_projected_reach(const DpkLiveConfig *cfg, const uint8_t *reach,
							   const uint8_t key[DPK_KEY_BYTES], const DpkCellMap *state,
							   uint32_t t, DpkStream *s, double *count, double *sum,
							   double *sumnorm)
{
	/* sum NULL: the counts alone (a table lifting by regions) */
	int			d = sum ? cfg->d : 0;
	uint64_t	ncells = dpk_live_copy_cells(cfg);
	uint64_t	total = (uint64_t) cfg->copies * ncells;
	bool		gauss = cfg->delta > 0.0;
	DpkNoise	cs = dpk_live_count_noise(cfg);
	DpkNoise	ss = dpk_live_sum_noise(cfg);
	DpkNoise	ns = dpk_live_norm_noise(cfg);
	DpkSumNoise sums = !sum ? DPK_SUMS_NONE : ss.coords ? DPK_SUMS_COORDS : DPK_SUMS_VECTOR;
	int64_t    *noise = dpk_alloc((1 + d) * sizeof(int64_t));
	int64_t    *tmp = dpk_alloc((1 + d) * sizeof(int64_t));
	__int128   *acc = dpk_alloc((1 + d) * sizeof(__int128));
	DpkTreeWeights w;
	uint64_t	c;
	const int64_t *vals;
	int64_t		norm_truth;
	int			j;
	void	   *split_handle = NULL;
	uint64_t	split = total;
	const int64_t *split_noise = NULL;

	memset(&w, 0, sizeof(w));
	if (!gauss)
		dpk_tree_release_weights((DpkTreeEstimator) cfg->estimator, cfg->arity,
								 cfg->horizon, t, &w);
	else if (dpk_live_noise_split != NULL)
		split_handle = dpk_live_noise_split->begin(cfg, reach, key, t, sum != NULL, total, &split);
	/*
	 * Each cell's true counters are read where its noise is added, so the
	 * published integers are computed from the exact true values (a cell
	 * the map lacks is all zeros); only they are turned into doubles.
	 */
	for (c = 0; c < total; c++)
	{
		if ((c & 255) == 0)
			dpk_check_interrupts();
		if (reach && !reach[c])
		{
			/* no point of the box lands here: public, nothing to hide */
			count[c] = 0.0;
			if (sum)
				memset(sum + c * d, 0, d * sizeof(double));
			continue;
		}
		vals = dpk_cellmap_find(state, c);
		if (gauss)
		{
			if (c >= split)
			{
				/* drawn by another process: wait for it at the first such cell */
				if (split_noise == NULL)
					split_noise = dpk_live_noise_split->finish(split_handle);
				memcpy(noise, split_noise + (c - split) * (1 + d), (1 + d) * sizeof(int64_t));
			}
			else
				live_gauss_cell_noise(cfg, key, c, t, d, &cs, &ss, s, noise);
			for (j = 0; j <= d; j++)
				noise[j] += vals ? vals[j] : 0;
		}
		else
			dpk_cell_noise_weighted(s,
									&(DpkCellKey) {key, cfg->level + 32 * (int) (c / ncells), c % ncells},
									&w,
									&(DpkCellScales) {d, cs.lap, ss.lap, sums},
									vals, noise, &(DpkNoiseScratch) {tmp, acc});
		count[c] = (double) noise[0];
		for (j = 0; j < d; j++)
			sum[c * d + j] = (double) noise[1 + j];
	}
	vals = dpk_cellmap_find(state, DPK_LIVE_NORM_CELL(cfg));
	norm_truth = vals ? vals[0] : 0;
	if (gauss)
	{
		dpk_live_cell_noise(s, &(DpkCellKey) {key, 255, 0}, t,
							&(DpkCellNoise) {0, &ns, &cs, DPK_SUMS_NONE, DPK_LIVE_SQRT_FAMILY(cfg, 2),
							cfg->horizon},
							noise);
		noise[0] += norm_truth;
	}
	else
		dpk_cell_noise_weighted(s, &(DpkCellKey) {key, 255, 0}, &w,
								&(DpkCellScales) {0, ns.lap, cs.lap, DPK_SUMS_NONE},
								&norm_truth, noise,
								&(DpkNoiseScratch) {tmp, acc});
	*sumnorm = ldexp((double) noise[0], cfg->norm_shift);	/* back to unit steps */
	if (split_handle != NULL)
		dpk_live_noise_split->end(split_handle);
	dpk_tree_weights_free(&w);
	dpk_free(noise);
	dpk_free(tmp);
	dpk_free(acc);
}

