/*
 * test_dgauss.c
 *		Unit tests of the exact discrete Gaussian sampler (dgauss.c).
 *
 * Fixed keys and nonces make every test deterministic; the thresholds
 * (chi-square at p = 0.001, 5 standard errors) let a correct sampler pass at
 * essentially any seed while a wrong variance, a wrong acceptance exponent
 * or a wrong wide division fails.
 */
#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include "dgauss.h"
#include "dpk_mem.h"
#include "unit.h"

/* Upper 0.001 quantile of the standard normal. */
#define Z_999	3.090232306167813

/* Standard errors tolerated by moment and frequency tests. */
#define N_SIGMA 5.0

#define MAX_BINS 512

/* Open a stream on a seed-derived key and a nonce tagged by `tag`. */
static void
open_seeded(DpkStream *s, uint64_t seed, uint32_t tag)
{
	uint8_t		key[DPK_KEY_BYTES];
	uint8_t		nonce[DPK_NONCE_BYTES];
	int			i;

	memset(s, 0, sizeof(*s));
	memset(nonce, 0, sizeof(nonce));
	for (i = 0; i < 4; i++)
		nonce[8 + i] = (uint8_t) (tag >> (8 * i));
	dpk_key_from_seed(seed, key);
	CHECK(dpk_stream_open(s, key, nonce), "dpk_stream_open failed");
}

/* Chi-square critical value at p = 0.001 (Wilson-Hilferty). */
static double
chi2_critical(int df)
{
	double		k = (double) df;
	double		c = 2.0 / (9.0 * k);
	double		v = 1.0 - c + Z_999 * sqrt(c);

	return k * v * v * v;
}

/* Mass of N_Z(0, sigma^2) on [lo, hi]. */
static double
gauss_mass(DpkGaussScale v, int64_t lo, int64_t hi)
{
	double		s2 = dpk_gauss_scale_value(v),
				z = dpk_discrete_gaussian_norm(v),
				m = 0.0;
	int64_t		x;

	for (x = lo; x <= hi; x++)
		m += exp(-(double) x * (double) x / (2.0 * s2));
	return m / z;
}

/*
 * Draws of N_Z(0, sigma^2) against the exact pmf: bins of w = max(1,
 * floor(sigma / 4)) integers centred on 0 out to the largest R whose two
 * tails (one bin each) keep >= 20 expected draws; also mean and variance
 * within N_SIGMA standard errors.
 */
