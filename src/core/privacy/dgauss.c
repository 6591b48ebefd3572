/*
 * dgauss.c
 *		Exact discrete Gaussian sampling (see dgauss.h).
 *
 * CKS Algorithm 3 with sigma^2 = a/b and t = floor(sigma) + 1: draw
 * Y ~ discrete Laplace of scale t, accept with probability
 * exp(-(|Y| - sigma^2/t)^2 / (2 sigma^2)).  In integers that exponent is
 * (|Y| t b - a)^2 / (2 a b t^2): a 256-bit numerator over a 128-bit
 * denominator, so the Bernoulli(exp(-gamma)) below works on wide integers
 * instead of rounding gamma.  The double-valued helpers at the end are for
 * reports and tests only.
 */
#include "dgauss.h"

#include <math.h>
#include <string.h>

#include "dpk_mem.h"

/* Denominator bits of dpk_gauss_scale_from_double (as dpk_scale_from_double). */
#define DPK_GAUSS_DEN_BITS 20

/* sigma^2 numerators stay below 2^62 (exact as a double). */
#define DPK_GAUSS_LIMIT 4611686018427387904.0

typedef unsigned __int128 u128;

/*
 * A uniform integer in [0, n), n >= 1, on 128 bits by rejection: words below
 * 2^128 mod n are redrawn, so x mod n is exactly uniform.  2^128 mod n is
 * below n, so that threshold (a 128-bit division) is computed only for the
 * rare word below n.
 */
static u128
uniform128(DpkStream *s, u128 n)
{
	u128		x;

	if (n <= 1)
		return 0;
	do
	{
		u128		lo = dpk_stream_u64(s);
		u128		hi = dpk_stream_u64(s);

		x = (hi << 64) | lo;
	} while (x < n && x < (0 - n) % n);
	return x % n;
}

/* Exact Bernoulli(num/den) on 128 bits, 0 <= num, den >= 1. */
static bool
bernoulli128(DpkStream *s, u128 num, u128 den)
{
	if (num == 0)
		return false;
	if (num >= den)
		return true;
	return uniform128(s, den) < num;
}

/*
 * Bernoulli(exp(-r/d)) for 0 <= r < d, CKS Algorithm 1: A_k ~
 * Bernoulli(gamma / k) until the first failure at K, true iff K is odd.
 * Bernoulli(gamma / k) is Bernoulli(gamma) AND Bernoulli(1/k), two
 * independent exact draws, so d k never has to fit anywhere.
 */
static bool
bernoulli_exp_frac128(DpkStream *s, u128 r, u128 d)
{
	uint64_t	k = 1;

	if (d <= UINT64_MAX)
		return dpk_bernoulli_exp(s, (uint64_t) r, (uint64_t) d);
	for (;;)
	{
		if (!(bernoulli128(s, r, d) && dpk_bernoulli(s, 1, k)))
			break;
		k++;
	}
	return (k & 1) != 0;
}

/* q = floor(n / d), *rem = n mod d (see dgauss.h). */
void
dpk_divide_256_128(const uint64_t n_limbs[4], u128 d, uint64_t q[4], u128 *rem_out)
{
	u128		rem = 0;
	int			bit;

	q[0] = q[1] = q[2] = q[3] = 0;
	if (n_limbs[2] == 0 && n_limbs[3] == 0)
	{
		/* n < 2^128 (almost always): one 128-bit division */
		u128		n128 = ((u128) n_limbs[1] << 64) | n_limbs[0];
		u128		q128 = n128 / d;

		rem = n128 - q128 * d;
		q[0] = (uint64_t) q128;
		q[1] = (uint64_t) (q128 >> 64);
	}
	else
	{
		/* schoolbook binary long division; rem < d < 2^128 stays in 129 bits */
		for (bit = 255; bit >= 0; bit--)
		{
			bool		top = (rem >> 127) != 0;

			rem = (rem << 1) | ((n_limbs[bit / 64] >> (bit % 64)) & 1);
			if (top || rem >= d)
			{
				rem -= d;
				q[bit / 64] |= (uint64_t) 1 << (bit % 64);
			}
		}
	}
	*rem_out = rem;
}

/*
 * Exact Bernoulli(exp(-N/D)) (see dgauss.h): N = q D + r by long division,
 * then exp(-1)^q (independent draws, stopping at the first failure, so the
 * expected number of draws is below 1.6 whatever q is) times exp(-r/D).
 */
