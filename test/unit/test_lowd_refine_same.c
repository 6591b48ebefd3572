/*
 * test_lowd_refine_same.c
 *		The one-shot's Lloyd updates on its noisy histogram and its estimated
 *		cost (dpk_lowd_refine, dpk_lowd_hist_cost, lowd.h) give the values of
 *		their plain form bit for bit
 *		(doc/decisions/058-oneshot-refine-speed.md).
 *
 * The plain form is kept here as the reference: every pass walks every
 * cell, computes its coordinates and compares every centre with an early
 * exit, as record 055 shipped it.  The extension's passes walk the
 * support's cells computed once and skip, by Hamerly's bounds, the cells
 * whose centre cannot have changed.  Compared on random histograms (signed
 * noisy counts and sums, random supports, d = 1..3, boxes of every scale)
 * with centres placed to tie (on cell middles, duplicated, mirrored around
 * a middle), and end to end: dpk_lowd_cluster against the plain pipeline of
 * record 055 rebuilt from the public steps, on many keys and data sets.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "dpk_mem.h"
#include "kmeans.h"
#include "lowd.h"
#include "noise.h"
#include "unit.h"
#include "unit_stream.h"

/* The plain dpk_lowd_refine (record 055), the reference. */
static int
ref_refine(const DpkBox *box, const DpkLowdHist *lh, const bool *support, int k,
		   double min_size, int max_iter, double shrink, double *centers, double *sizes)
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
			   *x = dpk_alloc(sizeof(double) * d),
			   *mass = dpk_alloc(sizeof(double) * k),
			   *pos = dpk_alloc(sizeof(double) * (size_t) k * d),
			   *a0 = dpk_alloc(sizeof(double) * (size_t) k * d),
			   *ncell = dpk_alloc(sizeof(double) * k),
			   *o1 = dpk_alloc(sizeof(double) * (size_t) k * d),
			   *o2 = dpk_alloc(sizeof(double) * (size_t) k * d);
	int64_t    *idx = dpk_alloc(sizeof(int64_t) * d);
	int		   *near = dpk_alloc(sizeof(int) * (h->ncells ? h->ncells : 1));
	uint64_t	c;

	for (j = 0; j < d; j++)
		w2[j] = (box->upper[j] - box->lower[j]) * (box->upper[j] - box->lower[j]);
	for (i = 0; i < k; i++)
		dpk_box_normalize(box, centers + (size_t) i * d, a + (size_t) i * d);
	memcpy(a0, a, sizeof(double) * (size_t) k * d);
	for (c = 0; c < h->ncells; c++)
		near[c] = -1;
	for (it = 0;; it++)
	{
		bool		moved = false;

		for (i = 0; i < k; i++)
			mass[i] = ncell[i] = 0.0;
		for (i = 0; i < k * d; i++)
			pos[i] = o1[i] = o2[i] = 0.0;
		for (c = 0; c < h->ncells; c++)
		{
			double		best = INFINITY,
						cnt = (double) h->count[c];
			int			bi = 0;

			if (support != NULL && !support[c])
				continue;
			dpk_grid_cell_coords(d, m, c, idx);
			for (j = 0; j < d; j++)
				x[j] = ((double) idx[j] + 0.5) / m;
			for (i = 0; i < k; i++)
			{
				double		dist = 0.0;

				for (j = 0; j < d && dist < best; j++)
				{
					double		diff = a[(size_t) i * d + j] - x[j];

					dist += w2[j] * diff * diff;
				}
				if (dist < best)
				{
					best = dist;
					bi = i;
				}
			}
			moved = moved || near[c] != bi;
			near[c] = bi;
			mass[bi] += cnt;
			ncell[bi] += 1.0;
			for (j = 0; j < d; j++)
			{
				double		o = ((double) idx[j] + 0.5 / (double) h->units) / m;

				pos[(size_t) bi * d + j] += cnt * o + (h->sum ? su * (double) h->sum[c * d + j] : 0.0);
				o1[(size_t) bi * d + j] += o;
				o2[(size_t) bi * d + j] += o * o;
			}
		}
		if ((it > 0 && !moved) || it >= max_iter)
			break;
		for (i = 0; i < k; i++)
			if (mass[i] > min_size)
				for (j = 0; j < d; j++)
					a[(size_t) i * d + j] = fmin(1.0, fmax(0.0, pos[(size_t) i * d + j] / mass[i]));
		updates++;
	}
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
	dpk_free(x);
	dpk_free(mass);
	dpk_free(pos);
	dpk_free(a0);
	dpk_free(ncell);
	dpk_free(o1);
	dpk_free(o2);
	dpk_free(idx);
	dpk_free(near);
	return updates;
}