static void
test_gauss_pmf(DpkGaussScale v, long draws, uint32_t tag)
{
	static long obs[MAX_BINS];
	static double prob[MAX_BINS];
	double		s2 = dpk_gauss_scale_value(v);
	double		var_exact = dpk_discrete_gaussian_variance(v);
	int64_t		w = (int64_t) fmax(1.0, floor(sqrt(s2) / 4.0));
	double		m4 = 0.0,
				sum = 0.0,
				sumsq = 0.0,
				stat = 0.0,
				central,
				mean,
				var,
				z;
	int64_t		half = 0,		/* bins on each side of the centre bin */
				r,
				x;
	int			nbins,
				i;
	long		k;
	DpkStream	s;

	/* centre bin [-(w-1)/2 .. w/2]; side bins of w integers */
	for (;;)
	{
		int64_t		rr = w / 2 + (half + 1) * w;

		if (2 * (half + 1) + 3 > MAX_BINS ||
			(1.0 - gauss_mass(v, -rr, rr)) * (double) draws < 20.0)
			break;
		half++;
	}
	r = w / 2 + half * w;		/* bins cover [-r - (w - 1 - w/2) .. r] */
	nbins = 2 * (int) half + 3;
	central = 0.0;
	for (i = 1; i < nbins - 1; i++)
	{
		int64_t		lo = -r - (w - 1 - w / 2) + (int64_t) (i - 1) * w;

		prob[i] = gauss_mass(v, lo, lo + w - 1);
		central += prob[i];
	}
	prob[0] = gauss_mass(v, -r - (w - 1 - w / 2) - 40 * (int64_t) sqrt(s2) - 40,
						 -r - (w - 1 - w / 2) - 1);
	prob[nbins - 1] = 1.0 - central - prob[0];
	if (s2 >= 64.0)
		m4 = 3.0 * s2 * s2;
	else
		for (x = 1; x < (int64_t) (80.0 * sqrt(s2)) + 80; x++)
			m4 += 2.0 * dpk_discrete_gaussian_pmf(v, x) * pow((double) x, 4.0);

	memset(obs, 0, sizeof(obs));
	open_seeded(&s, 777, tag);
	for (k = 0; k < draws; k++)
	{
		int64_t		y = dpk_discrete_gaussian(&s, v);
		int64_t		off = y + r + (w - 1 - w / 2);

		sum += (double) y;
		sumsq += (double) y * (double) y;
		if (off < 0)
			obs[0]++;
		else if (off >= (int64_t) (nbins - 2) * w)
			obs[nbins - 1]++;
		else
			obs[1 + off / w]++;
	}
	dpk_stream_close(&s);
	for (i = 0; i < nbins; i++)
	{
		double		e = prob[i] * (double) draws;

		stat += ((double) obs[i] - e) * ((double) obs[i] - e) / e;
	}
	mean = sum / (double) draws;
	var = sumsq / (double) draws - mean * mean;
	printf("  gauss sigma^2=%.6g (%llu/%llu): %d bins of %lld, chi2 = %.2f (crit %.2f), "
		   "mean %.4g, var %.6g (exact %.6g)\n", s2,
		   (unsigned long long) v.num, (unsigned long long) v.den, nbins, (long long) w,
		   stat, chi2_critical(nbins - 1), mean, var, var_exact);
	fflush(stdout);
	CHECK(nbins >= 3, "sigma^2=%g: too few bins", s2);
	CHECK(stat < chi2_critical(nbins - 1), "sigma^2=%g: chi2 %.2f >= %.2f", s2, stat,
		  chi2_critical(nbins - 1));
	z = fabs(mean) / sqrt(var_exact / (double) draws);
	CHECK(z < N_SIGMA, "sigma^2=%g: mean %.5f (%.2f se)", s2, mean, z);
	z = fabs(var - var_exact) / sqrt((m4 - var_exact * var_exact) / (double) draws);
	CHECK(z < N_SIGMA, "sigma^2=%g: variance %.5g vs %.5g (%.2f se)", s2, var,
		  var_exact, z);
}

/* Several sigma^2, integer and not, below and above 1. */
static void
test_gauss_samples(void)
{
	DpkGaussScale v;

	v.num = 3;
	v.den = 10;					/* 0.3: t = 1, mostly zeros */
	test_gauss_pmf(v, 200000, 1);
	v.num = 1;
	v.den = 1;
	test_gauss_pmf(v, 200000, 2);
	v.num = 9;
	v.den = 4;					/* sigma = 1.5 exactly */
	test_gauss_pmf(v, 200000, 3);
	v.num = 73;
	v.den = 10;					/* 7.3 */
	test_gauss_pmf(v, 200000, 4);
	test_gauss_pmf(dpk_gauss_scale_from_double(50.5), 200000, 5);
	test_gauss_pmf(dpk_gauss_scale_from_double(2000.0 / 3.0), 200000, 6);
	/* a huge sigma^2 (den 1): sigma ~ 3.4e6, moments only through the bins */
	test_gauss_pmf(dpk_gauss_scale_from_double(1.17e13), 100000, 7);
}

