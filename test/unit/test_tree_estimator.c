/*
 * test_tree_estimator.c
 *		Weights of continual releases (tree_estimator.c): the identity (*) of
 *		doc/privacy.md, exactness on noiseless node values, least-squares
 *		optimality, the variance formula, and the signed estimator's
 *		bit-exact agreement with dpk_cell_noise.
 */
#include <math.h>
#include <string.h>

#include "counter.h"
#include "dpk_mem.h"
#include "noise.h"
#include "tree_estimator.h"
#include "unit.h"

/* k^j. */
static int64_t
kpow(int k, int j)
{
	int64_t		w = 1;

	while (j-- > 0)
		w *= k;
	return w;
}

/*
 * Largest |sum_v w_v 1[i in v] - 1[i <= t]| over positions 1 .. limit
 * (difference array over the node intervals).
 */
static double
identity_error(int k, const DpkTreeWeights *w, uint32_t t, int64_t limit)
{
	double	   *diff = calloc((size_t) limit + 2, sizeof(double));
	double		run = 0.0,
				worst = 0.0;
	int64_t		i;
	int			a;

	for (a = 0; a < w->n; a++)
	{
		int64_t		len = kpow(k, w->level[a]),
					start = ((int64_t) w->index[a] - 1) * len + 1,
					end = (int64_t) w->index[a] * len;

		if (start > limit)
			continue;
		diff[start] += w->weight[a];
		if (end + 1 <= limit)
			diff[end + 1] -= w->weight[a];
	}
	for (i = 1; i <= limit; i++)
	{
		run += diff[i];
		worst = fmax(worst, fabs(run - (i <= (int64_t) t ? 1.0 : 0.0)));
	}
	free(diff);
	return worst;
}

/*
 * Least squares: w is orthogonal to every direction that keeps (*), among
 * them "+1 on a node, -1 on each of its k children" whenever all k + 1 are
 * in the set.  Returns the largest |w . z| over those directions.
 */
static double
orthogonality_error(int k, const DpkTreeWeights *w)
{
	double		worst = 0.0;
	int			a,
				b,
				c;

	for (a = 0; a < w->n; a++)
	{
		double		dot = w->weight[a];
		int			found = 0;

		if (w->level[a] == 0)
			continue;
		for (c = 0; c < k; c++)
		{
			uint32_t	child = (w->index[a] - 1) * (uint32_t) k + (uint32_t) c + 1;

			for (b = 0; b < w->n; b++)
				if (w->level[b] == w->level[a] - 1 && w->index[b] == child)
				{
					dot -= w->weight[b];
					found++;
				}
		}
		if (found == k)
			worst = fmax(worst, fabs(dot));
	}
	return worst;
}