/* The plain dpk_lowd_hist_cost (record 055), the reference. */
static double
ref_hist_cost(const DpkBox *box, const DpkDenseHist *h, const bool *support, int k,
			  const double *centers)
{
	int			d = box->d,
				m = h->m,
				i,
				j;
	double		su = 1.0 / ((double) h->units * m),
				cost = 0.0;
	double	   *a = dpk_alloc(sizeof(double) * (size_t) k * d),
			   *w2 = dpk_alloc(sizeof(double) * d),
			   *x = dpk_alloc(sizeof(double) * d);
	int64_t    *idx = dpk_alloc(sizeof(int64_t) * d);
	uint64_t	c;

	for (j = 0; j < d; j++)
		w2[j] = (box->upper[j] - box->lower[j]) * (box->upper[j] - box->lower[j]);
	for (i = 0; i < k; i++)
		dpk_box_normalize(box, centers + (size_t) i * d, a + (size_t) i * d);
	for (c = 0; c < h->ncells; c++)
	{
		double		best = INFINITY;
		int			bi = 0;

		if (support != NULL && !support[c])
			continue;
		dpk_grid_cell_coords(d, m, c, idx);
		for (j = 0; j < d; j++)
			x[j] = ((double) idx[j] + 0.5) / m;
		for (i = 0; i < k; i++)
		{
			double		dist = 0.0;

			for (j = 0; j < d && dist < best; j++)
			{
				double		diff = a[(size_t) i * d + j] - x[j];

				dist += w2[j] * diff * diff;
			}
			if (dist < best)
			{
				best = dist;
				bi = i;
			}
		}
		for (j = 0; j < d; j++)
		{
			double		aj = a[(size_t) bi * d + j],
						o = ((double) idx[j] + 0.5 / (double) h->units) / m;

			cost += w2[j] * ((double) h->count[c] * (aj * aj - 2.0 * aj * o) -
							 (h->sum ? 2.0 * su * aj * (double) h->sum[c * d + j] : 0.0));
		}
	}
	dpk_free(a);
	dpk_free(w2);
	dpk_free(x);
	dpk_free(idx);
	return cost;
}

/* Whether two arrays of doubles are the same bits. */
static bool
same(const double *a, const double *b, size_t n)
{
	return memcmp(a, b, sizeof(double) * n) == 0;
}

/*
 * Random histograms: clusters of heavy cells, signed noise on every count
 * (zeros included) and sum, supports of every density; centres on cell
 * middles, duplicated, mirrored around a middle (exact ties), outside the
 * box, or anywhere.  The refined centres, sizes and update counts and the
 * estimated costs equal the reference's bit for bit.
 */
