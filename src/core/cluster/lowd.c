/*
 * lowd.c
 *		The low-dimensional one-shot pipeline: noisy grid -> coreset ->
 *		weighted k-means (see lowd.h).
 */
#include "lowd.h"

#include <math.h>
#include <string.h>

#include "lowd_budget.h"
#include "dpk_mem.h"
#include "kmeans.h"
#include "rugnik.h"
#include "zcdp.h"

/*
 * Screened k-means restarts of the one-shot
 * (doc/decisions/033-oneshot-screened-restarts.md).
 */
#ifndef DPK_LOWD_SCREEN_ITER
#define DPK_LOWD_SCREEN_ITER 5
#endif
#define DPK_LOWD_SCREEN_KEEP 3
/* Coreset points the screening sees: about one in stride beyond this. */
#ifndef DPK_LOWD_SCREEN_POINTS
#define DPK_LOWD_SCREEN_POINTS 4096
#endif

/*
 * A residual block gives its mass to the coreset cells it holds only when
 * the rest of it is noise at this many sd; up to d = 3 only, where a
 * cluster's tails lie in few sub-blocks around its dense cells
 * (doc/decisions/043-oneshot-background-near-hotspots.md).
 */
#ifndef DPK_LOWD_REST_SIGMAS
#define DPK_LOWD_REST_SIGMAS 3.0
#endif
#define DPK_LOWD_REST_MAX_D 3

/*
 * Lloyd updates of the one-shot's centres on its noisy histogram, at most
 * (doc/decisions/055-oneshot-histogram-lloyd.md).
 */
#ifndef DPK_LOWD_REFINE_ITER
#define DPK_LOWD_REFINE_ITER 10
#endif
#ifndef DPK_LOWD_REFINE_SHRINK
#define DPK_LOWD_REFINE_SHRINK 1.0
#endif

/* Defaults for dp_kmeans below DPK_HIGHD_MIN_D. */
void
dpk_lowd_defaults(DpkLowdConfig *cfg, double epsilon, int k)
{
	cfg->epsilon = epsilon;
	cfg->k = k;
	cfg->public_n = -1.0;
	cfg->n_share = 0.05;
	cfg->sum_share = 0.5;
	cfg->grid_scale = 1.0;
	cfg->threshold_sigmas = 2.0;
	cfg->residual = true;
	cfg->rest_sigmas = DPK_LOWD_REST_SIGMAS;
	cfg->max_cells = DPK_DEFAULT_MAX_CELLS;
	cfg->restarts = 20;
	cfg->max_iter = 100;
	cfg->screen_iter = DPK_LOWD_SCREEN_ITER;
	cfg->screen_keep = DPK_LOWD_SCREEN_KEEP;
	cfg->screen_points = DPK_LOWD_SCREEN_POINTS;
	cfg->refine_iter = DPK_LOWD_REFINE_ITER;
	cfg->refine_shrink = DPK_LOWD_REFINE_SHRINK;
	cfg->grid_candidate = true;
	cfg->objective = DPK_OBJECTIVE_KMEANS;
	cfg->delta = 0.0;
}

/* Approximate DP (see lowd.h); the shares stay those of pure epsilon. */
void
dpk_lowd_use_delta(DpkLowdConfig *cfg, double delta)
{
	cfg->delta = delta;
}

/*
 * The three noise families (see lowd.h).  With delta > 0 the shares of
 * dpk_budget_lowd split rho instead of epsilon (zCDP composes additively).
 */
void
dpk_lowd_noise(const DpkLowdConfig *cfg, int d, DpkNoise *n_noise,
			   DpkNoise *count_noise, DpkNoise *sum_noise)
{
	DpkLowdBudget b;
	DpkScale	one = {1, 1};
	DpkGaussScale gone = {1, 1};

	if (cfg->delta > 0.0)
	{
		DpkLowdConfig z = *cfg;

		z.epsilon = dpk_zcdp_rho(cfg->epsilon, cfg->delta);
		b = dpk_budget_lowd(&z);
		*n_noise = dpk_noise_gauss(b.eps_n > 0.0
								   ? dpk_gauss_scale_from_double(dpk_zcdp_sigma2(1.0, b.eps_n))
								   : gone);
		*count_noise = dpk_noise_gauss(dpk_gauss_scale_from_double(dpk_zcdp_sigma2(1.0, b.eps_count)));
		*sum_noise = dpk_noise_gauss(b.eps_sum > 0.0
									 ? dpk_gauss_scale_from_double(dpk_zcdp_sigma2((double) d * DPK_REL_UNITS * DPK_REL_UNITS, b.eps_sum))
									 : gone);
		return;
	}
	b = dpk_budget_lowd(cfg);
	*n_noise = dpk_noise_laplace(b.eps_n > 0.0 ? dpk_scale_from_double(1.0 / b.eps_n) : one);
	*count_noise = dpk_noise_laplace(dpk_scale_from_double(1.0 / b.eps_count));
	*sum_noise = dpk_noise_laplace(b.eps_sum > 0.0
								   ? dpk_scale_from_double((double) DPK_REL_UNITS / b.eps_sum)
								   : one);
}

