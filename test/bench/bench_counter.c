/*
 * bench_counter.c
 *		Per-counter error of continual-counter estimators over every release.
 *
 * A counter's release at t is its true prefix count plus a fixed linear
 * combination sum_v w_v eta_v of independent node noises eta_v, each with the
 * variance 2 b^2 of a Laplace node at scale b = h * c / eps (h tree levels an
 * event touches, c = 2 with deletions, 1 without).  So the mean squared error
 * of release t is 2 (c / eps)^2 * h^2 * ||w_t||^2 and estimators compare by
 * h^2 ||w_t||^2 alone (deletions multiply every figure by 4).  For each
 * horizon T, arity k and estimator this prints h, the mean of h^2 ||w_t||^2
 * over every t in [1, T] and over t >= T/4, its worst t, and the nodes drawn
 * per counter (mean, max), all relative to nothing: divide by the "naf" line
 * for the gain over today's signed binary decomposition.
 *
 * Estimators:
 *	 plain    base-k digits, nodes inside [1, t] (the textbook tree);
 *	 signed   balanced base-k digits (the non-adjacent form for k = 2: "naf");
 *	 done     the least-squares (BLUE) estimate from every completed node
 *			  (Honaker 2015; closed form from the bottom-up recursion);
 *	 local-r  the BLUE restricted to the signed nodes and their descendants
 *			  r levels down (what src/core/counters/tree_estimator.c computes);
 *	 full     the BLUE over every node of the horizon's tree (the bound any
 *			  estimator of these node noises can reach; dense, small T only).
 * After the arities of each horizon, the two counters releases use
 * (dpk_tree_release_weights, least squares): "old-tables" the binary tree
 * (depth 1 with the family) of tables attached before the k-ary trees, and
 * "new-tables" the k-ary tree of dpk_tree_choose_arity(T) (depth 0 with the
 * family).
 *
 * A second table ("release units", printed after the first, or alone with
 * --units release) gives the counters live tables ship, for T = 16, 64, 256
 * and 1024, in units of one full-budget release: the variance one release
 * would have if the counter's whole budget were spent on it alone, mean over
 * t in [T/4, T] and the worst such t.  The figures come from the functions
 * releases call (dpk_live_defaults, dpk_live_use_delta, the node scales of
 * live_scales.c, dpk_live_tree_norm2), for a low-d insert-only table:
 *	 pure      node Laplace scale b = h / eps_count against 1 / eps_count for
 *			   the full-budget release (sensitivity 1 per event), so the figure
 *			   is h^2 ||w_t||^2, the first table's unit; the new tables' k-ary
 *			   least-squares counter (dpk_tree_choose_arity) and the binary one
 *			   of tables attached before the k-ary trees;
 *	 Gaussian  node variance h / (2 rho_count) (an event moves h nodes by 1:
 *			   squared l2 sensitivity h) against 1 / (2 rho_count), release t
 *			   the plain binary decomposition (popcount(t) nodes), so the
 *			   figure is h popcount(t), rho split evenly over the levels; and
 *			   the square-root counter of new small Gaussian tables
 *			   (sqrt_counter.h), sens2 sum_{k<t} (w_k^2 + r_k^2) / den^2 from
 *			   its integer weights, with the draws a release reads.
 * A line "share tree" gives the counter of share_tree.h (new pure low-d
 * tables from a horizon of 16) from its integer weights, with its draws against the
 * k-ary counter's and its ratio to the optimised per-level row, which it must
 * not exceed (else MISMATCH and exit status 1).
 * A line "same tree, least squares all nodes" gives, not shipped, the bound
 * of any estimator on the new tables' tree; lines "unshipped" the counters
 * of doc/decisions/031-counter-options.md (per-level budgets on trees
 * clipped at T).  The rows the counter issue
 * computed are printed beside them, labelled as such, with the shipped
 * figure's ratio to each.
 *
 * Usage: bench_counter [--horizons 256,1024] [--arities 2,3,4,5,7,8,11,16]
 *						[--depths 0,1,2,3] [--no-full] [--units all|release]
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lowd_budget.h"
#include "highd_budget.h"
#include "live_budget.h"
#include "live_core.h"
#include "share_tree.h"
#include "sqrt_counter.h"
#include "tree_estimator.h"
#include "zcdp.h"

static void *
xmalloc(size_t n)
{
	void	   *p = malloc(n ? n : 1);

	if (!p)
	{
		fprintf(stderr, "bench_counter: out of memory\n");
		exit(1);
	}
	return p;
}

/* Closed-form variance (per node variance 1) of the BLUE from completed nodes. */
static double
done_variance(int k, uint32_t t, int *draws)
{
	double		v[34];
	double		var = 0.0;
	int64_t		sub = 1;
	int			j;

	v[0] = 1.0;
	for (j = 1; j < 34; j++)
		v[j] = k * v[j - 1] / (1.0 + k * v[j - 1]);
	*draws = 0;
	for (j = 0; t > 0; j++, t /= k)
	{
		var += (double) (t % k) * v[j];
		/* a complete subtree of height j has (k^(j+1) - 1) / (k - 1) nodes */
		*draws += (int) ((t % k) * ((sub * k - 1) / (k - 1)));
		sub *= k;
	}
	return var;
}

/* Plain base-k decomposition: digit sum. */
static int
plain_nodes(int k, uint32_t t)
{
	int			n = 0;

	for (; t > 0; t /= k)
		n += t % k;
	return n;
}

/*
 * The full-tree BLUE variance of every prefix t <= T: positions 1..span,
 * Gram G[p][q] = number of levels where p and q share a node, Cholesky, and
 * var(t) = 1_t^T G^-1 1_t accumulated.
 */
