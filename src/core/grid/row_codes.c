/*
 * row_codes.c
 *		Codes of the rows a one-shot keeps: 16-bit metric positions, 32-bit
 *		positions in the box (see row_codes.h).
 *
 * Both directions run four coordinates at a time where the CPU has AVX2,
 * with the scalar form's operations in the same order (a clamp, one
 * multiply, one add, a truncation), so the same codes and positions.
 */
#include "row_codes.h"

#include "dpk_mem.h"

/* One coordinate's code: clamped into [0, 1] (NaN to 0), then rounded. */
static inline uint16_t
pack_one(double v)
{
	v = v > 0.0 ? v : 0.0;
	v = v < 1.0 ? v : 1.0;
	return (uint16_t) (v * DPK_ROW_CODE_STEPS + 0.5);
}

/* One code's position (the reciprocal's rounding could give a hair above 1). */
static inline double
unpack_one(uint16_t c)
{
	double		v = c * (1.0 / DPK_ROW_CODE_STEPS);

	return v < 1.0 ? v : 1.0;
}

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>

#include "cpu.h"

/*
 * pack_one of four coordinates: MAXPD returns its second operand (0) for
 * NaN as the scalar test does, MINPD its first below 1; the truncation of
 * at most 65535.5 fits 32 bits, and unsigned saturation keeps it.
 */
__attribute__((target("avx2"))) static void
pack4(const double *u, uint16_t *code)
{
	__m256d		v = _mm256_max_pd(_mm256_loadu_pd(u), _mm256_setzero_pd());
	__m128i		r;

	v = _mm256_min_pd(v, _mm256_set1_pd(1.0));
	v = _mm256_add_pd(_mm256_mul_pd(v, _mm256_set1_pd(DPK_ROW_CODE_STEPS)),
					  _mm256_set1_pd(0.5));
	r = _mm256_cvttpd_epi32(v);
	_mm_storel_epi64((__m128i *) code, _mm_packus_epi32(r, r));
}

/* unpack_one of four codes. */
__attribute__((target("avx2"))) static void
unpack4(const uint16_t *code, double *u)
{
	__m128i		c = _mm_cvtepu16_epi32(_mm_loadl_epi64((const __m128i *) code));
	__m256d		v = _mm256_mul_pd(_mm256_cvtepi32_pd(c),
								  _mm256_set1_pd(1.0 / DPK_ROW_CODE_STEPS));

	_mm256_storeu_pd(u, _mm256_min_pd(v, _mm256_set1_pd(1.0)));
}
#endif

/* Metric positions as codes (see row_codes.h). */
void
dpk_row_codes_pack(const double *u, size_t rows, int d, uint16_t *code)
{
	size_t		i = 0,
				n = rows * (size_t) d;

#if defined(__GNUC__) && defined(__x86_64__)
	if (dpk_cpu_has_avx2())
		for (; i + 4 <= n; i += 4)
			pack4(u + i, code + i);
#endif
	for (; i < n; i++)
		code[i] = pack_one(u[i]);
}

/* Codes as metric positions within the ball (see row_codes.h). */
void
dpk_row_codes_unpack(const uint16_t *code, size_t rows, int d, double ball, double *u)
{
	size_t		i = 0,
				n = rows * (size_t) d;

#if defined(__GNUC__) && defined(__x86_64__)
	if (dpk_cpu_has_avx2())
		for (; i + 4 <= n; i += 4)
			unpack4(code + i, u + i);
#endif
	for (; i < n; i++)
		u[i] = unpack_one(code[i]);
	if (ball > 0.0)
		for (i = 0; i < rows; i++)
			dpk_box_ball_clamp(d, ball, u + i * d);
}

/* A box's coder (see row_codes.h). */
void
dpk_box_coder_init(DpkBoxCoder *bc, const DpkBox *box)
{
	int			j;

	bc->d = box->d;
	bc->lower = dpk_alloc(sizeof(double) * box->d);
	bc->to_code = dpk_alloc(sizeof(double) * box->d);
	bc->from_code = dpk_alloc(sizeof(double) * box->d);
	for (j = 0; j < box->d; j++)
	{
		double		w = box->upper[j] - box->lower[j];

		bc->lower[j] = box->lower[j];
		bc->to_code[j] = DPK_ROW_WIDE_STEPS / w;
		bc->from_code[j] = w / DPK_ROW_WIDE_STEPS;
	}
}

/* Free a box's coder. */
void
dpk_box_coder_free(DpkBoxCoder *bc)
{
	dpk_free(bc->lower);
	dpk_free(bc->to_code);
	dpk_free(bc->from_code);
}

/* Wide codes as points in the box's units (see row_codes.h). */
void
dpk_row_codes_unpack_box(const DpkBoxCoder *bc, const uint32_t *code, size_t rows, double *x)
{
	int			d = bc->d,
				j;
	size_t		i;

	for (i = 0; i < rows; i++)
		for (j = 0; j < d; j++)
			x[i * d + j] = bc->lower[j] + code[i * d + j] * bc->from_code[j];
}
