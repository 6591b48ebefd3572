/*
 * lsh_baseline.c
 *		The LSH-tree private coreset baseline (see lsh_baseline.h).
 */
#include "lsh_baseline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "highd.h"
#include "kmeans.h"
#include "mixture.h"

/* Stream tags, so that hyperplanes, counts, sums and k-means draw apart. */
enum
{
	LSH_TAG_PLANES = 1, LSH_TAG_COUNTS = 2, LSH_TAG_SUMS = 3, LSH_TAG_KMEANS = 4
};

/* A node of the tree: rows perm[start .. end) and its noisy count. */
typedef struct LshNode
{
	size_t		start,
				end;
	double		noisy;
} LshNode;

static void *
lsh_alloc(size_t n)
{
	void	   *p = malloc(n > 0 ? n : 1);

	if (p == NULL)
	{
		fprintf(stderr, "lsh_baseline: out of memory\n");
		exit(1);
	}
	return p;
}

/* The library's defaults (see lsh_baseline.h). */
void
lsh_defaults(LshParams *p, int k, double eps, double delta, double radius)
{
	memset(p, 0, sizeof(*p));
	p->k = k;
	p->eps = eps;
	p->delta = delta;
	p->radius = radius;
	p->origin = NULL;
	p->max_depth = 20;
	p->frac_sum = 0.8;
	p->restarts = 10;
	p->seed = 1;
}

/* Standard normal distribution function. */
static double
lsh_phi(double x)
{
	return 0.5 * erfc(-x / M_SQRT2);
}

/*
 * The analytic Gaussian mechanism: the smallest sigma with
 * Phi(D / (2 s) - eps s / D) - e^eps Phi(-D / (2 s) - eps s / D) <= delta,
 * by bisection (the left side falls with s).
 */
double
lsh_gauss_sigma(double eps, double delta, double sensitivity)
{
	double		lo = 1e-6,
				hi = 1.0;
	int			i;

	if (!(eps > 0.0) || isinf(eps))
		return 0.0;
#define LSH_DELTA_OF(s) (lsh_phi(sensitivity / (2.0 * (s)) - eps * (s) / sensitivity) - \
						 exp(eps) * lsh_phi(-sensitivity / (2.0 * (s)) - eps * (s) / sensitivity))
	while (LSH_DELTA_OF(hi * sensitivity) > delta)
		hi *= 2.0;
	for (i = 0; i < 200; i++)
	{
		double		mid = 0.5 * (lo + hi);

		if (LSH_DELTA_OF(mid * sensitivity) > delta)
			lo = mid;
		else
			hi = mid;
	}
#undef LSH_DELTA_OF
	return hi * sensitivity;
}

/* Discrete Laplace, P(k) proportional to exp(-a |k|): two geometrics' difference. */
static double
lsh_dlaplace(MixRng *r, double a)
{
	double		u1,
				u2;

	do
		u1 = mix_rng_uniform(r);
	while (u1 <= 0.0);
	do
		u2 = mix_rng_uniform(r);
	while (u2 <= 0.0);
	return floor(log(u1) / -a) - floor(log(u2) / -a);
}

