/*
 * dgauss.h
 *		Exact discrete Gaussian noise (approximate DP through zero-concentrated
 *		DP).
 *
 * The sampler follows Canonne, Kamath and Steinke (2020), "The Discrete
 * Gaussian for Differential Privacy" (CKS), Algorithm 3: discrete Laplace
 * proposals (noise.h, CKS Algorithm 2) accepted by an exact
 * Bernoulli(exp(-gamma)) (CKS Algorithm 1) with gamma a ratio of integers,
 * so no floating-point value ever decides a sample.  The variance sigma^2 is
 * a rational num/den, so a non-integer sigma^2 is as exact as an integer one.
 *
 * Plain C, no PostgreSQL headers.
 */
#ifndef DPK_DGAUSS_H
#define DPK_DGAUSS_H

#include <stdbool.h>
#include <stdint.h>

#include "noise.h"

/*
 * The parameter sigma^2 = num/den > 0 of a discrete Gaussian:
 * P[X = x] proportional to exp(-x^2 / (2 sigma^2)) on the integers.
 */
typedef struct DpkGaussScale
{
	uint64_t	num;
	uint64_t	den;
} DpkGaussScale;

/* Exact discrete Gaussian N_Z(0, num/den) (CKS Algorithm 3). */
int64_t		dpk_discrete_gaussian(DpkStream *s, DpkGaussScale v);

/*
 * Independent discrete Gaussians N_Z(0, sigma^2) on d coordinates: adds
 * sign * z to out[0..d-1].  With an l2 sensitivity Delta this is
 * Delta^2 / (2 sigma^2)-zCDP (see zcdp.h).
 */
void		dpk_gauss_vector_noise(DpkStream *s, DpkGaussScale v, int d, int sign,
								   int64_t *out);

/*
 * Exact Bernoulli(exp(-N/D)) for a 256-bit N (as four 64-bit limbs, least
 * significant first) and a 128-bit D >= 1; the general form of CKS
 * Algorithm 1 the sampler needs.  Exposed for the unit tests.
 */
/*
 * q = floor(n / d) (four 64-bit limbs, least significant first, as n) and
 * *rem = n mod d, for d > 0: one 128-bit division when n < 2^128, else
 * binary long division.
 */
void		dpk_divide_256_128(const uint64_t n_limbs[4], unsigned __int128 d,
							   uint64_t q[4], unsigned __int128 *rem);

bool		dpk_bernoulli_exp_wide(DpkStream *s, const uint64_t n_limbs[4],
								   unsigned __int128 d);

/*
 * The rational sigma^2 used for a real sigma2 > 0: den a power of two (2^20
 * unless sigma2 is huge), num = ceil(sigma2 den) <= 2^62 - 1, so the noise is
 * never smaller than asked for.  A sigma2 without representation calls
 * dpk_fail.
 */
DpkGaussScale dpk_gauss_scale_from_double(double sigma2);

/* Whether sigma2 is finite, > 0 and below 2^62 (dpk_gauss_scale_from_double takes it). */
bool		dpk_gauss_scale_representable(double sigma2);

/* The real value num/den of sigma^2. */
double		dpk_gauss_scale_value(DpkGaussScale v);

/* The normalising sum over the integers of exp(-x^2 / (2 sigma^2)). */
double		dpk_discrete_gaussian_norm(DpkGaussScale v);

/* P[X = x] of N_Z(0, sigma^2) (for tests and reports). */
double		dpk_discrete_gaussian_pmf(DpkGaussScale v, int64_t x);

/* Variance of N_Z(0, sigma^2): below sigma^2, equal to it for sigma >= 4 to 1e-100. */
double		dpk_discrete_gaussian_variance(DpkGaussScale v);

/*
 * One family of noisy quantities: discrete Laplace on scalars and cube noise
 * on vectors at an l-infinity scale (noise.h, pure epsilon), or independent
 * discrete Gaussians N_Z(0, var) on every coordinate (approximate DP).
 */
typedef struct DpkNoise
{
	bool		gauss;
	bool		coords;			/* when !gauss: vectors get one discrete
								 * Laplace per coordinate (an l1 scale), not
								 * dpk_vector_noise */
	DpkScale	lap;			/* when !gauss */
	DpkGaussScale var;			/* when gauss: sigma^2 */
} DpkNoise;

/* A Laplace/cube family of scale b, or a Gaussian family of variance v. */
DpkNoise	dpk_noise_laplace(DpkScale b);
DpkNoise	dpk_noise_gauss(DpkGaussScale v);

/* One scalar draw of the family (dpk_discrete_laplace or dpk_discrete_gaussian). */
int64_t		dpk_noise_draw(DpkStream *s, const DpkNoise *n);

/*
 * Adds sign * one vector draw to out[0..d-1] (dpk_vector_noise, d discrete
 * Laplace draws when coords, or d Gaussians).
 */
void		dpk_noise_add_vector(DpkStream *s, const DpkNoise *n, int d, int sign,
								 int64_t *out);

/* Variance of one scalar draw (vector_d 0) or of one coordinate of a vector draw. */
double		dpk_noise_variance(const DpkNoise *n, int vector_d);

/* The family's scale in its own terms: b (Laplace/cube) or sigma (Gaussian). */
double		dpk_noise_scale_value(const DpkNoise *n);

#endif