static void
full_variance(int k, int levels, uint32_t T, double *var)
{
	int64_t		span = 1;
	int			j;
	int64_t		p,
				q,
				r;
	double	   *G,
			   *y;

	for (j = 1; j < levels; j++)
		span *= k;
	while (span < T)
		span *= k;
	G = xmalloc(sizeof(double) * span * span);
	y = xmalloc(sizeof(double) * span);
	for (p = 0; p < span; p++)
		for (q = 0; q <= p; q++)
		{
			int64_t		w = 1;
			int			c = 0;

			for (j = 0; j < levels; j++, w *= k)
				if (p / w == q / w)
					c++;
			G[p * span + q] = c;
		}
	/* Cholesky in place (lower). */
	for (p = 0; p < span; p++)
	{
		for (q = 0; q <= p; q++)
		{
			double		s = G[p * span + q];

			for (r = 0; r < q; r++)
				s -= G[p * span + r] * G[q * span + r];
			if (p == q)
				G[p * span + p] = sqrt(s);
			else
				G[p * span + q] = s / G[q * span + q];
		}
	}
	/* var(t) = ||L^-1 1_t||^2; forward solves for each t (O(span^2) each). */
	for (uint32_t t = 1; t <= T; t++)
	{
		double		s2 = 0.0;

		for (p = 0; p < span; p++)
		{
			double		s = p < (int64_t) t ? 1.0 : 0.0;

			for (r = 0; r < p; r++)
				s -= G[p * span + r] * y[r];
			y[p] = s / G[p * span + p];
			s2 += y[p] * y[p];
		}
		var[t] = s2;
	}
	free(G);
	free(y);
}

typedef struct Fig
{
	double		sum_all,
				sum_q,
				worst,
				worst_all,		/* over every t, t < T/4 too */
				draws_sum;
	int			n_all,
				n_q,
				draws_max;
	uint32_t	worst_t;
} Fig;

static void
fig_add(Fig *f, uint32_t T, uint32_t t, double v, int draws)
{
	f->sum_all += v;
	f->n_all++;
	if (v > f->worst_all)
		f->worst_all = v;
	f->draws_sum += draws;
	if (draws > f->draws_max)
		f->draws_max = draws;
	if (4 * (uint64_t) t >= T)
	{
		f->sum_q += v;
		f->n_q++;
		if (v > f->worst)
		{
			f->worst = v;
			f->worst_t = t;
		}
	}
}

static void
fig_print(uint32_t T, int k, int h, const char *name, const Fig *f, double base)
{
	printf("%5u %3d %2d %-9s %9.1f %9.1f %9.1f@%-5u %6.3f %6.3f %7.1f %5d\n",
		   T, k, h, name, f->sum_all / f->n_all, f->sum_q / f->n_q, f->worst, f->worst_t,
		   (f->sum_q / f->n_q) / base, f->worst / base, f->draws_sum / f->n_all, f->draws_max);
}

static int
parse_list(const char *s, int *out, int max)
{
	int			n = 0;

	while (*s && n < max)
	{
		out[n++] = atoi(s);
		while (*s && *s != ',')
			s++;
		if (*s == ',')
			s++;
	}
	return n;
}

/*
 * Reference rows of the counter issue (per-release variance in full-budget
 * release units, mean over t in [T/4, T] / worst t), for T = 16, 64, 256,
 * 1024; a negative entry was not computed there.
 */
typedef struct RefRow
{
	bool		gauss;
	const char *name;
	double		mean[4],
				worst[4];
} RefRow;

static const uint32_t unit_horizons[4] = {16, 64, 256, 1024};

static const RefRow ref_rows[] = {
	{true, "plain binary decomposition", {11.2, 23.0, 38.8, 58.6}, {20, 42, 72, 110}},
	{true, "binary tree, least squares all nodes", {3.92, 6.75, 10.2, 14.4}, {5.61, 9.42, 14.1, 19.7}},
	{true, "square-root factorization", {3.43, 5.29, 7.53, 10.1}, {3.78, 5.71, 8.01, 10.7}},
	{true, "BLT, 2-3 buffers", {3.43, 5.29, 7.53, 10.2}, {3.78, 5.71, 8.02, 10.7}},
	{true, "optimal factorization", {2.91, 4.46, 6.41, 8.77}, {2.91, 4.46, 6.41, 8.77}},
	{false, "best k-ary, uniform levels, LS all nodes", {12.4, 25.6, 50.4, 81.8}, {16.6, 34.2, 68.7, 113}},
	{false, "best k-ary, optimised levels + LS all", {8.45, 18.2, 36.5, 65.2}, {10.6, 25.0, 50.1, 98.1}},
	{false, "general factorization by search", {6.83, 15.0, 27.6, -1}, {9.99, 20.7, 37.7, -1}},
};

/*
 * One shipped counter in full-budget release units: the node variance of a
 * table configured as releases configure it, over the variance of one release
 * with the counter's whole budget and sensitivity 1, times the release's
 * squared weights (dpk_live_tree_norm2).  *first the same from first
 * principles (h^2 ||w_t||^2 pure, h popcount(t) Gaussian), for the check.
 */
static void
unit_figures(const DpkLiveConfig *cfg, uint32_t T, Fig *shipped, Fig *first)
{
	double		node;
	int			h = dpk_live_tree_levels(cfg);

	if (cfg->delta > 0.0)
	{
		DpkLiveConfig z = *cfg;
		double		v[3];

		z.epsilon = dpk_live_rho(cfg);
		dpk_live_gauss_vars(cfg, v);
		/* the full-budget release: sensitivity 1, all of rho_count */
		node = v[0] / dpk_zcdp_sigma2(1.0, dpk_budget_live(&z).eps_count);
	}
	else
	{
		double		b = dpk_live_count_sensitivity(cfg) / dpk_budget_live(cfg).eps_count;

		/* Laplace variances 2 b^2 against 2 (1 / eps_count)^2 */
		node = b * dpk_budget_live(cfg).eps_count;
		node *= node;
	}
	for (uint32_t t = 1; t <= T; t++)
	{
		double		v = node * dpk_live_tree_norm2(cfg, t);
		double		f;

		if (DPK_LIVE_SQRT(cfg))
		{
			const DpkSqrtCounter *sc = dpk_sqrt_counter_cached(T);
			long double n2 = 0.0L,
						den = (long double) sc->den;

			for (uint32_t k = 0; k < t; k++)
				n2 += ((long double) sc->w[k] * sc->w[k] + (long double) sc->r[k] * sc->r[k]) /
					(den * den);
			f = (double) (n2 * sc->sens2);
		}
		else if (cfg->delta > 0.0)
			f = (double) h * __builtin_popcount(t);
		else
		{
			DpkTreeWeights tw;

			dpk_tree_release_weights(DPK_TREE_LOCAL_BLUE, cfg->arity, T, t, &tw);
			f = (double) h * h * dpk_tree_weights_norm2(&tw);
			dpk_tree_weights_free(&tw);
		}
		fig_add(shipped, T, t, v, 0);
		fig_add(first, T, t, f, 0);
	}
}