/* The public N, or a noisy count (sensitivity 1); at least 1. */
static double
lowd_noisy_n(const DpkLowdConfig *cfg, size_t n, const DpkNoise *nn, DpkStream *s)
{
	double		noisy_n;

	if (cfg->public_n >= 0.0)
		noisy_n = cfg->public_n;
	else
		noisy_n = (double) n + (double) dpk_noise_draw(s, nn);
	return noisy_n < 1.0 ? 1.0 : noisy_n;
}

/* Cells per dimension: RUGNIK at the noise actually put on each count. */
static int
lowd_cells_per_dim(const DpkLowdConfig *cfg, int d, double noisy_n, double count_var)
{
	double		m;
	int			max_per_dim;

	m = dpk_grid_m(DPK_RULE_RUGNIK, noisy_n,
				   dpk_rugnik_eps_for_variance(count_var), cfg->k, d) * cfg->grid_scale;
	max_per_dim = (int) floor(pow(cfg->max_cells, 1.0 / d) + 1e-9);
	if (max_per_dim < 1)
		max_per_dim = 1;
	return dpk_grid_cells_per_dim(DPK_RULE_RUGNIK, m, noisy_n,
								  dpk_rugnik_eps_for_variance(count_var),
								  cfg->k, d, max_per_dim);
}

/* Noise on every cell's count and sum vector, in cell order. */
static void
lowd_hist_noise(DpkDenseHist *h, const DpkNoise *count_noise, const DpkNoise *sum_noise,
				DpkStream *s)
{
	uint64_t	c;

	if (!count_noise->gauss)
	{
		dpk_hist_add_noise(h, s, count_noise->lap, sum_noise->lap);
		return;
	}
	for (c = 0; c < h->ncells; c++)
	{
		if ((c & 4095) == 0)
			dpk_check_interrupts();
		h->count[c] += dpk_noise_draw(s, count_noise);
		if (h->sum)
			dpk_noise_add_vector(s, sum_noise, h->d, 1, h->sum + c * h->d);
	}
}

/*
 * The grid of a one-shot from its (public or noisy) N: the count and sum
 * noise variances, the RUGNIK size at that count noise, and an empty
 * histogram of that size in out.
 */
static void
lowd_hist_open(const DpkLowdConfig *cfg, int d, double noisy_n, const DpkNoise *count_noise,
			   const DpkNoise *sum_noise, DpkLowdHist *out)
{
	DpkLowdBudget eps = dpk_budget_lowd(cfg);

	out->noisy_n = noisy_n;
	out->count_var = dpk_noise_variance(count_noise, 0);
	out->cells_per_dim = lowd_cells_per_dim(cfg, d, out->noisy_n, out->count_var);
	out->sum_var = eps.eps_sum > 0.0 ? dpk_noise_variance(sum_noise, d) : 0.0;
	dpk_hist_init(&out->hist, d, out->cells_per_dim, eps.eps_sum > 0.0);
}

/*
 * Weighted k-means (or k-median) of the coreset into res, or every centre at
 * the box middle.
 */
static void
lowd_centres(const DpkBox *box, const DpkLowdConfig *cfg, const DpkCoreset *cs,
			 DpkStream *s, DpkOneshotResult *res)
{
	int			d = box->d;

	res->centers = dpk_alloc((size_t) cfg->k * d * sizeof(double));
	res->sizes = dpk_alloc((size_t) cfg->k * sizeof(double));
	if (cs->n > 0 && cfg->objective == DPK_OBJECTIVE_KMEDIAN)
		dpk_kmedian(&(DpkPoints) {cs->points, cs->weights, cs->n, d},
					&(DpkClusterOpts) {cfg->k, cfg->restarts, cfg->max_iter, dpk_stream_u64(s)},
					&(DpkClusterOut) {res->centers, res->sizes});
	else if (cs->n > 0)
	{
		/* screen on a sample of the coreset when it is large (record 035) */
		int			stride = cfg->screen_points > 0 && cs->n > cfg->screen_points
			? (cs->n + cfg->screen_points - 1) / cfg->screen_points : 1;

		dpk_kmeans_screened_sample(&(DpkPoints) {cs->points, cs->weights, cs->n, d},
								   &(DpkClusterOpts) {cfg->k, cfg->restarts, cfg->max_iter, dpk_stream_u64(s)},
								   cfg->screen_iter, cfg->screen_keep, stride,
								   &(DpkClusterOut) {res->centers, res->sizes});
	}
	else
	{
		/* Nothing rose above the noise: every centre at the box centre. */
		double	   *u = dpk_alloc(d * sizeof(double));
		int			c,
					j;

		for (j = 0; j < d; j++)
			u[j] = 0.5;
		for (c = 0; c < cfg->k; c++)
		{
			dpk_box_denormalize(box, u, res->centers + (size_t) c * d);
			res->sizes[c] = 0.0;
		}
		dpk_free(u);
	}
}