int
main(void)
{
	static const uint32_t horizons[] = {5, 64, 256, 1000, 1024};
	uint8_t		key[DPK_KEY_BYTES];
	uint8_t		nonce[DPK_NONCE_BYTES] = {0};
	DpkStream	s = {0};
	size_t		hi;
	int			i;

	for (i = 0; i < DPK_KEY_BYTES; i++)
		key[i] = (uint8_t) (7 * i + 3);
	if (!dpk_stream_open(&s, key, nonce))
	{
		fprintf(stderr, "test_tree_estimator: cannot open a stream\n");
		return 1;
	}

	/* Signed decompositions of other arities: in-tree, telescoping, (*). */
	{
		static const int ks[] = {3, 4, 5, 7, 8, 11};
		size_t		ki;
		int			bad_sum = 0,
					bad_height = 0,
					bad_identity = 0;

		for (ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ki++)
			for (uint32_t t = 1; t <= 3000; t++)
			{
				int			k = ks[ki];
				DpkTreeWeights w;
				int64_t		covered = 0;

				dpk_tree_weights(k, 3000, 0, false, t, &w);
				for (i = 0; i < w.n; i++)
				{
					covered += (int64_t) w.weight[i] * kpow(k, w.level[i]);
					if (w.level[i] >= dpk_tree_shape_height(k, t))
						bad_height++;
				}
				bad_sum += covered != (int64_t) t;
				bad_identity += identity_error(k, &w, t, 3 * (int64_t) t + 3) > 0.0;
				dpk_tree_weights_free(&w);
			}
		CHECK(bad_sum == 0, "balanced digits telescope to t (%d bad)", bad_sum);
		CHECK(bad_height == 0, "balanced digits stay below the height (%d bad)", bad_height);
		CHECK(bad_identity == 0, "balanced digits satisfy (*) (%d bad)", bad_identity);
		CHECK(dpk_tree_shape_height(2, 1024) == dpk_tree_height(1024) &&
			  dpk_tree_shape_height(7, 1024) == 4 && dpk_tree_shape_height(5, 256) == 4,
			  "heights of arity 2, 7, 5");
	}

	/*
	 * The local least-squares weights: (*) at every position, exact on
	 * noiseless nodes (true node sums of a stream, future positions
	 * included), orthogonal to the directions that keep (*), and never
	 * worse than the signed nodes.
	 */
	for (hi = 0; hi < sizeof(horizons) / sizeof(horizons[0]); hi++)
	{
		uint32_t	T = horizons[hi];
		int64_t		span = 2 * (int64_t) T + 2;
		int64_t    *events = malloc(sizeof(int64_t) * (size_t) (span + 1));
		int64_t    *prefix = malloc(sizeof(int64_t) * (size_t) (span + 1));
		uint64_t	st = 0x9e3779b97f4a7c15ull ^ T;
		double		worst_id = 0.0,
					worst_orth = 0.0,
					worst_exact = 0.0,
					sum_blue = 0.0,
					sum_signed = 0.0;
		int			worse = 0;

		prefix[0] = 0;
		for (int64_t p = 1; p <= span; p++)
		{
			events[p] = (int64_t) (unit_uniform(&st) * 50.0) - 10;
			prefix[p] = prefix[p - 1] + events[p];
		}
		for (uint32_t t = 1; t <= T; t++)
		{
			DpkTreeWeights w;
			double		est = 0.0,
						n2;

			dpk_tree_release_weights(DPK_TREE_LOCAL_BLUE, 2, T, t, &w);
			worst_id = fmax(worst_id, identity_error(2, &w, t, span));
			worst_orth = fmax(worst_orth, orthogonality_error(2, &w));
			for (i = 0; i < w.n; i++)
			{
				int64_t		len = kpow(2, w.level[i]),
							start = ((int64_t) w.index[i] - 1) * len,
							end = (int64_t) w.index[i] * len;

				if (end > span)
					end = span;
				est += w.weight[i] * (double) (prefix[end] - prefix[start]);
			}
			worst_exact = fmax(worst_exact, fabs(est - (double) prefix[t]));
			n2 = dpk_tree_weights_norm2(&w);
			CHECK(fabs(n2 - dpk_tree_release_norm2(DPK_TREE_LOCAL_BLUE, 2, T, t)) < 1e-12,
				  "T=%u t=%u: norm2 helper", T, t);
			worse += n2 > dpk_tree_nodes(t) + 1e-9;
			sum_blue += n2;
			sum_signed += dpk_tree_nodes(t);
			dpk_tree_weights_free(&w);
		}
		CHECK(worst_id < 1e-9, "T=%u: (*) holds to %g", T, worst_id);
		CHECK(worst_exact < 1e-6, "T=%u: exact on noiseless nodes (error %g)", T, worst_exact);
		CHECK(worst_orth < 1e-9, "T=%u: least-squares orthogonality %g", T, worst_orth);
		CHECK(worse == 0, "T=%u: never worse than the signed nodes (%d worse)", T, worse);
		/* bench_counter: 0.45-0.46 of the signed variance at T = 256 and 1024 */
		if (T >= 256)
			CHECK(sum_blue < 0.5 * sum_signed, "T=%u: mean variance %.3f of the signed one",
				  T, sum_blue / sum_signed);
		printf("T=%u: local least squares / signed nodes, mean variance %.3f\n", T,
			   sum_blue / sum_signed);
		free(events);
		free(prefix);
	}

	/* The signed estimator draws exactly what dpk_cell_noise draws. */
	{
		DpkScale	cs = dpk_scale_from_double(22.0),
					ss = dpk_scale_from_double(3000.0);
		int			mismatch = 0;

		for (uint32_t t = 1; t <= 300; t += 7)
		{
			DpkTreeWeights w;
			int64_t		a[4],
						b[4],
						tmp[4];
			double		acc[4];

			dpk_tree_release_weights(DPK_TREE_SIGNED, 2, 1024, t, &w);
			dpk_cell_noise(&s, key, 3, 4242 + t, t, 3, cs, ss, DPK_SUMS_VECTOR, a);
			dpk_cell_noise_weighted(&s, key, 3, 4242 + t, &w, 3, cs, ss, DPK_SUMS_VECTOR, b,
									tmp, acc);
			mismatch += memcmp(a, b, sizeof(a)) != 0;
			dpk_tree_weights_free(&w);
		}
		CHECK(mismatch == 0, "signed weights reproduce dpk_cell_noise (%d differ)", mismatch);
	}

	/*
	 * Variance over many cells matches node variance x ||w||^2 (+ the
	 * rounding to integers, at most 1/4), and the mean is 0.
	 */
	{
		static const uint32_t ts[] = {1, 171, 683, 1023, 1024};
		DpkScale	cs = dpk_scale_from_double(22.0);
		double		node_var = dpk_discrete_laplace_variance(cs);
		size_t		a;

		for (a = 0; a < sizeof(ts) / sizeof(ts[0]); a++)
		{
			DpkTreeWeights w;
			int			cells = 20000,
						c;
			double		sum = 0,
						sum2 = 0,
						expect,
						var;

			dpk_tree_release_weights(DPK_TREE_LOCAL_BLUE, 2, 1024, ts[a], &w);
			expect = node_var * dpk_tree_weights_norm2(&w);
			for (c = 0; c < cells; c++)
			{
				int64_t		v[1],
							tmp[1];
				double		acc[1];

				dpk_cell_noise_weighted(&s, key, 3, (uint64_t) c, &w, 0, cs, cs,
										DPK_SUMS_NONE, v, tmp, acc);
				sum += v[0];
				sum2 += (double) v[0] * v[0];
			}
			var = sum2 / cells - (sum / cells) * (sum / cells);
			CHECK(fabs(var / expect - 1.0) < 0.07, "t=%u: variance %g, formula %g", ts[a],
				  var, expect);
			CHECK(fabs(sum / cells) < 5 * sqrt(expect / cells), "t=%u: mean %g", ts[a],
				  sum / cells);
			printf("local least squares t=%u: %d nodes, variance %.1f (formula %.1f, signed "
				   "nodes %.1f)\n", ts[a], w.n, var, expect, node_var * dpk_tree_nodes(ts[a]));
			dpk_tree_weights_free(&w);
		}
	}

	dpk_stream_close(&s);
	UNIT_DONE("test_tree_estimator");
}