static void
test_random_histograms(void)
{
	static const double scales[4][2] = {{0, 100}, {-5, 3}, {1e3, 1e6}, {-1e-3, 2e-3}};
	uint64_t	st = 4242;
	int			trial,
				mismatches = 0,
				cost_mismatches = 0,
				cases = 0;

	for (trial = 0; trial < 1500; trial++)
	{
		int			d = 1 + (int) (unit_uniform(&st) * 3),
					m = 2 + (int) (unit_uniform(&st) * (d == 1 ? 300 : d == 2 ? 60 : 14)),
					k = (int[]) {1, 2, 3, 5, 8, 10, 16}[(int) (unit_uniform(&st) * 7)],
					sc = (int) (unit_uniform(&st) * 4),
					max_iter = (int) (unit_uniform(&st) * 16),
					i,
					j,
					blobs = 1 + (int) (unit_uniform(&st) * 5);
		double		lo[3],
					hi[3],
					density = unit_uniform(&st),
					shrink = (double[]) {0.0, 0.5, 1.0}[(int) (unit_uniform(&st) * 3)],
					min_size,
					ra,
					rb;
		DpkBox		box = {d, lo, hi};
		DpkLowdHist lh;
		bool	   *support;
		bool		with_support = unit_uniform(&st) < 0.7;
		double	   *c1,
				   *c2,
				   *s1,
				   *s2;
		uint64_t	c;
		int64_t    *idx = dpk_alloc(sizeof(int64_t) * d);
		int			u1,
					u2;

		for (j = 0; j < d; j++)
		{
			lo[j] = scales[sc][0] * (1.0 + 0.1 * j);
			hi[j] = scales[sc][1] * (1.0 + 0.3 * j);
		}
		memset(&lh, 0, sizeof(lh));
		lh.cells_per_dim = m;
		lh.count_var = unit_uniform(&st) * 50.0;
		lh.sum_var = unit_uniform(&st) * 1e12;
		dpk_hist_init(&lh.hist, d, m, unit_uniform(&st) < 0.8);
		support = dpk_alloc(sizeof(bool) * lh.hist.ncells);
		for (c = 0; c < lh.hist.ncells; c++)
		{
			double		w = 0.0;
			int			b;

			dpk_grid_cell_coords(d, m, c, idx);
			/* heavy cells near a few blob corners */
			for (b = 0; b < blobs; b++)
			{
				uint64_t	bs = 977 * (uint64_t) b + (uint64_t) trial;
				double		dd = 0.0;

				for (j = 0; j < d; j++)
				{
					double		at = unit_uniform(&bs) * m,
								diff = (double) idx[j] - at;

					dd += diff * diff;
				}
				w += 200.0 * exp(-dd / (1.0 + 0.02 * m * m * unit_uniform(&bs)));
			}
			lh.hist.count[c] = (int64_t) llround(w + 6.0 * unit_normal(&st));
			if (unit_uniform(&st) < 0.1)
				lh.hist.count[c] = 0;
			if (lh.hist.sum)
				for (j = 0; j < d; j++)
					lh.hist.sum[c * d + j] = (int64_t) llround(
						(double) lh.hist.count[c] * (double) lh.hist.units * unit_uniform(&st) +
						(double) lh.hist.units * 4.0 * unit_normal(&st));
			support[c] = unit_uniform(&st) < density;
		}
		c1 = dpk_alloc(sizeof(double) * k * d);
		c2 = dpk_alloc(sizeof(double) * k * d);
		s1 = dpk_alloc(sizeof(double) * k);
		s2 = dpk_alloc(sizeof(double) * k);
		for (i = 0; i < k; i++)
		{
			double		u = unit_uniform(&st);

			for (j = 0; j < d; j++)
			{
				double		f;

				if (u < 0.3)	/* on a cell middle */
					f = (floor(unit_uniform(&st) * m) + 0.5) / m;
				else if (u < 0.4 && i > 0)	/* a copy of the centre before */
					f = -1.0;
				else if (u < 0.55 && i > 0 && j == 0)	/* mirrored around a middle */
					f = -2.0;
				else if (u < 0.6)	/* outside the box */
					f = -0.5 + 2.0 * unit_uniform(&st);
				else
					f = unit_uniform(&st);
				if (f == -1.0)
					c1[i * d + j] = c1[(i - 1) * d + j];
				else if (f == -2.0)
				{
					/* the previous centre's first coordinate reflected on a cell middle */
					double		prev = (c1[(i - 1) * d] - lo[0]) / (hi[0] - lo[0]),
								mid = (floor(prev * m) + 0.5) / m;

					c1[i * d] = lo[0] + (2.0 * mid - prev) * (hi[0] - lo[0]);
				}
				else
					c1[i * d + j] = lo[j] + f * (hi[j] - lo[j]);
			}
		}
		memcpy(c2, c1, sizeof(double) * k * d);
		min_size = unit_uniform(&st) < 0.5 ? 0.0 : unit_uniform(&st) * 400.0;
		ra = dpk_lowd_hist_cost(&box, &lh.hist, with_support ? support : NULL, k, c1);
		rb = ref_hist_cost(&box, &lh.hist, with_support ? support : NULL, k, c1);
		cost_mismatches += !same(&ra, &rb, 1);
		u1 = dpk_lowd_refine(&box, &lh, with_support ? support : NULL, k, min_size, max_iter,
							 shrink, c1, s1);
		u2 = ref_refine(&box, &lh, with_support ? support : NULL, k, min_size, max_iter,
						shrink, c2, s2);
		if (u1 != u2 || !same(c1, c2, (size_t) k * d) || !same(s1, s2, k))
		{
			if (mismatches < 5)
				fprintf(stderr, "trial %d (d = %d, m = %d, k = %d): %d updates against %d, "
						  "first centre %.17g against %.17g\n", trial, d, m, k, u1, u2,
						  c1[0], c2[0]);
			mismatches++;
		}
		ra = dpk_lowd_hist_cost(&box, &lh.hist, with_support ? support : NULL, k, c2);
		rb = ref_hist_cost(&box, &lh.hist, with_support ? support : NULL, k, c2);
		cost_mismatches += !same(&ra, &rb, 1);
		cases++;
		dpk_hist_free(&lh.hist);
		dpk_free(support);
		dpk_free(idx);
		dpk_free(c1);
		dpk_free(c2);
		dpk_free(s1);
		dpk_free(s2);
	}
	CHECK(mismatches == 0, "%d of %d refinements differ from the plain form", mismatches, cases);
	CHECK(cost_mismatches == 0, "%d of %d estimated costs differ from the plain form",
		  cost_mismatches, 2 * cases);
}