/* The noisy histogram of a one-shot release (see lowd.h). */
void
dpk_lowd_noisy_histogram(const DpkBox *box, const double *points, size_t n,
						 const DpkLowdConfig *cfg, DpkStream *s, DpkLowdHist *out)
{
	DpkNoise	n_noise,
				count_noise,
				sum_noise;

	/*
	 * Each point adds at most DPK_REL_UNITS - 1 to each of its cell's d sums:
	 * an l-infinity sensitivity of DPK_REL_UNITS for the sum vector (cube
	 * noise), or an l2 one of sqrt(d) DPK_REL_UNITS (Gaussian).
	 */
	dpk_lowd_noise(cfg, box->d, &n_noise, &count_noise, &sum_noise);
	lowd_hist_open(cfg, box->d, lowd_noisy_n(cfg, n, &n_noise, s), &count_noise, &sum_noise,
				   out);
	dpk_hist_add_points(&out->hist, box, points, n);
	lowd_hist_noise(&out->hist, &count_noise, &sum_noise, s);
}

/* The one-shot's mean guard (see lowd.h). */
bool
dpk_lowd_mean_guard(const DpkBox *box, const DpkLowdHist *lh, int k, double *centers,
					double *sizes)
{
	const DpkDenseHist *h = &lh->hist;
	int			d = box->d,
				m = h->m,
				i,
				j;
	double		su = 1.0 / ((double) h->units * m),
				total = 0.0,
				gap,
				sd;
	double	   *b = dpk_alloc0(sizeof(double) * d),
			   *w2 = dpk_alloc(sizeof(double) * d),
			   *a = dpk_alloc(sizeof(double) * (size_t) k * d);
	int64_t    *idx = dpk_alloc(sizeof(int64_t) * d);
	uint64_t	c;
	bool		fired = false;

	if (h->sum != NULL)
	{
		/* the one centre: the noisy mean of every cell (positions as in grid.h) */
		for (c = 0; c < h->ncells; c++)
		{
			dpk_grid_cell_coords(d, m, c, idx);
			total += (double) h->count[c];
			for (j = 0; j < d; j++)
				b[j] += (double) h->count[c] * ((double) idx[j] + 0.5 / (double) h->units) / m +
					su * (double) h->sum[c * d + j];
		}
	}
	if (h->sum != NULL && total > 0.0)
	{
		for (j = 0; j < d; j++)
		{
			b[j] = fmin(1.0, fmax(0.0, b[j] / total));
			w2[j] = (box->upper[j] - box->lower[j]) * (box->upper[j] - box->lower[j]);
		}
		for (i = 0; i < k; i++)
			dpk_box_normalize(box, centers + (size_t) i * d, a + (size_t) i * d);
		gap = dpk_hist_mean_gap(h, w2, lh->count_var, lh->sum_var, k, a, b, &sd);
		if (gap > DPK_LOWD_GUARD_Z * sd)
		{
			for (i = 0; i < k; i++)
			{
				dpk_box_denormalize(box, b, centers + (size_t) i * d);
				sizes[i] = i == 0 ? total : 0.0;
			}
			fired = true;
		}
	}
	dpk_free(b);
	dpk_free(w2);
	dpk_free(a);
	dpk_free(idx);
	return fired;
}

/*
 * The cells of a histogram's support with what every pass over them needs,
 * computed once from the cell numbers: the same values, in cell order, as
 * the passes computed cell by cell before (doc/decisions/058-oneshot-refine-speed.md).
 */
typedef struct LowdCells
{
	size_t		n;				/* cells of the support */
	double	   *mid;			/* n * d: the cell's middle, (idx + 1/2) / m */
	double	   *off;			/* n * d: its rows' corner, (idx + 1/(2U)) / m
								 * (grid.h) */
	double	   *cnt;			/* n: noisy count */
	double	   *sum;			/* n * d: noisy in-cell sums, or NULL */
	double	   *pos;			/* n * d: the rows' noisy sum of positions,
								 * count * corner + sums / (U m) */
} LowdCells;

/* The support's cells of h (support NULL: every cell) into lc. */
static void
lowd_cells_build(const DpkDenseHist *h, const bool *support, LowdCells *lc)
{
	int			d = h->d,
				m = h->m,
				j;
	double		su = 1.0 / ((double) h->units * m);
	int64_t    *idx = dpk_alloc(sizeof(int64_t) * d);
	size_t		n = 0,
				t = 0;
	uint64_t	c;

	for (c = 0; c < h->ncells; c++)
		if (support == NULL || support[c])
			n++;
	lc->n = n;
	if (n == 0)
		n = 1;
	lc->mid = dpk_alloc(sizeof(double) * n * d);
	lc->off = dpk_alloc(sizeof(double) * n * d);
	lc->cnt = dpk_alloc(sizeof(double) * n);
	lc->pos = dpk_alloc(sizeof(double) * n * d);
	lc->sum = h->sum ? dpk_alloc(sizeof(double) * n * d) : NULL;
	for (j = 0; j < d; j++)
		idx[j] = 0;
	for (c = 0; c < h->ncells; c++)
	{
		double		cnt = (double) h->count[c];

		if (c > 0)
		{
			/* the next cell's coordinates (dpk_grid_cell_coords: the last fastest) */
			for (j = d - 1; j > 0 && idx[j] == m - 1; j--)
				idx[j] = 0;
			idx[j]++;
		}
		if ((c & 65535) == 0)
			dpk_check_interrupts();
		if (support != NULL && !support[c])
			continue;
		DPK_ASSERT(idx[0] < m);
		lc->cnt[t] = cnt;
		for (j = 0; j < d; j++)
		{
			double		o = ((double) idx[j] + 0.5 / (double) h->units) / m;

			lc->mid[t * d + j] = ((double) idx[j] + 0.5) / m;
			lc->off[t * d + j] = o;
			if (lc->sum)
				lc->sum[t * d + j] = (double) h->sum[c * d + j];
			lc->pos[t * d + j] = cnt * o + (h->sum ? su * (double) h->sum[c * d + j] : 0.0);
		}
		t++;
	}
	dpk_free(idx);
}

