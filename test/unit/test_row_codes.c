/*
 * test_row_codes.c
 *		The 16-bit codes a high-dimensional dp_kmeans keeps its rows as
 *		(row_codes.h).
 *
 * Codes are round(u 65535) of u clamped into [0, 1] (NaN as 0), whichever
 * path the CPU takes, and a position read back is within half a step of
 * the clamped one.  Rows read back lie in the norm bound's ball, the
 * bound every sensitivity assumes (dpk_lift_point_l2's slack of 1e-9):
 * the codes' rounding alone moves many rows of the ball's surface out of
 * it.  A one-shot through a reader of codes is the one-shot of the
 * positions they decode to.  Below 6 columns, 32-bit codes of positions in
 * the box: their definition, and points read back within the box and half
 * a step of the clamped point.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dpk_mem.h"
#include "grid.h"
#include "highd.h"
#include "row_codes.h"
#include "unit.h"
#include "unit_stream.h"

enum
{
	D = 16, N = 6000, K = 4
};

/* The codes' definition, written out: round half up of the clamped position. */
static uint16_t
code_of(double v)
{
	if (!(v > 0.0))
		return 0;
	if (v >= 1.0)
		return DPK_ROW_CODE_STEPS;
	return (uint16_t) floor(v * DPK_ROW_CODE_STEPS + 0.5);
}

/* Codes and positions against their definitions, edge values included. */
static void
check_round_trip(void)
{
	static const double edges[] = {0.0, -0.0, 1.0, 0.5, -1e-300, 1.0 + 1e-15, -3.0, 7.0,
		NAN, INFINITY, -INFINITY, 0.5 / DPK_ROW_CODE_STEPS, 1.5 / DPK_ROW_CODE_STEPS,
	1.0 - 0.5 / DPK_ROW_CODE_STEPS, 4e-6, 0.999999};
	enum
	{
		M = 200003				/* not a multiple of 4: the tail too */
	};
	double	   *u = dpk_alloc(sizeof(double) * M),
			   *back = dpk_alloc(sizeof(double) * M);
	uint16_t   *c = dpk_alloc(sizeof(uint16_t) * M);
	uint64_t	st = 17;
	size_t		i,
				wrong = 0,
				far = 0,
				above = 0;
	double		worst = 0.0;

	for (i = 0; i < M; i++)
		u[i] = i < sizeof(edges) / sizeof(edges[0]) ? edges[i]
			: i % 3 == 0 ? (double) (i % 65536) / DPK_ROW_CODE_STEPS + (unit_uniform(&st) - 0.5) * 1e-12
			: 1.2 * unit_uniform(&st) - 0.1;
	dpk_row_codes_pack(u, M, 1, c);
	dpk_row_codes_unpack(c, M, 1, 0.0, back);
	for (i = 0; i < M; i++)
	{
		double		v = !(u[i] > 0.0) ? 0.0 : u[i] < 1.0 ? u[i] : 1.0,
					e = fabs(back[i] - v);

		wrong += c[i] != code_of(u[i]);
		above += !(back[i] >= 0.0 && back[i] <= 1.0);
		far += e > 0.5 / DPK_ROW_CODE_STEPS + 1e-15;
		worst = e > worst ? e : worst;
	}
	CHECK(wrong == 0, "%zu of %d codes differ from round(u 65535)", wrong, M);
	CHECK(above == 0, "%zu positions read back outside [0, 1]", above);
	CHECK(far == 0, "%zu positions more than half a step away (worst %g)", far, worst);
	CHECK(c[0] == 0 && c[2] == DPK_ROW_CODE_STEPS && c[3] == 32768 && c[8] == 0 &&
		  back[2] == 1.0 && back[0] == 0.0, "0, 1, 1/2 and NaN coded %u %u %u %u",
		  c[0], c[2], c[3], c[8]);
	dpk_free(u);
	dpk_free(back);
	dpk_free(c);
}