/*
 * Counters not shipped, compared in the same units (doc/decisions/029-
 * counter-options.md): trees whose level j nodes span span[j] releases
 * (span[0] = 1, each span a multiple of the one below), clipped at T (no
 * event lands after the horizon), with a share f_j of the counter's budget
 * at level j.  An event lies in one node per level, so a pure node at level
 * j has Laplace scale 1 / (f_j eps) (variance 1 / f_j^2 in the unit) and a
 * Gaussian one sigma^2 = 1 / (2 f_j rho) (variance 1 / f_j).  The spans and
 * shares were found by a coordinate search on the larger of the two ratios
 * (mean, worst) to the counter issue's reference row; they are printed as
 * constants here and evaluated exactly.
 */
typedef struct LevelTree
{
	bool		gauss;
	bool		complete_only;	/* least squares over complete nodes only */
	uint32_t	T;
	int			h;
	int			span[12];
	double		share[12];
	/*
	 * Optional (nonzero entries): the share of top-level node b instead of
	 * share[h - 1]; the lower levels' shares under it scaled so that every
	 * position still spends the whole budget.
	 */
	double		top_share[8];
} LevelTree;

static const LevelTree level_trees[] = {
	/* pure, least squares over every node */
	{false, false, 16, 2, {1, 10}, {0.573, 0.427}, {0}},
	{false, false, 64, 2, {1, 25}, {0.589, 0.411}, {0}},
	/* pure, the same with a share per top-level node (positions differ) */
	{false, false, 16, 2, {1, 10}, {0.573, 0.427}, {0.452, 0.277}},
	{false, false, 64, 2, {1, 25}, {0.589, 0.411}, {0.483, 0.352, 0.283}},
	{false, false, 256, 3, {1, 13, 104}, {0.407, 0.290, 0.303}, {0.369, 0.259, 0.022}},
	{false, false, 1024, 3, {1, 13, 169}, {0.3300, 0.3001, 0.3699},
	{0.526, 0.439, 0.364, 0.332, 0.289, 0.189, 0.023}},
	{false, false, 256, 3, {1, 13, 104}, {0.407, 0.290, 0.303}, {0}},
	{false, false, 1024, 3, {1, 13, 169}, {0.3300, 0.3001, 0.3699}, {0}},
	/* Gaussian, least squares over complete nodes (causal) */
	{true, true, 16, 4, {1, 2, 6, 12}, {0.484, 0.305, 0.173, 0.038}, {0}},
	{true, true, 64, 5, {1, 2, 6, 18, 36}, {0.323, 0.242, 0.264, 0.069, 0.101}, {0}},
	{true, true, 256, 7, {1, 3, 6, 12, 24, 72, 144},
	{0.310, 0.150, 0.126, 0.126, 0.166, 0.049, 0.073}, {0}},
	{true, true, 1024, 8, {1, 3, 6, 12, 36, 108, 216, 648},
	{0.242, 0.116, 0.099, 0.143, 0.161, 0.111, 0.096, 0.032}, {0}},
	/* the same on the binary tree of today's Gaussian tables, fewer levels */
	{true, true, 16, 4, {1, 2, 4, 8}, {0.453, 0.226, 0.227, 0.094}, {0}},
	{true, true, 64, 6, {1, 2, 4, 8, 16, 32}, {0.312, 0.156, 0.155, 0.156, 0.156, 0.064}, {0}},
	{true, true, 256, 8, {1, 2, 4, 8, 16, 32, 64, 128},
	{0.238, 0.119, 0.119, 0.119, 0.119, 0.119, 0.119, 0.049}, {0}},
	{true, true, 1024, 8, {1, 2, 4, 8, 16, 32, 64, 128},
	{0.186, 0.093, 0.093, 0.093, 0.093, 0.093, 0.093, 0.256}, {0}},
	/* Gaussian, least squares over every node (outside the proof: see 029) */
	{true, false, 16, 5, {1, 2, 4, 8, 16}, {0.4639, 0.0332, 0.1996, 0.0686, 0.2348}, {0}},
	{true, false, 64, 7, {1, 2, 4, 8, 16, 32, 64},
	{0.3498, 0.0303, 0.1398, 0.1057, 0.1270, 0.0636, 0.1839}, {0}},
	{true, false, 256, 5, {1, 4, 16, 64, 256}, {0.3179, 0.1843, 0.2052, 0.1725, 0.1202}, {0}},
};

/*
 * How a LevelTree's release combines its nodes: least squares over every
 * node, over a local family (every top-level node and, at each lower level,
 * the children of the nodes holding releases t and t + 1), over the
 * complete nodes (the complete subtrees of t's mixed-radix digits), or over
 * the complete nodes down to `LT_DEPTH` levels below each digit node.
 */
typedef enum LtEstimator
{
	LT_ALL,
	LT_LOCAL,
	LT_COMPLETE,
	LT_COMPLETE_DEPTH
} LtEstimator;

#define LT_DEPTH 2

/* Node variance of level j in release units (see level_trees). */
static double
lt_nodevar(const LevelTree *lt, int j)
{
	return lt->gauss ? 1.0 / lt->share[j] : 1.0 / (lt->share[j] * lt->share[j]);
}