/* Free the arrays of lowd_cells_build. */
static void
lowd_cells_free(LowdCells *lc)
{
	dpk_free(lc->mid);
	dpk_free(lc->off);
	dpk_free(lc->cnt);
	dpk_free(lc->pos);
	dpk_free(lc->sum);
}

/*
 * The centre (of k, a, k * d normalised) nearest the middle x of a cell in
 * the metric of w2, the lowest on a tie.  Every distance is summed in full
 * and compared by selects; stopping a sum once it reaches the best (as the
 * passes did before) chooses the same centre, since adding nonnegative
 * terms never lowers a rounded sum, and a NaN distance never wins either way.
 */
static inline __attribute__((always_inline)) int
lowd_nearest_d(const double *a, const double *w2, const double *x, int k, int d)
{
	double		best = INFINITY;
	int			bi = 0,
				i,
				j;

	for (i = 0; i < k; i++)
	{
		double		dist = 0.0;
		bool		lead;

		for (j = 0; j < d; j++)
		{
			double		diff = a[(size_t) i * d + j] - x[j];

			dist += w2[j] * diff * diff;
		}
		lead = dist < best;
		best = lead ? dist : best;
		bi = lead ? i : bi;
	}
	return bi;
}

/*
 * Relative slack of the refinement's bounds (far above a distance's
 * rounding), and an absolute one above the square root of what a
 * distance's terms lose to underflow.
 */
#define DPK_LOWD_REFINE_SLACK 1e-13
#define DPK_LOWD_REFINE_TINY 1e-150

/*
 * Hamerly's bounds for the cells of dpk_lowd_refine (NULL ub: every cell
 * every pass): ub[c] is at least the distance from the cell's middle to
 * its centre, lb[c] at most that to every other centre, both in the
 * metric of w2 (a norm, so the triangle inequality moves them by the
 * centres' moves delta).  A cell whose ub, squared and widened by the
 * slack, stays below lb squared and narrowed by it keeps its centre: each
 * computed squared distance is within a relative (d + 3) DBL_EPSILON of
 * its exact value (nonnegative terms, no cancellation), far below the
 * slack, so the computed distances put the same centre strictly first,
 * with no tie, as the full comparison does.
 */
typedef struct LowdBounds
{
	double	   *ub;				/* n cells */
	double	   *lb;				/* n cells */
	double	   *delta;			/* k: each centre's last move, widened */
	double		max1;			/* the largest move */
	double		max2;			/* the second largest */
	int			jmax;			/* the centre that made max1 */
} LowdBounds;

/* Squared distance of centre i (of a) to the middle x, as lowd_nearest_d sums it. */
static inline __attribute__((always_inline)) double
lowd_sqdist_d(const double *a, const double *w2, const double *x, int i, int d)
{
	double		dist = 0.0;
	int			j;

	for (j = 0; j < d; j++)
	{
		double		diff = a[(size_t) i * d + j] - x[j];

		dist += w2[j] * diff * diff;
	}
	return dist;
}

/*
 * lowd_nearest_d that also sets the cell's bounds: ub from the distance to
 * the centre chosen, lb from the lowest distance to any other.
 */
static inline __attribute__((always_inline)) int
lowd_nearest_bounded_d(const double *a, const double *w2, const double *x, int k,
					   double *ub, double *lb, int d)
{
	double		best = INFINITY,
				second = INFINITY;
	int			bi = 0,
				i;

	for (i = 0; i < k; i++)
	{
		double		dist = lowd_sqdist_d(a, w2, x, i, d),
					loser;
		bool		lead = dist < best;

		loser = lead ? best : dist;
		second = loser < second ? loser : second;
		best = lead ? dist : best;
		bi = lead ? i : bi;
	}
	*ub = sqrt(best) * (1.0 + DPK_LOWD_REFINE_SLACK) + DPK_LOWD_REFINE_TINY;
	second = sqrt(second) * (1.0 - DPK_LOWD_REFINE_SLACK) - DPK_LOWD_REFINE_TINY;
	*lb = second > 0.0 ? second : 0.0;
	return bi;
}

/*
 * Centre i's sums at d = 2 into run: its noisy count, cells, noisy sums of
 * positions, of corners, of their squares.
 */
static inline __attribute__((always_inline)) void
lowd_run_load(int i, double *run, const double *mass, const double *ncell, const double *pos,
			  const double *o1, const double *o2)
{
	run[0] = mass[i];
	run[1] = ncell[i];
	run[2] = pos[i * 2];
	run[3] = pos[i * 2 + 1];
	run[4] = o1[i * 2];
	run[5] = o1[i * 2 + 1];
	run[6] = o2[i * 2];
	run[7] = o2[i * 2 + 1];
}