bool
dpk_bernoulli_exp_wide(DpkStream *s, const uint64_t n_limbs[4], u128 d)
{
	uint64_t	q[4];
	u128		rem;

	if (d == 0)
		return false;			/* caller error: gamma infinite */
	dpk_divide_256_128(n_limbs, d, q, &rem);
	while (q[0] | q[1] | q[2] | q[3])
	{
		int			i;

		if (!dpk_bernoulli_exp(s, 1, 1))
			return false;
		for (i = 0; i < 4; i++)
			if (q[i]-- != 0)
				break;
	}
	return bernoulli_exp_frac128(s, rem, d);
}

/* The 256-bit square of a 128-bit value, as four 64-bit limbs. */
static void
square256(u128 u, uint64_t out[4])
{
	uint64_t	lo = (uint64_t) u,
				hi = (uint64_t) (u >> 64);
	u128		ll = (u128) lo * lo,
				lh = (u128) lo * hi,
				hh = (u128) hi * hi;
	u128		mid,
				carry;

	/* u^2 = hh 2^128 + 2 lh 2^64 + ll */
	out[0] = (uint64_t) ll;
	mid = (ll >> 64) + (uint64_t) lh * (u128) 2;
	carry = (lh >> 64) * 2;
	out[1] = (uint64_t) mid;
	mid = (mid >> 64) + carry + (uint64_t) hh;
	out[2] = (uint64_t) mid;
	out[3] = (uint64_t) ((mid >> 64) + (uint64_t) (hh >> 64));
}

/* floor(sqrt(x)) of a 64-bit x, exactly. */
static uint64_t
isqrt64(uint64_t x)
{
	uint64_t	r = (uint64_t) sqrt((double) x);

	while (r > 0 && (u128) r * r > x)
		r--;
	while ((u128) (r + 1) * (r + 1) <= x)
		r++;
	return r;
}

/*
 * Exact discrete Gaussian N_Z(0, a/b), CKS Algorithm 3.  t = floor(sigma) + 1
 * = isqrt(floor(a/b)) + 1 (floor(sqrt(x)) = floor(sqrt(floor(x)))).  With
 * a < 2^62 and b <= 2^20 every quantity fits: |Y| t b < 2^115 (|Y| < 2^63)
 * and D = 2 a b t^2 < 2^126.
 */
int64_t
dpk_discrete_gaussian(DpkStream *s, DpkGaussScale v)
{
	uint64_t	a = v.num,
				b = v.den,
				t;
	DpkScale	lap;
	u128		dd;

	if (a == 0 || b == 0)
		return 0;				/* caller error: no valid sigma^2 */
	t = isqrt64(a / b) + 1;
	lap.num = t;
	lap.den = 1;
	dd = (u128) 2 * a * b * ((u128) t * t);
	for (;;)
	{
		int64_t		y = dpk_discrete_laplace(s, lap);
		u128		ay = (u128) (y < 0 ? -(uint64_t) y : (uint64_t) y);
		u128		x = ay * t * b;
		u128		u = x >= a ? x - a : a - x;
		uint64_t	n[4];

		dpk_check_interrupts();
		square256(u, n);
		if (dpk_bernoulli_exp_wide(s, n, dd))
			return y;
	}
}

/* Independent N_Z(0, sigma^2) per coordinate, added with a sign. */
void
dpk_gauss_vector_noise(DpkStream *s, DpkGaussScale v, int d, int sign, int64_t *out)
{
	int			j;

	for (j = 0; j < d; j++)
		out[j] += sign * dpk_discrete_gaussian(s, v);
}

/* Whether sigma2 has a representation (see dgauss.h). */
bool
dpk_gauss_scale_representable(double sigma2)
{
	return isfinite(sigma2) && sigma2 > 0.0 && ceil(sigma2) < DPK_GAUSS_LIMIT;
}

/*
 * The rational sigma^2 (see dgauss.h): the largest power-of-two den <= 2^20
 * with ceil(sigma2 den) < 2^62; sigma2 den is exact in doubles, so the only
 * rounding is the ceil, upwards.
 */
DpkGaussScale
dpk_gauss_scale_from_double(double sigma2)
{
	DpkGaussScale v;
	int			k;

	if (!dpk_gauss_scale_representable(sigma2))
		dpk_fail("a Gaussian noise variance has no exact representation (rho too small for this configuration)");
	for (k = DPK_GAUSS_DEN_BITS; k >= 0; k--)
	{
		double		x = ceil(ldexp(sigma2, k));

		if (x < DPK_GAUSS_LIMIT)
		{
			v.num = x < 1.0 ? 1 : (uint64_t) x;
			v.den = (uint64_t) 1 << k;
			DPK_ASSERT((long double) v.num >= (long double) sigma2 * (long double) v.den);
			return v;
		}
	}
	dpk_fail("a Gaussian noise variance has no exact representation");
}

