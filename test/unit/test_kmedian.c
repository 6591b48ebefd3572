/*
 * test_kmedian.c
 *		Unit tests of the weighted geometric median and k-median
 *		(src/core/cluster/kmedian.c).
 *
 * Reference values are independent of kmedian.c: medians known in closed
 * form (symmetric configurations, the Fermat point of a triangle with an
 * angle of 120 degrees or more, weighted medians on a line), a brute-force
 * grid search, the first-order optimality condition checked by naive loops,
 * and naive double loops for the cost.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "dpk_mem.h"
#include "kmedian.h"
#include "unit.h"

static uint64_t rng_state = UINT64_C(0x9E3779B97F4A7C15);

/* Euclidean distance. */
static double
dist(const double *a, const double *b, int d)
{
	double		s = 0.0;
	int			t;

	for (t = 0; t < d; t++)
		s += (a[t] - b[t]) * (a[t] - b[t]);
	return sqrt(s);
}

/* Naive weighted sum of distances to one point. */
static double
naive_sumdist(const double *x, const double *w, int n, int d, const double *y)
{
	double		s = 0.0;
	int			i;

	for (i = 0; i < n; i++)
		s += (w ? (w[i] > 0 ? w[i] : 0) : 1.0) * dist(x + i * d, y, d);
	return s;
}

/* Naive k-median cost: each point at its nearest centre. */
static double
naive_kcost(const double *x, const double *w, int n, int d, const double *c, int k)
{
	double		s = 0.0;
	int			i,
				j;

	for (i = 0; i < n; i++)
	{
		double		best = INFINITY;

		for (j = 0; j < k; j++)
			best = fmin(best, dist(x + i * d, c + j * d, d));
		s += (w ? (w[i] > 0 ? w[i] : 0) : 1.0) * best;
	}
	return s;
}

/* Symmetric configurations: the median is the centre of symmetry. */
static void
test_symmetric(void)
{
	double		sq[8] = {1, 1, -1, 1, -1, -1, 1, -1};
	double		tri[6];
	double		hex[12];
	double		y[2];
	double		start[2] = {0.7, -0.3};
	int			i;

	for (i = 0; i < 8; i += 2)
	{
		sq[i] += 10.0;
		sq[i + 1] -= 4.0;
	}
	dpk_geomedian(sq, NULL, 4, 2, start, 500, 1e-12, y);
	CHECK(fabs(y[0] - 10.0) < 1e-7 && fabs(y[1] + 4.0) < 1e-7,
		  "square median %g %g, want 10 -4", y[0], y[1]);

	/* equilateral triangle: the Fermat point is the centroid */
	for (i = 0; i < 3; i++)
	{
		tri[2 * i] = 3.0 + cos(2.0 * M_PI * i / 3.0 + 0.4);
		tri[2 * i + 1] = 2.0 + sin(2.0 * M_PI * i / 3.0 + 0.4);
	}
	dpk_geomedian(tri, NULL, 3, 2, NULL, 500, 1e-12, y);
	CHECK(fabs(y[0] - 3.0) < 1e-7 && fabs(y[1] - 2.0) < 1e-7,
		  "triangle median %g %g, want 3 2", y[0], y[1]);

	/* a regular hexagon with unequal but antipodally equal weights */
	{
		double		w[6] = {1, 5, 2, 1, 5, 2};

		for (i = 0; i < 6; i++)
		{
			hex[2 * i] = -1.0 + 2.0 * cos(M_PI * i / 3.0);
			hex[2 * i + 1] = 2.0 * sin(M_PI * i / 3.0);
		}
		dpk_geomedian(hex, w, 6, 2, start, 500, 1e-12, y);
		CHECK(fabs(y[0] + 1.0) < 1e-7 && fabs(y[1]) < 1e-7,
			  "weighted hexagon median %g %g, want -1 0", y[0], y[1]);
	}
}

/*
 * Collinear points: the median is a weighted median of the positions on the
 * line, here a data point, reached from a start that is another data point
 * (the iterate coincides with a point at the first step).
 */
