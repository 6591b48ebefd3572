/*
 * live_scales.c
 *		Live tables: sensitivities, the per-node noise of each counter family
 *		(pure epsilon: discrete Laplace, cube noise and per-coordinate
 *		discrete Laplace for sums at an l1 bound; delta > 0: discrete
 *		Gaussians under zCDP) and the draws of a cell's tree noise in the
 *		plain decomposition of Gaussian tables.
 */
#include "live_core.h"

#include <math.h>

#include "live_budget.h"
#include "dpk_mem.h"
#include "lift.h"
#include "sqrt_counter.h"
#include "tree_estimator.h"
#include "zcdp.h"

/* Levels of the table's tree (one node of a cell per level holds an event). */
int
dpk_live_tree_levels(const DpkLiveConfig *cfg)
{
	return dpk_tree_shape_height(cfg->arity, cfg->horizon);
}

/*
 * What one event adds to a counter family's sensitivity (which = 0 counts,
 * 1 sums, 2 the norm counter): the h nodes of the tree it lies in (an l1
 * count, or the squared l2 norm of h unit moves), or for a family counted
 * by the square root the squared l2 norm sens2 of its moves over every
 * measurement and its leaf (sqrt_counter.h).
 */
static double
live_event_nodes(const DpkLiveConfig *cfg, int which)
{
	/* the share tree's scales are full-budget ones, split per node by share */
	if (DPK_LIVE_SHARE(cfg))
		return 1.0;
	if (DPK_LIVE_SQRT_FAMILY(cfg, which))
		return dpk_sqrt_counter_cached(cfg->horizon)->sens2;
	return (double) dpk_live_tree_levels(cfg);
}

/*
 * Count sensitivity: h tree nodes of one cell per copy (one per level of
 * the table's tree), twice with deletions (for the square-root counter an
 * insert at i and its delete at j move measurement s by rc_{s-i} -
 * rc_{s-j}, whose square is at most the sum of theirs: twice as well).
 */
double
dpk_live_count_sensitivity(const DpkLiveConfig *cfg)
{
	return live_event_nodes(cfg, 0) * (cfg->insert_only ? 1.0 : 2.0) * cfg->copies;
}

/*
 * The same for the sums' counter: equal to the count sensitivity except in
 * a projected table counted with 'square_root', whose sums keep the tree.
 */
static double
live_sum_events(const DpkLiveConfig *cfg)
{
	return live_event_nodes(cfg, 1) * (cfg->insert_only ? 1.0 : 2.0) * cfg->copies;
}

/* One row's move of an in-cell sum (see live_core.h). */
double
dpk_live_offset_bound(const DpkLiveConfig *cfg)
{
	return cfg->centred_offsets ? (double) DPK_REL_CENTRE : (double) DPK_REL_UNITS;
}

/*
 * Sum sensitivity, an l-infinity bound per node for the vector noise of
 * dpk_vector_noise (no factor d): each of a cell's d sums moves by at most
 * dpk_live_offset_bound (in-cell offsets) or DPK_LIFT_UNITS / 2 (centred
 * lifting sums) in h nodes; for a pure table with sum_l1 > 0 an l1 bound,
 * the lifting sums moving by at most sum_l1 together.
 */
double
dpk_live_sum_sensitivity(const DpkLiveConfig *cfg)
{
	if (cfg->dhat > 0 && cfg->sum_l1 > 0.0 && cfg->delta <= 0.0)
		return live_sum_events(cfg) * cfg->sum_l1;	/* an l1 bound */
	if (cfg->dhat > 0)
		return live_sum_events(cfg) * (DPK_LIFT_UNITS / 2.0);
	return live_sum_events(cfg) * dpk_live_offset_bound(cfg);
}

/* One row's largest contribution to the norm counter (see live_core.h). */
double
dpk_live_norm_point(const DpkLiveConfig *cfg)
{
	double		point = cfg->d * (DPK_LIFT_UNITS / 2.0) * (DPK_LIFT_UNITS / 2.0);

	if (cfg->dhat > 0 && cfg->ball > 0.0)
		point = dpk_live_point_l2(cfg) * dpk_live_point_l2(cfg);	/* a norm bound */
	if (cfg->norm_shift > 0)
		point = ldexp(point, -cfg->norm_shift) + 0.5;	/* rounded half up */
	return point;
}