/* The same for the level-j node holding 0-based position p (top_share). */
static double
lt_nodevar_at(const LevelTree *lt, int j, size_t p)
{
	int			top = lt->h - 1;
	double		b,
				f;

	if (lt->top_share[0] <= 0.0)
		return lt_nodevar(lt, j);
	b = lt->top_share[p / lt->span[top]];
	f = j == top ? b : lt->share[j] * (1.0 - b) / (1.0 - lt->share[top]);
	return lt->gauss ? 1.0 / f : 1.0 / (f * f);
}

/*
 * Complete nodes: variance and draws of the best estimate of a complete node
 * of level j from its subtree down to `depth` levels below it (bottom-up:
 * the node's own draw against the sum of its children's estimates).
 */
static void
lt_complete(const LevelTree *lt, uint32_t T, int depth, double *var, double *draws)
{
	double		sub[12][12];
	double		nodes[12][12];

	for (int j = 0; j < lt->h; j++)
		for (int r = 0; r <= depth && r < 12; r++)
		{
			if (j == 0 || r == 0)
			{
				sub[j][r] = lt_nodevar(lt, j);
				nodes[j][r] = 1.0;
			}
			else
			{
				double		k = (double) (lt->span[j] / lt->span[j - 1]);

				sub[j][r] = 1.0 / (1.0 / lt_nodevar(lt, j) + 1.0 / (k * sub[j - 1][r - 1]));
				nodes[j][r] = 1.0 + k * nodes[j - 1][r - 1];
			}
		}
	for (uint32_t t = 1; t <= T; t++)
	{
		uint32_t	rem = t;

		var[t] = draws[t] = 0.0;
		for (int j = lt->h - 1; j >= 0; j--)
		{
			var[t] += (double) (rem / lt->span[j]) * sub[j][depth];
			draws[t] += (double) (rem / lt->span[j]) * nodes[j][depth];
			rem %= lt->span[j];
		}
	}
}

/*
 * Every node: dense Gram matrix of the positions 1..T, Cholesky, var(t) =
 * ||L^-1 1_t||^2 (every node of the clipped tree is drawn).
 */
static void
lt_all(const LevelTree *lt, uint32_t T, double *var, double *draws)
{
	size_t		n = T;
	double	   *G = xmalloc(sizeof(double) * n * n);
	double	   *y = xmalloc(sizeof(double) * n);
	double	   *c = xmalloc(sizeof(double) * n);
	double		total = 0.0;

	for (int j = 0; j < lt->h; j++)
		total += (double) ((T + lt->span[j] - 1) / lt->span[j]);
	for (size_t p = 0; p < n; p++)
		for (size_t q = 0; q <= p; q++)
		{
			double		s = 0.0;

			for (int j = 0; j < lt->h; j++)
				if (p / lt->span[j] == q / lt->span[j])
					s += 1.0 / lt_nodevar_at(lt, j, p);
			G[p * n + q] = s;
		}
	for (size_t p = 0; p < n; p++)
		for (size_t q = 0; q <= p; q++)
		{
			double		s = G[p * n + q];

			for (size_t r = 0; r < q; r++)
				s -= G[p * n + r] * G[q * n + r];
			G[p * n + q] = p == q ? sqrt(s) : s / G[q * n + q];
		}
	/* y = L^-1 1_t, grown by the column L^-1 e_t at each t */
	memset(y, 0, sizeof(double) * n);
	for (size_t j = 0; j < n; j++)
	{
		double		v = 0.0;

		for (size_t p = j; p < n; p++)
		{
			double		s = p == j ? 1.0 : 0.0;

			for (size_t r = j; r < p; r++)
				s -= G[p * n + r] * c[r];
			c[p] = s / G[p * n + p];
			y[p] += c[p];
		}
		for (size_t p = 0; p < n; p++)
			v += y[p] * y[p];
		var[j + 1] = v;
		draws[j + 1] = total;
	}
	free(G);
	free(y);
	free(c);
}

/*
 * The local family of release t: its nodes (level, index), then least
 * squares over them on the atoms (positions grouped by their smallest
 * covering node; the family is laminar and covers 1..T through the top
 * level, so the atoms are identified): var = c' M^-1 c, M = sum over nodes
 * of their atom indicators' outer products over the node variance, c the
 * atoms inside [1, t].
 */
