/*
 * test_kmeans.c
 *		Unit tests of the weighted k-means (src/core/cluster/kmeans.c).
 *
 * Every reference value is computed independently of kmeans.c: analytic costs
 * of symmetric blobs, brute force over contiguous partitions in 1-D, and naive
 * double loops for the cost and the assignment.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "blas.h"
#include "dpk_mem.h"
#include "kmeans.h"
#include "prng.h"
#include "unit.h"

/* Deterministic test data generator (splitmix64). */
static uint64_t test_state = UINT64_C(12345);

static uint64_t
test_next(void)
{
	uint64_t	z = (test_state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* Uniform double in [0, 1). */
static double
test_uniform(void)
{
	return (double) (test_next() >> 11) * (1.0 / 9007199254740992.0);
}

/* Standard normal by Box-Muller. */
static double
test_normal(void)
{
	double		u1 = test_uniform();
	double		u2 = test_uniform();

	if (u1 < 1e-300)
		u1 = 1e-300;
	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/* Relative difference, safe at 0. */
static double
reldiff(double a, double b)
{
	double		s = fabs(a) > fabs(b) ? fabs(a) : fabs(b);

	if (s == 0.0)
		return 0.0;
	return fabs(a - b) / s;
}

static double
sqdist(const double *a, const double *b, int d)
{
	double		s = 0.0;
	int			t;

	for (t = 0; t < d; t++)
		s += (a[t] - b[t]) * (a[t] - b[t]);
	return s;
}

/* Naive weighted cost with clipped weights; nearest index into assign. */
static double
naive_cost(const double *x, const double *w, int n, int d,
		   const double *c, int k, int *assign, double *mind)
{
	double		cost = 0.0;
	int			i,
				j;

	for (i = 0; i < n; i++)
	{
		double		best = INFINITY;
		int			bj = 0;
		double		wi = w ? (w[i] > 0.0 ? w[i] : 0.0) : 1.0;

		for (j = 0; j < k; j++)
		{
			double		v = sqdist(x + (size_t) i * d, c + (size_t) j * d, d);

			if (v < best)
			{
				best = v;
				bj = j;
			}
		}
		if (assign)
			assign[i] = bj;
		if (mind)
			mind[i] = best;
		cost += wi * best;
	}
	return cost;
}

static bool
all_finite(const double *a, size_t m)
{
	size_t		i;

	for (i = 0; i < m; i++)
		if (!isfinite(a[i]))
			return false;
	return true;
}

/* Index of the row of pts (m x d) equal to v, or -1. */
static int
find_row(const double *pts, int m, int d, const double *v)
{
	int			i;

	for (i = 0; i < m; i++)
		if (memcmp(pts + (size_t) i * d, v, sizeof(double) * d) == 0)
			return i;
	return -1;
}

/*
 * Four blobs in 2-D, each made of symmetric pairs c +- v with a weight per
 * pair, so each blob's weighted mean is its centre and the optimal cost is
 * sum 2 u |v|^2.  All values are dyadic, so the means are exact.
 */
#define NBLOB 4
#define PAIRS 3
static const double blob_c[NBLOB][2] = {
	{1.5, -2.25}, {40.5, 3.0}, {-7.0, 30.25}, {35.0, 41.0}
};
static const double blob_v[PAIRS][2] = {{1.0, 0.0}, {0.0, 1.0}, {0.5, -0.5}};
static const double blob_scale[NBLOB] = {0.5, 0.25, 1.0, 0.75};
static const double blob_u[NBLOB][PAIRS] = {
	{1, 2, 3}, {0.5, 4, 1}, {2, 2, 2}, {7, 1, 0.25}
};

/* Build the blob data (n = NBLOB*PAIRS*2 points, interleaved order). */
static int
make_blobs(double *x, double *w, double *cost, double *bsize)
{
	int			n = 0;
	int			p,
				b,
				s;

	*cost = 0.0;
	for (b = 0; b < NBLOB; b++)
		bsize[b] = 0.0;
	for (p = 0; p < PAIRS; p++)
		for (s = -1; s <= 1; s += 2)
			for (b = 0; b < NBLOB; b++)
			{
				double		vx = blob_v[p][0] * blob_scale[b];
				double		vy = blob_v[p][1] * blob_scale[b];

				x[2 * n] = blob_c[b][0] + s * vx;
				x[2 * n + 1] = blob_c[b][1] + s * vy;
				w[n] = blob_u[b][p];
				*cost += blob_u[b][p] * (vx * vx + vy * vy);
				bsize[b] += blob_u[b][p];
				n++;
			}
	return n;
}

/* Match computed centres to the blob centres; checks they are recovered. */
static void
check_blob_centres(const double *c, const double *sizes, const double *bsize,
				   const char *what)
{
	int			used[NBLOB] = {0};
	int			b,
				j;

	for (b = 0; b < NBLOB; b++)
	{
		int			bj = -1;
		double		best = INFINITY;

		for (j = 0; j < NBLOB; j++)
		{
			double		v = sqdist(c + 2 * j, blob_c[b], 2);

			if (v < best)
			{
				best = v;
				bj = j;
			}
		}
		CHECK(sqrt(best) < 1e-9, "%s: blob %d centre off by %g", what, b,
			  sqrt(best));
		CHECK(!used[bj], "%s: centre %d matched twice", what, bj);
		used[bj] = 1;
		if (sizes)
			CHECK(fabs(sizes[bj] - bsize[b]) < 1e-9,
				  "%s: blob %d size %g, want %g", what, b, sizes[bj], bsize[b]);
	}
}

static void
test_known_optimum(void)
{
	double		x[NBLOB * PAIRS * 2 * 2],
				w[NBLOB * PAIRS * 2];
	double		c[NBLOB * 2],
				sizes[NBLOB],
				bsize[NBLOB];
	double		want,
				cost;
	int			n = make_blobs(x, w, &want, bsize);
	uint64_t	seed;

	for (seed = 1; seed <= 5; seed++)
	{
		cost = dpk_kmeans(&(DpkPoints) {x, w, n, 2},
						  &(DpkClusterOpts) {NBLOB, 5, 100, seed},
						  &(DpkClusterOut) {c, sizes});
		CHECK(reldiff(cost, want) < 1e-9, "blobs seed %d: cost %.17g, want %.17g",
			  (int) seed, cost, want);
		check_blob_centres(c, sizes, bsize, "blobs");
	}

	/* the cost of the true centres via dpk_kmeans_cost */
	{
		double		tc[NBLOB * 2];
		int			b;

		for (b = 0; b < NBLOB; b++)
		{
			tc[2 * b] = blob_c[b][0];
			tc[2 * b + 1] = blob_c[b][1];
		}
		cost = dpk_kmeans_cost(x, w, n, 2, tc, NBLOB, NULL);
		CHECK(reldiff(cost, want) < 1e-12, "blobs true-centre cost %.17g, want %.17g",
			  cost, want);
	}
}

/* 1-D: brute force over all 3-part contiguous partitions of sorted points. */
#define N1D 12

static double
segment_cost(const double *x, const double *w, int a, int b)
{
	double		sw = 0.0,
				sx = 0.0,
				mean,
				cost = 0.0;
	int			i;

	for (i = a; i < b; i++)
	{
		sw += w[i];
		sx += w[i] * x[i];
	}
	mean = sx / sw;
	for (i = a; i < b; i++)
		cost += w[i] * (x[i] - mean) * (x[i] - mean);
	return cost;
}

static void
test_1d_bruteforce(void)
{
	int			inst;
	int			reached = 0;

	for (inst = 0; inst < 20; inst++)
	{
		double		x[N1D],
					w[N1D],
					c[3],
					sizes[3];
		double		best = INFINITY,
					cost;
		int			i,
					j,
					a,
					b;

		for (i = 0; i < N1D; i++)
		{
			/* three loose groups with random spread and weights */
			x[i] = (double) (i % 3) * 4.0 + 3.0 * test_uniform();
			w[i] = 0.1 + 3.0 * test_uniform();
		}
		/* insertion sort by x */
		for (i = 1; i < N1D; i++)
			for (j = i; j > 0 && x[j] < x[j - 1]; j--)
			{
				double		t = x[j];

				x[j] = x[j - 1];
				x[j - 1] = t;
				t = w[j];
				w[j] = w[j - 1];
				w[j - 1] = t;
			}
		for (a = 1; a < N1D - 1; a++)
			for (b = a + 1; b < N1D; b++)
			{
				double		v = segment_cost(x, w, 0, a) +
					segment_cost(x, w, a, b) + segment_cost(x, w, b, N1D);

				if (v < best)
					best = v;
			}

		cost = dpk_kmeans(&(DpkPoints) {x, w, N1D, 1},
						  &(DpkClusterOpts) {3, 10, 100, 1000 + inst},
						  &(DpkClusterOut) {c, sizes});
		CHECK(reldiff(cost, best) < 1e-9,
			  "1-D instance %d: cost %.17g, brute force %.17g", inst, cost, best);
		CHECK(cost >= best * (1 - 1e-12), "1-D instance %d: below optimum", inst);
		if (reldiff(cost, best) < 1e-9)
			reached++;
	}
	printf("1-D brute force: optimum reached in %d/20 instances\n", reached);
}

/* Duplicating a point must equal doubling its weight. */
static void
test_duplicate_weight(void)
{
	enum
	{
		N = 500, D = 3, K = 6
	};
	static double x[(N + 1) * D],
				w[N + 1],
				w2[N];
	double		c[K * D];
	int			i,
				t,
				p;

	for (i = 0; i < N; i++)
	{
		for (t = 0; t < D; t++)
			x[i * D + t] = test_normal() * 3.0;
		w[i] = 0.5 + test_uniform();
	}
	for (i = 0; i < K * D; i++)
		c[i] = test_normal() * 3.0;

	for (p = 0; p < N; p += 97)
	{
		double		cdup,
					cdbl;

		memcpy(x + N * D, x + p * D, sizeof(double) * D);
		w[N] = w[p];
		memcpy(w2, w, sizeof(double) * N);
		w2[p] = 2.0 * w[p];
		cdup = dpk_kmeans_cost(x, w, N + 1, D, c, K, NULL);
		cdbl = dpk_kmeans_cost(x, w2, N, D, c, K, NULL);
		CHECK(reldiff(cdup, cdbl) < 1e-12, "dup point %d: %.17g vs %.17g",
			  p, cdup, cdbl);
	}

	/* the same through the whole algorithm, on data with a known optimum */
	{
		double		bx[(NBLOB * PAIRS * 2 + 1) * 2],
					bw[NBLOB * PAIRS * 2 + 1],
					bw2[NBLOB * PAIRS * 2];
		double		bc[NBLOB * 2],
					bc2[NBLOB * 2],
					want,
					bsize[NBLOB];
		int			n = make_blobs(bx, bw, &want, bsize);
		double		k1,
					k2;

		p = 5;
		memcpy(bx + 2 * n, bx + 2 * p, sizeof(double) * 2);
		bw[n] = bw[p];
		memcpy(bw2, bw, sizeof(double) * n);
		bw2[p] = 2.0 * bw[p];
		k1 = dpk_kmeans(&(DpkPoints) {bx, bw, n + 1, 2},
						&(DpkClusterOpts) {NBLOB, 5, 100, 7},
						&(DpkClusterOut) {bc, NULL});
		k2 = dpk_kmeans(&(DpkPoints) {bx, bw2, n, 2},
						&(DpkClusterOpts) {NBLOB, 5, 100, 7},
						&(DpkClusterOut) {bc2, NULL});
		CHECK(reldiff(k1, k2) < 1e-9, "dup vs double weight kmeans: %.17g vs %.17g",
			  k1, k2);
		CHECK(reldiff(k1, dpk_kmeans_cost(bx, bw, n + 1, 2, bc2, NBLOB, NULL)) < 1e-9,
			  "doubled-weight centres must be optimal for the duplicated data");
		CHECK(reldiff(k2, dpk_kmeans_cost(bx, bw2, n, 2, bc, NBLOB, NULL)) < 1e-9,
			  "duplicated-data centres must be optimal for the doubled weight");
		CHECK(k1 > want, "moving a blob mean must raise the cost above %.17g (got %.17g)",
			  want, k1);
	}
}

/* dpk_kmeans_cost against a naive double loop. */
static void
check_cost_vs_naive(int n, int d, int k, double offset, bool use_w,
					const char *what)
{
	double	   *x = dpk_alloc(sizeof(double) * (size_t) n * d);
	double	   *w = dpk_alloc(sizeof(double) * (size_t) n);
	double	   *c = dpk_alloc(sizeof(double) * (size_t) k * d);
	double	   *mind = dpk_alloc(sizeof(double) * (size_t) n);
	int		   *a1 = dpk_alloc(sizeof(int) * (size_t) n);
	int		   *a2 = dpk_alloc(sizeof(int) * (size_t) n);
	double		cn,
				cb,
				cb2;
	int			i,
				mism = 0,
				bad = 0;

	for (i = 0; i < n * d; i++)
		x[i] = offset + test_normal();
	for (i = 0; i < k * d; i++)
		c[i] = offset + test_normal();
	for (i = 0; i < n; i++)
		w[i] = 2.0 * test_uniform() - 0.2;	/* some negative: clipped */

	cn = naive_cost(x, use_w ? w : NULL, n, d, c, k, a1, mind);
	cb = dpk_kmeans_cost(x, use_w ? w : NULL, n, d, c, k, a2);
	cb2 = dpk_kmeans_cost(x, use_w ? w : NULL, n, d, c, k, NULL);
	CHECK(reldiff(cn, cb) < 1e-9, "%s: cost %.17g, naive %.17g", what, cb, cn);
	CHECK(cb == cb2, "%s: cost with and without assign differ", what);
	for (i = 0; i < n; i++)
	{
		if (a1[i] != a2[i])
			mism++;
		if (a2[i] < 0 || a2[i] >= k ||
			sqdist(x + (size_t) i * d, c + (size_t) a2[i] * d, d) >
			mind[i] + 1e-9 * (1.0 + mind[i]))
			bad++;
	}
	CHECK(bad == 0, "%s: %d points not assigned to a nearest centre", what, bad);
	CHECK(mism == 0, "%s: %d assignments differ from naive", what, mism);

	dpk_free(x);
	dpk_free(w);
	dpk_free(c);
	dpk_free(mind);
	dpk_free(a1);
	dpk_free(a2);
}

static void
test_cost_naive(void)
{
	check_cost_vs_naive(2048 * 2 + 37, 7, 13, 0.0, true, "cost n=4133");
	check_cost_vs_naive(2048 * 2 + 37, 7, 13, 0.0, false, "cost n=4133 w=NULL");
	check_cost_vs_naive(3000, 3, 9, 1000.0, true, "cost offset 1000");
	check_cost_vs_naive(1000, 2, 3000, 0.0, true, "cost k=3000");
	check_cost_vs_naive(1, 1, 1, 0.0, true, "cost n=1");
	check_cost_vs_naive(5, 4, 2, 0.0, true, "cost n=5");

	/* ties, including duplicated centres, go to the lowest index */
	{
		double		x[4 * 2] = {0.0, 0.0, 2.0, 3.0, 2.5, 3.0, -1.0, 0.0};
		double		c[4 * 2] = {2.0, 3.0, -1.0, 0.0, 2.0, 3.0, 1.0, 0.0};
		int			a[4];
		double		cost = dpk_kmeans_cost(x, NULL, 4, 2, c, 4, a);

		CHECK(a[0] == 1, "tie at the midpoint: assigned %d, want 1", a[0]);
		CHECK(a[1] == 0 && a[2] == 0, "duplicate centre: assigned %d,%d, want 0,0",
			  a[1], a[2]);
		CHECK(a[3] == 1, "exact hit: assigned %d, want 1", a[3]);
		CHECK(cost == 1.25, "tie cost %.17g, want 1.25", cost);
	}
}

/*
 * Many centres (past the pairwise duplicate scan: they are hashed), most of
 * them copies, in shuffled order, -0 beside 0: every point goes to the
 * first copy of its nearest position, and centres that differ in one
 * coordinate only are never taken for copies.
 */
static void
test_many_duplicates(void)
{
	enum
	{
		POS = 40, COPIES = 6, K = POS * COPIES, D = 3
	};
	double		c[K * D],
				x[POS * D];
	int			slot[K],
				first[POS],
				a[POS],
				i,
				j,
				t,
				bad = 0;

	for (i = 0; i < K; i++)
		slot[i] = i % POS;
	for (i = K - 1; i > 0; i--)
	{
		int			r = (int) (test_uniform() * (i + 1)),
					tmp = slot[i];

		slot[i] = slot[r < i ? r : i];
		slot[r < i ? r : i] = tmp;
	}
	/* positions on a line in one coordinate, -0 or 0 in the others */
	for (i = 0; i < K; i++)
		for (t = 0; t < D; t++)
			c[i * D + t] = t == 1 ? 0.25 * slot[i] : (i % 2 ? -0.0 : 0.0);
	for (j = 0; j < POS; j++)
	{
		first[j] = -1;
		for (t = 0; t < D; t++)
			x[j * D + t] = t == 1 ? 0.25 * j : 0.0;
	}
	for (i = K - 1; i >= 0; i--)
		first[slot[i]] = i;
	dpk_kmeans_cost(x, NULL, POS, D, c, K, a);
	for (j = 0; j < POS; j++)
		if (a[j] != first[j])
			bad++;
	CHECK(bad == 0, "many duplicated centres: %d points not at the first copy", bad);
}

/* Edge cases: finite output, exactly k centres, sensible sizes. */
static void
test_edges(void)
{
	double		c[8 * 3],
				sizes[8];
	double		cost;
	int			j,
				nz;

	/* n == 0 */
	for (j = 0; j < 8 * 3; j++)
		c[j] = NAN;
	for (j = 0; j < 8; j++)
		sizes[j] = NAN;
	cost = dpk_kmeans(&(DpkPoints) {NULL, NULL, 0, 3},
					  &(DpkClusterOpts) {8, 3, 10, 1},
					  &(DpkClusterOut) {c, sizes});
	CHECK(cost == 0.0, "n=0: cost %g", cost);
	for (j = 0; j < 8 * 3; j++)
		CHECK(c[j] == 0.0, "n=0: centre coordinate %d = %g", j, c[j]);
	for (j = 0; j < 8; j++)
		CHECK(sizes[j] == 0.0, "n=0: size %d = %g", j, sizes[j]);
	CHECK(dpk_kmeans_cost(NULL, NULL, 0, 3, c, 8, NULL) == 0.0, "n=0 cost");

	/* k > n */
	{
		double		x[3 * 2] = {1.0, 2.0, -3.0, 0.5, 10.0, 10.0};
		double		w[3] = {1.0, 2.0, 3.0};
		int			seen[3] = {0};
		double		tot = 0.0;

		for (j = 0; j < 5 * 2; j++)
			c[j] = NAN;
		cost = dpk_kmeans(&(DpkPoints) {x, w, 3, 2},
						  &(DpkClusterOpts) {5, 4, 50, 3},
						  &(DpkClusterOut) {c, sizes});
		CHECK(cost == 0.0, "k>n: cost %g", cost);
		CHECK(all_finite(c, 10), "k>n: non-finite centre");
		nz = 0;
		for (j = 0; j < 5; j++)
		{
			int			r = find_row(x, 3, 2, c + 2 * j);

			CHECK(r >= 0, "k>n: centre %d is not a data point", j);
			if (sizes[j] != 0.0)
			{
				nz++;
				if (r >= 0)
				{
					CHECK(sizes[j] == w[r], "k>n: size %g of point %d", sizes[j], r);
					seen[r]++;
				}
			}
			tot += sizes[j];
		}
		CHECK(nz == 3, "k>n: %d non-empty centres, want 3", nz);
		CHECK(seen[0] == 1 && seen[1] == 1 && seen[2] == 1, "k>n: points not covered once");
		CHECK(tot == 6.0, "k>n: total size %g", tot);
	}

	/* all weights zero */
	{
		double		x[10 * 2],
					w[10] = {0};
		int			i,
					jj;

		for (i = 0; i < 20; i++)
			x[i] = test_normal();
		for (j = 0; j < 3 * 2; j++)
			c[j] = NAN;
		cost = dpk_kmeans(&(DpkPoints) {x, w, 10, 2},
						  &(DpkClusterOpts) {3, 3, 50, 4},
						  &(DpkClusterOut) {c, sizes});
		CHECK(cost == 0.0, "w=0: cost %g", cost);
		CHECK(all_finite(c, 6), "w=0: non-finite centre");
		for (j = 0; j < 3; j++)
		{
			CHECK(sizes[j] == 0.0, "w=0: size %d = %g", j, sizes[j]);
			CHECK(find_row(x, 10, 2, c + 2 * j) >= 0, "w=0: centre %d not a point", j);
			for (jj = 0; jj < j; jj++)
				CHECK(memcmp(c + 2 * j, c + 2 * jj, 2 * sizeof(double)) != 0,
					  "w=0: centres %d and %d coincide", jj, j);
		}
		/* negative and NaN weights count as zero too */
		w[0] = -1.0;
		w[3] = -0.5;
		w[7] = NAN;
		cost = dpk_kmeans(&(DpkPoints) {x, w, 10, 2},
						  &(DpkClusterOpts) {3, 3, 50, 4},
						  &(DpkClusterOut) {c, sizes});
		CHECK(cost == 0.0 && all_finite(c, 6) && all_finite(sizes, 3),
			  "w<=0: cost %g", cost);
		for (j = 0; j < 3; j++)
			CHECK(sizes[j] == 0.0, "w<=0: size %d = %g", j, sizes[j]);
	}

	/* identical points: everything goes to one centre */
	{
		double		x[50 * 3];
		int			i;

		for (i = 0; i < 50; i++)
		{
			x[3 * i] = 0.1;
			x[3 * i + 1] = -3.7;
			x[3 * i + 2] = 1e3 / 3.0;
		}
		for (j = 0; j < 4 * 3; j++)
			c[j] = NAN;
		cost = dpk_kmeans(&(DpkPoints) {x, NULL, 50, 3},
						  &(DpkClusterOpts) {4, 3, 50, 5},
						  &(DpkClusterOut) {c, sizes});
		CHECK(isfinite(cost) && cost < 1e-20, "identical: cost %g", cost);
		CHECK(all_finite(c, 12), "identical: non-finite centre");
		nz = 0;
		for (j = 0; j < 4; j++)
		{
			CHECK(sqdist(c + 3 * j, x, 3) < 1e-20, "identical: centre %d off", j);
			if (sizes[j] != 0.0)
			{
				nz++;
				CHECK(sizes[j] == 50.0, "identical: size %g", sizes[j]);
			}
		}
		CHECK(nz == 1, "identical: %d non-empty centres, want 1", nz);
	}

	/* fewer distinct points than k: 3 locations x 5 copies, k = 5 */
	{
		double		x[15 * 2],
					w[15];
		double		loc[3][2] = {{0.3, 0.7}, {-5.1, 2.2}, {8.9, -4.4}};
		int			i;
		double		tot = 0.0,
					stot = 0.0;

		for (i = 0; i < 15; i++)
		{
			x[2 * i] = loc[i % 3][0];
			x[2 * i + 1] = loc[i % 3][1];
			w[i] = 1.0 + i;
			tot += w[i];
		}
		for (j = 0; j < 5 * 2; j++)
			c[j] = NAN;
		cost = dpk_kmeans(&(DpkPoints) {x, w, 15, 2},
						  &(DpkClusterOpts) {5, 4, 50, 6},
						  &(DpkClusterOut) {c, sizes});
		CHECK(isfinite(cost) && cost < 1e-20, "few distinct: cost %g", cost);
		CHECK(all_finite(c, 10), "few distinct: non-finite centre");
		nz = 0;
		for (j = 0; j < 5; j++)
		{
			if (sizes[j] != 0.0)
				nz++;
			stot += sizes[j];
		}
		CHECK(nz == 3, "few distinct: %d non-empty centres, want 3", nz);
		CHECK(reldiff(stot, tot) < 1e-12, "few distinct: sizes sum %g, want %g",
			  stot, tot);
	}

	/* k = 1: the weighted mean; n = 1 */
	{
		double		x[7 * 2],
					w[7],
					m[2] = {0, 0},
					sw = 0.0,
					want = 0.0;
		int			i;

		for (i = 0; i < 7; i++)
		{
			x[2 * i] = test_normal();
			x[2 * i + 1] = test_normal();
			w[i] = test_uniform() + 0.1;
			m[0] += w[i] * x[2 * i];
			m[1] += w[i] * x[2 * i + 1];
			sw += w[i];
		}
		m[0] /= sw;
		m[1] /= sw;
		for (i = 0; i < 7; i++)
			want += w[i] * sqdist(x + 2 * i, m, 2);
		cost = dpk_kmeans(&(DpkPoints) {x, w, 7, 2},
						  &(DpkClusterOpts) {1, 2, 50, 8},
						  &(DpkClusterOut) {c, sizes});
		CHECK(sqdist(c, m, 2) < 1e-24, "k=1: centre is not the weighted mean");
		CHECK(reldiff(cost, want) < 1e-12, "k=1: cost %.17g want %.17g", cost, want);
		CHECK(reldiff(sizes[0], sw) < 1e-12, "k=1: size %g want %g", sizes[0], sw);

		cost = dpk_kmeans(&(DpkPoints) {x, w, 1, 2},
						  &(DpkClusterOpts) {3, 2, 50, 8},
						  &(DpkClusterOut) {c, NULL});
		CHECK(cost == 0.0 && all_finite(c, 6), "n=1: cost %g", cost);
		for (j = 0; j < 3; j++)
			CHECK(memcmp(c + 2 * j, x, 2 * sizeof(double)) == 0, "n=1: centre %d", j);
	}
}

/* General invariants on random data: determinism, consistency, weights. */
static void
test_invariants(void)
{
	enum
	{
		N = 3000, D = 4, K = 7
	};
	static double x[N * D],
				w[N],
				wz[N];
	double		c1[K * D],
				c2[K * D],
				s1[K],
				s2[K],
				c0[K * D];
	double		k1,
				k2,
				k0,
				chk,
				tot = 0.0,
				stot = 0.0;
	int			i,
				j;

	for (i = 0; i < N; i++)
	{
		int			g = i % 5;

		for (j = 0; j < D; j++)
			x[i * D + j] = 3.0 * g * (j == g % D ? 1 : 0) + test_normal();
		w[i] = test_uniform() * 2.0 - 0.3;
		wz[i] = w[i] > 0 ? w[i] : 0.0;
		tot += wz[i];
	}

	k1 = dpk_kmeans(&(DpkPoints) {x, w, N, D},
					&(DpkClusterOpts) {K, 4, 100, 42},
					&(DpkClusterOut) {c1, s1});
	k2 = dpk_kmeans(&(DpkPoints) {x, w, N, D},
					&(DpkClusterOpts) {K, 4, 100, 42},
					&(DpkClusterOut) {c2, s2});
	CHECK(k1 == k2 && memcmp(c1, c2, sizeof c1) == 0 && memcmp(s1, s2, sizeof s1) == 0,
		  "same seed must give the same result");

	k2 = dpk_kmeans(&(DpkPoints) {x, wz, N, D},
					&(DpkClusterOpts) {K, 4, 100, 42},
					&(DpkClusterOut) {c2, s2});
	CHECK(k1 == k2 && memcmp(c1, c2, sizeof c1) == 0,
		  "negative weights must behave as zero weights");

	chk = dpk_kmeans_cost(x, w, N, D, c1, K, NULL);
	CHECK(reldiff(chk, k1) < 1e-9, "returned cost %.17g, recomputed %.17g", k1, chk);
	chk = naive_cost(x, w, N, D, c1, K, NULL, NULL);
	CHECK(reldiff(chk, k1) < 1e-9, "returned cost %.17g, naive %.17g", k1, chk);
	for (j = 0; j < K; j++)
		stot += s1[j];
	CHECK(reldiff(stot, tot) < 1e-12, "sizes sum %.17g, total weight %.17g", stot, tot);

	/* Lloyd never increases the cost of the seeding (same streams) */
	k0 = dpk_kmeans(&(DpkPoints) {x, w, N, D},
					&(DpkClusterOpts) {K, 1, 0, 99},
					&(DpkClusterOut) {c0, NULL});
	k2 = dpk_kmeans(&(DpkPoints) {x, w, N, D},
					&(DpkClusterOpts) {K, 1, 100, 99},
					&(DpkClusterOut) {c2, NULL});
	CHECK(k2 <= k0 * (1 + 1e-12), "Lloyd raised cost %.17g -> %.17g", k0, k2);
	CHECK(reldiff(k0, naive_cost(x, w, N, D, c0, K, NULL, NULL)) < 1e-9,
		  "max_iter=0 cost mismatch");
	/* more restarts cannot be worse: restart 0 streams are shared */
	k2 = dpk_kmeans(&(DpkPoints) {x, w, N, D},
					&(DpkClusterOpts) {K, 1, 100, 42},
					&(DpkClusterOut) {c2, NULL});
	CHECK(k1 <= k2, "4 restarts %.17g worse than 1 restart %.17g", k1, k2);

	/* w = NULL equals all ones */
	for (i = 0; i < N; i++)
		wz[i] = 1.0;
	k1 = dpk_kmeans(&(DpkPoints) {x, NULL, N, D},
					&(DpkClusterOpts) {K, 2, 100, 5},
					&(DpkClusterOut) {c1, s1});
	k2 = dpk_kmeans(&(DpkPoints) {x, wz, N, D},
					&(DpkClusterOpts) {K, 2, 100, 5},
					&(DpkClusterOut) {c2, s2});
	CHECK(k1 == k2 && memcmp(c1, c2, sizeof c1) == 0 && memcmp(s1, s2, sizeof s1) == 0,
		  "w=NULL differs from unit weights");
}

/* A larger case: n = 100000, d = 5, k = 8.  Timed, not asserted on time. */
static void
test_large(void)
{
	const int	n = 100000,
				d = 5,
				k = 8;
	double	   *x = dpk_alloc(sizeof(double) * (size_t) n * d);
	double	   *w = dpk_alloc(sizeof(double) * (size_t) n);
	double		c[8 * 5],
				sizes[8],
				stot = 0.0,
				tot = 0.0,
				cost,
				chk;
	struct timespec t0,
				t1;
	int			i,
				t;

	for (i = 0; i < n; i++)
	{
		int			g = i % k;

		for (t = 0; t < d; t++)
			x[(size_t) i * d + t] = 10.0 * ((g >> (t % 3)) & 1) + t * g + test_normal();
		w[i] = 0.5 + test_uniform();
		tot += w[i];
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	cost = dpk_kmeans(&(DpkPoints) {x, w, n, d},
					  &(DpkClusterOpts) {k, 5, 100, 2024},
					  &(DpkClusterOut) {c, sizes});
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("large: n=%d d=%d k=%d restarts=5: %.3f s, cost %.6g\n", n, d, k,
		   (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec), cost);
	CHECK(isfinite(cost) && all_finite(c, (size_t) k * d), "large: non-finite");
	chk = dpk_kmeans_cost(x, w, n, d, c, k, NULL);
	CHECK(reldiff(cost, chk) < 1e-9, "large: cost %.17g recomputed %.17g", cost, chk);
	for (i = 0; i < k; i++)
		stot += sizes[i];
	CHECK(reldiff(stot, tot) < 1e-9, "large: sizes sum %g, want %g", stot, tot);
	/* unit-variance noise in 5-D: the optimum is about 5 per unit weight */
	CHECK(cost < 6.0 * tot, "large: cost %g per weight, blobs not found", cost / tot);
	dpk_free(x);
	dpk_free(w);
}

/*
 * The pruned assignment (Hamerly's bounds, d <= 16) gives exactly the
 * centres, sizes and cost of evaluating every point every time: uniform,
 * lattice (many exact ties) and far-from-origin data, d = 1 ... 16,
 * k = 2 ... 300, weights with zeros and negatives.  The kd-tree filter,
 * which sums in another order, is off here (test_kmeans_filter.c).
 */
static void
test_pruned_identical(void)
{
	uint64_t	st = 0x5eedf00dULL;
	int			trial;

	dpk_kmeans_filter = false;
	for (trial = 0; trial < 60; trial++)
	{
		int			d = trial % 5 == 4 ? 16 : 1 + trial % 8;
		int			k = trial % 7 == 0 ? 2 + (int) (unit_uniform(&st) * 298) : 2 + trial % 19;
		int			n = 200 + (int) (unit_uniform(&st) * 4000);
		bool		lattice = trial % 3 == 0;
		double		scale = trial % 4 == 1 ? 1e6 : 1.0,
					shift = trial % 6 == 1 ? 1e4 : 0.0;
		double	   *x = malloc(sizeof(double) * n * d),
				   *w = malloc(sizeof(double) * n),
				   *c1 = malloc(sizeof(double) * k * d),
				   *c2 = malloc(sizeof(double) * k * d),
				   *s1 = malloc(sizeof(double) * k),
				   *s2 = malloc(sizeof(double) * k),
					cost1,
					cost2;
		int			i;

		for (i = 0; i < n * d; i++)
			x[i] = lattice ? floor(unit_uniform(&st) * 20) / 20 + 0.025
				: unit_uniform(&st) * scale + shift;
		for (i = 0; i < n; i++)
			w[i] = unit_uniform(&st) * 10 - 1;
		dpk_kmeans_prune = true;
		cost1 = dpk_kmeans(&(DpkPoints) {x, w, n, d},
						   &(DpkClusterOpts) {k, 3, 100, trial},
						   &(DpkClusterOut) {c1, s1});
		dpk_kmeans_prune = false;
		cost2 = dpk_kmeans(&(DpkPoints) {x, w, n, d},
						   &(DpkClusterOpts) {k, 3, 100, trial},
						   &(DpkClusterOut) {c2, s2});
		dpk_kmeans_prune = true;
		CHECK(cost1 == cost2 && memcmp(c1, c2, sizeof(double) * k * d) == 0 &&
			  memcmp(s1, s2, sizeof(double) * k) == 0,
			  "pruned k-means differs, trial %d (d %d, k %d, n %d): cost %.17g vs %.17g",
			  trial, d, k, n, cost1, cost2);
		free(x);
		free(w);
		free(c1);
		free(c2);
		free(s1);
		free(s2);
	}
	dpk_kmeans_filter = true;
}

/*
 * Screened restarts (dpk_kmeans_screened): the known blob optimum; with
 * every restart kept it is dpk_kmeans bit for bit; otherwise its centres
 * are a Lloyd fixed point of all the points (the kept restarts ran on to
 * convergence), its cost and sizes those of its centres, it is repeatable,
 * and on a 2-d cloud it is no worse than a few percent above dpk_kmeans.
 */
static void
test_screened(void)
{
	double		x[NBLOB * PAIRS * 2 * 2],
				w[NBLOB * PAIRS * 2];
	double		c[NBLOB * 2],
				sizes[NBLOB],
				bsize[NBLOB];
	double		want,
				cost;
	int			n = make_blobs(x, w, &want, bsize);
	uint64_t	seed;
	int			big = 4000,
				k = 10,
				i,
				j,
				inst;
	double	   *bx = dpk_alloc(sizeof(double) * big * 2);
	double	   *bw = dpk_alloc(sizeof(double) * big);
	double		c1[20],
				c2[20],
				s1[10],
				s2[10];
	int		   *assign = dpk_alloc(sizeof(int) * big);

	for (seed = 1; seed <= 5; seed++)
	{
		cost = dpk_kmeans_screened(&(DpkPoints) {x, w, n, 2},
								   &(DpkClusterOpts) {NBLOB, 5, 100, seed}, 1,
								   2, &(DpkClusterOut) {c, sizes});
		CHECK(reldiff(cost, want) < 1e-9, "screened blobs seed %d: cost %.17g, want %.17g",
			  (int) seed, cost, want);
		check_blob_centres(c, sizes, bsize, "screened blobs");
	}

	for (inst = 0; inst < 6; inst++)
	{
		double		total = 0.0,
					c_plain,
					c_scr,
					c_again;

		/* a cloud of 12 blobs of unequal weights and spreads over [0,100]^2 */
		for (i = 0; i < big; i++)
		{
			int			b = (int) (test_uniform() * 12);

			bx[2 * i] = 8.0 * b + 3.0 * (1 + b % 3) * test_normal();
			bx[2 * i + 1] = 50.0 + 20.0 * sin(b) + 3.0 * test_normal();
			bw[i] = 1.0 + 50.0 * test_uniform() * (b % 4 == 0);
			total += bw[i];
		}

		/* every restart kept: dpk_kmeans */
		c_plain = dpk_kmeans(&(DpkPoints) {bx, bw, big, 2},
							 &(DpkClusterOpts) {k, 20, 100, 7 + inst},
							 &(DpkClusterOut) {c1, s1});
		c_scr = dpk_kmeans_screened(&(DpkPoints) {bx, bw, big, 2},
									&(DpkClusterOpts) {k, 20, 100, 7 + inst}, 5,
									20, &(DpkClusterOut) {c2, s2});
		CHECK(c_plain == c_scr && memcmp(c1, c2, sizeof(c1)) == 0 &&
			  memcmp(s1, s2, sizeof(s1)) == 0,
			  "screened, every restart kept: not dpk_kmeans (%.17g vs %.17g)", c_scr, c_plain);

		c_scr = dpk_kmeans_screened(&(DpkPoints) {bx, bw, big, 2},
									&(DpkClusterOpts) {k, 20, 100, 7 + inst}, 5,
									3, &(DpkClusterOut) {c2, s2});
		c_again = dpk_kmeans_screened(&(DpkPoints) {bx, bw, big, 2},
									  &(DpkClusterOpts) {k, 20, 100, 7 + inst},
									  5, 3, &(DpkClusterOut) {c1, s1});
		CHECK(c_scr == c_again && memcmp(c1, c2, sizeof(c1)) == 0,
			  "screened k-means not repeatable");
		CHECK(reldiff(c_scr, dpk_kmeans_cost(bx, bw, big, 2, c2, k, assign)) < 1e-9,
			  "screened cost %.17g is not that of its centres", c_scr);
		CHECK(c_scr <= c_plain * 1.05, "screened cost %.17g far above %.17g", c_scr, c_plain);

		/* a Lloyd fixed point: every centre the weighted mean of its points */
		{
			double		sum[20] = {0},
						wt[10] = {0},
						stot = 0.0;

			for (i = 0; i < big; i++)
			{
				wt[assign[i]] += bw[i];
				sum[2 * assign[i]] += bw[i] * bx[2 * i];
				sum[2 * assign[i] + 1] += bw[i] * bx[2 * i + 1];
			}
			for (j = 0; j < k; j++)
			{
				stot += s2[j];
				CHECK(fabs(s2[j] - wt[j]) <= 1e-9 * total, "screened size %d: %g, want %g",
					  j, s2[j], wt[j]);
				if (wt[j] > 0.0)
					CHECK(fabs(c2[2 * j] - sum[2 * j] / wt[j]) < 1e-9 &&
						  fabs(c2[2 * j + 1] - sum[2 * j + 1] / wt[j]) < 1e-9,
						  "screened centre %d is not the mean of its points "
						  "(%.12g, %.12g) vs (%.12g, %.12g)", j, c2[2 * j], c2[2 * j + 1],
						  sum[2 * j] / wt[j], sum[2 * j + 1] / wt[j]);
			}
			CHECK(reldiff(stot, total) < 1e-12, "screened sizes sum %g, want %g", stot, total);
		}
	}
	dpk_free(bx);
	dpk_free(bw);
	dpk_free(assign);
}

/*
 * Whether centres c (k, d = 2) are a Lloyd fixed point of all the points:
 * every centre with weight the weighted mean of the points nearest to it.
 */
static bool
lloyd_fixed_point(const double *x, const double *w, int n, const double *c, int k,
				  int *assign)
{
	double		sum[2 * 16] = {0},
				wt[16] = {0};
	int			i,
				j;

	dpk_kmeans_cost(x, w, n, 2, c, k, assign);
	for (i = 0; i < n; i++)
	{
		wt[assign[i]] += w[i];
		sum[2 * assign[i]] += w[i] * x[2 * i];
		sum[2 * assign[i] + 1] += w[i] * x[2 * i + 1];
	}
	for (j = 0; j < k; j++)
		if (wt[j] > 0.0 &&
			(fabs(c[2 * j] - sum[2 * j] / wt[j]) > 1e-9 ||
			 fabs(c[2 * j + 1] - sum[2 * j + 1] / wt[j]) > 1e-9))
			return false;
	return true;
}

/*
 * Restarts screened on a sample (dpk_kmeans_screened_sample): stride 1 is
 * dpk_kmeans_screened bit for bit; with a sample the kept restarts still
 * run on to a Lloyd fixed point of all the points (not of the sample), the
 * cost is that of the centres on all the points, the result repeats, and
 * it stays within a few percent of dpk_kmeans; a sample of a few points
 * still gives a fixed point of all the points.
 */
static void
test_screened_sample(void)
{
	int			big = 4000,
				k = 10,
				i,
				inst;
	double	   *bx = dpk_alloc(sizeof(double) * big * 2);
	double	   *bw = dpk_alloc(sizeof(double) * big);
	int		   *assign = dpk_alloc(sizeof(int) * big);
	double		c1[20],
				c2[20],
				s1[10],
				s2[10];

	for (inst = 0; inst < 6; inst++)
	{
		double		c_plain,
					c_scr,
					c_smp,
					c_again;
		int			stride = 2 + inst;

		for (i = 0; i < big; i++)
		{
			int			b = (int) (test_uniform() * 12);

			bx[2 * i] = 8.0 * b + 3.0 * (1 + b % 3) * test_normal();
			bx[2 * i + 1] = 50.0 + 20.0 * sin(b) + 3.0 * test_normal();
			bw[i] = 1.0 + 50.0 * test_uniform() * (b % 4 == 0);
		}
		c_scr = dpk_kmeans_screened(&(DpkPoints) {bx, bw, big, 2},
									&(DpkClusterOpts) {k, 20, 100, 11 + inst}, 5,
									3, &(DpkClusterOut) {c1, s1});
		c_smp = dpk_kmeans_screened_sample(&(DpkPoints) {bx, bw, big, 2},
										   &(DpkClusterOpts) {k, 20, 100, 11 + inst}, 5,
										   3, 1, &(DpkClusterOut) {c2, s2});
		CHECK(c_scr == c_smp && memcmp(c1, c2, sizeof(c1)) == 0 &&
			  memcmp(s1, s2, sizeof(s1)) == 0,
			  "screened on every point: not dpk_kmeans_screened (%.17g vs %.17g)", c_smp, c_scr);

		c_plain = dpk_kmeans(&(DpkPoints) {bx, bw, big, 2},
							 &(DpkClusterOpts) {k, 20, 100, 11 + inst},
							 &(DpkClusterOut) {c1, s1});
		c_smp = dpk_kmeans_screened_sample(&(DpkPoints) {bx, bw, big, 2},
										   &(DpkClusterOpts) {k, 20, 100, 11 + inst}, 5,
										   3, stride, &(DpkClusterOut) {c2, s2});
		c_again = dpk_kmeans_screened_sample(&(DpkPoints) {bx, bw, big, 2},
											 &(DpkClusterOpts) {k, 20, 100, 11 + inst}, 5,
											 3, stride, &(DpkClusterOut) {c1, s1});
		CHECK(c_smp == c_again && memcmp(c1, c2, sizeof(c1)) == 0 &&
			  memcmp(s1, s2, sizeof(s1)) == 0, "screened on a sample: not repeatable");
		CHECK(reldiff(c_smp, dpk_kmeans_cost(bx, bw, big, 2, c2, k, assign)) < 1e-9,
			  "screened on a sample: cost %.17g is not that of its centres", c_smp);
		CHECK(lloyd_fixed_point(bx, bw, big, c2, k, assign),
			  "screened on a sample (stride %d): not a Lloyd fixed point of all points", stride);
		CHECK(c_smp <= c_plain * 1.05, "screened on a sample: cost %.17g far above %.17g",
			  c_smp, c_plain);

		c_smp = dpk_kmeans_screened_sample(&(DpkPoints) {bx, bw, big, 2},
										   &(DpkClusterOpts) {k, 20, 100, 11 + inst}, 5,
										   3, big, &(DpkClusterOut) {c2, s2});
		CHECK(isfinite(c_smp) && lloyd_fixed_point(bx, bw, big, c2, k, assign),
			  "screened on a few points: not a Lloyd fixed point of all points");
	}
	dpk_free(bx);
	dpk_free(bw);
	dpk_free(assign);
}

/*
 * Up to 16 dimensions k-means computes its dot products itself (dgemm's
 * rounding), so a low-d release never loads OpenBLAS; above, dgemm does, and
 * the assignment is the one the products of dgemm give.  Runs first.
 */
static void
test_blas_on_demand(void)
{
	int			dims[] = {2, 5, 16, 17, 40};
	int			nd = (int) (sizeof(dims) / sizeof(dims[0]));
	int			n = 3000,
				k = 7;
	int		   *a[5];
	double	   *x[5],
			   *c[5];
	uint64_t	st = 77;		/* its own stream: the other tests' data stay */
	int			di;

	CHECK(!dpk_blas_loaded(), "OpenBLAS loaded before any product");
	for (di = 0; di < nd; di++)
	{
		int			d = dims[di],
					i;

		x[di] = dpk_alloc(sizeof(double) * n * d);
		c[di] = dpk_alloc(sizeof(double) * k * d);
		a[di] = dpk_alloc(sizeof(int) * n);
		for (i = 0; i < n * d; i++)
			x[di][i] = (double) (dpk_splitmix64(&st) >> 11) * 0x1p-53 * 10.0;
		for (i = 0; i < k * d; i++)
			c[di][i] = (double) (dpk_splitmix64(&st) >> 11) * 0x1p-53 * 10.0;
		dpk_kmeans_cost(x[di], NULL, n, d, c[di], k, a[di]);
		if (d <= 16)
			CHECK(!dpk_blas_loaded(), "d = %d: k-means loaded OpenBLAS", d);
	}
	CHECK(dpk_blas_loaded(), "OpenBLAS not loaded by k-means above 16 dimensions");

	/* every assignment is the one dgemm's products give, as before */
	for (di = 0; di < nd; di++)
	{
		int			d = dims[di],
					i,
					j,
					t,
					mism = 0;
		double	   *g = dpk_alloc(sizeof(double) * n * k);

		dpk_dgemm_nt(n, k, d, -2.0, x[di], d, c[di], d, g, k);
		for (i = 0; i < n; i++)
		{
			const double *xi = x[di] + (size_t) i * d;
			double		xn = 0.0,
						best = 0.0;
			int			bj = -1;

			for (t = 0; t < d; t++)
				xn += xi[t] * xi[t];
			for (j = 0; j < k; j++)
			{
				const double *cj = c[di] + (size_t) j * d;
				double		cn = 0.0,
							v;

				for (t = 0; t < d; t++)
					cn += cj[t] * cj[t];
				v = xn + g[i * k + j] + cn;
				if (bj < 0 || v < best)
				{
					best = v;
					bj = j;
				}
			}
			mism += bj != a[di][i];
		}
		CHECK(mism == 0, "d = %d: %d assignments differ from dgemm's", d, mism);
		dpk_free(g);
		dpk_free(x[di]);
		dpk_free(c[di]);
		dpk_free(a[di]);
	}
}

/*
 * The screening sample is drawn in proportion to weight: 9 heavy points
 * (weight 1000, far apart) among 20 000 light ones (weight 0.01, one
 * blob), k = 10, about 200 points sampled.  A sample of one point in 100
 * regardless of weight holds one or two of the heavy points, so the
 * screened restarts are seeded without the others and two heavy points
 * end sharing a centre; in proportion to weight every heavy point is in
 * the sample, and the result is the optimum: a centre on each heavy point
 * and one at the blob's mean, the cost that of the blob alone.
 */
static void
test_screened_sample_weighted(void)
{
	int			light = 20000,
				heavy = 9,
				n = light + heavy,
				k = 10,
				i;
	double	   *x = dpk_alloc(sizeof(double) * n * 2);
	double	   *w = dpk_alloc(sizeof(double) * n);
	double		c[20],
				mean[2] = {0.0, 0.0},
				blob = 0.0,
				cost;
	DpkPrng		g;

	dpk_prng_seed(&g, 5);
	for (i = 0; i < light; i++)
	{
		x[2 * i] = 50.0 + 4.0 * (dpk_prng_bits53(&g) / 9007199254740992.0 - 0.5);
		x[2 * i + 1] = 50.0 + 4.0 * (dpk_prng_bits53(&g) / 9007199254740992.0 - 0.5);
		w[i] = 0.01;
		mean[0] += x[2 * i] / light;
		mean[1] += x[2 * i + 1] / light;
	}
	for (i = 0; i < light; i++)
		blob += 0.01 * ((x[2 * i] - mean[0]) * (x[2 * i] - mean[0]) +
						(x[2 * i + 1] - mean[1]) * (x[2 * i + 1] - mean[1]));
	for (i = 0; i < heavy; i++)
	{
		x[2 * (light + i)] = 100.0 * (i % 3);
		x[2 * (light + i) + 1] = 100.0 * (i / 3) + (i == 4 ? 10.0 : 0.0);
		w[light + i] = 1000.0;
	}
	cost = dpk_kmeans_screened_sample(&(DpkPoints) {x, w, n, 2},
									  &(DpkClusterOpts) {k, 20, 100, 3}, 5, 3, 100,
									  &(DpkClusterOut) {c, NULL});
	CHECK(reldiff(cost, blob) < 1e-9,
		  "screened on a sample: heavy points missed, cost %.17g, the optimum %.17g", cost, blob);
	dpk_free(x);
	dpk_free(w);
}

/*
 * k-means++ seeding at d = 2 (compiled apart, kmeans.c) against the
 * general loop: the same points with a third coordinate 0 have the same
 * squared distances, so with no Lloyd update (max_iter 0) the centres must
 * agree bit for bit; weights zero and repeated, and k above the number of
 * distinct points (the duplicating branch).
 */
static void
test_seed_d2(void)
{
	int			n = 400,
				bad = 0,
				runs = 0,
				trial,
				i,
				j;
	double	   *x2 = dpk_alloc(sizeof(double) * n * 2),
			   *x3 = dpk_alloc(sizeof(double) * n * 3),
			   *w = dpk_alloc(sizeof(double) * n),
			   *c2 = dpk_alloc(sizeof(double) * 16 * 2),
			   *c3 = dpk_alloc(sizeof(double) * 16 * 3);

	for (trial = 0; trial < 30; trial++)
	{
		int			k = trial % 3 == 0 ? 2 : trial % 3 == 1 ? 7 : 16,
					distinct = trial % 5 == 4 ? 5 : n;

		for (i = 0; i < n; i++)
		{
			int			src = i % distinct;

			if (src == i)
			{
				x2[2 * i] = 1000.0 * test_uniform() - 300.0;
				x2[2 * i + 1] = trial % 2 ? 1e-3 * test_normal() : 50.0 * test_normal();
			}
			else
			{
				x2[2 * i] = x2[2 * src];
				x2[2 * i + 1] = x2[2 * src + 1];
			}
			w[i] = i % 11 == 3 ? 0.0 : 0.5 + 10.0 * test_uniform();
			x3[3 * i] = x2[2 * i];
			x3[3 * i + 1] = x2[2 * i + 1];
			x3[3 * i + 2] = 0.0;
		}
		dpk_kmeans(&(DpkPoints) {x2, w, n, 2}, &(DpkClusterOpts) {k, 1, 0, 100 + trial},
				   &(DpkClusterOut) {c2, NULL});
		dpk_kmeans(&(DpkPoints) {x3, w, n, 3}, &(DpkClusterOpts) {k, 1, 0, 100 + trial},
				   &(DpkClusterOut) {c3, NULL});
		for (j = 0; j < k; j++)
			bad += memcmp(c2 + 2 * j, c3 + 3 * j, sizeof(double) * 2) != 0;
		runs++;
	}
	CHECK(bad == 0, "seeding at d = 2: %d of the centres of %d runs differ from the general loop's",
		  bad, runs);
	dpk_free(x2);
	dpk_free(x3);
	dpk_free(w);
	dpk_free(c2);
	dpk_free(c3);
}

int
main(void)
{
	test_blas_on_demand();
	test_known_optimum();
	test_1d_bruteforce();
	test_duplicate_weight();
	test_cost_naive();
	test_many_duplicates();
	test_edges();
	test_invariants();
	test_large();
	test_pruned_identical();
	test_screened();
	test_screened_sample();
	test_screened_sample_weighted();
	test_seed_d2();
	UNIT_DONE("test_kmeans");
}