static void
test_collinear(void)
{
	/* positions 0, 1, 2, 10, 11 along direction (3, 4)/5 from (1, 1) */
	double		pos[5] = {0, 1, 2, 10, 11};
	double		x[10];
	double		y[2];
	double		w[5] = {1, 1, 1, 1, 1};
	double		cost;
	int			i;

	for (i = 0; i < 5; i++)
	{
		x[2 * i] = 1.0 + 0.6 * pos[i];
		x[2 * i + 1] = 1.0 + 0.8 * pos[i];
	}
	cost = dpk_geomedian(x, NULL, 5, 2, x + 6, 1000, 1e-12, y);
	CHECK(fabs(y[0] - x[4]) < 1e-9 && fabs(y[1] - x[5]) < 1e-9,
		  "collinear median from a point (%g %g), want the middle point (%g %g)",
		  y[0], y[1], x[4], x[5]);
	CHECK(fabs(cost - (2 + 1 + 0 + 8 + 9)) < 1e-8, "collinear cost %g, want 20", cost);

	/* weights put the median on position 10 (2.5 of 7.5 below it, 1 above) */
	w[3] = 4.0;
	w[0] = 0.5;
	dpk_geomedian(x, w, 5, 2, x, 1000, 1e-12, y);
	CHECK(fabs(y[0] - x[6]) < 1e-7 && fabs(y[1] - x[7]) < 1e-7,
		  "weighted collinear median (%g %g), want position 10 (%g %g)",
		  y[0], y[1], x[6], x[7]);

	/* 1-D: median of 3, 4, 100 is 4 whatever the start */
	{
		double		x1[3] = {3, 4, 100};
		double		s1 = 100.0,
					y1;

		dpk_geomedian(x1, NULL, 3, 1, &s1, 1000, 1e-12, &y1);
		CHECK(fabs(y1 - 4.0) < 1e-7, "1-d median %g, want 4", y1);
	}
}

/*
 * A triangle with an angle of 120 degrees or more has its Fermat point at
 * that vertex; a heavy point outweighing the pull of the others is the
 * median (Vardi-Zhang).
 */
static void
test_vertex_median(void)
{
	double		x[6] = {0, 0, 1, 0, -1, 0.2};
	double		y[2];
	double		x2[8] = {5, 5, 6, 5, 5, 7, 2, 5};
	double		w2[4] = {2.5, 1, 1, 1};

	dpk_geomedian(x, NULL, 3, 2, NULL, 2000, 1e-14, y);
	CHECK(dist(y, x, 2) < 1e-6, "obtuse triangle median (%g %g), want (0 0)", y[0], y[1]);

	/* unit vectors to the others sum to (0, 1): |R| = 1 < 2.5 */
	dpk_geomedian(x2, w2, 4, 2, NULL, 2000, 1e-14, y);
	CHECK(dist(y, x2, 2) < 1e-6, "heavy point median (%g %g), want (5 5)", y[0], y[1]);

	/* started exactly on it, it stays there */
	dpk_geomedian(x2, w2, 4, 2, x2, 10, 1e-14, y);
	CHECK(y[0] == 5.0 && y[1] == 5.0, "heavy point left from itself: (%g %g)", y[0], y[1]);
}

/* Random sets: Weiszfeld's result against a brute-force grid search. */
static void
test_random_bruteforce(void)
{
	int			rep;

	for (rep = 0; rep < 5; rep++)
	{
		double		x[2 * 30],
					w[30],
					y[2],
					best[2] = {0, 0},
					bestc = INFINITY,
					c;
		int			i,
					a,
					b;

		for (i = 0; i < 30; i++)
		{
			x[2 * i] = 4.0 * unit_uniform(&rng_state) + (i % 3 == 0 ? 3.0 : 0.0);
			x[2 * i + 1] = 2.0 * unit_uniform(&rng_state);
			w[i] = 0.1 + unit_uniform(&rng_state);
		}
		c = dpk_geomedian(x, w, 30, 2, NULL, 1000, 1e-12, y);
		/* grid of step 0.002 around the answer */
		for (a = -400; a <= 400; a++)
			for (b = -400; b <= 400; b++)
			{
				double		p[2] = {y[0] + a * 0.002, y[1] + b * 0.002};
				double		v = naive_sumdist(x, w, 30, 2, p);

				if (v < bestc)
				{
					bestc = v;
					best[0] = p[0];
					best[1] = p[1];
				}
			}
		CHECK(fabs(c - naive_sumdist(x, w, 30, 2, y)) < 1e-9 * c,
			  "returned cost %g is not the cost at the median", c);
		CHECK(c <= bestc + 1e-9 * c, "rep %d: grid found %.12g < %.12g", rep, bestc, c);
		CHECK(dist(best, y, 2) <= 0.0021, "rep %d: grid minimum %g away", rep, dist(best, y, 2));
	}
}

/*
 * One cluster: a heavy centre point, four unit neighbours and an outlier
 * `far` away along x; the median is the centre, the mean is pulled away.
 */
static int
add_cluster(double *x, double *w, int n, double cx, double cy, double far)
{
	double		off[6][2] = {{0, 0}, {1, 0}, {-1, 0}, {0, 1}, {0, -1}, {0, 0}};
	int			i;

	off[5][0] = far;
	for (i = 0; i < 6; i++)
	{
		x[2 * (n + i)] = cx + off[i][0];
		x[2 * (n + i) + 1] = cy + off[i][1];
		w[n + i] = i == 0 ? 10.0 : 1.0;
	}
	return n + 6;
}