/* Bernoulli(exp(-N/D)) on wide integers against exp(-gamma). */
static void
test_bernoulli_exp_wide(void)
{
	static const struct
	{
		int			shift;		/* D = 2^shift * dm */
		uint64_t	dm;
		double		gamma;
	}			cases[] = {
		{0, 3, 0.0},
		{0, 7, 0.4},
		{70, 5, 0.4},			/* D beyond 64 bits: the 128-bit path */
		{70, 5, 1.7},
		{100, 1, 2.25},
		{120, 3, 0.9},
	};
	size_t		c;

	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
	{
		unsigned __int128 d = (unsigned __int128) cases[c].dm << cases[c].shift;
		/* N = gamma D, gamma a multiple of 1/20 so N is exact */
		unsigned __int128 g20 = (unsigned __int128) llround(cases[c].gamma * 20.0);
		unsigned __int128 n128 = (d / 20) * g20 + ((d % 20) * g20) / 20;
		uint64_t	n[4] = {(uint64_t) n128, (uint64_t) (n128 >> 64), 0, 0};
		double		p = exp(-(double) n128 / (double) d);
		long		hits = 0,
					k,
					draws = 100000;
		DpkStream	s;
		double		z;

		open_seeded(&s, 99, 100 + (uint32_t) c);
		for (k = 0; k < draws; k++)
			hits += dpk_bernoulli_exp_wide(&s, n, d);
		dpk_stream_close(&s);
		z = p >= 1.0 ? (hits == draws ? 0.0 : INFINITY)
			: fabs((double) hits / draws - p) / sqrt(p * (1 - p) / draws);
		printf("  bernoulli_exp_wide gamma=%.3f D~2^%d: %.5f (exact %.5f)\n",
			   (double) n128 / (double) d, cases[c].shift, (double) hits / draws, p);
		CHECK(z < N_SIGMA, "bernoulli_exp_wide gamma %.3f: %.5f vs %.5f", cases[c].gamma,
			  (double) hits / draws, p);
	}

	/* a numerator beyond 128 bits: gamma about 2^60, never true */
	{
		uint64_t	n[4] = {0, 0, 1, 0};	/* 2^128 */
		long		hits = 0,
					k;
		DpkStream	s;

		open_seeded(&s, 99, 200);
		for (k = 0; k < 1000; k++)
			hits += dpk_bernoulli_exp_wide(&s, n, (unsigned __int128) 1 << 68);
		dpk_stream_close(&s);
		CHECK(hits == 0, "gamma 2^60 accepted %ld times", hits);
	}
	/* gamma = 2.5 at D = 2^127: N = 2^128 + 2^126 crosses a limb */
	{
		uint64_t	n[4] = {0, (uint64_t) 1 << 62, 1, 0};
		long		hits = 0,
					k,
					draws = 100000;
		double		p = exp(-2.5);
		DpkStream	s;

		open_seeded(&s, 99, 201);
		for (k = 0; k < draws; k++)
			hits += dpk_bernoulli_exp_wide(&s, n, (unsigned __int128) 1 << 127);
		dpk_stream_close(&s);
		CHECK(fabs((double) hits / draws - p) / sqrt(p * (1 - p) / draws) < N_SIGMA,
			  "bernoulli_exp_wide gamma 2.5 at D = 2^127: %.5f vs %.5f",
			  (double) hits / draws, p);
	}
}

