/*
 * mixture.h
 *		Deterministic synthetic Gaussian mixtures for the accuracy benchmark.
 *
 * Test data only: the generator is src/core/base/prng.h's xoshiro256** seeded through
 * splitmix64 and normals come from Box-Muller.  None of this is privacy noise.
 *
 * A mixture of K isotropic Gaussians in d dimensions:
 *	 - centres uniform in [lo, hi]^d, redrawn until every pair is at least
 *	   min_sep apart (the whole set is redrawn if a centre cannot be placed);
 *	 - standard deviation of cluster j uniform in [sd_lo, sd_hi];
 *	 - mixing weights uniform in [w_lo, w_hi], normalised to sum 1;
 *	 - every point draws its cluster from the weights, then its coordinates.
 * A skewed mixture (mix_skewed_spec) instead has Zipf weights (cluster j of
 * K weighs (j + 1)^-s), log-normal per-cluster scales and Student-t
 * coordinates (heavy tails); the default mixture draws exactly as before.
 * Points are left as generated: some fall outside the box, and the pipeline
 * under test is expected to clamp them.  The same (spec, seed) always
 * gives the same bytes.  mix_pickups_generate (below) draws hotspots over a
 * uniform background with rows in a corner instead.
 */
#ifndef DPK_BENCH_MIXTURE_H
#define DPK_BENCH_MIXTURE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "prng.h"

/* The project's seeded generator plus a spare Box-Muller normal. */
typedef struct MixRng
{
	DpkPrng		g;
	double		spare;			/* second Box-Muller normal */
	int			have_spare;
} MixRng;

/* A 64-bit hash of a few integers, for deriving independent seeds. */
static inline uint64_t
mix_hash4(uint64_t a, uint64_t b, uint64_t c, uint64_t e)
{
	uint64_t	st = a;
	uint64_t	h = dpk_splitmix64(&st);

	st = h ^ b;
	h = dpk_splitmix64(&st);
	st = h ^ c;
	h = dpk_splitmix64(&st);
	st = h ^ e;
	return dpk_splitmix64(&st);
}

static inline void
mix_rng_seed(MixRng *r, uint64_t seed)
{
	dpk_prng_seed(&r->g, seed);
	r->have_spare = 0;
	r->spare = 0.0;
}

static inline uint64_t
mix_rng_next(MixRng *r)
{
	return dpk_prng_next(&r->g);
}