/* Cluster the rows (see lsh_baseline.h). */
void
lsh_cluster(const double *x, size_t n, int d, const LshParams *p,
			double *centers, LshInfo *info)
{
	bool		noisy = p->eps > 0.0 && !isinf(p->eps);
	int			L = p->max_depth < 1 ? 1 : (p->max_depth > 62 ? 62 : p->max_depth),
				k = p->k,
				depth = 0,
				l,
				j;
	double		sigma = noisy ? lsh_gauss_sigma(p->frac_sum * p->eps, p->delta, p->radius) : 0.0,
				count_a = noisy ? (1.0 - p->frac_sum) * p->eps / (L + 1.0) : INFINITY,
				noisy_n,
				min_node,
				min_branch;
	double	   *y = lsh_alloc(sizeof(double) * n * d),
			   *g = lsh_alloc(sizeof(double) * (size_t) L * d);
	uint64_t   *code = lsh_alloc(sizeof(uint64_t) * (n > 0 ? n : 1));
	size_t	   *perm = lsh_alloc(sizeof(size_t) * (n > 0 ? n : 1));
	LshNode    *cur = lsh_alloc(sizeof(LshNode)),
			   *next,
			   *leaves;
	size_t		ncur = 1,
				nleaves = 0,
				cap_leaves = 64,
				i;
	MixRng		rp,
				rc,
				rs;
	double	   *cpts,
			   *cw,
			   *csum;

	mix_rng_seed(&rp, mix_hash4(p->seed, LSH_TAG_PLANES, 0, 0));
	mix_rng_seed(&rc, mix_hash4(p->seed, LSH_TAG_COUNTS, 0, 0));
	mix_rng_seed(&rs, mix_hash4(p->seed, LSH_TAG_SUMS, 0, 0));

	/* the rows about the origin, clipped to the ball */
	for (i = 0; i < n; i++)
	{
		double		s = 0.0;

		for (j = 0; j < d; j++)
		{
			y[i * d + j] = x[i * d + j] - (p->origin ? p->origin[j] : 0.0);
			s += y[i * d + j] * y[i * d + j];
		}
		if (s > p->radius * p->radius)
			for (j = 0; j < d; j++)
				y[i * d + j] *= p->radius / sqrt(s);
	}

	/* SimHash codes: bit l is the side of hyperplane l */
	for (l = 0; l < L; l++)
		for (j = 0; j < d; j++)
			g[(size_t) l * d + j] = mix_rng_normal(&rp);
	for (i = 0; i < n; i++)
	{
		code[i] = 0;
		perm[i] = i;
		for (l = 0; l < L; l++)
		{
			double		dot = 0.0;

			for (j = 0; j < d; j++)
				dot += y[i * d + j] * g[(size_t) l * d + j];
			if (dot >= 0.0)
				code[i] |= (uint64_t) 1 << l;
		}
	}

	/* thresholds from the noisy size and the sums' noise */
	noisy_n = (double) n + (noisy ? lsh_dlaplace(&rc, count_a) : 0.0);
	min_node = fmin(floor(10.0 * sqrt((double) d) * sigma / p->radius), floor(noisy_n / (2.0 * k)));
	min_node = fmax(1.0, min_node);
	min_branch = 3.0 * min_node;

	/* the tree, level by level */
	cur[0].start = 0;
	cur[0].end = n;
	cur[0].noisy = noisy_n;
	leaves = lsh_alloc(sizeof(LshNode) * cap_leaves);
	for (l = 0; ncur > 0; l++)
	{
		size_t		nnext = 0,
					c;

		next = lsh_alloc(sizeof(LshNode) * 2 * ncur);
		for (c = 0; c < ncur; c++)
		{
			LshNode		nd = cur[c];
			LshNode		ch[2];
			int			kept = 0,
						b;

			if (l < L && nd.noisy >= min_branch)
			{
				size_t		a = dpk_highd_tree_split(perm, code, nd.start, nd.end, l);

				ch[0].start = nd.start;
				ch[0].end = a;
				ch[1].start = a;
				ch[1].end = nd.end;
				for (b = 0; b < 2; b++)
				{
					ch[b].noisy = (double) (ch[b].end - ch[b].start) +
						(noisy ? lsh_dlaplace(&rc, count_a) : 0.0);
					if (ch[b].noisy >= min_node)
					{
						next[nnext++] = ch[b];
						kept++;
					}
				}
				if (kept > 0)
				{
					depth = l + 1 > depth ? l + 1 : depth;
					continue;
				}
			}
			if (nleaves == cap_leaves)
			{
				cap_leaves *= 2;
				leaves = realloc(leaves, sizeof(LshNode) * cap_leaves);
				if (leaves == NULL)
				{
					fprintf(stderr, "lsh_baseline: out of memory\n");
					exit(1);
				}
			}
			leaves[nleaves++] = nd;
		}
		free(cur);
		cur = next;
		ncur = nnext;
	}
	free(cur);

	/* the coreset: each leaf's noisy sum and count */
	cpts = lsh_alloc(sizeof(double) * (nleaves > 0 ? nleaves : 1) * d);
	csum = lsh_alloc(sizeof(double) * (nleaves > 0 ? nleaves : 1) * d);
	cw = lsh_alloc(sizeof(double) * (nleaves > 0 ? nleaves : 1));
	for (i = 0; i < nleaves; i++)
	{
		double		w = fmax(1.0, leaves[i].noisy),
					s2 = 0.0;
		size_t		r;

		for (j = 0; j < d; j++)
			csum[i * d + j] = noisy ? sigma * mix_rng_normal(&rs) : 0.0;
		for (r = leaves[i].start; r < leaves[i].end; r++)
			for (j = 0; j < d; j++)
				csum[i * d + j] += y[perm[r] * d + j];
		for (j = 0; j < d; j++)
		{
			cpts[i * d + j] = csum[i * d + j] / w;
			s2 += cpts[i * d + j] * cpts[i * d + j];
		}
		if (s2 > p->radius * p->radius)
			for (j = 0; j < d; j++)
				cpts[i * d + j] *= p->radius / sqrt(s2);
		cw[i] = w;
	}

	/* non-private k-means on the coreset, then recentering by the leaves' sums */
	{
		DpkPoints	pts = {cpts, cw, (int) nleaves, d};
		double	   *acc = lsh_alloc(sizeof(double) * k * d),
				   *accw = lsh_alloc(sizeof(double) * k);
		int			a;

		dpk_kmeans(&pts, &(DpkClusterOpts) {k, p->restarts, 100,
											mix_hash4(p->seed, LSH_TAG_KMEANS, 0, 0)},
				   &(DpkClusterOut) {centers, NULL});
		memset(acc, 0, sizeof(double) * k * d);
		memset(accw, 0, sizeof(double) * k);
		for (i = 0; i < nleaves; i++)
		{
			double		best = INFINITY;
			int			ba = 0;

			for (a = 0; a < k; a++)
			{
				double		s = 0.0;

				for (j = 0; j < d; j++)
					s += (cpts[i * d + j] - centers[a * d + j]) *
						(cpts[i * d + j] - centers[a * d + j]);
				if (s < best)
				{
					best = s;
					ba = a;
				}
			}
			accw[ba] += cw[i];
			for (j = 0; j < d; j++)
				acc[ba * d + j] += csum[i * d + j];
		}
		for (a = 0; a < k; a++)
		{
			double		s2 = 0.0;

			if (accw[a] > 0.0)
				for (j = 0; j < d; j++)
					centers[a * d + j] = acc[a * d + j] / accw[a];
			for (j = 0; j < d; j++)
				s2 += centers[a * d + j] * centers[a * d + j];
			if (s2 > p->radius * p->radius)
				for (j = 0; j < d; j++)
					centers[a * d + j] *= p->radius / sqrt(s2);
			for (j = 0; j < d; j++)
				centers[a * d + j] += p->origin ? p->origin[j] : 0.0;
		}
		free(acc);
		free(accw);
	}

	if (info)
	{
		info->leaves = (int) nleaves;
		info->depth = depth;
		info->min_node = min_node;
		info->sigma = sigma;
	}
	free(cpts);
	free(csum);
	free(cw);
	free(leaves);
	free(perm);
	free(code);
	free(g);
	free(y);
}