static double
lt_local(const LevelTree *lt, uint32_t T, uint32_t t, int *draws)
{
	int			n = 0,
				na = 0,
				top = lt->h - 1;
	/* at most every node of the clipped tree, h (T + 1) */
	int		   *nl = xmalloc(sizeof(int) * 2 * lt->h * (T + 1));
	int		   *ni = nl + lt->h * (T + 1);
	int		   *atom_of = xmalloc(sizeof(int) * T);
	int		   *atom_node = xmalloc(sizeof(int) * T);
	int		   *rep = xmalloc(sizeof(int) * T);
	double	   *M,
			   *c,
			   *y;
	double		v = 0.0;

	for (uint32_t i = 0; i * (uint32_t) lt->span[top] < T; i++, n++)
	{
		nl[n] = top;
		ni[n] = (int) i;
	}
	for (int j = top - 1; j >= 0; j--)
	{
		int			parents[2],
					np = 0;

		/* 0-based positions of releases t and t + 1 */
		for (uint32_t p = t - 1; p <= t; p++)
		{
			int			par;

			if (p >= T)
				continue;
			par = (int) (p / lt->span[j + 1]);
			if (np == 0 || parents[np - 1] != par)
				parents[np++] = par;
		}
		for (int r = 0; r < np; r++)
			for (int i = parents[r] * lt->span[j + 1] / lt->span[j];
				 i < (parents[r] + 1) * lt->span[j + 1] / lt->span[j] &&
				 (uint32_t) (i * lt->span[j]) < T; i++, n++)
			{
				nl[n] = j;
				ni[n] = i;
			}
	}
	for (uint32_t p = 0; p < T; p++)
	{
		int			best = -1,
					a;

		for (int u = 0; u < n; u++)
			if ((int) (p / lt->span[nl[u]]) == ni[u] && (best < 0 || nl[u] < nl[best]))
				best = u;
		for (a = 0; a < na && atom_node[a] != best; a++)
			;
		if (a == na)
			atom_node[na++] = best;
		atom_of[p] = a;
		rep[a] = (int) p;
	}
	M = xmalloc(sizeof(double) * na * na);
	c = xmalloc(sizeof(double) * na);
	y = xmalloc(sizeof(double) * na);
	memset(M, 0, sizeof(double) * na * na);
	for (int a = 0; a < na; a++)
		c[a] = (uint32_t) rep[a] < t ? 1.0 : 0.0;
	for (int u = 0; u < n; u++)
		for (int a = 0; a < na; a++)
			if (rep[a] / lt->span[nl[u]] == ni[u])
				for (int b = 0; b < na; b++)
					if (rep[b] / lt->span[nl[u]] == ni[u])
						M[a * na + b] +=
							1.0 / lt_nodevar_at(lt, nl[u], (size_t) ni[u] * lt->span[nl[u]]);
	for (int p = 0; p < na; p++)
		for (int q = 0; q <= p; q++)
		{
			double		s = M[p * na + q];

			for (int r = 0; r < q; r++)
				s -= M[p * na + r] * M[q * na + r];
			M[p * na + q] = p == q ? sqrt(s) : s / M[q * na + q];
		}
	for (int p = 0; p < na; p++)
	{
		double		s = c[p];

		for (int r = 0; r < p; r++)
			s -= M[p * na + r] * y[r];
		y[p] = s / M[p * na + p];
		v += y[p] * y[p];
	}
	*draws = n;
	free(M);
	free(c);
	free(y);
	free(nl);
	free(atom_of);
	free(atom_node);
	free(rep);
	return v;
}

/* Release variances and draws of a LevelTree under `est`, t = 1..T. */
static void
level_tree_variance(const LevelTree *lt, LtEstimator est, double *var, double *draws)
{
	uint32_t	T = lt->T;

	if (est == LT_COMPLETE || est == LT_COMPLETE_DEPTH)
		lt_complete(lt, T, est == LT_COMPLETE ? lt->h - 1 : LT_DEPTH, var, draws);
	else if (est == LT_ALL)
		lt_all(lt, T, var, draws);
	else
		for (uint32_t t = 1; t <= T; t++)
		{
			int			n;

			var[t] = lt_local(lt, T, t, &n);
			draws[t] = n;
		}
}

/* One not-shipped row (see level_trees). */
static void
print_level_tree(const LevelTree *lt, LtEstimator est)
{
	static const char *const what[] = {"LS all", "LS local", "LS complete", "LS complete-2"};
	uint32_t	T = lt->T;
	LevelTree	norm = *lt;
	double	   *var = xmalloc(sizeof(double) * (T + 1));
	double	   *draws = xmalloc(sizeof(double) * (T + 1));
	Fig			f = {0};
	char		name[80];
	int			n;
	double		total = 0.0;

	/* the printed shares are rounded: spend exactly the whole budget */
	for (int j = 0; j < lt->h; j++)
		total += lt->share[j];
	for (int j = 0; j < lt->h; j++)
		norm.share[j] = lt->share[j] / total;
	level_tree_variance(&norm, est, var, draws);
	for (uint32_t t = 1; t <= T; t++)
		fig_add(&f, T, t, var[t], (int) draws[t]);
	n = snprintf(name, sizeof(name), "unshipped %s%s, spans", what[est],
				 lt->top_share[0] > 0.0 ? " per top node" : "");
	for (int j = 1; j < lt->h && n < (int) sizeof(name) - 6; j++)
		n += snprintf(name + n, sizeof(name) - n, "%s%d", j == 1 ? " " : ",", lt->span[j]);
	printf("%5u %-6s %2s %2d %-46s %8.2f %8.2f %6u   draws %.1f, worst of every t %.2f\n", T,
		   lt->gauss ? "gauss" : "pure", "", lt->h, name, f.sum_q / f.n_q, f.worst, f.worst_t,
		   f.draws_sum / f.n_all, f.worst_all);
	free(var);
	free(draws);
}

/*
 * The not-shipped rows of horizon T: each tree under its estimator, and the
 * pure trees with the local family, the Gaussian binary ones kept to
 * LT_DEPTH levels below each digit node, with the same shares (not
 * optimised for them).
 */
static void
print_level_trees(uint32_t T)
{
	for (size_t i = 0; i < sizeof(level_trees) / sizeof(level_trees[0]); i++)
	{
		const LevelTree *lt = &level_trees[i];

		if (lt->T != T)
			continue;
		print_level_tree(lt, lt->complete_only ? LT_COMPLETE : LT_ALL);
		if (!lt->gauss)
			print_level_tree(lt, LT_LOCAL);
		else if (lt->complete_only && lt->span[1] == 2 && lt->span[lt->h - 1] == 1 << (lt->h - 1))
			print_level_tree(lt, LT_COMPLETE_DEPTH);
	}
}

/* Monotonic seconds. */
static double
bench_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + ts.tv_nsec * 1e-9;
}

/*
 * The noise of one release of a d = 2 low-d table (count and two sums per
 * cell, every cell of the grid drawn) at `cells` cells and horizon T,
 * release t: milliseconds with the share tree (weights, node scales and
 * every cell's exact combination) and with the k-ary counter of new pure
 * tables (dpk_cell_noise_weighted), on the same key.
 */