/* The sums in run back to centre i's (lowd_run_load's order). */
static inline __attribute__((always_inline)) void
lowd_run_store(int i, const double *run, double *mass, double *ncell, double *pos, double *o1,
			   double *o2)
{
	mass[i] = run[0];
	ncell[i] = run[1];
	pos[i * 2] = run[2];
	pos[i * 2 + 1] = run[3];
	o1[i * 2] = run[4];
	o1[i * 2 + 1] = run[5];
	o2[i * 2] = run[6];
	o2[i * 2 + 1] = run[7];
}

/*
 * One assignment pass of dpk_lowd_refine over the cells: each to its nearest
 * centre (near), the centres' noisy counts, cells, noisy sums of positions
 * and sums of corners and their squares, in cell order.  With bounds (bd
 * not NULL; near set by an earlier pass, or -1) a cell whose bounds show
 * its centre is still strictly nearest is not compared again.  Whether any
 * cell changed centre.
 */
static inline __attribute__((always_inline)) bool
lowd_refine_pass_d(const LowdCells *lc, const double *a, const double *w2, int k,
				   int *near, LowdBounds *bd, double *mass, double *ncell, double *pos,
				   double *o1, double *o2, int d)
{
	bool		moved = false;
	size_t		c;
	int			j,
				cur = -1;
	double		run[8] = {0};

	for (c = 0; c < lc->n; c++)
	{
		const double *x = lc->mid + c * d;
		int			bi = near[c];

		if ((c & 4095) == 0)
			dpk_check_interrupts();
		if (bd == NULL)
			bi = lowd_nearest_d(a, w2, x, k, d);
		else
		{
			bool		keep = false;

			if (bi >= 0)
			{
				double		l = bd->lb[c] - (bi == bd->jmax ? bd->max2 : bd->max1),
							lb2;

				bd->ub[c] = (bd->ub[c] + bd->delta[bi]) * (1.0 + DPK_LOWD_REFINE_SLACK);
				bd->lb[c] = l > 0.0 ? l * (1.0 - DPK_LOWD_REFINE_SLACK) : 0.0;
				lb2 = bd->lb[c] * bd->lb[c] * (1.0 - DPK_LOWD_REFINE_SLACK);
				keep = bd->ub[c] * bd->ub[c] * (1.0 + DPK_LOWD_REFINE_SLACK) < lb2;
				if (!keep)
				{
					/* tighten the upper bound to the distance, try again */
					bd->ub[c] = sqrt(lowd_sqdist_d(a, w2, x, bi, d)) *
						(1.0 + DPK_LOWD_REFINE_SLACK) + DPK_LOWD_REFINE_TINY;
					keep = bd->ub[c] * bd->ub[c] * (1.0 + DPK_LOWD_REFINE_SLACK) < lb2;
				}
			}
			if (!keep)
				bi = lowd_nearest_bounded_d(a, w2, x, k, &bd->ub[c], &bd->lb[c], d);
		}
		moved |= near[c] != bi;
		near[c] = bi;
		if (d == 2)
		{
			/*
			 * The same sums in the same order, the current centre's in
			 * registers: neighbouring cells mostly share a centre, and a run
			 * of them no longer waits on memory.
			 */
			if (bi != cur)
			{
				if (cur >= 0)
					lowd_run_store(cur, run, mass, ncell, pos, o1, o2);
				cur = bi;
				lowd_run_load(cur, run, mass, ncell, pos, o1, o2);
			}
			run[0] += lc->cnt[c];
			run[1] += 1.0;
			for (j = 0; j < 2; j++)
			{
				double		o = lc->off[c * 2 + j];

				run[2 + j] += lc->pos[c * 2 + j];
				run[4 + j] += o;
				run[6 + j] += o * o;
			}
			continue;
		}
		mass[bi] += lc->cnt[c];
		ncell[bi] += 1.0;
		for (j = 0; j < d; j++)
		{
			double		o = lc->off[c * d + j];

			pos[(size_t) bi * d + j] += lc->pos[c * d + j];
			o1[(size_t) bi * d + j] += o;
			o2[(size_t) bi * d + j] += o * o;
		}
	}
	if (d == 2 && cur >= 0)
		lowd_run_store(cur, run, mass, ncell, pos, o1, o2);
	return moved;
}

/* lowd_refine_pass_d, compiled apart for d = 2 (the same operations). */
static bool
lowd_refine_pass(const LowdCells *lc, const double *a, const double *w2, int k, int d,
				 int *near, LowdBounds *bd, double *mass, double *ncell, double *pos,
				 double *o1, double *o2)
{
	if (d == 2)
		return lowd_refine_pass_d(lc, a, w2, k, near, bd, mass, ncell, pos, o1, o2, 2);
	return lowd_refine_pass_d(lc, a, w2, k, near, bd, mass, ncell, pos, o1, o2, d);
}

/*
 * Whether the bounds' argument holds for these weights and centres: every
 * weight 0 or within [1e-100, 1e100] and every centre coordinate in [0, 1]
 * (then no term of a distance overflows or underflows to a subnormal, so
 * each is within its relative rounding of the exact value).
 */