/* pmf sums to 1, variance by direct sums, sigma^2 rounding upwards. */
static void
test_pmf_and_scale(void)
{
	static const double s2s[] = {0.05, 0.3, 1.0, 7.3, 63.9, 64.0, 1000.5};
	size_t		i;

	for (i = 0; i < sizeof(s2s) / sizeof(s2s[0]); i++)
	{
		DpkGaussScale v = dpk_gauss_scale_from_double(s2s[i]);
		double		tot = dpk_discrete_gaussian_pmf(v, 0),
					m2 = 0.0,
					ve = dpk_discrete_gaussian_variance(v);
		int64_t		x;

		CHECK(dpk_gauss_scale_value(v) >= s2s[i] &&
			  dpk_gauss_scale_value(v) - s2s[i] < 1.0 / (1 << 20),
			  "sigma^2 %g rounded to %llu/%llu", s2s[i], (unsigned long long) v.num,
			  (unsigned long long) v.den);
		for (x = 1; x < (int64_t) (60.0 * sqrt(s2s[i])) + 60; x++)
		{
			double		p = dpk_discrete_gaussian_pmf(v, x);

			tot += 2.0 * p;
			m2 += 2.0 * p * (double) x * (double) x;
		}
		CHECK(fabs(tot - 1.0) < 1e-12, "sigma^2 %g: pmf sums to %.15f", s2s[i], tot);
		CHECK(fabs(m2 - ve) <= 1e-10 * ve, "sigma^2 %g: variance %.12g vs %.12g",
			  s2s[i], ve, m2);
		CHECK(ve <= dpk_gauss_scale_value(v) * (1 + 1e-15), "variance above sigma^2");
	}
	/* a huge sigma^2 keeps num below 2^62 with a smaller denominator */
	{
		DpkGaussScale v = dpk_gauss_scale_from_double(1e17);

		CHECK(v.num < ((uint64_t) 1 << 62) && (double) v.num / v.den >= 1e17,
			  "sigma^2 1e17 -> %llu/%llu", (unsigned long long) v.num,
			  (unsigned long long) v.den);
	}
	CHECK(!dpk_gauss_scale_representable(0.0), "0 representable");
	CHECK(!dpk_gauss_scale_representable(NAN), "NaN representable");
	CHECK(!dpk_gauss_scale_representable(5e18), "5e18 representable");
}

/* Same key and nonce, same draws. */
static void
test_determinism(void)
{
	DpkStream	a,
				b;
	DpkGaussScale v = dpk_gauss_scale_from_double(12.5);
	int			k,
				same = 1;

	open_seeded(&a, 5, 9);
	open_seeded(&b, 5, 9);
	for (k = 0; k < 1000; k++)
		same &= dpk_discrete_gaussian(&a, v) == dpk_discrete_gaussian(&b, v);
	dpk_stream_close(&a);
	dpk_stream_close(&b);
	CHECK(same, "same stream, different Gaussian draws");
}

/*
 * dpk_divide_256_128 against binary long division: n below and above
 * 2^128, d small and near 2^127.
 */
static void
test_divide_256_128(void)
{
	uint64_t	st = 0x9e3779b97f4a7c15ULL;
	int			i,
				bad = 0;

	for (i = 0; i < 20000; i++)
	{
		uint64_t	n[4],
					q[4],
					want[4] = {0, 0, 0, 0};
		unsigned __int128 d,
					rem,
					r = 0;
		int			bit,
					j;

		for (j = 0; j < 4; j++)
		{
			st ^= st << 13;
			st ^= st >> 7;
			st ^= st << 17;
			n[j] = st;
		}
		if (i % 2 == 0)
			n[2] = n[3] = 0;
		d = ((unsigned __int128) n[0] * n[1]) >> (i % 100);
		if (i % 3 == 0)
			d = ((unsigned __int128) 1 << 126) + n[2];
		if (d == 0)
			d = 1;
		for (bit = 255; bit >= 0; bit--)
		{
			bool		top = (r >> 127) != 0;

			r = (r << 1) | ((n[bit / 64] >> (bit % 64)) & 1);
			if (top || r >= d)
			{
				r -= d;
				want[bit / 64] |= (uint64_t) 1 << (bit % 64);
			}
		}
		dpk_divide_256_128(n, d, q, &rem);
		if (rem != r || memcmp(q, want, sizeof(q)) != 0)
			bad++;
	}
	CHECK(bad == 0, "divide_256_128: %d of 20000 quotients or remainders differ", bad);
}

int
main(void)
{
	printf("test_dgauss:\n");
	test_pmf_and_scale();
	test_bernoulli_exp_wide();
	test_divide_256_128();
	test_gauss_samples();
	test_determinism();
	UNIT_DONE("test_dgauss");
}
