/*
 * test_lift.c
 *		Lifting: quantization, exact lifting and cost on noiseless cells,
 *		fallbacks and clamping, lifting from the heaviest cells, the
 *		fallbacks' move toward the other centres' mean.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "lift.h"
#include "unit.h"

/* A tiny deterministic generator for test data (not privacy noise). */
static uint64_t test_state = 88172645463325252ULL;

/* Uniform test data in [0, 1). */
static double
test_uniform(void)
{
	return unit_uniform(&test_state);
}

/* Noiseless cells: exact centres, sizes and cost; fallbacks; clamping. */
static void
test_lifting(void)
{
	enum
	{
		D = 16, K = 3, CELLS = 7, PER = 50
	};
	double		count[CELLS],
				sum[CELLS * D],
				norm[CELLS];
	int			assign[CELLS] = {0, 0, 1, 2, 2, 2, -1};
	double		truth_sum[K][D],
				truth_n[K],
				truth_cost = 0.0;
	double		pts[CELLS][PER][D];
	double		centers[K * D],
				sizes[K],
				fb[K * D];
	double		err = 0.0,
				cost;
	int64_t		q[D];
	int			in_range = 1;
	int			c,
				i,
				j,
				a;

	memset(truth_sum, 0, sizeof(truth_sum));
	memset(truth_n, 0, sizeof(truth_n));
	/* points on the fixed-point grid: u = 1/2 + q / U exactly */
	for (c = 0; c < CELLS; c++)
	{
		count[c] = 0.0;
		norm[c] = 0.0;
		for (j = 0; j < D; j++)
			sum[c * D + j] = 0.0;
		for (i = 0; i < PER - c; i++)
		{
			double	   *u = pts[c][i];
			int64_t		nq;

			for (j = 0; j < D; j++)
			{
				int			z = (int) floor(test_uniform() * (DPK_LIFT_UNITS + 1))
					- DPK_LIFT_UNITS / 2;

				u[j] = 0.5 + (double) z / DPK_LIFT_UNITS;
			}
			nq = dpk_lift_quantize(D, u, q);
			count[c] += 1.0;
			for (j = 0; j < D; j++)
			{
				if (q[j] < -DPK_LIFT_UNITS / 2 || q[j] > DPK_LIFT_UNITS / 2 ||
					q[j] != (int64_t) llround((u[j] - 0.5) * DPK_LIFT_UNITS))
					in_range = 0;
				sum[c * D + j] += (double) q[j] / DPK_LIFT_UNITS;
			}
			norm[c] += (double) nq / ((double) DPK_LIFT_UNITS * DPK_LIFT_UNITS);
			if (assign[c] >= 0)
			{
				truth_n[assign[c]] += 1.0;
				for (j = 0; j < D; j++)
					truth_sum[assign[c]][j] += u[j];
			}
		}
	}
	CHECK(in_range, "quantised offsets exact and within [-U/2, U/2]");
	for (j = 0; j < K * D; j++)
		fb[j] = 0.25;
	dpk_lift_centers(&(DpkLiftCells) {D, K, CELLS, count, sum, assign},
					 &(DpkLiftRule) {0.0, 1.0, fb, NULL}, centers, sizes);
	for (a = 0; a < K; a++)
	{
		CHECK(sizes[a] == truth_n[a], "size of centre %d: %g vs %g", a, sizes[a], truth_n[a]);
		for (j = 0; j < D; j++)
			err = fmax(err, fabs(centers[a * D + j] - truth_sum[a][j] / truth_n[a]));
	}
	CHECK(err < 1e-9, "noiseless lifting is exact (%g)", err);

	/* the cost estimate equals the true cost of the clusters around their means */
	for (c = 0; c < CELLS; c++)
	{
		if (assign[c] < 0)
			continue;
		for (i = 0; i < PER - c; i++)
			for (j = 0; j < D; j++)
			{
				double		diff = pts[c][i][j] - truth_sum[assign[c]][j] / truth_n[assign[c]];

				truth_cost += diff * diff;
			}
	}
	cost = dpk_lift_cost(D, K, CELLS, count, sum, norm, assign, 0.0, 1.0);
	CHECK(fabs(cost - truth_cost) < 1e-9 * truth_cost, "noiseless cost %g vs %g",
		  cost, truth_cost);

	/* without norms the score is minus the between-cluster term */
	{
		double		between = 0.0;

		for (a = 0; a < K; a++)
		{
			double		s2 = 0.0;

			for (j = 0; j < D; j++)
			{
				double		sj = truth_sum[a][j] - 0.5 * truth_n[a];

				s2 += sj * sj;
			}
			between += s2 / truth_n[a];
		}
		cost = dpk_lift_cost(D, K, CELLS, count, sum, NULL, assign, 0.0, 1.0);
		CHECK(fabs(cost + between) < 1e-9 * between, "between-cluster score");
	}

	/* a centre below min_count takes its fallback; sizes never negative */
	count[3] = -200.0;
	dpk_lift_centers(&(DpkLiftCells) {D, K, CELLS, count, sum, assign},
					 &(DpkLiftRule) {0.0, 1.0, fb, NULL}, centers, sizes);
	CHECK(centers[2 * D] == 0.25 && centers[2 * D + D - 1] == 0.25 && sizes[2] == 0.0,
		  "fallback below min_count (size %g)", sizes[2]);
	dpk_lift_centers(&(DpkLiftCells) {D, K, CELLS, count, sum, assign},
					 &(DpkLiftRule) {0.0, 1.0, NULL, NULL}, centers, sizes);
	CHECK(centers[2 * D] == 0.5, "fallback NULL is the box middle");
	/* huge noisy sums are clamped into the cube */
	sum[0] = 1e9;
	dpk_lift_centers(&(DpkLiftCells) {D, K, CELLS, count, sum, assign},
					 &(DpkLiftRule) {0.0, 1.0, fb, NULL}, centers, sizes);
	CHECK(centers[0] == 1.0, "lifted centre clamped into the box");
}