/*
 * The plain 2-d one-shot of record 055 from the public steps: the noisy
 * histogram, the coreset, its k-means (screened on a sample when large,
 * as lowd.c's lowd_centres), the updates by ref_refine, the positive
 * cells' candidate alike unless they are the coreset's points (counted in
 * *skipped), the lower ref_hist_cost, the mean guard.
 */
static void
ref_cluster(const DpkBox *box, const double *x, size_t n, const DpkLowdConfig *cfg,
			DpkStream *s, DpkOneshotResult *res, int *skipped)
{
	int			d = box->d,
				k = cfg->k,
				cand,
				ncand;
	DpkLowdHist lh;
	DpkCoreset	cs,
				g;
	double		threshold;
	bool	   *support;
	double	   *centers[2],
			   *sizes[2];

	dpk_lowd_noisy_histogram(box, x, n, cfg, s, &lh);
	support = dpk_alloc(sizeof(bool) * lh.hist.ncells);
	threshold = dpk_lowd_coreset(box, cfg, &lh, &cs, support);
	dpk_coreset_from_hist(&lh.hist, box, 0.0, lh.sum_var, &g);
	memset(res, 0, sizeof(*res));
	res->noisy_n = lh.noisy_n;
	res->coreset_size = cs.n;
	CHECK(cs.n > 0 && g.n > 0, "the reference needs a coreset");
	/* the positive cells' candidate only when they are not the coreset */
	ncand = cs.n == g.n && memcmp(cs.points, g.points, sizeof(double) * cs.n * d) == 0 &&
		memcmp(cs.weights, g.weights, sizeof(double) * cs.n) == 0 ? 1 : 2;
	*skipped += ncand == 1;
	for (cand = 0; cand < ncand; cand++)
	{
		const DpkCoreset *p = cand == 0 ? &cs : &g;
		int			stride = p->n > cfg->screen_points
			? (p->n + cfg->screen_points - 1) / cfg->screen_points : 1;

		centers[cand] = dpk_alloc(sizeof(double) * k * d);
		sizes[cand] = dpk_alloc(sizeof(double) * k);
		dpk_kmeans_screened_sample(&(DpkPoints) {p->points, p->weights, p->n, d},
								   &(DpkClusterOpts) {k, cfg->restarts, cfg->max_iter, dpk_stream_u64(s)},
								   cfg->screen_iter, cfg->screen_keep, stride,
								   &(DpkClusterOut) {centers[cand], sizes[cand]});
		ref_refine(box, &lh, support, k, threshold, cfg->refine_iter, cfg->refine_shrink,
				   centers[cand], sizes[cand]);
	}
	cand = ncand == 2 && ref_hist_cost(box, &lh.hist, support, k, centers[1]) <
		ref_hist_cost(box, &lh.hist, support, k, centers[0]) ? 1 : 0;
	res->centers = centers[cand];
	res->sizes = sizes[cand];
	if (ncand == 2)
	{
		dpk_free(centers[1 - cand]);
		dpk_free(sizes[1 - cand]);
	}
	res->mean_guard_fired = dpk_lowd_mean_guard(box, &lh, k, res->centers, res->sizes);
	dpk_free(support);
	dpk_coreset_free(&cs);
	dpk_coreset_free(&g);
	dpk_hist_free(&lh.hist);
}

/*
 * n rows of a data set in [0, 100]^2: 0 pickups (hotspots of unequal
 * spread over a uniform background), 1 uniform, 2 three tight blobs,
 * 3 two blobs on a grid of whole numbers (many rows on cell edges).
 */
