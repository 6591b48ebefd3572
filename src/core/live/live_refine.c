/*
 * live_refine.c
 *		Large-d Gaussian live tables: the lifting sums of the cells a
 *		release can lift from, with a norm bound re-estimated from every
 *		complete node under the binary decomposition's nodes (see live_core.h,
 *		dpk_live_refines_sums; doc/decisions/075-lifting-sums-subtree-estimate.md)
 *		or, on the square root, drawn for those cells alone
 *		(dpk_live_lifts_sums; doc/decisions/084-lifted-sums-on-the-square-root.md).
 *
 * The plain binary decomposition reads one node per 1 bit of t; each of
 * those nodes is the root of a complete subtree whose nodes the tree has
 * drawn too (every event's h nodes carry the family's sigma^2 whether a
 * release reads them or not).  The least-squares estimate of a root's total
 * from its subtree (Honaker, "Efficient use of differentially private
 * binary trees", 2015: the bottom-up pass) gives a node `depth` levels above
 * the subtree's bottom the weight 2^depth / (2^(D+1) - 1), D the subtree's
 * depth: every position lies in one node per level, so the weights sum to 1
 * over each position (condition (*) of tree_estimator.h) and the estimate is
 * the true prefix plus noise independent of the data, of variance
 * 2^D / (2^(D+1) - 1) node variances instead of 1.
 */
#include "live_core.h"
#include "live_reach.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coreset.h"
#include "counter.h"
#include "dpk_mem.h"
#include "lift.h"
#include "noise.h"
#include "projection.h"

/* Whether a table's releases refine their lifting sums (see live_core.h). */
bool
dpk_live_refines_sums(const DpkLiveConfig *cfg)
{
	return cfg->delta > 0.0 && cfg->dhat > 0 && cfg->ball > 0.0 &&
		cfg->d >= DPK_LIVE_REFINE_MIN_D && cfg->sum_share > 0.0 &&
		!DPK_LIVE_SQRT_FAMILY(cfg, 1);
}

/* Depth of the refined subtree under a root of level `level`. */
static int
refine_depth(int level)
{
	return level < DPK_LIVE_REFINE_DEPTH ? level : DPK_LIVE_REFINE_DEPTH;
}

/* Variance of a refined sum at release t, in node variances (see live_core.h). */
double
dpk_live_refined_norm2(uint32_t t)
{
	int			lev[34];
	uint32_t	idx[34];
	int			n = dpk_tree_decompose_binary(t, lev, idx),
				a;
	double		v = 0.0;

	for (a = 0; a < n; a++)
	{
		int			dd = refine_depth(lev[a]);

		v += ldexp(1.0, dd) / (ldexp(1.0, dd + 1) - 1.0);
	}
	return v;
}

/*
 * The smallest coreset threshold any k' of a release applies to a copy of
 * `cells` cells (dpk_highd_grid_threshold: the Laplace rule, or the
 * Gaussian one where few cells clear it), a hair lower.
 */
static double
refine_threshold(const DpkLiveConfig *cfg, uint32_t t, double cells)
{
	double		sd = sqrt(dpk_live_projected_count_var(cfg, t)),
				th = dpk_coreset_threshold(sd, cfg->threshold_sigmas, cells);

	if (dpk_live_gauss_tail(cfg))
		th = fmin(th, dpk_coreset_threshold_gauss(sd, cfg->threshold_sigmas, cells));
	return th * (1.0 - 1e-9);
}

/* Greatest common divisor of two positive integers. */
static int64_t
gcd64(int64_t a, int64_t b)
{
	while (b != 0)
	{
		int64_t		r = a % b;

		a = b;
		b = r;
	}
	return a;
}

/* The nodes and integer weights of a refined sum (see live_core.h). */
int
dpk_live_refine_nodes(uint32_t t, int *level, uint32_t *index, int64_t *weight, int64_t *den)
{
	int			lev[34],
				n = 0,
				roots,
				a,
				m;
	uint32_t	idx[34];

	roots = dpk_tree_decompose_binary(t, lev, idx);
	/* a common denominator of the roots' 2^(D+1) - 1 (at most 3 255) */
	*den = 1;
	for (a = 0; a < roots; a++)
	{
		int64_t		da = ((int64_t) 1 << (refine_depth(lev[a]) + 1)) - 1;

		*den = *den / gcd64(*den, da) * da;
	}
	for (a = 0; a < roots; a++)
	{
		int			dd = refine_depth(lev[a]);
		int64_t		unit = *den / (((int64_t) 1 << (dd + 1)) - 1);

		/* levels lev - dd .. lev under root (lev, idx): 2^(lev - m) nodes each */
		for (m = lev[a] - dd; m <= lev[a]; m++)
		{
			uint32_t	span = (uint32_t) 1 << (lev[a] - m),
						i;

			for (i = (idx[a] - 1) * span + 1; i <= idx[a] * span; i++)
			{
				level[n] = m;
				index[n] = i;
				weight[n++] = unit << (m - (lev[a] - dd));
			}
		}
	}
	return n;
}