/*
 * Lifting from the heaviest cells: exact sums use every cell (the same
 * centres as dpk_lift_centers); noisy sums drop light cells whose sums
 * are noise; a noise variance near the signal shrinks toward the fallback.
 */
static void
test_lift_heavy(void)
{
	enum
	{
		HD = 8, HC = 4
	};
	double		count[HC] = {1000.0, 500.0, 5.0, 5.0};
	double		sum[HC * HD];
	int			assign[HC] = {0, 0, 0, 0};
	double		fb[HD],
				a_cent[HD],
				b_cent[HD],
				size;
	int			c,
				j,
				ok = 1;

	for (c = 0; c < HC; c++)
		for (j = 0; j < HD; j++)
			sum[c * HD + j] = count[c] * (c < 2 ? 0.1 * (c + 1) : -0.4);
	for (j = 0; j < HD; j++)
		fb[j] = 0.5;
	dpk_lift_centers(&(DpkLiftCells) {HD, 1, HC, count, sum, assign},
					 &(DpkLiftRule) {0.0, 1.0, fb, NULL}, a_cent, NULL);
	dpk_lift_centers_heavy(&(DpkLiftCells) {HD, 1, HC, count, sum, assign},
						   &(DpkLiftRule) {0.0, 1.0, fb, NULL}, b_cent, &size);
	for (j = 0; j < HD; j++)
		if (fabs(a_cent[j] - b_cent[j]) > 1e-12)
			ok = 0;
	CHECK(ok && size == 1510.0, "exact sums: every cell, as dpk_lift_centers");

	/*
	 * Light cells whose sums are noise (sd 10 per coordinate): keeping them
	 * costs more noise (8 * 4 * 100 / 1580^2 = 1.3e-3) than the debiased
	 * shift they cause (0 here) plus the two heavy cells' noise
	 * (8 * 2 * 100 / 1500^2 = 7.1e-4), so the lift uses the two heavy cells
	 * (then shrinks by James-Stein: v = 2 * 100 / 1500^2).
	 */
	{
		double		lcount[HC] = {1000.0, 500.0, 40.0, 40.0};
		double		lsum[HC * HD];
		double		off = 200.0 / 1500.0,
					v = 2.0 * 100.0 / (1500.0 * 1500.0),
					w = 1.0 - (HD - 2) * v / (HD * off * off);

		for (c = 0; c < HC; c++)
			for (j = 0; j < HD; j++)
				lsum[c * HD + j] = c < 2 ? lcount[c] * 0.1 * (c + 1) : (c == 2 ? 5.0 : -5.0);
		dpk_lift_centers_heavy(&(DpkLiftCells) {HD, 1, HC, lcount, lsum, assign},
							   &(DpkLiftRule) {100.0, 1.0, fb, NULL}, b_cent,
							   &size);
		ok = 1;
		for (j = 0; j < HD; j++)
			if (fabs(b_cent[j] - (0.5 + w * off)) > 1e-9)
				ok = 0;
		CHECK(ok && size == 1580.0, "noisy sums: lifted from the two heaviest cells (%g, all cells %g)",
			  b_cent[0], 0.5 + 200.0 / 1580.0);
	}

	/* noise comparable to the offset: pulled part of the way to the fallback */
	dpk_lift_centers_heavy(&(DpkLiftCells) {HD, 1, HC, count, sum, assign},
						   &(DpkLiftRule) {20000.0, 1.0, fb, NULL}, b_cent,
						   NULL);
	CHECK(b_cent[0] > 0.5 && b_cent[0] < 0.5 + 200.0 / 1500.0 - 1e-3,
		  "James-Stein shrinkage toward the fallback (%g)", b_cent[0]);
}