static void
noise_time(uint32_t T, uint32_t t, uint64_t cells, double *share_ms, double *kary_ms)
{
	uint8_t		key[DPK_KEY_BYTES];
	DpkStream	s = {0};
	int64_t		truth[3] = {5, 100, 200},
				out[3],
				tmp[3];
	__int128	acc[3];
	DpkNoiseScratch scratch = {tmp, acc};
	DpkShareTree st;
	DpkShareWeights sw;
	DpkTreeWeights tw;
	DpkCellScales *sc;
	DpkScale	kb = dpk_scale_from_double(3.0 * 2.0),
				ks = dpk_scale_from_double(3.0 * 40.0);
	int			k = dpk_tree_choose_arity(T);
	double		t0;

	dpk_key_from_seed(77, key);
	if (!dpk_stream_open(&s, key, (uint8_t[DPK_NONCE_BYTES]) {0}))
		exit(2);
	t0 = bench_seconds();
	dpk_share_tree_init(&st, T);
	dpk_share_tree_weights(&st, t, &sw);
	sc = xmalloc(sizeof(DpkCellScales) * sw.n);
	dpk_share_node_scales(&sw, 2.0, 40.0, 2, DPK_SUMS_VECTOR, sc);
	for (uint64_t c = 0; c < cells; c++)
		dpk_cell_noise_share(&s, &(DpkCellKey) {key, 7, c}, &sw, sc, truth, out, &scratch);
	*share_ms = 1e3 * (bench_seconds() - t0);
	free(sc);
	dpk_share_weights_free(&sw);
	t0 = bench_seconds();
	dpk_tree_release_weights(DPK_TREE_LOCAL_BLUE, k, T, t, &tw);
	for (uint64_t c = 0; c < cells; c++)
		dpk_cell_noise_weighted(&s, &(DpkCellKey) {key, 7, c}, &tw,
								&(DpkCellScales) {2, kb, ks, DPK_SUMS_VECTOR}, truth, out,
								&scratch);
	*kary_ms = 1e3 * (bench_seconds() - t0);
	dpk_tree_weights_free(&tw);
	dpk_stream_close(&s);
}

