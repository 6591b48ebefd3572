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

/*
 * Orthogonality holds to a few units of 2^-32: the weights are the least
 * squares rounded to multiples of 1 / DPK_TREE_WEIGHT_DEN and repaired so
 * that (*) holds exactly.
 */
#define ORTH_TOL 1e-8

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
 * Whether v is the nearest integer to x = base + num / den, ties to even:
 * |2 (x - v) den| < den, or = den with v even (a property, not the
 * algorithm of dpk_round_exact).
 */
static bool
nearest_even(int64_t v, int64_t base, __int128 num, int64_t den)
{
	__int128	diff = 2 * ((__int128) base * den + num - (__int128) v * den);

	if (diff < 0)
		diff = -diff;
	return diff < den || (diff == den && (v & 1) == 0);
}

/*
 * Whether the exact weights num / den satisfy (*) at every position
 * 1 .. limit, in integers.
 */
static bool
identity_exact(int k, const DpkTreeWeights *w, uint32_t t, int64_t limit)
{
	int64_t    *diff = calloc((size_t) limit + 2, sizeof(int64_t));
	int64_t		run = 0,
				i;
	bool		ok = true;
	int			a;

	for (a = 0; a < w->n; a++)
	{
		int64_t		len = kpow(k, w->level[a]),
					start = ((int64_t) w->index[a] - 1) * len + 1,
					end = (int64_t) w->index[a] * len;

		if (start > limit)
			continue;
		diff[start] += w->num[a];
		if (end + 1 <= limit)
			diff[end + 1] -= w->num[a];
	}
	for (i = 1; i <= limit && ok; i++)
	{
		run += diff[i];
		ok = run == (i <= (int64_t) t ? w->den : 0);
	}
	free(diff);
	return ok;
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
				bad_identity += identity_error(k, &w, t, 3 * (int64_t) t + 3) > 0.0 ||
					w.den != 1 || !identity_exact(k, &w, t, 3 * (int64_t) t + 3);
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
		int			worse = 0,
					inexact = 0;

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
			inexact += w.den != DPK_TREE_WEIGHT_DEN ||
				!identity_exact(2, &w, t, span);
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
		CHECK(inexact == 0, "T=%u: (*) holds exactly in integers (%d releases miss)", T,
			  inexact);
		CHECK(worst_exact < 1e-6, "T=%u: exact on noiseless nodes (error %g)", T, worst_exact);
		CHECK(worst_orth < ORTH_TOL, "T=%u: least-squares orthogonality %g", T, worst_orth);
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
			__int128	acc[4];

			dpk_tree_release_weights(DPK_TREE_SIGNED, 2, 1024, t, &w);
			dpk_cell_noise(&s, &(DpkCellKey) {key, 3, 4242 + t}, t,
						   &(DpkCellScales) {3, cs, ss, DPK_SUMS_VECTOR}, a);
			dpk_cell_noise_weighted(&s, &(DpkCellKey) {key, 3, 4242 + t}, &w,
									&(DpkCellScales) {3, cs, ss, DPK_SUMS_VECTOR},
									NULL, b, &(DpkNoiseScratch) {tmp, acc});
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
				__int128	acc[1];

				dpk_cell_noise_weighted(&s,
										&(DpkCellKey) {key, 3, (uint64_t) c},
										&w,
										&(DpkCellScales) {0, cs, cs, DPK_SUMS_NONE},
										NULL, v, &(DpkNoiseScratch) {tmp, acc});
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

	/*
	 * The k-ary trees of new pure tables (arity from dpk_tree_choose_arity):
	 * the least-squares weights over the balanced digits and their
	 * ancestors' children satisfy (*), are exact on noiseless nodes, are
	 * least squares within their set and never worse than the digits.
	 */
	{
		static const int ks[] = {3, 5, 9, 11, 13, 16};
		static const uint32_t kT[] = {16, 256, 1000};
		size_t		ki,
					ti;

		for (ti = 0; ti < sizeof(kT) / sizeof(kT[0]); ti++)
			for (ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ki++)
			{
				int			k = ks[ki];
				uint32_t	T = kT[ti];
				int			h = dpk_tree_shape_height(k, T);
				int64_t		span = kpow(k, h) + 2;
				int64_t    *prefix = malloc(sizeof(int64_t) * (size_t) (span + 1));
				uint64_t	st = 0x51ed270b27a1c3d5ull ^ ((uint64_t) k << 32) ^ T;
				double		worst_id = 0.0,
							worst_orth = 0.0,
							worst_exact = 0.0;
				int			worse = 0,
							high = 0,
							inexact = 0;

				prefix[0] = 0;
				for (int64_t p = 1; p <= span; p++)
					prefix[p] = prefix[p - 1] + (int64_t) (unit_uniform(&st) * 50.0) - 10;
				for (uint32_t t = 1; t <= T; t++)
				{
					DpkTreeWeights w;
					double		est = 0.0,
								n2;

					dpk_tree_release_weights(DPK_TREE_LOCAL_BLUE, k, T, t, &w);
					worst_id = fmax(worst_id, identity_error(k, &w, t, span));
					inexact += !identity_exact(k, &w, t, span);
					worst_orth = fmax(worst_orth, orthogonality_error(k, &w));
					for (i = 0; i < w.n; i++)
					{
						int64_t		len = kpow(k, w.level[i]),
									start = ((int64_t) w.index[i] - 1) * len,
									end = (int64_t) w.index[i] * len;

						high += w.level[i] >= h || w.arity != k;
						if (end > span)
							end = span;
						est += w.weight[i] * (double) (prefix[end] - prefix[start]);
					}
					worst_exact = fmax(worst_exact, fabs(est - (double) prefix[t]));
					n2 = dpk_tree_weights_norm2(&w);
					worse += n2 > dpk_tree_signed_nodes(k, t) + 1e-9;
					dpk_tree_weights_free(&w);
				}
				CHECK(worst_id < 1e-9, "k=%d T=%u: (*) holds to %g", k, T, worst_id);
				CHECK(inexact == 0, "k=%d T=%u: (*) exact in integers (%d releases miss)", k,
					  T, inexact);
				CHECK(worst_exact < 1e-6, "k=%d T=%u: exact on noiseless nodes (error %g)", k, T,
					  worst_exact);
				CHECK(worst_orth < ORTH_TOL, "k=%d T=%u: least-squares orthogonality %g", k, T,
					  worst_orth);
				CHECK(worse == 0, "k=%d T=%u: %d releases worse than the digits", k, T, worse);
				CHECK(high == 0, "k=%d T=%u: %d nodes above the tree's %d levels", k, T, high, h);
				free(prefix);
			}
	}

	/*
	 * The arity choice: at T = 256 and 1024 the k-ary tree's mean release
	 * variance from T/4 on (node variance ~ h^2) is at most 0.2 of the
	 * binary tree's signed nodes (bench_counter: 0.16 and 0.15) and below
	 * the binary least-squares counter's (0.46, 0.45).
	 */
	{
		static const uint32_t cT[] = {256, 1024};
		size_t		ti;

		for (ti = 0; ti < 2; ti++)
		{
			uint32_t	T = cT[ti];
			int			k = dpk_tree_choose_arity(T);
			double		hk = dpk_tree_shape_height(k, T),
						hb = dpk_tree_height(T),
						vk = 0.0,
						vn = 0.0,
						vb = 0.0;

			for (uint32_t t = (T + 3) / 4; t <= T; t++)
			{
				vk += hk * hk * dpk_tree_release_norm2(DPK_TREE_LOCAL_BLUE, k, T, t);
				vn += hb * hb * dpk_tree_nodes(t);
				vb += hb * hb * dpk_tree_release_norm2(DPK_TREE_LOCAL_BLUE, 2, T, t);
			}
			CHECK(k > 2 && vk < 0.2 * vn && vk < 0.5 * vb,
				  "T=%u: arity %d, variance %.3f of the signed binary, %.3f of least squares",
				  T, k, vk / vn, vk / vb);
			printf("T=%u: arity %d, %d levels; variance %.3f of the binary signed nodes, "
				   "%.3f of the binary least squares\n", T, k, (int) hk, vk / vn, vk / vb);
		}
		CHECK(dpk_tree_choose_arity(1) == 2, "T = 1: the binary tree (one node either way)");
	}

	/*
	 * k-ary node noise: a release is the weighted sum of per-node draws that
	 * are the same at every release (one table of draws per node serves all
	 * t), and a k-ary node never draws the binary node (j, i)'s noise nor
	 * another arity's.
	 */
	{
		DpkScale	cs = dpk_scale_from_double(12.0),
					ss = dpk_scale_from_double(3000.0);
		int			k = 13,
					mismatch = 0,
					shared = 0,
					total = 0;
		uint32_t	T = 1024;
		static int64_t cache[4][2048][3];
		static bool have[4][2048];

		memset(have, 0, sizeof(have));
		for (uint32_t t = 1; t <= T; t += 3)
		{
			DpkTreeWeights w;
			int64_t		got[3],
						tmp[3],
						truth[3] = {t, 3 * (int64_t) t + 1, -(int64_t) t};
			__int128	acc[3],
						want[3] = {0, 0, 0};

			dpk_tree_release_weights(DPK_TREE_LOCAL_BLUE, k, T, t, &w);
			dpk_cell_noise_weighted(&s, &(DpkCellKey) {key, 4, 77}, &w,
									&(DpkCellScales) {2, cs, ss, DPK_SUMS_VECTOR},
									truth, got, &(DpkNoiseScratch) {tmp, acc});
			for (i = 0; i < w.n; i++)
			{
				int64_t    *v = cache[w.level[i]][w.index[i]];

				if (w.level[i] >= 4 || w.index[i] >= 2048)
				{
					mismatch++;
					continue;
				}
				if (!have[w.level[i]][w.index[i]])
				{
					memset(v, 0, 3 * sizeof(int64_t));
					dpk_node_noise(&s, &(DpkCellKey) {key, 4, 77},
								   &(DpkTreeNode) {k, w.level[i], w.index[i], 1},
								   &(DpkCellScales) {2, cs, ss, DPK_SUMS_VECTOR},
								   v);
					have[w.level[i]][w.index[i]] = true;
				}
				else
					shared++;
				for (int j = 0; j < 3; j++)
					want[j] += (__int128) w.num[i] * v[j];
			}
			/* the nearest integer to truth + want / den, ties to even */
			for (int j = 0; j < 3; j++)
				mismatch += !nearest_even(got[j], truth[j], want[j], w.den);
			dpk_tree_weights_free(&w);
		}
		CHECK(mismatch == 0 && shared > 1000, "k-ary releases from one draw per node "
			  "(%d differ, %d node reuses)", mismatch, shared);
		for (int j = 0; j < 3; j++)
			for (uint32_t idx = 1; idx <= 40; idx++)
			{
				int64_t		a[3] = {0, 0, 0},
							b[3] = {0, 0, 0},
							c[3] = {0, 0, 0};

				dpk_node_noise(&s, &(DpkCellKey) {key, 4, 77},
							   &(DpkTreeNode) {13, j, idx, 1},
							   &(DpkCellScales) {2, cs, ss, DPK_SUMS_VECTOR}, a);
				dpk_node_noise(&s, &(DpkCellKey) {key, 4, 77},
							   &(DpkTreeNode) {2, j, idx, 1},
							   &(DpkCellScales) {2, cs, ss, DPK_SUMS_VECTOR}, b);
				dpk_node_noise(&s, &(DpkCellKey) {key, 4, 77},
							   &(DpkTreeNode) {11, j, idx, 1},
							   &(DpkCellScales) {2, cs, ss, DPK_SUMS_VECTOR}, c);
				total += memcmp(a, b, sizeof(a)) == 0 || memcmp(a, c, sizeof(a)) == 0;
			}
		CHECK(total == 0, "%d 13-ary node draws equal the binary or 11-ary node's", total);
	}

	/* Variance over many cells of a 13-ary release equals node variance x ||w||^2. */
	{
		static const uint32_t ts[] = {1, 257, 600, 929, 1024};
		DpkScale	cs = dpk_scale_from_double(12.0);
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

			dpk_tree_release_weights(DPK_TREE_LOCAL_BLUE, 13, 1024, ts[a], &w);
			expect = node_var * dpk_tree_weights_norm2(&w);
			for (c = 0; c < cells; c++)
			{
				int64_t		v[1],
							tmp[1];
				__int128	acc[1];

				dpk_cell_noise_weighted(&s,
										&(DpkCellKey) {key, 3, (uint64_t) c},
										&w,
										&(DpkCellScales) {0, cs, cs, DPK_SUMS_NONE},
										NULL, v, &(DpkNoiseScratch) {tmp, acc});
				sum += v[0];
				sum2 += (double) v[0] * v[0];
			}
			var = sum2 / cells - (sum / cells) * (sum / cells);
			CHECK(fabs(var / expect - 1.0) < 0.07, "13-ary t=%u: variance %g, formula %g",
				  ts[a], var, expect);
			CHECK(fabs(sum / cells) < 5 * sqrt(expect / cells), "13-ary t=%u: mean %g", ts[a],
				  sum / cells);
			printf("13-ary least squares t=%u: %d nodes, variance %.1f (formula %.1f)\n", ts[a],
				   w.n, var, expect);
			dpk_tree_weights_free(&w);
		}
	}

	/*
	 * Exact rounding (doc/privacy.md, "Exact rounding"): the nearest
	 * integer to base + num / den, ties to even, on the sum and not on the
	 * noise alone (base 1 + 1/2 rounds to 2, base 0 + 1/2 to 0).
	 */
	{
		static const struct
		{
			int64_t		base;
			int64_t		num;
			int64_t		den;
			int64_t		want;
		}			rc[] = {
			{0, 1, 2, 0}, {0, -1, 2, 0}, {1, 1, 2, 2}, {1, -1, 2, 0}, {0, 3, 2, 2},
			{0, -3, 2, -2}, {-1, 1, 2, 0}, {-1, -1, 2, -2}, {5, 0, 7, 5}, {5, 3, 7, 5},
			{5, 4, 7, 6}, {-5, -3, 7, -5}, {-5, -4, 7, -6}, {7, -9, 1, -2},
			{0, (int64_t) 1 << 31, (int64_t) 1 << 32, 0},
			{3, (int64_t) 1 << 31, (int64_t) 1 << 32, 4},
			{0, ((int64_t) 1 << 31) + 1, (int64_t) 1 << 32, 1},
			{0, -((int64_t) 1 << 31) - 1, (int64_t) 1 << 32, -1},
			{INT64_MAX, 0, 4, INT64_MAX}, {INT64_MIN, 1, 4, INT64_MIN},
			{0, DPK_TREE_WEIGHT_DEN / 2, DPK_TREE_WEIGHT_DEN, 0},
			{0, DPK_TREE_WEIGHT_DEN / 2 + 1, DPK_TREE_WEIGHT_DEN, 1},
			{0, -DPK_TREE_WEIGHT_DEN / 2, DPK_TREE_WEIGHT_DEN, 0},
			{0, -DPK_TREE_WEIGHT_DEN / 2 - 1, DPK_TREE_WEIGHT_DEN, -1},
			{1, DPK_TREE_WEIGHT_DEN / 2, DPK_TREE_WEIGHT_DEN, 1},
			{-7, 3 * DPK_TREE_WEIGHT_DEN + 1, DPK_TREE_WEIGHT_DEN, -4},
		};
		int			bad = 0;
		int64_t		v;

		for (i = 0; i < (int) (sizeof(rc) / sizeof(rc[0])); i++)
			if (!dpk_round_exact(rc[i].base, rc[i].num, rc[i].den, &v) || v != rc[i].want)
			{
				bad++;
				fprintf(stderr, "  round %lld + %lld/%lld\n", (long long) rc[i].base,
						(long long) rc[i].num, (long long) rc[i].den);
			}
		CHECK(bad == 0, "exact rounding, ties to even (%d wrong)", bad);
		CHECK(!dpk_round_exact(INT64_MAX, 3, 4, &v) && !dpk_round_exact(INT64_MIN, -3, 4, &v),
			  "exact rounding refuses results beyond 64 bits");
	}

	/*
	 * Least-squares weights whose denominator divides DPK_TREE_WEIGHT_DEN
	 * are exact: release 8 of the binary tree of T = 16 is 1/3, 1/3, 2/3.
	 */
	{
		DpkTreeWeights w;
		int			bad = 0;

		dpk_tree_release_weights(DPK_TREE_LOCAL_BLUE, 2, 16, 8, &w);
		for (i = 0; i < w.n; i++)
			bad += w.num[i] * 3 != (w.level[i] == 3 ? 2 : 1) * DPK_TREE_WEIGHT_DEN;
		CHECK(w.n == 3 && bad == 0 && w.den == DPK_TREE_WEIGHT_DEN,
			  "binary T=16 release 8: weights exactly 1/3, 1/3, 2/3 (%d nodes, %d off)", w.n,
			  bad);
		dpk_tree_weights_free(&w);
	}

	/*
	 * Exact weights at the largest horizon (2^20) for every arity: (*)
	 * holds in integers, over the common denominator, and the published
	 * value of a cell is the exact rounding of truth + S.
	 */
	{
		int			bad = 0,
					tried = 0;
		DpkScale	cs = dpk_scale_from_double(7.0);

		for (int k = 2; k <= DPK_TREE_ARITY_MAX; k++)
			for (uint32_t t = 1; t <= (1u << 20); t += 65521 + 2 * (uint32_t) k)
			{
				DpkTreeWeights w;
				int64_t		limit = 0,
							got[1],
							tmp[1],
							truth[1] = {(int64_t) t % 5},
							v[1];
				__int128	acc[1],
							want = 0;

				dpk_tree_release_weights(DPK_TREE_LOCAL_BLUE, k, 1u << 20, t, &w);
				for (i = 0; i < w.n; i++)
					limit = limit > kpow(k, w.level[i]) * (int64_t) w.index[i] + 2 ? limit :
						kpow(k, w.level[i]) * (int64_t) w.index[i] + 2;
				bad += !identity_exact(k, &w, t, limit) ||
					(!w.signs && w.den != DPK_TREE_WEIGHT_DEN);
				dpk_cell_noise_weighted(&s, &(DpkCellKey) {key, 5, 9}, &w,
										&(DpkCellScales) {0, cs, cs, DPK_SUMS_NONE},
										truth, got,
										&(DpkNoiseScratch) {tmp, acc});
				for (i = 0; i < w.n; i++)
				{
					v[0] = 0;
					dpk_node_noise(&s, &(DpkCellKey) {key, 5, 9},
								   &(DpkTreeNode) {k, w.level[i], w.index[i], 1},
								   &(DpkCellScales) {0, cs, cs, DPK_SUMS_NONE},
								   v);
					want += (__int128) w.num[i] * v[0];
				}
				bad += !nearest_even(got[0], truth[0], want, w.den);
				tried++;
				dpk_tree_weights_free(&w);
			}
		CHECK(bad == 0 && tried > 200, "T=2^20: exact weights and rounding (%d of %d bad)", bad,
			  tried);
	}

	dpk_stream_close(&s);
	/* The stored arities of the powers of two are the computed ones. */
	for (i = 0; i < DPK_TREE_ARITY_POW2; i++)
	{
		uint32_t	T = UINT32_C(1) << i;

		CHECK(dpk_tree_arity_pow2[i] == dpk_tree_compute_arity(T) &&
			  dpk_tree_choose_arity(T) == dpk_tree_arity_pow2[i],
			  "arity of horizon %u: stored %d, computed %d", T, dpk_tree_arity_pow2[i],
			  dpk_tree_compute_arity(T));
	}
	CHECK(dpk_tree_choose_arity(1000) == dpk_tree_compute_arity(1000),
		  "arity of horizon 1000 (not stored): %d", dpk_tree_choose_arity(1000));
	UNIT_DONE("test_tree_estimator");
}