/*
 * A cluster split over two light cells while two others share the heaviest
 * (a projection can do that): lifting from the heaviest cell alone has the
 * least noise but is a whole cluster off, so the lift keeps the light cells
 * and the centre is the mean of all the cells, not the heaviest one's.
 */
static void
test_lift_heavy_split(void)
{
	enum
	{
		HD = 16, HC = 4
	};
	double		count[HC] = {12000.0, 3500.0, 2500.0, 600.0};
	double		offset[HC] = {0.1, -0.2, -0.2, 0.0};
	double		sum[HC * HD];
	int			assign[HC] = {0, 0, 0, 0};
	double		cent[HD];
	int			c,
				j,
				ok = 1;

	for (c = 0; c < HC; c++)
		for (j = 0; j < HD; j++)
			sum[c * HD + j] = count[c] * offset[c];
	/* the cells' sum noise: sd 410 per coordinate, as a d = 64 live release */
	dpk_lift_centers_heavy(&(DpkLiftCells) {HD, 1, HC, count, sum, assign},
						   &(DpkLiftRule) {1.7e5, 1.0, NULL, NULL}, cent, NULL);
	for (j = 0; j < HD; j++)
		if (fabs(cent[j] - 0.5) > 0.03)
			ok = 0;
	CHECK(ok, "split cluster kept: centre %g, the mean of all cells 0.5, the heaviest 0.6",
		  cent[0]);
}


/*
 * The count-weighted lift (large d): the centre is sum C_c S_c / sum C_c^2,
 * not the plain mean of its cells' sums; exact without noise on cells of
 * one mean; its risk is count d v s (James-Stein factor s), 0 without noise.
 */