/* Separated clusters: k-median recovers each cluster's median. */
static void
test_separated(void)
{
	double		x[2 * 18],
				w[18],
				c[6],
				sizes[3],
				want[3][2] = {{0, 0}, {100, 0}, {0, 100}},
				cost,
				again[6];
	int			n = 0,
				j,
				jj;

	n = add_cluster(x, w, n, 0, 0, 8);
	n = add_cluster(x, w, n, 100, 0, -6);
	n = add_cluster(x, w, n, 0, 100, 7);
	cost = dpk_kmedian(&(DpkPoints) {x, w, n, 2},
					   &(DpkClusterOpts) {3, 5, 100, 42},
					   &(DpkClusterOut) {c, sizes});
	for (j = 0; j < 3; j++)
	{
		bool		found = false;

		for (jj = 0; jj < 3; jj++)
			if (dist(c + 2 * jj, want[j], 2) < 1e-6)
			{
				found = true;
				CHECK(fabs(sizes[jj] - 15.0) < 1e-12, "cluster size %g, want 15", sizes[jj]);
			}
		CHECK(found, "median (%g %g) not recovered", want[j][0], want[j][1]);
	}
	CHECK(fabs(cost - (4 + 8 + 4 + 6 + 4 + 7)) < 1e-6, "k-median cost %g, want 33", cost);
	CHECK(fabs(cost - naive_kcost(x, w, n, 2, c, 3)) < 1e-9,
		  "returned cost %g, naive %g", cost, naive_kcost(x, w, n, 2, c, 3));
	CHECK(fabs(dpk_kmedian_cost(x, w, n, 2, c, 3, 0.0, NULL) - cost) < 1e-9,
		  "dpk_kmedian_cost disagrees");

	/* determinism */
	dpk_kmedian(&(DpkPoints) {x, w, n, 2},
				&(DpkClusterOpts) {3, 5, 100, 42},
				&(DpkClusterOut) {again, NULL});
	CHECK(memcmp(again, c, sizeof(c)) == 0, "same seed, different centres");
}

/* Larger random data: k-median is a local optimum no worse than its seeds. */
static void
test_random_kmedian(void)
{
	enum
	{
		N = 3000, D = 3, K = 5
	};
	double	   *x = dpk_alloc(sizeof(double) * N * D);
	double	   *w = dpk_alloc(sizeof(double) * N);
	double		c[K * D],
				c1[K * D],
				sizes[K],
				cost,
				cost1,
				tot = 0.0,
				stot = 0.0;
	int			i,
				t,
				j;

	for (i = 0; i < N; i++)
	{
		int			g = i % K;

		for (t = 0; t < D; t++)
		{
			double		u = unit_uniform(&rng_state);

			/* heavy-tailed offsets around well-separated centres */
			x[i * D + t] = 50.0 * g * (t == g % D) + tan(M_PI * (u - 0.5)) * 0.5;
		}
		w[i] = 1.0 + (i % 7);
		tot += w[i];
	}
	cost = dpk_kmedian(&(DpkPoints) {x, w, N, D},
					   &(DpkClusterOpts) {K, 5, 100, 7},
					   &(DpkClusterOut) {c, sizes});
	cost1 = dpk_kmedian(&(DpkPoints) {x, w, N, D},
						&(DpkClusterOpts) {K, 1, 100, 7},
						&(DpkClusterOut) {c1, NULL});
	CHECK(cost <= cost1 * (1 + 1e-12), "5 restarts %g worse than 1 %g", cost, cost1);
	CHECK(fabs(cost - naive_kcost(x, w, N, D, c, K)) < 1e-9 * cost, "cost %g != naive %g",
		  cost, naive_kcost(x, w, N, D, c, K));
	for (j = 0; j < K; j++)
		stot += sizes[j];
	CHECK(fabs(stot - tot) < 1e-9 * tot, "sizes sum %g, want %g", stot, tot);

	/* local optimality: moving any centre a little does not help */
	for (j = 0; j < K; j++)
		for (t = 0; t < D; t++)
		{
			double		keep = c[j * D + t];
			double		v;

			c[j * D + t] = keep + 1e-3;
			v = naive_kcost(x, w, N, D, c, K);
			c[j * D + t] = keep - 1e-3;
			v = fmin(v, naive_kcost(x, w, N, D, c, K));
			c[j * D + t] = keep;
			CHECK(v >= cost * (1 - 1e-7), "centre %d axis %d: moving lowers %g to %g",
				  j, t, cost, v);
		}

	/* spread: sqrt(D^2 + s2) per point, checked naively */
	{
		double		s2 = 0.25,
					want = 0.0;

		for (i = 0; i < N; i++)
		{
			double		best = INFINITY;

			for (j = 0; j < K; j++)
				best = fmin(best, dist(x + i * D, c + j * D, D));
			want += w[i] * sqrt(best * best + s2);
		}
		CHECK(fabs(dpk_kmedian_cost(x, w, N, D, c, K, s2, NULL) - want) < 1e-9 * want,
			  "cost with spread wrong");
	}
	dpk_free(x);
	dpk_free(w);
}

