/*
 * test_sqrt_counter.c
 *		The square-root factorization counter with integer measurements:
 *		its weights reproduce every event exactly, a release is exactly the
 *		rounded combination of the measurements, and its variance is the
 *		formula's.
 */
#include <math.h>
#include <string.h>

#include "counter.h"
#include "dgauss.h"
#include "noise.h"
#include "sqrt_counter.h"
#include "unit.h"

/* Release units the square-root factorization reaches (mean over [T/4, T], worst). */
static const struct
{
	uint32_t	T;
	double		mean,
				worst;
}			sqrt_rows[] = {{16, 3.43, 3.78}, {64, 5.29, 5.71}, {256, 7.53, 8.01}, {1024, 10.15, 10.71}};

int
main(void)
{
	uint8_t		key[DPK_KEY_BYTES];
	DpkStream	s = {0};
	uint64_t	rng = 88172645463325252ull;

	memset(key, 7, sizeof(key));
	if (!dpk_stream_open(&s, key, (uint8_t[DPK_NONCE_BYTES]) {0}))
	{
		fprintf(stderr, "test_sqrt_counter: cannot open a stream\n");
		return 1;
	}

	/*
	 * Every event up to t carries weight exactly 1 in release t: the
	 * integer identity sum_{j<=k} w_j rc_{k-j} + r_k = den, and the leaves
	 * only repair rounding (|r_k| <= rc_0 / 2).
	 */
	for (size_t a = 0; a < sizeof(sqrt_rows) / sizeof(sqrt_rows[0]); a++)
	{
		DpkSqrtCounter sc;
		uint32_t	T = sqrt_rows[a].T;
		double		mean = 0.0,
					worst = 0.0;
		int			n = 0,
					wrong = 0;

		dpk_sqrt_counter_init(&sc, T, DPK_SQRT_SHIFT);
		for (uint32_t k = 0; k < T; k++)
		{
			__int128	total = sc.r[k];

			for (uint32_t j = 0; j <= k; j++)
				total += (__int128) sc.w[j] * sc.rc[k - j];
			if (total != sc.den || 2 * llabs(sc.r[k]) > sc.rc[0])
				wrong++;
		}
		CHECK(wrong == 0, "T %u: %d lags without total weight 1", T, wrong);
		CHECK(sc.rc[0] == (1 << DPK_SQRT_SHIFT), "T %u: rc_0 %lld", T, (long long) sc.rc[0]);
		/* the factorization's figures: within 1 % of the real square root */
		for (uint32_t t = T / 4; t <= T; t++)
		{
			double		v = dpk_sqrt_release_units(&sc, t);

			mean += v;
			n++;
			if (v > worst)
				worst = v;
		}
		mean /= n;
		CHECK(fabs(mean / sqrt_rows[a].mean - 1.0) < 0.01 &&
			  fabs(worst / sqrt_rows[a].worst - 1.0) < 0.01,
			  "T %u: %.3f / %.3f, the square root gives %.2f / %.2f", T, mean, worst,
			  sqrt_rows[a].mean, sqrt_rows[a].worst);
		dpk_sqrt_counter_free(&sc);
	}

	/*
	 * The measurements are fixed integers on every platform: 2^12 binom(2k, k)
	 * / 4^k rounded (exact for k <= 8; 804.375 rounds to 804), and at k = 1023
	 * 2^12 c_k = 72.2427... .
	 */
	{
		static const int64_t want[9] = {4096, 2048, 1536, 1280, 1120, 1008, 924, 858, 804};
		DpkSqrtCounter sc;
		int			wrong = 0;

		dpk_sqrt_counter_init(&sc, 1024, DPK_SQRT_SHIFT);
		for (int k = 0; k < 9; k++)
			wrong += sc.rc[k] != want[k];
		CHECK(wrong == 0 && sc.rc[1023] == 72, "measurement coefficients: %d of the first 9 "
			  "wrong, rc_1023 = %lld", wrong, (long long) sc.rc[1023]);
		dpk_sqrt_counter_free(&sc);
	}

	/*
	 * A release is exactly the nearest integer to the fixed combination
	 * sum (w m + r l) / den of the measurements m_s = sum rc x + eta_s and
	 * leaves l_s = x_s + zeta_s of a random stream, count and sums: the
	 * privacy rests on this (the release is a function of the measurements).
	 */
	{
		const uint32_t T = 64;
		const int	d = 2;
		DpkSqrtCounter sc;
		DpkCellVars vars = {d, dpk_gauss_scale_from_double(2.5e9), dpk_gauss_scale_from_double(7.0e11),
		DPK_SUMS_VECTOR};
		int64_t		x[65][3];
		int64_t		prefix[3] = {0, 0, 0};
		int			mismatches = 0;

		dpk_sqrt_counter_init(&sc, T, DPK_SQRT_SHIFT);
		for (uint32_t i = 1; i <= T; i++)
			for (int j = 0; j <= d; j++)
				x[i][j] = (int64_t) (unit_uniform(&rng) * 2000.0) - 700;
		for (uint32_t t = 1; t <= T; t++)
		{
			int64_t		out[3],
						tmp[3];
			__int128	acc[3];
			__int128	comb[3] = {0, 0, 0};
			const DpkCellKey ck = {key, 5, 1234567};

			for (int j = 0; j <= d; j++)
				prefix[j] += x[t][j];
			for (uint32_t si = 1; si <= t; si++)
			{
				int64_t		eta[3],
							zeta[3];

				dpk_sqrt_draws(&s, &ck, 0, si, &vars, eta);
				dpk_sqrt_draws(&s, &ck, 1, si, &vars, zeta);
				for (int j = 0; j <= d; j++)
				{
					__int128	m = eta[j];

					for (uint32_t i = 1; i <= si; i++)
						m += (__int128) sc.rc[si - i] * x[i][j];
					comb[j] += (__int128) sc.w[t - si] * m +
						(__int128) sc.r[t - si] * (x[si][j] + zeta[j]);
				}
			}
			dpk_cell_noise_sqrt(&s, &ck, &sc, t, &vars, prefix, out, tmp, acc);
			for (int j = 0; j <= d; j++)
			{
				/* nearest integer to comb / den (den odd: no ties) */
				__int128	q = comb[j] >= 0 ? (2 * comb[j] + sc.den) / (2 * sc.den)
					: -((-2 * comb[j] + sc.den) / (2 * sc.den));

				if ((int64_t) q != out[j])
					mismatches++;
			}
		}
		CHECK(mismatches == 0, "%d releases differ from the measurements' combination", mismatches);
		dpk_sqrt_counter_free(&sc);
	}

	/*
	 * The empirical variance of a release's count noise over many cells
	 * matches sigma^2 sum (w^2 + r^2) / den^2 (within 6 %, 4 000 cells).
	 */
	{
		const uint32_t T = 32,
					t = 21;
		const int	cells = 4000;
		DpkSqrtCounter sc;
		DpkCellVars vars = {0, dpk_gauss_scale_from_double(4.0e12), {1, 1}, DPK_SUMS_NONE};
		double		sum2 = 0.0,
					want;

		dpk_sqrt_counter_init(&sc, T, DPK_SQRT_SHIFT);
		for (int c = 0; c < cells; c++)
		{
			int64_t		out[1],
						tmp[1];
			__int128	acc[1];

			dpk_cell_noise_sqrt(&s, &(DpkCellKey) {key, 3, (uint64_t) c}, &sc, t, &vars, NULL,
								out, tmp, acc);
			sum2 += (double) out[0] * (double) out[0];
		}
		want = 4.0e12 * dpk_sqrt_release_units(&sc, t) / sc.sens2;
		CHECK(fabs(sum2 / cells / want - 1.0) < 0.06, "variance %.1f, the formula %.1f",
			  sum2 / cells, want);
		dpk_sqrt_counter_free(&sc);
	}

	dpk_stream_close(&s);
	UNIT_DONE("test_sqrt_counter");
}