static void
test_lift_weighted(void)
{
	enum
	{
		WD = 8, WC = 3
	};
	double		count[WC] = {100.0, 10.0, 50.0};
	double		mean[WC] = {0.7, 0.2, 0.3};
	double		sum[WC * WD];
	int			assign[WC] = {0, 0, 1};
	double		cent[2 * WD],
				sizes[2],
				fb[2 * WD],
				risk,
				v,
				dist2 = 0.0,
				sh,
				want;
	int			c,
				j,
				ok = 1;

	for (c = 0; c < WC; c++)
		for (j = 0; j < WD; j++)
			sum[c * WD + j] = count[c] * (mean[c] - 0.5);
	risk = dpk_lift_centers_weighted(&(DpkLiftCells) {WD, 2, WC, count, sum, assign},
									 &(DpkLiftRule) {0.0, 1.0, NULL, NULL},
									 cent, sizes);
	/* (100 * 20 + 10 * (-3)) / (100^2 + 10^2) = 0.195..., plain (20 - 3) / 110 */
	want = 0.5 + (100.0 * 20.0 - 10.0 * 3.0) / (100.0 * 100.0 + 10.0 * 10.0);
	for (j = 0; j < WD; j++)
		if (fabs(cent[j] - want) > 1e-12 || fabs(cent[WD + j] - 0.3) > 1e-12)
			ok = 0;
	CHECK(ok, "weighted lift: centre %.6f want %.6f (plain mean 0.6545), second %.6f",
		  cent[0], want, cent[WD]);
	CHECK(sizes[0] == 110.0 && sizes[1] == 50.0, "weighted sizes %g %g", sizes[0], sizes[1]);
	CHECK(risk == 0.0, "no noise, no risk: %g", risk);

	/* with noise: the risk of centre 1 alone (one cell), shrunk toward fb */
	for (j = 0; j < 2 * WD; j++)
		fb[j] = 0.5;
	assign[0] = assign[1] = -1;
	risk = dpk_lift_centers_weighted(&(DpkLiftCells) {WD, 2, WC, count, sum, assign},
									 &(DpkLiftRule) {4.0, 1.0, fb, NULL}, cent,
									 NULL);
	v = 4.0 / (50.0 * 50.0);
	dist2 = WD * 0.2 * 0.2;
	sh = 1.0 - (WD - 2) * v / dist2;
	CHECK(fabs(risk - 50.0 * WD * v * sh) < 1e-9, "risk %g want %g", risk,
		  50.0 * WD * v * sh);
	CHECK(fabs(cent[WD] - (0.5 - 0.2 * sh)) < 1e-12, "shrunk centre %g want %g", cent[WD],
		  0.5 - 0.2 * sh);
}

/* Squared norm of P (c - mu), the error of centre c in the rows of mat. */
static double
lift_row_err(const double *mat, int dhat, int d, const double *c, const double *mu)
{
	double		err = 0.0;
	int			i,
				j;

	for (i = 0; i < dhat; i++)
	{
		double		r = 0.0;

		for (j = 0; j < d; j++)
			r += mat[i * d + j] * (c[j] - mu[j]);
		err += r * r;
	}
	return err;
}

/*
 * Lifting against a projection's plane: exact on noiseless cells; over
 * repeated noisy draws the error in the plane's rows is the inverse-variance
 * combination's, dhat v var / (v + var), below the plain lift's dhat v; the
 * weighted lift's risk counts it.
 */