/* The release-units table (see the header comment). */
static int
print_release_units(void)
{
	int			bad = 0;

	printf("# per-release noise variance of one counter in units of one full-budget release:\n"
		   "# the variance of a single release with the counter's whole budget and sensitivity 1\n"
		   "# per event (pure: Laplace 2/eps^2, node Laplace 2 (h/eps)^2; Gaussian rho-zCDP:\n"
		   "# 1/(2 rho), node h/(2 rho)); insert-only low-d tables with the default\n"
		   "# estimator (with deletions a row touches 2h nodes: pure figures x4, Gaussian x2);\n"
		   "# continuous variances (a discrete Laplace node has 2b^2 - 1/6 + O(1/b^2),\n"
		   "# a discrete Gaussian ~sigma^2); mean over t in [T/4, T], worst t in it.\n"
		   "# 'ref' rows: computed in the counter issue, copied here as constants;\n"
		   "# ratio = shipped / ref (pure rows against the share tree of new pure tables,\n"
		   "# Gaussian rows against the square-root counter of new Gaussian tables)\n");
	printf("%5s %-6s %2s %2s %-46s %8s %8s %6s %7s %7s\n", "T", "table", "k", "h", "counter",
		   "mean", "worst", "@t", "mean/", "worst/");
	for (int hi = 0; hi < 4; hi++)
	{
		uint32_t	T = unit_horizons[hi];
		Fig			f[4] = {{0}},
					g[4] = {{0}},
					fshare = {0};
		DpkLiveConfig cfg[4];
		static const char *const table[4] = {"pure", "pure", "gauss", "gauss"};
		static const char *const what[4] = {
			"k-ary least squares (T < 16, or 'tree')",
			"binary least squares (old tables, shipped)",
			"plain binary decomposition (shipped)",
			"square root, integer measurements (shipped)"};

		dpk_live_defaults(&cfg[0], 2, 5, 1.0, T, true);
		dpk_live_defaults_arity(&cfg[1], 2, 5, 1.0, T, true, DPK_TREE_ARITY_BINARY);
		dpk_live_defaults(&cfg[2], 2, 5, 1.0, T, true);
		dpk_live_use_delta(&cfg[2], 1e-6);
		cfg[3] = cfg[2];
		cfg[3].counter = DPK_LIVE_COUNTER_SQRT;
		for (int c = 0; c < 4; c++)
		{
			unit_figures(&cfg[c], T, &f[c], &g[c]);
			printf("%5u %-6s %2d %2d %-46s %8.2f %8.2f %6u\n", T, table[c], cfg[c].arity,
				   dpk_live_tree_levels(&cfg[c]), what[c], f[c].sum_q / f[c].n_q, f[c].worst,
				   f[c].worst_t);
			/* the shipped figure must be the first-principles one */
			if (fabs(f[c].sum_q - g[c].sum_q) > 1e-9 * g[c].sum_q ||
				fabs(f[c].worst - g[c].worst) > 1e-9 * g[c].worst)
			{
				printf("# MISMATCH: first principles give %.4f / %.4f\n",
					   g[c].sum_q / g[c].n_q, g[c].worst);
				bad = 1;
			}
		}
		/*
		 * The share-tree counter (share_tree.h; doc/decisions/040-share-tree-
		 * counter.md): its figures from the integer weights it publishes
		 * with, its draws against the k-ary counter's, and its ratio to the
		 * optimised per-level row, which it must not exceed.
		 */
		{
			DpkShareTree st;
			Fig			fs = {0},
						fk = {0};
			const RefRow *rr = &ref_rows[6];	/* optimised levels + LS all */

			dpk_share_tree_init(&st, T);
			for (uint32_t t = 1; t <= T; t++)
			{
				DpkTreeWeights tw;
				int			draws;
				double		v = dpk_share_tree_release_units(&st, t, &draws);

				fig_add(&fs, T, t, v, draws);
				dpk_tree_release_weights(DPK_TREE_LOCAL_BLUE, cfg[0].arity, T, t, &tw);
				fig_add(&fk, T, t, 0.0, tw.n);
				dpk_tree_weights_free(&tw);
			}
			printf("%5u %-6s %2s %2d %-46s %8.2f %8.2f %6u %7.3f %7.3f  (vs per-level row)\n", T,
				   "pure", "", st.levels, "share tree (new tables, T >= 16)",
				   fs.sum_q / fs.n_q, fs.worst, fs.worst_t, (fs.sum_q / fs.n_q) / rr->mean[hi],
				   fs.worst / rr->worst[hi]);
			printf("%5u %-6s %2s %2s %-46s draws per release %.1f mean, %d max (k-ary: %.1f, %d)\n",
				   T, "pure", "", "", "share tree: noise draws", fs.draws_sum / fs.n_all,
				   fs.draws_max, fk.draws_sum / fk.n_all, fk.draws_max);
			/* the noise of the release reading the most nodes, 256 and 16 384 cells */
			{
				uint32_t	tmax = 1;
				double		sm[2],
							km[2];

				for (uint32_t t = 1; t <= T; t++)
				{
					int			dr;

					dpk_share_tree_release_units(&st, t, &dr);
					if (dr == fs.draws_max)
					{
						tmax = t;
						break;
					}
				}
				/* the fastest of three runs of each */
				for (int c = 0; c < 2; c++)
				{
					sm[c] = km[c] = HUGE_VAL;
					for (int rep = 0; rep < 3; rep++)
					{
						double		a,
									b;

						noise_time(T, tmax, c ? 16384 : 256, &a, &b);
						sm[c] = fmin(sm[c], a);
						km[c] = fmin(km[c], b);
					}
				}
				printf("%5u %-6s %2s %2s %-46s release %u, d = 2: %.1f / %.0f ms at 256 / 16384 "
					   "cells (k-ary: %.1f / %.0f)\n", T, "pure", "", "", "share tree: noise time",
					   tmax, sm[0], sm[1], km[0], km[1]);
			}
			fshare = fs;
			if ((fs.sum_q / fs.n_q) > rr->mean[hi] || fs.worst > rr->worst[hi])
			{
				printf("# MISMATCH: the share tree is above the optimised per-level row\n");
				bad = 1;
			}
		}
		/*
		 * Not shipped: least squares over every node of the new tables' tree,
		 * the bound of any estimator of its node noises (the k-ary rows
		 * give a tree ceil(log_k T) + 1 levels, clipped at T; a new table's
		 * tree has only the levels its balanced digits need, often one fewer).
		 */
		{
			int			k = cfg[0].arity,
						h = dpk_live_tree_levels(&cfg[0]);
			double	   *fullv = xmalloc(sizeof(double) * (T + 1));
			Fig			ff = {0};

			full_variance(k, h, T, fullv);
			for (uint32_t t = 1; t <= T; t++)
				fig_add(&ff, T, t, (double) h * h * fullv[t], 0);
			free(fullv);
			printf("%5u %-6s %2d %2d %-46s %8.2f %8.2f %6u\n", T, "pure", k, h,
				   "same tree, least squares all nodes (bound)", ff.sum_q / ff.n_q, ff.worst,
				   ff.worst_t);
		}
		print_level_trees(T);
		/*
		 * The square-root counter's draws (measurements and leaves read per
		 * counter and release, mean / max over t); it must stay within 10 %
		 * of the square-root row.
		 */
		{
			const DpkSqrtCounter *sc = dpk_sqrt_counter_cached(T);
			int			ri = 2;	/* ref_rows: square-root factorization */
			double		draws_sum = 0.0;
			int			draws_max = 0;

			for (uint32_t t = 1; t <= T; t++)
			{
				int			draws = 0;

				for (uint32_t k = 0; k < t; k++)
					draws += 1 + (sc->r[k] != 0);
				draws_sum += draws;
				if (draws > draws_max)
					draws_max = draws;
			}
			printf("%5u %-6s %2s %2s %-46s draws per release %.0f mean, %d max (binary: %d max)\n",
				   T, "gauss", "", "", "square root: noise draws", draws_sum / T, draws_max,
				   dpk_tree_height(T));
			if ((f[3].sum_q / f[3].n_q) / ref_rows[ri].mean[hi] > 1.10 ||
				f[3].worst / ref_rows[ri].worst[hi] > 1.10)
			{
				printf("# MISMATCH: the square-root counter is not within 10 %% of the row\n");
				bad = 1;
			}
		}
		/*
		 * The evaluator of those rows against the issue's own figures: the
		 * binary tree with uniform rho and least squares over every node is
		 * its row "binary tree, least squares all nodes" (to its 3 digits).
		 */
		{
			LevelTree	bin = {true, false, T, 0, {0}, {0}, {0}};
			double	   *var = xmalloc(sizeof(double) * (T + 1));
			double	   *draws = xmalloc(sizeof(double) * (T + 1));
			Fig			fb = {0};

			for (bin.h = 0; bin.h == 0 || bin.span[bin.h - 1] < (int) T; bin.h++)
				bin.span[bin.h] = 1 << bin.h;
			for (int j = 0; j < bin.h; j++)
				bin.share[j] = 1.0 / bin.h;
			level_tree_variance(&bin, LT_ALL, var, draws);
			for (uint32_t t = 1; t <= T; t++)
				fig_add(&fb, T, t, var[t], 0);
			if (fabs(fb.sum_q / fb.n_q / ref_rows[1].mean[hi] - 1.0) > 0.006 ||
				fabs(fb.worst / ref_rows[1].worst[hi] - 1.0) > 0.006)
			{
				printf("# MISMATCH: uniform binary tree, every node: %.3f / %.3f\n",
					   fb.sum_q / fb.n_q, fb.worst);
				bad = 1;
			}
			free(var);
			free(draws);
		}
		for (size_t r = 0; r < sizeof(ref_rows) / sizeof(ref_rows[0]); r++)
		{
			const RefRow *rr = &ref_rows[r];
			const Fig  *s = rr->gauss ? &f[3] : &fshare;
			char		name[64];

			snprintf(name, sizeof(name), "ref: %s", rr->name);
			if (rr->mean[hi] < 0)
				printf("%5u %-6s %2s %2s %-46s %8s %8s %6s\n", T, rr->gauss ? "gauss" : "pure",
					   "", "", name, "-", "-", "");
			else
				printf("%5u %-6s %2s %2s %-46s %8.2f %8.2f %6s %7.3f %7.3f\n", T,
					   rr->gauss ? "gauss" : "pure", "", "", name, rr->mean[hi], rr->worst[hi], "",
					   (s->sum_q / s->n_q) / rr->mean[hi], s->worst / rr->worst[hi]);
		}
		fflush(stdout);
	}
	return bad;
}