/*
 * One global counter: ||q||^2 <= d U^2 / 4 per point (with a norm bound
 * dpk_live_point_l2 squared), in the counter's unit, h nodes, x2 deletions.
 */
double
dpk_live_norm_sensitivity(const DpkLiveConfig *cfg)
{
	return live_event_nodes(cfg, 2) * (cfg->insert_only ? 1.0 : 2.0) * dpk_live_norm_point(cfg);
}

/*
 * The real per-node scales of a configuration: [0] counts, [1] sums, [2] the
 * norm counter (1.0 for a quantity that gets no epsilon and no noise).
 */
static void
live_real_scales(const DpkLiveConfig *cfg, double b[3])
{
	DpkLiveBudget eps = dpk_budget_live(cfg);

	b[0] = dpk_live_count_sensitivity(cfg) / eps.eps_count;
	b[1] = cfg->sum_share <= 0.0 ? 1.0 : dpk_live_sum_sensitivity(cfg) / eps.eps_sum;
	b[2] = cfg->norm_share <= 0.0 ? 1.0 : dpk_live_norm_sensitivity(cfg) / eps.eps_norm;
}

/* Node scales of a share-tree table's release (see live_core.h). */
void
dpk_live_share_scales(const DpkLiveConfig *cfg, const DpkShareWeights *w, DpkCellScales *out)
{
	double		b[3];

	if (!DPK_LIVE_SHARE(cfg))
		dpk_fail("continual release: share scales of a table without the share tree");
	live_real_scales(cfg, b);
	dpk_share_node_scales(w, b[0], b[1], cfg->d,
						  cfg->sum_share > 0.0 ? DPK_SUMS_VECTOR : DPK_SUMS_NONE, out);
}

/* The largest DPK_SHARE_DEN / s_v of a share-tree table's nodes (else 1). */
static double
live_share_largest_factor(const DpkLiveConfig *cfg)
{
	const DpkShareTree *st;
	int			least = DPK_SHARE_DEN;

	if (!DPK_LIVE_SHARE(cfg))
		return 1.0;
	st = dpk_live_share_tree(cfg);
	for (int b = 0; b < st->blocks; b++)
		for (int j = 0; j < st->levels; j++)
			if (st->share[b][j] < least)
				least = st->share[b][j];
	return (double) DPK_SHARE_DEN / least;
}

/* Scale of the norm counter's node noise. */
DpkScale
dpk_live_norm_scale(const DpkLiveConfig *cfg)
{
	double		b[3];

	live_real_scales(cfg, b);
	return dpk_scale_from_double(b[2]);
}

/* Scale of one node's count noise. */
DpkScale
dpk_live_count_scale(const DpkLiveConfig *cfg)
{
	double		b[3];

	live_real_scales(cfg, b);
	return dpk_scale_from_double(b[0]);
}

/* Scale of one node's sum noise (unused when sum_share is 0). */
DpkScale
dpk_live_sum_scale(const DpkLiveConfig *cfg)
{
	double		b[3];

	live_real_scales(cfg, b);
	return dpk_scale_from_double(b[1]);
}

/* rho of a table: the largest one (epsilon, delta) allows; 0 when pure. */
double
dpk_live_rho(const DpkLiveConfig *cfg)
{
	/* the last answer is kept: releases ask for it many times */
	static double last_eps = -1.0,
				last_delta = -1.0,
				last_rho = 0.0;

	if (!(cfg->delta > 0.0))
		return 0.0;
	if (cfg->epsilon != last_eps || cfg->delta != last_delta)
	{
		last_rho = dpk_zcdp_rho(cfg->epsilon, cfg->delta);
		last_eps = cfg->epsilon;
		last_delta = cfg->delta;
	}
	return last_rho;
}

/*
 * Squared l2 sensitivities of one event over every node (and copy) it
 * touches: each touched (node, cell) entry of a count moves by 1, so [0] is
 * the count's l1 sensitivity; each coordinate of a touched sum entry by at
 * most the per-coordinate unit, so [1] is the sums' touched entries (the
 * count's, but a projected 'square_root' table's sums keep the tree) times
 * d unit^2 (sqrt(d) times
 * the per-coordinate bound in l2, not d times); the norm counter [2] moves by
 * at most d U^2 / 4 in each of its touched nodes.
 */