static void
test_lift_plane(void)
{
	enum
	{
		PD = 12, PH = 3, TRIALS = 4000
	};
	double		mat[PH * PD];
	double		mu[PD],
				fb[PD],
				sum[PD],
				cent[PD],
				cnt = 100.0,
				v = 4e-4,
				q = 1e-4,
				sum_var = 4e-4 * 100.0 * 100.0,
				row_err = 0.0,
				plain_err = 0.0,
				risk,
				sh,
				dist2 = 0.0,
				want;
	int			assign[1] = {0};
	DpkLiftPlane plane = {PH, mat, 0.0, NULL};
	int			i,
				j,
				n,
				ok = 1;

	/* three orthonormal rows */
	memset(mat, 0, sizeof(mat));
	mat[0 * PD + 0] = mat[0 * PD + 1] = 1.0 / sqrt(2.0);
	mat[1 * PD + 2] = 1.0 / sqrt(2.0);
	mat[1 * PD + 3] = -1.0 / sqrt(2.0);
	for (j = 4; j < 8; j++)
		mat[2 * PD + j] = 0.5;
	for (j = 0; j < PD; j++)
		mu[j] = 0.3 + 0.4 * test_uniform();

	/* noiseless: a fallback off the centre only in the complement */
	for (j = 0; j < PD; j++)
	{
		sum[j] = cnt * (mu[j] - 0.5);
		fb[j] = mu[j];
	}
	fb[8] += 0.1;
	fb[9] -= 0.05;
	dpk_lift_centers_heavy(&(DpkLiftCells) {PD, 1, 1, &cnt, sum, assign},
						   &(DpkLiftRule) {0.0, 1.0, fb, &plane}, cent, NULL);
	for (j = 0; j < PD; j++)
		if (fabs(cent[j] - mu[j]) > 1e-12)
			ok = 0;
	CHECK(ok, "plane lift, noiseless: exact (coordinate 8: %.6f want %.6f)", cent[8], mu[8]);

	/*
	 * A target replaces the fallback's image: with a fallback at the box's
	 * middle, noiseless sums and an exact target P (mu - 1/2), still exact;
	 * with the target 0.05 off in the first row, the centre moves by 0.05
	 * along it when the sums are trusted no more than the target (keep 0).
	 */
	{
		double		y[PH];

		for (i = 0; i < PH; i++)
		{
			y[i] = 0.0;
			for (j = 0; j < PD; j++)
				y[i] += mat[i * PD + j] * (mu[j] - 0.5);
		}
		for (j = 0; j < PD; j++)
			fb[j] = 0.5;
		plane.target = y;
		dpk_lift_centers_heavy(&(DpkLiftCells) {PD, 1, 1, &cnt, sum, assign},
							   &(DpkLiftRule) {0.0, 1.0, fb, &plane}, cent,
							   NULL);
		ok = 1;
		for (j = 0; j < PD; j++)
			if (fabs(cent[j] - mu[j]) > 1e-12)
				ok = 0;
		CHECK(ok, "plane lift, exact target: exact (coordinate 0: %.6f want %.6f)", cent[0],
			  mu[0]);
		y[0] += 0.05;
		dpk_lift_centers_heavy(&(DpkLiftCells) {PD, 1, 1, &cnt, sum, assign},
							   &(DpkLiftRule) {1.0, 1.0, fb, &plane}, cent,
							   NULL);
		CHECK(fabs(lift_row_err(mat, 1, PD, cent, mu) - 0.05 * 0.05) < 1e-12,
			  "plane lift: the target's offset along row 0 (%.6g want %.6g)",
			  lift_row_err(mat, 1, PD, cent, mu), 0.05 * 0.05);
		plane.target = NULL;
	}

	/* noisy sums (variance v per coordinate of the mean), fallback off by q */
	plane.var = q;
	for (n = 0; n < TRIALS; n++)
	{
		double		xi[PH];

		for (j = 0; j < PD; j++)
			sum[j] = cnt * (mu[j] - 0.5) + sqrt(sum_var) * unit_normal(&test_state);
		for (i = 0; i < PH; i++)
		{
			xi[i] = sqrt(q) * unit_normal(&test_state);
			for (j = 0; j < PD; j++)
				xi[i] += mat[i * PD + j] * (mu[j] - 0.5);
		}
		/* the projected centre mapped back: 1/2 + P^T (P (mu - 1/2) + error) */
		for (j = 0; j < PD; j++)
		{
			fb[j] = 0.5;
			for (i = 0; i < PH; i++)
				fb[j] += mat[i * PD + j] * xi[i];
		}
		dpk_lift_centers_weighted(&(DpkLiftCells) {PD, 1, 1, &cnt, sum, assign},
								  &(DpkLiftRule) {sum_var, 1.0, fb, &plane},
								  cent, NULL);
		row_err += lift_row_err(mat, PH, PD, cent, mu) / TRIALS;
		dpk_lift_centers_weighted(&(DpkLiftCells) {PD, 1, 1, &cnt, sum, assign},
								  &(DpkLiftRule) {sum_var, 1.0, fb, NULL}, cent,
								  NULL);
		plain_err += lift_row_err(mat, PH, PD, cent, mu) / TRIALS;
	}
	want = PH * v * q / (v + q);
	CHECK(fabs(row_err / want - 1.0) < 0.06,
		  "plane lift: squared error in the rows %.3g want %.3g", row_err, want);
	CHECK(plain_err > 0.9 * PH * v, "without the plane the rows keep the noise: %.3g (%.3g)",
		  plain_err, PH * v);

	/* the weighted lift's risk: the complement's shrunk error plus the rows' */
	for (j = 0; j < PD; j++)
	{
		fb[j] = 0.5;
		sum[j] = cnt * (mu[j] - 0.5);
	}
	risk = dpk_lift_centers_weighted(&(DpkLiftCells) {PD, 1, 1, &cnt, sum, assign},
									 &(DpkLiftRule) {sum_var, 1.0, fb, &plane},
									 cent, NULL);
	for (j = 0; j < PD; j++)
	{
		double		rj = 0.0;

		for (i = 0; i < PH; i++)
		{
			double		r = 0.0;
			int			l;

			for (l = 0; l < PD; l++)
				r += mat[i * PD + l] * (mu[l] - 0.5);
			rj += r * mat[i * PD + j];
		}
		dist2 += (mu[j] - 0.5 - rj) * (mu[j] - 0.5 - rj);
	}
	sh = 1.0 - (PD - PH - 2) * v / dist2;
	want = cnt * ((PD - PH) * v * sh + PH * v * q / (v + q));
	CHECK(fabs(risk - want) < 1e-9 * want, "plane lift: risk %.6g want %.6g", risk, want);
}