int
main(int argc, char **argv)
{
	int			horizons[8] = {256, 1024},
				arities[16] = {2, 3, 4, 5, 7, 8, 11, 16},
				depths[8] = {0, 1, 2, 3};
	int			nh = 2,
				na = 8,
				nd = 4,
				hi,
				ai,
				di;
	bool		full = true;
	bool		counters = true;

	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--horizons") == 0 && i + 1 < argc)
			nh = parse_list(argv[++i], horizons, 8);
		else if (strcmp(argv[i], "--arities") == 0 && i + 1 < argc)
			na = parse_list(argv[++i], arities, 16);
		else if (strcmp(argv[i], "--depths") == 0 && i + 1 < argc)
			nd = parse_list(argv[++i], depths, 8);
		else if (strcmp(argv[i], "--no-full") == 0)
			full = false;
		else if (strcmp(argv[i], "--units") == 0 && i + 1 < argc &&
				 (strcmp(argv[i + 1], "all") == 0 || strcmp(argv[i + 1], "release") == 0))
			counters = strcmp(argv[++i], "all") == 0;
		else
		{
			fprintf(stderr, "usage: bench_counter [--horizons L] [--arities L] "
					"[--depths L] [--no-full] [--units all|release]\n");
			return 2;
		}
	}
	if (!counters)
		return print_release_units();
	printf("# per-counter MSE in units of 2 (c/eps)^2 (c = 2 with deletions): "
		   "h^2 ||w_t||^2; q = t >= T/4; ratios to naf's mean over t >= T/4\n");
	printf("%5s %3s %2s %-9s %9s %9s %15s %6s %6s %7s %5s\n", "T", "k", "h", "estimator",
		   "mean_all", "mean_q", "worst_q@t", "mean/", "worst/", "draws", "max");
	for (hi = 0; hi < nh; hi++)
	{
		uint32_t	T = (uint32_t) horizons[hi];
		double		base = 0.0;
		int			h2 = dpk_tree_shape_height(2, T);

		/* naf's mean over t >= T/4 is the base of the ratios */
		{
			int			n = 0;

			for (uint32_t t = (T + 3) / 4; t <= T; t++, n++)
				base += (double) h2 * h2 * dpk_tree_signed_nodes(2, t);
			base /= n;
		}
		for (ai = 0; ai < na; ai++)
		{
			int			k = arities[ai];
			int			h = dpk_tree_shape_height(k, T);
			double		hh = (double) h * h;
			Fig			fp = {0},
						fs = {0},
						fd = {0},
						ff = {0};
			double	   *fullv = NULL;
			char		name[16];

			for (uint32_t t = 1; t <= T; t++)
			{
				int			dr;
				double		dv = done_variance(k, t, &dr);

				fig_add(&fp, T, t, hh * plain_nodes(k, t), plain_nodes(k, t));
				fig_add(&fs, T, t, hh * dpk_tree_signed_nodes(k, t), dpk_tree_signed_nodes(k, t));
				fig_add(&fd, T, t, hh * dv, dr);
			}
			fig_print(T, k, h, "plain", &fp, base);
			fig_print(T, k, h, k == 2 ? "naf" : "signed", &fs, base);
			fig_print(T, k, h, "done", &fd, base);
			for (di = 0; di < nd; di++)
			{
				Fig			fl = {0};
				DpkTreeWeights tw;

				if (depths[di] == 0)
					continue;
				for (uint32_t t = 1; t <= T; t++)
				{
					double		v = 0.0;

					dpk_tree_weights(k, T, depths[di] % 100, depths[di] >= 100, t, &tw);
					for (int a = 0; a < tw.n; a++)
						v += tw.weight[a] * tw.weight[a];
					fig_add(&fl, T, t, hh * v, tw.n);
					dpk_tree_weights_free(&tw);
				}
				snprintf(name, sizeof(name), depths[di] >= 100 ? "fam-%d" : "local-%d", depths[di] % 100);
				fig_print(T, k, h, name, &fl, base);
			}
			if (full && T <= 2048)
			{
				int64_t		span = 1;

				for (int j = 1; j < h; j++)
					span *= k;
				if (span <= 4096)
				{
					fullv = xmalloc(sizeof(double) * (T + 1));
					full_variance(k, h, T, fullv);
					for (uint32_t t = 1; t <= T; t++)
						fig_add(&ff, T, t, hh * fullv[t], 0);
					fig_print(T, k, h, "full", &ff, base);
					free(fullv);
				}
			}
			fflush(stdout);
		}
		/* what releases use, side by side: old tables' tree and new tables' */
		for (ai = 0; ai < 2; ai++)
		{
			int			k = ai == 0 ? DPK_TREE_ARITY_BINARY : dpk_tree_choose_arity(T);
			int			h = dpk_tree_shape_height(k, T);
			Fig			fr = {0};
			DpkTreeWeights tw;

			for (uint32_t t = 1; t <= T; t++)
			{
				dpk_tree_release_weights(DPK_TREE_LOCAL_BLUE, k, T, t, &tw);
				fig_add(&fr, T, t, (double) h * h * dpk_tree_weights_norm2(&tw), tw.n);
				dpk_tree_weights_free(&tw);
			}
			fig_print(T, k, h, ai == 0 ? "old-tables" : "new-tables", &fr, base);
		}
		fflush(stdout);
	}
	printf("\n");
	return print_release_units();
}