static bool
lowd_bounds_safe(const double *w2, const double *a, int k, int d)
{
	int			i;

	for (i = 0; i < d; i++)
		if (!(w2[i] == 0.0 || (w2[i] >= 1e-100 && w2[i] <= 1e100)))
			return false;
	for (i = 0; i < k * d; i++)
		if (!(a[i] >= 0.0 && a[i] <= 1.0))
			return false;
	return true;
}

/* The moves of the centres from prev to a into bd (see LowdBounds). */
static void
lowd_bounds_move(LowdBounds *bd, const double *prev, const double *a, const double *w2,
				 int k, int d)
{
	int			i;

	bd->max1 = bd->max2 = 0.0;
	bd->jmax = 0;
	for (i = 0; i < k; i++)
	{
		double		mv = sqrt(lowd_sqdist_d(a, w2, prev + (size_t) i * d, i, d)) *
			(1.0 + DPK_LOWD_REFINE_SLACK) + DPK_LOWD_REFINE_TINY;

		bd->delta[i] = mv;
		if (mv > bd->max1)
		{
			bd->max2 = bd->max1;
			bd->max1 = mv;
			bd->jmax = i;
		}
		else if (mv > bd->max2)
			bd->max2 = mv;
	}
}

/* dpk_lowd_refine on the support's cells lc of lh (see lowd.h). */
static int
lowd_refine_cells(const DpkBox *box, const DpkLowdHist *lh, const LowdCells *lc, int k,
				  double min_size, int max_iter, double shrink, double *centers,
				  double *sizes)
{
	const DpkDenseHist *h = &lh->hist;
	int			d = box->d,
				m = h->m,
				i,
				j,
				it,
				updates = 0;
	double		su = 1.0 / ((double) h->units * m);
	double	   *a = dpk_alloc(sizeof(double) * (size_t) k * d),
			   *w2 = dpk_alloc(sizeof(double) * d),
			   *mass = dpk_alloc(sizeof(double) * k),
			   *pos = dpk_alloc(sizeof(double) * (size_t) k * d),
			   *a0 = dpk_alloc(sizeof(double) * (size_t) k * d),
			   *ncell = dpk_alloc(sizeof(double) * k),
			   *o1 = dpk_alloc(sizeof(double) * (size_t) k * d),
			   *o2 = dpk_alloc(sizeof(double) * (size_t) k * d),
			   *prev = dpk_alloc(sizeof(double) * (size_t) k * d);
	int		   *near = dpk_alloc(sizeof(int) * (lc->n ? lc->n : 1));
	size_t		c;
	LowdBounds	bounds,
			   *bd = NULL;

	DPK_ASSERT(h->d == d);
	for (j = 0; j < d; j++)
		w2[j] = (box->upper[j] - box->lower[j]) * (box->upper[j] - box->lower[j]);
	for (i = 0; i < k; i++)
		dpk_box_normalize(box, centers + (size_t) i * d, a + (size_t) i * d);
	memcpy(a0, a, sizeof(double) * (size_t) k * d);
	for (c = 0; c < lc->n; c++)
		near[c] = -1;
	if (k > 1 && lowd_bounds_safe(w2, a, k, d))
	{
		bd = &bounds;
		bd->ub = dpk_alloc(sizeof(double) * (lc->n ? lc->n : 1));
		bd->lb = dpk_alloc(sizeof(double) * (lc->n ? lc->n : 1));
		bd->delta = dpk_alloc(sizeof(double) * k);
	}
	for (it = 0;; it++)
	{
		bool		moved;

		for (i = 0; i < k; i++)
			mass[i] = ncell[i] = 0.0;
		for (i = 0; i < k * d; i++)
			pos[i] = o1[i] = o2[i] = 0.0;
		/* each cell to the centre nearest its middle (the lowest on a tie) */
		moved = lowd_refine_pass(lc, a, w2, k, d, near, bd, mass, ncell, pos, o1, o2);
		/* the centres are their cells' means already, or the updates are spent */
		if ((it > 0 && !moved) || it >= max_iter)
			break;
		if (bd)
			memcpy(prev, a, sizeof(double) * (size_t) k * d);
		for (i = 0; i < k; i++)
			if (mass[i] > min_size)
				for (j = 0; j < d; j++)
					a[(size_t) i * d + j] = fmin(1.0, fmax(0.0, pos[(size_t) i * d + j] / mass[i]));
		if (bd)
			lowd_bounds_move(bd, prev, a, w2, k, d);
		updates++;
	}
	/*
	 * Each centre's move from where it started, shrunk by the noise of its
	 * cells' mean: the variance of (noisy sum - mean noisy count) / count,
	 * to first order, against the square of the move (positive-part
	 * James-Stein with factor shrink).
	 */
	for (i = 0; shrink > 0.0 && i < k; i++)
	{
		double		var = 0.0,
					move = 0.0,
					lambda;

		if (!(mass[i] > min_size))
			continue;
		for (j = 0; j < d; j++)
		{
			size_t		ij = (size_t) i * d + j;
			double		mu = pos[ij] / mass[i];

			var += w2[j] * (lh->count_var * fmax(0.0, o2[ij] - 2.0 * mu * o1[ij] + ncell[i] * mu * mu) +
							(h->sum ? ncell[i] * su * su * lh->sum_var : 0.0)) / (mass[i] * mass[i]);
			move += w2[j] * (a[ij] - a0[ij]) * (a[ij] - a0[ij]);
		}
		lambda = move > 0.0 ? fmax(0.0, 1.0 - shrink * var / move) : 0.0;
		for (j = 0; j < d; j++)
			a[(size_t) i * d + j] = a0[(size_t) i * d + j] +
				lambda * (a[(size_t) i * d + j] - a0[(size_t) i * d + j]);
	}
	for (i = 0; i < k; i++)
	{
		dpk_box_denormalize(box, a + (size_t) i * d, centers + (size_t) i * d);
		if (sizes)
			sizes[i] = fmax(mass[i], 0.0);
	}
	dpk_free(a);
	dpk_free(w2);
	dpk_free(mass);
	dpk_free(pos);
	dpk_free(a0);
	dpk_free(ncell);
	dpk_free(o1);
	dpk_free(o2);
	dpk_free(prev);
	dpk_free(near);
	if (bd)
	{
		dpk_free(bd->ub);
		dpk_free(bd->lb);
		dpk_free(bd->delta);
	}
	return updates;
}