/* Refine the lifting sums of the heavy cells (see live_core.h). */
void
dpk_live_refine_sums(const DpkLiveConfig *cfg, const uint8_t *reach,
					 const uint8_t key[DPK_KEY_BYTES], const DpkCellMap *state,
					 uint32_t t, const double *count, double *sum)
{
	int			d = cfg->d,
				n,
				a,
				j,
				r;
	int		   *level = dpk_alloc(DPK_LIVE_REFINE_MAX_NODES * sizeof(int));
	uint32_t   *index = dpk_alloc(DPK_LIVE_REFINE_MAX_NODES * sizeof(uint32_t));
	int64_t    *weight = dpk_alloc(DPK_LIVE_REFINE_MAX_NODES * sizeof(int64_t));
	int64_t		den;
	uint64_t	ncells = dpk_live_copy_cells(cfg);
	DpkNoise	cs = dpk_live_count_noise(cfg),
				ss = dpk_live_sum_noise(cfg);
	DpkCellVars vars = {d, cs.var, ss.var, DPK_SUMS_VECTOR};
	int64_t    *draw = dpk_alloc((1 + d) * sizeof(int64_t));
	__int128   *acc = dpk_alloc(d * sizeof(__int128));
	uint8_t    *heavy = dpk_alloc((size_t) cfg->copies * ncells);
	uint8_t		nonce[DPK_NONCE_BYTES] = {0};
	DpkStream	s;

	if (!dpk_live_refines_sums(cfg))
		dpk_fail("refined lifting sums for a table without them");
	n = dpk_live_refine_nodes(t, level, index, weight, &den);
	/* the cells a release lifts from, however many */
	dpk_live_lifted_cells(cfg, reach, t, count, HUGE_VAL, heavy);
	/* a stream of its own: the caller's stream stays where the release left it */
	if (!dpk_stream_open(&s, key, nonce))
		dpk_fail("cannot open the noise stream");
	for (r = 0; r < cfg->copies; r++)
	{
		uint64_t	c,
					c0 = (uint64_t) r * ncells;

		for (c = 0; c < ncells; c++)
		{
			/* the key of live_gauss_cell_noise: the level byte carries the copy */
			DpkCellKey	ck = {key, cfg->level + 32 * r, c};
			const int64_t *vals;

			if (!heavy[c0 + c])
				continue;
			dpk_check_interrupts();
			vals = dpk_cellmap_find(state, c0 + c);
			for (j = 0; j < d; j++)
				acc[j] = (__int128) den * (vals ? vals[1 + j] : 0);
			for (a = 0; a < n; a++)
			{
				dpk_node_noise_gauss(&s, &ck, level[a], index[a], &vars, draw);
				for (j = 0; j < d; j++)
					acc[j] += (__int128) weight[a] * draw[1 + j];
			}
			/* den times sum_v w_v (truth_v + noise_v), exact; then one division */
			for (j = 0; j < d; j++)
				sum[(c0 + c) * d + j] = (double) acc[j] / (double) den;
		}
	}
	dpk_stream_close(&s);
	dpk_free(level);
	dpk_free(index);
	dpk_free(weight);
	dpk_free(draw);
	dpk_free(acc);
	dpk_free(heavy);
}

/* Whether a table's releases draw the lifted cells' sums alone (see live_core.h). */
bool
dpk_live_lifts_sums(const DpkLiveConfig *cfg)
{
	return cfg->counter == DPK_LIVE_COUNTER_SQRT_LIFTED && cfg->delta > 0.0 &&
		cfg->dhat > 0 && cfg->sum_share > 0.0;
}

/* A candidate lifted cell: its noisy count and index. */
typedef struct LiftedCandidate
{
	double		count;
	uint64_t	cell;
} LiftedCandidate;

/* Heavier first, then the lower index: a total order on released values. */
static int
lifted_cmp(const void *pa, const void *pb)
{
	const LiftedCandidate *a = pa,
			   *b = pb;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return a->cell < b->cell ? -1 : a->cell > b->cell;
}