void
dpk_live_l2sq(const DpkLiveConfig *cfg, double l2sq[3])
{
	double		unit = cfg->dhat > 0 ? DPK_LIFT_UNITS / 2.0 : dpk_live_offset_bound(cfg);

	l2sq[0] = dpk_live_count_sensitivity(cfg);
	l2sq[1] = live_sum_events(cfg) * cfg->d * unit * unit;
	/* h nodes (x2 deletions) of one row's largest contribution, squared */
	l2sq[2] = dpk_live_norm_sensitivity(cfg) * dpk_live_norm_point(cfg);
	if (cfg->dhat > 0 && cfg->ball > 0.0)
	{
		/* a norm bound: one point's q within dpk_live_point_l2 */
		double		p2 = dpk_live_point_l2(cfg) * dpk_live_point_l2(cfg);

		l2sq[1] = live_sum_events(cfg) * p2;
	}
}

/*
 * Per-node Gaussian variances sigma_i^2 = l2sq_i / (2 rho_i), with rho split
 * over the families by the table's shares (dpk_budget_live on rho: zCDP
 * composes additively, like epsilon); 1.0 for a family without a share.
 */
void
dpk_live_gauss_vars(const DpkLiveConfig *cfg, double v[3])
{
	DpkLiveConfig z = *cfg;
	DpkLiveBudget rho;
	double		l2sq[3];

	z.epsilon = dpk_live_rho(cfg);
	rho = dpk_budget_live(&z);
	dpk_live_l2sq(cfg, l2sq);
	v[0] = dpk_zcdp_sigma2(l2sq[0], rho.eps_count);
	v[1] = cfg->sum_share <= 0.0 ? 1.0 : dpk_zcdp_sigma2(l2sq[1], rho.eps_sum);
	v[2] = cfg->norm_share <= 0.0 ? 1.0 : dpk_zcdp_sigma2(l2sq[2], rho.eps_norm);
}

/* Every Gaussian variance representable; *largest the largest sigma^2. */
static bool
live_gauss_representable(const DpkLiveConfig *cfg, double *largest)
{
	double		v[3];
	bool		ok = true;
	int			i;

	dpk_live_gauss_vars(cfg, v);
	*largest = 0.0;
	for (i = 0; i < 3; i++)
	{
		if (!(v[i] <= *largest))
			*largest = v[i];
		ok = ok && dpk_gauss_scale_representable(v[i]);
	}
	return ok;
}

/* The noise family of counts, sums or the norm counter (which = 0, 1, 2). */
static DpkNoise
live_family(const DpkLiveConfig *cfg, int which)
{
	double		v[3];

	if (cfg->delta > 0.0)
	{
		dpk_live_gauss_vars(cfg, v);
		return dpk_noise_gauss(dpk_gauss_scale_from_double(v[which]));
	}
	if (which == 0)
		return dpk_noise_laplace(dpk_live_count_scale(cfg));
	if (which == 1)
	{
		DpkNoise	n = dpk_noise_laplace(dpk_live_sum_scale(cfg));

		n.coords = cfg->dhat > 0 && cfg->sum_l1 > 0.0;
		return n;
	}
	return dpk_noise_laplace(dpk_live_norm_scale(cfg));
}

/* Per-node noise of counts. */
DpkNoise
dpk_live_count_noise(const DpkLiveConfig *cfg)
{
	return live_family(cfg, 0);
}

/* Per-node noise of sum vectors. */
DpkNoise
dpk_live_sum_noise(const DpkLiveConfig *cfg)
{
	return live_family(cfg, 1);
}

/* Per-node noise of the norm counter. */
DpkNoise
dpk_live_norm_noise(const DpkLiveConfig *cfg)
{
	return live_family(cfg, 2);
}

/*
 * Nodes summed by release t: the signed digits of the table's tree or,
 * Gaussian, the plain binary decomposition.
 */
int
dpk_live_release_nodes(const DpkLiveConfig *cfg, uint32_t t)
{
	int			l[34];
	uint32_t	i[34];

	if (cfg->delta > 0.0)
		return dpk_tree_decompose_binary(t, l, i);
	return dpk_tree_signed_nodes(cfg->arity, t);
}