/* Degenerate inputs: no points, k above the distinct points, no weight. */
static void
test_degenerate(void)
{
	double		c[3 * 2],
				sizes[3],
				cost,
				y[2];
	double		x[4] = {1, 2, 1, 2};
	double		wneg[2] = {-1, NAN};
	double		xone[2] = {3, 4};
	DpkObjective obj;

	cost = dpk_kmedian(&(DpkPoints) {x, NULL, 0, 2},
					   &(DpkClusterOpts) {3, 3, 10, 1},
					   &(DpkClusterOut) {c, sizes});
	CHECK(cost == 0.0 && c[0] == 0.0 && c[5] == 0.0 && sizes[2] == 0.0, "n = 0");

	/* two identical points, k = 3: every centre there, one holds the weight */
	cost = dpk_kmedian(&(DpkPoints) {x, NULL, 2, 2},
					   &(DpkClusterOpts) {3, 3, 10, 1},
					   &(DpkClusterOut) {c, sizes});
	CHECK(cost == 0.0, "identical points cost %g", cost);
	CHECK(c[0] == 1 && c[1] == 2 && c[2] == 1 && c[3] == 2 && c[4] == 1 && c[5] == 2,
		  "spare centres not on the point");
	CHECK(sizes[0] == 2.0 && sizes[1] == 0.0 && sizes[2] == 0.0, "duplicate sizes %g %g %g",
		  sizes[0], sizes[1], sizes[2]);

	/* no usable weight: centres still on the data, cost 0 */
	cost = dpk_kmedian(&(DpkPoints) {x, wneg, 2, 2},
					   &(DpkClusterOpts) {2, 2, 10, 1},
					   &(DpkClusterOut) {c, sizes});
	CHECK(cost == 0.0 && c[0] == 1 && c[1] == 2 && sizes[0] == 0 && sizes[1] == 0,
		  "zero weights");
	cost = dpk_geomedian(x, wneg, 2, 2, NULL, 10, 1e-9, y);
	CHECK(cost == 0.0 && y[0] == 1.0 && y[1] == 2.0, "geomedian without weight (%g %g)",
		  y[0], y[1]);

	/* one point */
	cost = dpk_geomedian(xone, NULL, 1, 2, NULL, 10, 1e-9, y);
	CHECK(cost == 0.0 && y[0] == 3.0 && y[1] == 4.0, "one point");
	cost = dpk_kmedian(&(DpkPoints) {xone, NULL, 1, 2},
					   &(DpkClusterOpts) {1, 1, 10, 1},
					   &(DpkClusterOut) {c, sizes});
	CHECK(cost == 0.0 && c[0] == 3.0 && c[1] == 4.0 && sizes[0] == 1.0, "one point k-median");

	/* two points: any point of the segment is a median, cost is their distance */
	{
		double		x2[4] = {0, 0, 3, 4};

		cost = dpk_geomedian(x2, NULL, 2, 2, NULL, 100, 1e-12, y);
		CHECK(fabs(cost - 5.0) < 1e-9, "two points cost %g, want 5", cost);
	}

	CHECK(dpk_objective_parse("kmeans", &obj) && obj == DPK_OBJECTIVE_KMEANS, "parse kmeans");
	CHECK(dpk_objective_parse("kmedian", &obj) && obj == DPK_OBJECTIVE_KMEDIAN, "parse kmedian");
	CHECK(!dpk_objective_parse("KMEDIAN", &obj) && !dpk_objective_parse("k-median", &obj) &&
		  !dpk_objective_parse("", &obj) && !dpk_objective_parse(NULL, &obj),
		  "parse accepts a bad name");
	CHECK(strcmp(dpk_objective_name(DPK_OBJECTIVE_KMEDIAN), "kmedian") == 0, "name");
}

int
main(void)
{
	test_symmetric();
	test_collinear();
	test_vertex_median();
	test_random_bruteforce();
	test_separated();
	test_random_kmedian();
	test_degenerate();
	UNIT_DONE("test_kmedian");
}