/* Rows on a ball's surface read back within it; without the clamp, not all. */
static void
check_ball(void)
{
	const double ball = 0.37;
	double	   *u = dpk_alloc(sizeof(double) * N * D),
			   *back = dpk_alloc(sizeof(double) * N * D),
			   *raw = dpk_alloc(sizeof(double) * N * D);
	uint16_t   *c = dpk_alloc(sizeof(uint16_t) * N * D);
	uint64_t	st = 5;
	size_t		i,
				outside = 0,
				raw_outside = 0;
	int			j;

	for (i = 0; i < N; i++)
	{
		double		s = 0.0;

		for (j = 0; j < D; j++)
		{
			u[i * D + j] = unit_normal(&st);
			s += u[i * D + j] * u[i * D + j];
		}
		/* on the surface: scaled past it, then clamped as dp_kmeans clamps */
		for (j = 0; j < D; j++)
			u[i * D + j] = 0.5 + u[i * D + j] * 2.0 * ball / sqrt(s);
		dpk_box_ball_clamp(D, ball, u + i * D);
	}
	dpk_row_codes_pack(u, N, D, c);
	dpk_row_codes_unpack(c, N, D, ball, back);
	dpk_row_codes_unpack(c, N, D, 0.0, raw);
	for (i = 0; i < N; i++)
	{
		double		s = 0.0,
					r = 0.0;

		for (j = 0; j < D; j++)
		{
			s += (back[i * D + j] - 0.5) * (back[i * D + j] - 0.5);
			r += (raw[i * D + j] - 0.5) * (raw[i * D + j] - 0.5);
		}
		outside += sqrt(s) > ball * (1.0 + 1e-9);
		raw_outside += sqrt(r) > ball * (1.0 + 1e-9);
	}
	CHECK(outside == 0, "%zu of %d rows read back outside the ball", outside, N);
	CHECK(raw_outside > N / 10, "the codes' rounding alone left only %zu of %d rows outside "
		  "(the check above would not see a missing clamp)", raw_outside, N);
	dpk_free(u);
	dpk_free(back);
	dpk_free(raw);
	dpk_free(c);
}

/* A DpkHighdRows over an array of codes. */
typedef struct CodedRows
{
	const uint16_t *c;
	double		ball;
} CodedRows;

/* read for DpkHighdRows: rows from .. from + rows - 1, decoded. */
static void
coded_read(void *arg, size_t from, size_t rows, double *out)
{
	const CodedRows *cr = arg;

	dpk_row_codes_unpack(cr->c + from * D, rows, D, cr->ball, out);
}

/* The one-shot through the codes is the one-shot of what they decode to. */
static void
check_oneshot(double norm_bound, double delta)
{
	double		lo[D],
				hi[D];
	DpkBox		box = {D, lo, hi};
	DpkHighdConfig cfg;
	double	   *x = dpk_alloc(sizeof(double) * N * D),
			   *back = dpk_alloc(sizeof(double) * N * D);
	uint16_t   *c = dpk_alloc(sizeof(uint16_t) * N * D);
	uint64_t	st = 11;
	DpkOneshotResult a = {0},
				b = {0};
	DpkStream	s;
	size_t		i;
	int			j;

	for (j = 0; j < D; j++)
	{
		lo[j] = 0.0;
		hi[j] = j % 3 ? 100.0 : 40.0;	/* narrow sides: metric positions */
	}
	for (i = 0; i < N; i++)
	{
		int			g = (int) (unit_uniform(&st) * K);

		for (j = 0; j < D; j++)
			x[i * D + j] = 10.0 + 7.0 * ((g + j) % K) + 4.0 * unit_normal(&st);
	}
	dpk_highd_defaults(&cfg, 1.0, K);
	dpk_highd_use_delta(&cfg, delta);
	dpk_highd_use_ball(&cfg, &box, norm_bound);
	dpk_highd_metric_points(&box, &cfg, x, N);
	dpk_row_codes_pack(x, N, D, c);
	dpk_row_codes_unpack(c, N, D, cfg.ball, back);

	unit_open_stream(&s, 3);
	dpk_highd_oneshot_cluster(&box, back, N, &cfg, &s, &a);
	dpk_stream_close(&s);
	unit_open_stream(&s, 3);
	dpk_highd_oneshot_cluster_rows(&box, &(DpkHighdRows) {coded_read, &(CodedRows) {c, cfg.ball},
														  NULL}, N, &cfg, &s, &b);
	dpk_stream_close(&s);
	CHECK(a.noisy_n == b.noisy_n && a.coreset_size == b.coreset_size &&
		  memcmp(a.centers, b.centers, sizeof(double) * K * D) == 0 &&
		  memcmp(a.sizes, b.sizes, sizeof(double) * K) == 0,
		  "norm bound %g, delta %g: the one-shot through codes differs", norm_bound, delta);
	dpk_oneshot_result_free(&a);
	dpk_oneshot_result_free(&b);
	dpk_free(x);
	dpk_free(back);
	dpk_free(c);
}