/*
 * dpk_lift_rest_mean: fallbacks move, outside the plane, toward the other
 * centres' pooled mean, weighed by how far it sits from the middle beyond
 * the centres' spread and its noise.
 */
static void
test_lift_rest_mean(void)
{
	enum
	{
		D = 12, K = 3
	};
	double		rows[2 * D],
				tot[K * D],
				ww[K],
				fb[K * D],
				fb0[K * D],
				off[K][D],
				err = 0.0;
	int			a,
				j;

	/* the plane: the first two coordinate axes */
	memset(rows, 0, sizeof(rows));
	rows[0] = 1.0;
	rows[D + 1] = 1.0;

	/*
	 * Noiseless, every centre's mean at the same offset -0.2 (plus its own
	 * values in the plane): no spread, so each fallback moves by exactly
	 * that offset outside the plane and keeps its plane coordinates.
	 */
	for (a = 0; a < K; a++)
	{
		ww[a] = 100.0 * (a + 1) * (a + 1);
		for (j = 0; j < D; j++)
		{
			off[a][j] = j < 2 ? 0.1 * (a + 1) : -0.2;
			tot[a * D + j] = ww[a] * off[a][j];
			fb[a * D + j] = fb0[a * D + j] = j < 2 ? 0.5 + off[a][j] : 0.5;
		}
	}
	dpk_lift_rest_mean(D, K, tot, ww, 0.0, rows, 2, fb);
	for (a = 0; a < K; a++)
		for (j = 0; j < D; j++)
			err = fmax(err, fabs(fb[a * D + j] - (0.5 + off[a][j])));
	CHECK(err < 1e-12, "noiseless common offset: fallbacks moved to it (%g)", err);

	/*
	 * Leave-one-out: centre 0 alone at +0.3 outside the plane, the others at
	 * -0.2 (weights 100, 400, 900).  Spread t2 = 1/12 per direction, n = 10:
	 * centre 0's target g = -0.2 (the others only), f = 1 - 8 (t2 / 2) /
	 * 0.4 = 1/6, so it moves by -0.2 / 6; centre 1's g = -0.15 mixes in
	 * centre 0's +0.3 and f = 1 - 8 (t2 / 2) / 0.225 < 0: no move.  (With
	 * its own sums in the pool centre 0's f would be negative too.)
	 */
	for (j = 2; j < D; j++)
	{
		tot[0 * D + j] = ww[0] * 0.3;
		fb[0 * D + j] = fb[1 * D + j] = fb[2 * D + j] = 0.5;
	}
	dpk_lift_rest_mean(D, K, tot, ww, 0.0, rows, 2, fb);
	CHECK(fabs(fb[0 * D + 5] - (0.5 - 0.2 / 6.0)) < 1e-12,
		  "centre 0 moves by f g = -0.2 / 6: %g", fb[0 * D + 5]);
	CHECK(fb[1 * D + 5] == 0.5, "centre 1 does not move: %g", fb[1 * D + 5]);
	CHECK(fabs(fb[0 * D + 5] - fb[0 * D + 9]) < 1e-12 && fb[0 * D + 0] == fb0[0 * D + 0],
		  "the same move on every direction outside the plane, none inside");

	/*
	 * Centred: the centres at +-0.2 about the middle, so their pooled mean
	 * sits at the middle up to their spread: no move.
	 */
	for (a = 0; a < K; a++)
		for (j = 0; j < D; j++)
		{
			double		o = j < 2 ? 0.0 : (a == 0 ? 0.2 : (a == 1 ? -0.2 : ((j & 1) ? 0.2 : -0.2)));

			ww[a] = 100.0;
			tot[a * D + j] = ww[a] * o;
			fb[a * D + j] = 0.5;
		}
	dpk_lift_rest_mean(D, K, tot, ww, 0.0, rows, 2, fb);
	err = 0.0;
	for (j = 0; j < K * D; j++)
		err = fmax(err, fabs(fb[j] - 0.5));
	CHECK(err < 1e-12, "centred centres: no move (%g)", err);

	/*
	 * Noise: a common offset of 0.05 per direction against noise whose
	 * variance over the pooled weight (0.01 / 200 per coordinate) is small:
	 * f close to 1; the same offset drowned in noise of variance 4 / 200:
	 * f = 0.  One centre alone (k = 1) never moves.
	 */
	for (a = 0; a < K; a++)
		for (j = 0; j < D; j++)
		{
			ww[a] = 100.0;
			tot[a * D + j] = ww[a] * (j < 2 ? 0.0 : 0.05);
			fb[a * D + j] = 0.5;
		}
	dpk_lift_rest_mean(D, K, tot, ww, 0.01, rows, 2, fb);
	CHECK(fb[D + 4] > 0.5 + 0.05 * 0.9 && fb[D + 4] <= 0.55 + 1e-12,
		  "small noise: the offset nearly taken (%g)", fb[D + 4]);
	for (j = 0; j < K * D; j++)
		fb[j] = 0.5;
	dpk_lift_rest_mean(D, K, tot, ww, 4.0, rows, 2, fb);
	CHECK(fb[D + 4] == 0.5, "noise far above the offset: no move (%g)", fb[D + 4]);
	dpk_lift_rest_mean(D, 1, tot, ww, 0.0, rows, 2, fb);
	CHECK(fb[4] == 0.5, "k = 1: no move (%g)", fb[4]);
}