/* The cells a release lifts from (see live_core.h). */
uint64_t
dpk_live_lifted_cells(const DpkLiveConfig *cfg, const uint8_t *reach, uint32_t t,
					  const double *count, double cap, uint8_t *lifted)
{
	uint64_t	ncells = dpk_live_copy_cells(cfg),
				total = (uint64_t) cfg->copies * ncells,
				n = 0,
				c,
				i;
	int			r;
	LiftedCandidate *cand;

	memset(lifted, 0, total);
	for (r = 0; r < cfg->copies; r++)
	{
		uint64_t	c0 = (uint64_t) r * ncells;
		double		cells = 0.0,
					th;

		for (c = 0; c < ncells; c++)
			cells += reach ? (reach[c0 + c] != 0) : 1.0;
		th = refine_threshold(cfg, t, cells);
		for (c = 0; c < ncells; c++)
			if (count[c0 + c] > th && (!reach || reach[c0 + c]))
			{
				lifted[c0 + c] = 1;
				n++;
			}
	}
	if ((double) n <= cap)
		return n;
	/* more than the draws allow: the heaviest cap of them */
	cand = dpk_alloc(n * sizeof(LiftedCandidate));
	for (c = 0, i = 0; c < total; c++)
		if (lifted[c])
			cand[i++] = (LiftedCandidate) {count[c], c};
	qsort(cand, n, sizeof(LiftedCandidate), lifted_cmp);
	for (i = (uint64_t) cap; i < n; i++)
		lifted[cand[i].cell] = 0;
	dpk_free(cand);
	return (uint64_t) cap;
}

/*
 * A cell whose sums a release does not draw: its count times its
 * back-projected middle (the centre dpk_live_projected_cell_centre shows
 * for a cell without rows), so histograms show it there.  Public values
 * and a released count.
 */
static void
unlifted_sum(const DpkLiveConfig *cfg, const DpkProjection *proj, uint64_t c,
			 double count, double *u, double *sum)
{
	int			j;

	dpk_live_projected_cell_centre(cfg, proj, cfg->level, c, 0.0, NULL, u);
	for (j = 0; j < cfg->d; j++)
		sum[j] = count * DPK_LIFT_UNITS * (u[j] - 0.5);
}

/* The lifted cells' sums on the square root (see live_core.h). */
void
dpk_live_lifted_sums(const DpkLiveConfig *cfg, const uint8_t *reach,
					 const uint8_t key[DPK_KEY_BYTES], const DpkCellMap *state,
					 uint32_t t, const double *count, double *sum)
{
	int			d = cfg->d,
				j,
				r;
	uint64_t	ncells = dpk_live_copy_cells(cfg),
				total = (uint64_t) cfg->copies * ncells,
				split = total,
				c;
	uint8_t    *lifted = dpk_alloc(total);
	int64_t    *noise = dpk_alloc((1 + d) * sizeof(int64_t));
	double	   *u = dpk_alloc(d * sizeof(double));
	const int64_t *split_noise = NULL;
	void	   *handle = NULL;

	if (!dpk_live_lifts_sums(cfg))
		dpk_fail("lifted sums for a table without them");
	dpk_live_lifted_cells(cfg, reach, t, count, dpk_live_lifted_cap(cfg), lifted);
	/* other processes may draw the cells from split on (unlifted ones: zeros) */
	if (dpk_live_noise_split != NULL)
		handle = dpk_live_noise_split->begin(cfg, lifted, key, t, true, total, &split);
	for (r = 0; r < cfg->copies; r++)
	{
		DpkProjection proj;

		dpk_live_projection(cfg, r, &proj);
		for (c = (uint64_t) r * ncells; c < (uint64_t) (r + 1) * ncells; c++)
		{
			const int64_t *vals;

			if ((c & 255) == 0)
				dpk_check_interrupts();
			if (!lifted[c])
			{
				unlifted_sum(cfg, &proj, c - (uint64_t) r * ncells, count[c], u, sum + c * d);
				continue;
			}
			if (c >= split)
			{
				if (split_noise == NULL)
					split_noise = dpk_live_noise_split->finish(handle);
				memcpy(noise, split_noise + (c - split) * (1 + d), (1 + d) * sizeof(int64_t));
			}
			else
				dpk_live_projected_noise_range(cfg, NULL, key, t, true, c, c + 1, noise);
			/* the exact integer, then a double: as every other released value */
			vals = dpk_cellmap_find(state, c);
			for (j = 0; j < d; j++)
				sum[c * d + j] = (double) (noise[1 + j] + (vals ? vals[1 + j] : 0));
		}
		dpk_projection_free(&proj);
	}
	if (handle != NULL)
		dpk_live_noise_split->end(handle);
	dpk_free(lifted);
	dpk_free(noise);
	dpk_free(u);
}