static double *
make_rows(int kind, size_t n, uint64_t seed)
{
	static const double at[5][2] = {{20, 25}, {70, 30}, {35, 75}, {80, 80}, {50, 50}},
				sd[5] = {1.5, 3, 5, 2, 0.7};
	double	   *x = dpk_alloc(sizeof(double) * n * 2);
	uint64_t	st = seed;
	size_t		i;
	int			j;

	for (i = 0; i < n; i++)
	{
		double		u = unit_uniform(&st);
		int			h = (int) (u * 5);

		for (j = 0; j < 2; j++)
		{
			double		v;

			if (kind == 1 || (kind == 0 && u > 0.85))
				v = 100.0 * unit_uniform(&st);
			else if (kind == 2)
				v = at[h % 3][j] + 0.5 * unit_normal(&st);
			else if (kind == 3)
				v = floor(at[h % 2][j] + 4.0 * unit_normal(&st));
			else
				v = at[h][j] + sd[h] * unit_normal(&st);
			x[i * 2 + j] = fmin(100.0, fmax(0.0, v));
		}
	}
	return x;
}

/*
 * dpk_lowd_cluster at d = 2 against ref_cluster under the same key: the
 * same centres, sizes, coreset, noisy N and guard, bit for bit, on four
 * data sets, two sizes, three budgets, k = 3 and 10, six keys each.
 */
static void
test_pipeline_same(void)
{
	const double lo[2] = {0, 0},
				hi[2] = {100, 100};
	DpkBox		box = {2, (double *) lo, (double *) hi};
	static const double eps[3] = {0.25, 1.0, 8.0};
	static const size_t sizes[2] = {3000, 60000};
	int			kind,
				si,
				e,
				key,
				ki,
				runs = 0,
				diffs = 0,
				skipped = 0;

	for (kind = 0; kind < 4; kind++)
		for (si = 0; si < 2; si++)
		{
			double	   *x = make_rows(kind, sizes[si], 31 + kind * 7 + si);

			for (e = 0; e < 3; e++)
				for (ki = 0; ki < 2; ki++)
					for (key = 0; key < 6; key++)
					{
						int			k = ki == 0 ? 3 : 10;
						DpkLowdConfig cfg;
						DpkOneshotResult a = {0},
									b = {0};
						DpkStream	s;

						dpk_lowd_defaults(&cfg, eps[e], k);
						unit_open_stream(&s, 9000 + (uint64_t) key * 131 + (uint64_t) kind);
						dpk_lowd_cluster(&box, x, sizes[si], &cfg, &s, &a);
						dpk_stream_close(&s);
						if (a.coreset_size == 0)
						{
							dpk_oneshot_result_free(&a);
							continue;
						}
						unit_open_stream(&s, 9000 + (uint64_t) key * 131 + (uint64_t) kind);
						ref_cluster(&box, x, sizes[si], &cfg, &s, &b, &skipped);
						dpk_stream_close(&s);
						runs++;
						if (!same(a.centers, b.centers, (size_t) k * 2) ||
							!same(a.sizes, b.sizes, k) || a.coreset_size != b.coreset_size ||
							!same(&a.noisy_n, &b.noisy_n, 1) ||
							a.mean_guard_fired != b.mean_guard_fired)
						{
							if (diffs < 5)
								fprintf(stderr, "data %d, n %zu, eps %g, k %d, key %d: centre 0 at "
										  "(%.17g, %.17g) against (%.17g, %.17g)\n",
										  kind, sizes[si], eps[e], k, key, a.centers[0],
										  a.centers[1], b.centers[0], b.centers[1]);
							diffs++;
						}
						dpk_oneshot_result_free(&a);
						dpk_oneshot_result_free(&b);
					}
			dpk_free(x);
		}
	CHECK(runs > 250, "only %d one-shots compared", runs);
	CHECK(diffs == 0, "%d of %d one-shots differ from the plain pipeline", diffs, runs);
	/* both sides of the candidate rule were compared */
	CHECK(skipped > 0 && skipped < runs, "the positive cells were the coreset in %d of %d",
		  skipped, runs);
	printf("  the positive cells' candidate skipped as the coreset in %d of %d one-shots\n",
		   skipped, runs);
}

int
main(void)
{
	test_random_histograms();
	test_pipeline_same();
	UNIT_DONE("test_lowd_refine_same");
}