/*
 * The tree noise of one cell at release t in the table's mechanism:
 * dpk_cell_noise (the pure draws, unchanged), dpk_cell_noise_gauss or, for
 * a square-root table, the rounded combination of its measurements
 * (adding the integer truth afterwards gives the exactly rounded release).
 */
void
dpk_live_cell_noise(DpkStream *s, const DpkCellKey *ck, uint32_t t,
					const DpkCellNoise *cn, int64_t *out)
{
	if (cn->count->gauss && cn->sqrt)
	{
		int64_t		tmp_small[17];
		__int128	acc_small[17];
		int64_t    *tmp = cn->d < 17 ? tmp_small : dpk_alloc((1 + cn->d) * sizeof(int64_t));
		__int128   *acc = cn->d < 17 ? acc_small : dpk_alloc((1 + cn->d) * sizeof(__int128));

		dpk_cell_noise_sqrt(s, ck, dpk_sqrt_counter_cached(cn->horizon), t,
							&(DpkCellVars) {cn->d, cn->count->var, cn->sum->var, cn->sums},
							NULL, out, tmp, acc);
		if (cn->d >= 17)
		{
			dpk_free(tmp);
			dpk_free(acc);
		}
	}
	else if (cn->count->gauss)
		dpk_cell_noise_gauss(s, ck, t,
							 &(DpkCellVars) {cn->d, cn->count->var, cn->sum->var, cn->sums},
							 out);
	else
		dpk_cell_noise(s, ck, t,
					   &(DpkCellScales) {cn->d, cn->count->lap, cn->sum->lap, cn->sums},
					   out);
}

/*
 * Approximate DP for a configuration: delta and the Gaussian default shares
 * (dpk_budget_live_gauss_shares); delta 0 leaves the configuration as it is.
 */
void
dpk_live_use_delta(DpkLiveConfig *cfg, double delta)
{
	DpkLiveShares sh;

	cfg->delta = delta;
	if (delta <= 0.0)
		return;
	cfg->arity = DPK_TREE_ARITY_BINARY;	/* the plain binary decomposition */
	sh = dpk_budget_live_gauss_shares(cfg->d, cfg->dhat > 0, cfg->horizon);
	cfg->sum_share = sh.sum_share;
	cfg->norm_share = sh.norm_share;
}

/*
 * The norm counter's unit (see live_core.h).  Each halving of the unit
 * quarters its variance; at d = 384 a Gaussian table at epsilon 1 needs
 * about 2 (doc/decisions/020-gaussian-tables.md).
 */
void
dpk_live_use_norm_shift(DpkLiveConfig *cfg)
{
	double		v[3];

	cfg->norm_shift = 0;
	if (cfg->delta <= 0.0 || cfg->dhat == 0 || cfg->norm_share <= 0.0)
		return;
	for (;;)
	{
		dpk_live_gauss_vars(cfg, v);
		if (dpk_gauss_scale_representable(v[2]) || cfg->norm_shift >= DPK_LIVE_NORM_SHIFT_MAX)
			return;
		cfg->norm_shift++;
	}
}

/* Whether every scale has an exact representation (see live_core.h). */
bool
dpk_live_scales_representable(const DpkLiveConfig *cfg, double *largest)
{
	double		b[3];
	bool		ok = true;
	int			i;

	if (cfg->delta > 0.0)
		return live_gauss_representable(cfg, largest);
	live_real_scales(cfg, b);
	*largest = 0.0;
	for (i = 0; i < 3; i++)
	{
		/* a share-tree table's smallest share gives its largest node scale */
		b[i] *= live_share_largest_factor(cfg);
		if (!(b[i] <= *largest))
			*largest = b[i];
		ok = ok && dpk_scale_representable(b[i]);
	}
	return ok;
}

/* Whether a table attached under sampler version v draws the same noise now. */
bool
dpk_live_sampler_compatible(const DpkLiveConfig *cfg, int version)
{
	double		b[3];

	if (version == DPK_SAMPLER_VERSION)
		return true;
	if (version != 1 || cfg->delta > 0.0)
		return false;
	live_real_scales(cfg, b);
	return dpk_scale_same_in_v1(b[0]) && dpk_scale_same_in_v1(b[1]) &&
		dpk_scale_same_in_v1(b[2]);
}