/*
 * The lifting sums' rounding without llround: the same integer as
 * llround((clamp(u) - 1/2) U) on every double u at and around the halves
 * (each step of 1/U, the half-steps between them and their neighbours one
 * and two ulps away, both signs of zero, the box's faces and beyond) and on
 * random ones; dpk_lift_quantize returns its coordinates and their norm.
 */
static void
test_lift_rounding(void)
{
	int			bad = 0,
				i,
				a;

	for (i = -2; i <= 2 * DPK_LIFT_UNITS + 2; i++)
	{
		double		base = (double) i / (2.0 * DPK_LIFT_UNITS);

		for (a = -2; a <= 2; a++)
		{
			double		u = base;
			int			b;

			for (b = 0; b < (a < 0 ? -a : a); b++)
				u = nextafter(u, a < 0 ? -INFINITY : INFINITY);
			{
				double		v = u < 0.0 ? 0.0 : (u > 1.0 ? 1.0 : u);

				bad += dpk_lift_quantize_one(u) != (int64_t) llround((v - 0.5) * DPK_LIFT_UNITS);
			}
		}
	}
	for (i = 0; i < 1000000; i++)
	{
		double		u = i % 1000 == 0 ? -0.0 : 1.2 * test_uniform() - 0.1;
		double		v = u < 0.0 ? 0.0 : (u > 1.0 ? 1.0 : u);

		bad += dpk_lift_quantize_one(u) != (int64_t) llround((v - 0.5) * DPK_LIFT_UNITS);
	}
	CHECK(bad == 0, "%d roundings differ from llround's", bad);
	{
		double		u[5] = {0.0, 1.0, 0.5, 0.5 + 0.5 / DPK_LIFT_UNITS, 0.5 - 0.5 / DPK_LIFT_UNITS};
		int64_t		q[5];

		CHECK(dpk_lift_quantize(5, u, q) == 512 * 512 * 2 + 2 &&
			  q[0] == -512 && q[1] == 512 && q[2] == 0 && q[3] == 1 && q[4] == -1,
			  "quantized corners and halves");
	}
}

int
main(void)
{
	test_lift_rounding();
	test_lifting();
	test_lift_heavy();
	test_lift_heavy_split();
	test_lift_weighted();
	test_lift_plane();
	test_lift_rest_mean();
	UNIT_DONE("test_lift");
}