/* Lloyd updates on the noisy histogram (see lowd.h). */
int
dpk_lowd_refine(const DpkBox *box, const DpkLowdHist *lh, const bool *support, int k,
				double min_size, int max_iter, double shrink, double *centers,
				double *sizes)
{
	LowdCells	lc;
	int			updates;

	DPK_ASSERT(lh->hist.d == box->d);
	lowd_cells_build(&lh->hist, support, &lc);
	updates = lowd_refine_cells(box, lh, &lc, k, min_size, max_iter, shrink, centers, sizes);
	lowd_cells_free(&lc);
	return updates;
}

/* dpk_lowd_hist_cost on the support's cells lc of h (see lowd.h). */
static double
lowd_hist_cost_cells(const DpkBox *box, const DpkDenseHist *h, const LowdCells *lc, int k,
					 const double *centers)
{
	int			d = box->d,
				m = h->m,
				i,
				j;
	double		su = 1.0 / ((double) h->units * m),
				cost = 0.0;
	double	   *a = dpk_alloc(sizeof(double) * (size_t) k * d),
			   *w2 = dpk_alloc(sizeof(double) * d);
	size_t		c;

	for (j = 0; j < d; j++)
		w2[j] = (box->upper[j] - box->lower[j]) * (box->upper[j] - box->lower[j]);
	for (i = 0; i < k; i++)
		dpk_box_normalize(box, centers + (size_t) i * d, a + (size_t) i * d);
	for (c = 0; c < lc->n; c++)
	{
		int			bi;

		if ((c & 4095) == 0)
			dpk_check_interrupts();
		bi = d == 2 ? lowd_nearest_d(a, w2, lc->mid + c * 2, k, 2)
			: lowd_nearest_d(a, w2, lc->mid + c * d, k, d);
		/* sum over the cell's rows of |a|^2 - 2 <a, row>, rows as in grid.h */
		for (j = 0; j < d; j++)
		{
			double		aj = a[(size_t) bi * d + j],
						o = lc->off[c * d + j];

			cost += w2[j] * (lc->cnt[c] * (aj * aj - 2.0 * aj * o) -
							 (lc->sum ? 2.0 * su * aj * lc->sum[c * d + j] : 0.0));
		}
	}
	dpk_free(a);
	dpk_free(w2);
	return cost;
}

/* The estimated cost of centres on a noisy histogram (see lowd.h). */
double
dpk_lowd_hist_cost(const DpkBox *box, const DpkDenseHist *h, const bool *support, int k,
				   const double *centers)
{
	LowdCells	lc;
	double		cost;

	lowd_cells_build(h, support, &lc);
	cost = lowd_hist_cost_cells(box, h, &lc, k, centers);
	lowd_cells_free(&lc);
	return cost;
}

/* The coreset of a one-shot's noisy histogram (see lowd.h). */
double
dpk_lowd_coreset(const DpkBox *box, const DpkLowdConfig *cfg, const DpkLowdHist *lh,
				 DpkCoreset *cs, bool *support)
{
	int			d = box->d;
	double		threshold;
	uint64_t	c;

	threshold = dpk_coreset_threshold(sqrt(lh->count_var), cfg->threshold_sigmas,
									  (double) lh->hist.ncells);
	dpk_coreset_from_hist(&lh->hist, box, threshold, lh->sum_var, cs);
	if (cfg->residual)
		dpk_coreset_add_residual(&lh->hist, box, threshold, sqrt(lh->count_var),
								 cfg->threshold_sigmas,
								 d <= DPK_LOWD_REST_MAX_D ? cfg->rest_sigmas : 0.0, cs,
								 support);
	else
		for (c = 0; support != NULL && c < lh->hist.ncells; c++)
			support[c] = (double) lh->hist.count[c] > threshold;
	return threshold;
}