/* Wide codes of points in a box: their definition, and read back within half a step. */
static void
check_box_codes(void)
{
	static const double lo[3] = {-74.3, 0.0, -1e6},
				hi[3] = {-73.7, 1.0, 3e6};
	enum
	{
		M = 100001
	};
	DpkBox		box = {3, lo, hi};
	DpkBoxCoder bc;
	double	   *x = dpk_alloc(sizeof(double) * M * 3),
			   *back = dpk_alloc(sizeof(double) * M * 3);
	uint32_t   *c = dpk_alloc(sizeof(uint32_t) * M * 3);
	uint64_t	st = 23;
	size_t		i,
				wrong = 0,
				outside = 0,
				far = 0;
	int			j;

	for (i = 0; i < M; i++)
		for (j = 0; j < 3; j++)
			x[i * 3 + j] = i == 0 ? lo[j] : i == 1 ? hi[j] : i == 2 ? lo[j] - 5.0 :
				i == 3 ? NAN : lo[j] + (1.1 * unit_uniform(&st) - 0.05) * (hi[j] - lo[j]);
	dpk_box_coder_init(&bc, &box);
	dpk_row_codes_pack_box(&bc, x, M, c);
	dpk_row_codes_unpack_box(&bc, c, M, back);
	for (i = 0; i < M; i++)
		for (j = 0; j < 3; j++)
		{
			double		w = hi[j] - lo[j],
						v = (x[i * 3 + j] - lo[j]) * (DPK_ROW_WIDE_STEPS / w),
						s = !(v > 0.0) ? 0.0 : v < DPK_ROW_WIDE_STEPS ? v : DPK_ROW_WIDE_STEPS,
						u = s / DPK_ROW_WIDE_STEPS;

			wrong += c[i * 3 + j] != (uint32_t) floor(s + 0.5);
			outside += !(back[i * 3 + j] >= lo[j] - 1e-9 * w && back[i * 3 + j] <= hi[j] + 1e-9 * w);
			far += fabs(back[i * 3 + j] - (lo[j] + u * w)) > (0.5 / DPK_ROW_WIDE_STEPS + 1e-15) * w;
		}
	CHECK(wrong == 0, "%zu wide codes differ from round((x - lower) (2^32 - 1) / width)", wrong);
	CHECK(outside == 0, "%zu coordinates read back outside the box", outside);
	CHECK(far == 0, "%zu coordinates read back more than half a step away", far);
	CHECK(c[0] == 0 && c[3] == UINT32_MAX && c[6] == 0 && c[9] == 0 && back[0] == lo[0],
		  "the lower side, the upper side, below it and NaN coded %u %u %u %u",
		  c[0], c[3], c[6], c[9]);
	dpk_box_coder_free(&bc);
	dpk_free(x);
	dpk_free(back);
	dpk_free(c);
}

int
main(void)
{
	check_box_codes();
	check_round_trip();
	check_ball();
	check_oneshot(0.0, 0.0);
	check_oneshot(30.0, 0.0);
	check_oneshot(30.0, 1e-6);
	UNIT_DONE("test_row_codes");
}