/* Uniform in [0, 1). */
static inline double
mix_rng_uniform(MixRng *r)
{
	return (double) (mix_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* Standard normal (Box-Muller, both values used). */
static inline double
mix_rng_normal(MixRng *r)
{
	double		u1,
				u2,
				rad;

	if (r->have_spare)
	{
		r->have_spare = 0;
		return r->spare;
	}
	do
		u1 = mix_rng_uniform(r);
	while (u1 <= 0.0);
	u2 = mix_rng_uniform(r);
	rad = sqrt(-2.0 * log(u1));
	r->spare = rad * sin(2.0 * M_PI * u2);
	r->have_spare = 1;
	return rad * cos(2.0 * M_PI * u2);
}

typedef struct MixSpec
{
	int			d;
	int			k;
	size_t		n;
	double		lo,
				hi;				/* centres uniform in [lo, hi]^d */
	double		min_sep;		/* minimum distance between two centres */
	double		sd_lo,
				sd_hi;			/* per-cluster standard deviation range */
	double		w_lo,
				w_hi;			/* un-normalised weight range */
	double		zipf;			/* > 0: weight of cluster j is (j + 1)^-zipf */
	double		sd_logsd;		/* > 0: scale log-normal, median sqrt(sd_lo
								 * sd_hi), this log-sd, clipped to the range */
	int			tail_df;		/* > 0: Student-t coordinates with this many
								 * degrees of freedom (times the scale) */
} MixSpec;

/* The benchmark's default mixture: [0,100]^d, separation 15, sd in [2,6]. */
static inline MixSpec
mix_default_spec(int d, int k, size_t n)
{
	MixSpec		sp;

	sp.d = d;
	sp.k = k;
	sp.n = n;
	sp.lo = 0.0;
	sp.hi = 100.0;
	sp.min_sep = 15.0;
	sp.sd_lo = 2.0;
	sp.sd_hi = 6.0;
	sp.w_lo = 0.5;
	sp.w_hi = 1.5;
	sp.zipf = 0.0;
	sp.sd_logsd = 0.0;
	sp.tail_df = 0;
	return sp;
}

/*
 * The skewed mixture: centres in [10,90]^d at least 25 apart, Zipf weights
 * with exponent 2 (K = 6: 61 % down to 1.7 %), scales log-normal around 3
 * (log-sd 0.5, within [1, 9]) and Student-t coordinates with 3 degrees of
 * freedom.
 */
static inline MixSpec
mix_skewed_spec(int d, int k, size_t n)
{
	MixSpec		sp = mix_default_spec(d, k, n);

	sp.lo = 10.0;
	sp.hi = 90.0;
	sp.min_sep = 25.0;
	sp.sd_lo = 1.0;
	sp.sd_hi = 9.0;
	sp.zipf = 2.0;
	sp.sd_logsd = 0.5;
	sp.tail_df = 3;
	return sp;
}

/* Student-t with df degrees of freedom: a normal over sqrt(chi2_df / df). */
static inline double
mix_rng_student(MixRng *r, int df)
{
	double		z = mix_rng_normal(r),
				chi2 = 0.0;
	int			i;

	for (i = 0; i < df; i++)
	{
		double		g = mix_rng_normal(r);

		chi2 += g * g;
	}
	return z / sqrt(chi2 / df);
}

typedef struct MixData
{
	int			d;
	int			k;
	size_t		n;
	double	   *points;			/* n * d */
	int		   *labels;			/* n: generating cluster */
	double	   *centers;		/* k * d: generating centres */
	double	   *sd;				/* k */
	double	   *weights;		/* k, sum 1 */
} MixData;

/* Draw K centres with pairwise distance >= min_sep. */
static inline void
mix_draw_centers(const MixSpec *sp, MixRng *r, double *c)
{
	int			d = sp->d,
				k = sp->k;

	for (;;)
	{
		int			placed = 0;
		int			tries = 0;

		while (placed < k && tries < 100000)
		{
			double	   *cj = c + (size_t) placed * d;
			int			ok = 1;
			int			t,
						i;

			tries++;
			for (t = 0; t < d; t++)
				cj[t] = sp->lo + (sp->hi - sp->lo) * mix_rng_uniform(r);
			for (i = 0; i < placed && ok; i++)
			{
				double		s = 0.0;

				for (t = 0; t < d; t++)
				{
					double		diff = cj[t] - c[(size_t) i * d + t];

					s += diff * diff;
				}
				if (s < sp->min_sep * sp->min_sep)
					ok = 0;
			}
			if (ok)
				placed++;
		}
		if (placed == k)
			return;
		/* stuck: start the whole set again (the stream has moved on) */
	}
}

/* Generate a mixture; free it with mix_free. */
static inline void
mix_generate(const MixSpec *sp, uint64_t seed, MixData *out)
{
	int			d = sp->d,
				k = sp->k;
	MixRng		r;
	double	   *cum;
	double		total = 0.0;
	size_t		i;
	int			j;

	mix_rng_seed(&r, seed);
	out->d = d;
	out->k = k;
	out->n = sp->n;
	out->points = malloc(sizeof(double) * (sp->n ? sp->n : 1) * d);
	out->labels = malloc(sizeof(int) * (sp->n ? sp->n : 1));
	out->centers = malloc(sizeof(double) * k * d);
	out->sd = malloc(sizeof(double) * k);
	out->weights = malloc(sizeof(double) * k);
	cum = malloc(sizeof(double) * k);
	if (!out->points || !out->labels || !out->centers || !out->sd ||
		!out->weights || !cum)
		abort();

	mix_draw_centers(sp, &r, out->centers);
	for (j = 0; j < k; j++)
	{
		if (sp->sd_logsd > 0.0)
		{
			double		v = sqrt(sp->sd_lo * sp->sd_hi) *
				exp(sp->sd_logsd * mix_rng_normal(&r));

			out->sd[j] = v < sp->sd_lo ? sp->sd_lo : (v > sp->sd_hi ? sp->sd_hi : v);
		}
		else
			out->sd[j] = sp->sd_lo + (sp->sd_hi - sp->sd_lo) * mix_rng_uniform(&r);
		if (sp->zipf > 0.0)
			out->weights[j] = pow(j + 1.0, -sp->zipf);
		else
			out->weights[j] = sp->w_lo + (sp->w_hi - sp->w_lo) * mix_rng_uniform(&r);
		total += out->weights[j];
	}
	for (j = 0; j < k; j++)
	{
		out->weights[j] /= total;
		cum[j] = (j ? cum[j - 1] : 0.0) + out->weights[j];
	}
	cum[k - 1] = 1.0;

	for (i = 0; i < sp->n; i++)
	{
		double		v = mix_rng_uniform(&r);
		double	   *x = out->points + i * d;
		const double *c;
		int			t;

		for (j = 0; j < k - 1 && v >= cum[j]; j++)
			;
		out->labels[i] = j;
		c = out->centers + (size_t) j * d;
		for (t = 0; t < d; t++)
			x[t] = c[t] + out->sd[j] * (sp->tail_df > 0 ? mix_rng_student(&r, sp->tail_df)
										: mix_rng_normal(&r));
	}
	free(cum);
}

static inline void
mix_free(MixData *m)
{
	free(m->points);
	free(m->labels);
	free(m->centers);
	free(m->sd);
	free(m->weights);
	m->points = NULL;
	m->labels = NULL;
	m->centers = NULL;
	m->sd = NULL;
	m->weights = NULL;
}

/*
 * Pickups: 2-d location data in the box [0,100]^2 the way street pickups
 * look.  Six hotspots with centres in [10,90]^2 at least 12 apart, Zipf
 * weights (exponent 1: 41 % down to 7 % of the hotspot rows) and scales
 * log-uniform in [0.7, 6] (Gaussian); 5 % of the rows uniform over the whole
 * box (the sparse background); 0.5 % exactly at the box's lower corner (bad
 * GPS fixes clamped into the box).  out->k is set to k, the number of
 * centres asked for (unrelated to the six hotspots); out->centers is NULL
 * (there are no k generating centres) and labels are 0..5 for hotspots, 6
 * for the background and 7 for the corner.
 */
#define MIX_PICKUP_HOTSPOTS 6

static inline void
mix_pickups_generate(int k, size_t n, uint64_t seed, MixData *out)
{
	MixSpec		sp = mix_default_spec(2, MIX_PICKUP_HOTSPOTS, n);
	MixRng		r;
	double		hc[MIX_PICKUP_HOTSPOTS * 2],
				hsd[MIX_PICKUP_HOTSPOTS],
				cum[MIX_PICKUP_HOTSPOTS];
	double		total = 0.0;
	size_t		i;
	int			j;

	sp.lo = 10.0;
	sp.hi = 90.0;
	sp.min_sep = 12.0;
	mix_rng_seed(&r, seed);
	out->d = 2;
	out->k = k;
	out->n = n;
	out->points = malloc(sizeof(double) * (n ? n : 1) * 2);
	out->labels = malloc(sizeof(int) * (n ? n : 1));
	out->centers = NULL;
	out->sd = malloc(sizeof(double) * MIX_PICKUP_HOTSPOTS);
	out->weights = malloc(sizeof(double) * MIX_PICKUP_HOTSPOTS);
	if (!out->points || !out->labels || !out->sd || !out->weights)
		abort();
	mix_draw_centers(&sp, &r, hc);
	for (j = 0; j < MIX_PICKUP_HOTSPOTS; j++)
	{
		hsd[j] = 0.7 * exp(log(6.0 / 0.7) * mix_rng_uniform(&r));
		out->sd[j] = hsd[j];
		out->weights[j] = 1.0 / (j + 1.0);
		total += out->weights[j];
	}
	for (j = 0; j < MIX_PICKUP_HOTSPOTS; j++)
	{
		out->weights[j] /= total;
		cum[j] = (j ? cum[j - 1] : 0.0) + out->weights[j];
	}
	cum[MIX_PICKUP_HOTSPOTS - 1] = 1.0;
	for (i = 0; i < n; i++)
	{
		double		v = mix_rng_uniform(&r);
		double	   *x = out->points + i * 2;

		if (v < 0.005)
		{
			x[0] = 0.0;
			x[1] = 0.0;
			out->labels[i] = MIX_PICKUP_HOTSPOTS + 1;
		}
		else if (v < 0.055)
		{
			x[0] = 100.0 * mix_rng_uniform(&r);
			x[1] = 100.0 * mix_rng_uniform(&r);
			out->labels[i] = MIX_PICKUP_HOTSPOTS;
		}
		else
		{
			double		w = mix_rng_uniform(&r);

			for (j = 0; j < MIX_PICKUP_HOTSPOTS - 1 && w >= cum[j]; j++)
				;
			out->labels[i] = j;
			x[0] = hc[j * 2] + hsd[j] * mix_rng_normal(&r);
			x[1] = hc[j * 2 + 1] + hsd[j] * mix_rng_normal(&r);
		}
	}
}

#endif