/* num/den as a double. */
double
dpk_gauss_scale_value(DpkGaussScale v)
{
	return (double) v.num / (double) v.den;
}

/*
 * sum_x exp(-x^2 / (2 sigma^2)): summed directly up to |x| = 40 sigma + 40
 * for sigma^2 < 1e6 (terms beyond are below e^-800); beyond that the Poisson
 * summation value sqrt(2 pi) sigma, whose relative error
 * 2 exp(-2 pi^2 sigma^2) is far below a double's precision.
 */
double
dpk_discrete_gaussian_norm(DpkGaussScale v)
{
	double		s2 = dpk_gauss_scale_value(v);
	double		z = 1.0;
	int64_t		x,
				lim;

	if (s2 >= 1e6)
		return sqrt(2.0 * M_PI * s2);
	lim = (int64_t) (40.0 * sqrt(s2)) + 40;
	for (x = 1; x <= lim; x++)
		z += 2.0 * exp(-(double) x * (double) x / (2.0 * s2));
	return z;
}

/* P[X = x] = exp(-x^2 / (2 sigma^2)) / norm. */
double
dpk_discrete_gaussian_pmf(DpkGaussScale v, int64_t x)
{
	double		s2 = dpk_gauss_scale_value(v);
	double		xd = (double) x;

	return exp(-xd * xd / (2.0 * s2)) / dpk_discrete_gaussian_norm(v);
}

/*
 * Variance: summed for sigma^2 < 64; above, sigma^2 itself (the relative
 * gap is about 8 pi^2 sigma^2 exp(-2 pi^2 sigma^2), below 1e-500 there).
 */
double
dpk_discrete_gaussian_variance(DpkGaussScale v)
{
	double		s2 = dpk_gauss_scale_value(v);
	double		m2 = 0.0;
	int64_t		x,
				lim;

	if (s2 >= 64.0)
		return s2;
	lim = (int64_t) (40.0 * sqrt(s2)) + 40;
	for (x = 1; x <= lim; x++)
		m2 += 2.0 * (double) x * (double) x * exp(-(double) x * (double) x / (2.0 * s2));
	return m2 / dpk_discrete_gaussian_norm(v);
}

/* A Laplace/cube family. */
DpkNoise
dpk_noise_laplace(DpkScale b)
{
	DpkNoise	n;

	memset(&n, 0, sizeof(n));
	n.gauss = false;
	n.lap = b;
	return n;
}

/* A Gaussian family. */
DpkNoise
dpk_noise_gauss(DpkGaussScale v)
{
	DpkNoise	n;

	memset(&n, 0, sizeof(n));
	n.gauss = true;
	n.var = v;
	return n;
}

/* One scalar draw: the Laplace path is exactly dpk_discrete_laplace. */
int64_t
dpk_noise_draw(DpkStream *s, const DpkNoise *n)
{
	return n->gauss ? dpk_discrete_gaussian(s, n->var) : dpk_discrete_laplace(s, n->lap);
}

/* One vector draw: the Laplace path is exactly dpk_vector_noise. */
void
dpk_noise_add_vector(DpkStream *s, const DpkNoise *n, int d, int sign, int64_t *out)
{
	int			j;

	if (n->gauss)
		dpk_gauss_vector_noise(s, n->var, d, sign, out);
	else if (n->coords)
		for (j = 0; j < d; j++)
			out[j] += sign * dpk_discrete_laplace(s, n->lap);
	else
		dpk_vector_noise(s, n->lap, d, sign, out);
}

/* Variance of a scalar draw or of one vector coordinate. */
double
dpk_noise_variance(const DpkNoise *n, int vector_d)
{
	if (n->gauss)
		return dpk_discrete_gaussian_variance(n->var);
	return vector_d > 0 && !n->coords ? dpk_vector_noise_variance(n->lap, vector_d)
		: dpk_discrete_laplace_variance(n->lap);
}

/* b or sigma. */
double
dpk_noise_scale_value(const DpkNoise *n)
{
	return n->gauss ? sqrt(dpk_gauss_scale_value(n->var)) : dpk_scale_value(n->lap);
}