/*
 * Everything after the noisy histogram: the coreset of the cells above the
 * noise (and the residual blocks), the centres, their Lloyd updates on the
 * histogram, the mean guard.  Frees lh.
 */
static void
lowd_cluster_hist(const DpkBox *box, const DpkLowdConfig *cfg, DpkLowdHist *lh, DpkStream *s,
				  DpkOneshotResult *res)
{
	int			d = box->d;
	DpkCoreset	cs;
	double		threshold;
	bool		refine = cfg->refine_iter > 0 && d <= DPK_LOWD_REFINE_MAX_D &&
		cfg->objective != DPK_OBJECTIVE_KMEDIAN;
	bool	   *support = refine
		? dpk_alloc(sizeof(bool) * (lh->hist.ncells ? lh->hist.ncells : 1)) : NULL;

	threshold = dpk_lowd_coreset(box, cfg, lh, &cs, support);

	res->noisy_n = lh->noisy_n;
	res->cells_per_dim = lh->cells_per_dim;
	res->cells = dpk_grid_cells(d, lh->cells_per_dim);
	res->coreset_size = cs.n;
	/*
	 * The mass below the threshold is spread over many small weighted
	 * points; a centre that gathers less than one cell's threshold is noise.
	 */
	res->min_size = threshold;
	lowd_centres(box, cfg, &cs, s, res);
	/* the coreset's shares of the mass below the threshold are a guess */
	if (refine && cs.n > 0)
	{
		DpkCoreset	g;
		LowdCells	lc;

		/* the support's cells, computed once for every pass below */
		lowd_cells_build(&lh->hist, support, &lc);
		lowd_refine_cells(box, lh, &lc, cfg->k, threshold, cfg->refine_iter,
						  cfg->refine_shrink, res->centers, res->sizes);
		/*
		 * A second candidate: the k-means of every cell of positive noisy
		 * count, as a plain grid has it, refined alike; the lower estimated
		 * cost on the histogram wins.
		 */
		dpk_coreset_from_hist(&lh->hist, box, 0.0, lh->sum_var, &g);
		if (cfg->grid_candidate && g.n > 0)
		{
			DpkOneshotResult gr = {0};

			lowd_centres(box, cfg, &g, s, &gr);
			lowd_refine_cells(box, lh, &lc, cfg->k, threshold, cfg->refine_iter,
							  cfg->refine_shrink, gr.centers, gr.sizes);
			if (lowd_hist_cost_cells(box, &lh->hist, &lc, cfg->k, gr.centers) <
				lowd_hist_cost_cells(box, &lh->hist, &lc, cfg->k, res->centers))
			{
				memcpy(res->centers, gr.centers, sizeof(double) * (size_t) cfg->k * d);
				memcpy(res->sizes, gr.sizes, sizeof(double) * cfg->k);
			}
			dpk_oneshot_result_free(&gr);
		}
		dpk_coreset_free(&g);
		lowd_cells_free(&lc);
	}
	if (support)
		dpk_free(support);
	res->mean_guard_fired = cfg->objective != DPK_OBJECTIVE_KMEDIAN &&
		dpk_lowd_mean_guard(box, lh, cfg->k, res->centers, res->sizes);
	dpk_hist_free(&lh->hist);
	dpk_coreset_free(&cs);
}

/* One-shot epsilon-DP k-means in the original space (see lowd.h). */
void
dpk_lowd_cluster(const DpkBox *box, const double *points, size_t n,
				 const DpkLowdConfig *cfg, DpkStream *s, DpkOneshotResult *res)
{
	DpkLowdHist lh;

	dpk_lowd_noisy_histogram(box, points, n, cfg, s, &lh);
	lowd_cluster_hist(box, cfg, &lh, s, res);
}

/* Open a one-shot of public N before its rows (see lowd.h). */
void
dpk_lowd_stream_begin(const DpkBox *box, const DpkLowdConfig *cfg, DpkLowdHist *lh)
{
	DpkNoise	n_noise,
				count_noise,
				sum_noise;

	if (cfg->public_n < 0.0)
		dpk_fail("a one-shot counts its rows as they arrive only with a public N");
	dpk_lowd_noise(cfg, box->d, &n_noise, &count_noise, &sum_noise);
	/* a public N draws nothing: the stream is not needed yet */
	lowd_hist_open(cfg, box->d, lowd_noisy_n(cfg, 0, &n_noise, NULL), &count_noise,
				   &sum_noise, lh);
}

/* Count a batch of points (see lowd.h). */
void
dpk_lowd_stream_add(const DpkBox *box, DpkLowdHist *lh, const double *points, size_t n)
{
	dpk_hist_add_points(&lh->hist, box, points, n);
}

/* Noise and centres of a counted one-shot (see lowd.h). */
void
dpk_lowd_stream_finish(const DpkBox *box, const DpkLowdConfig *cfg, DpkLowdHist *lh,
					   DpkStream *s, DpkOneshotResult *res)
{
	DpkNoise	n_noise,
				count_noise,
				sum_noise;

	dpk_lowd_noise(cfg, box->d, &n_noise, &count_noise, &sum_noise);
	lowd_hist_noise(&lh->hist, &count_noise, &sum_noise, s);
	lowd_cluster_hist(box, cfg, lh, s, res);
}
