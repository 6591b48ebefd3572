/*
 * row_codes.h
 *		A one-shot's rows kept until its passes have read them: from 6
 *		columns as 16-bit codes of their metric positions, below as 32-bit
 *		codes of their positions in the box.
 *
 * dp_kmeans keeps every row until the one-shot's passes have read it, beyond
 * work_mem in a temporary file (doc/decisions/063).  At 8 bytes a coordinate
 * that file was most of a large call's time; at 2 it is a quarter of it
 * (doc/decisions/088).  A metric position lies in [0, 1] (grid.h); it is kept
 * as the nearest of DPK_ROW_CODE_STEPS + 1 evenly spaced values, 64 times
 * finer than the lifting sums' fixed point (DPK_LIFT_UNITS steps a box
 * width, lift.h), the finest thing the passes resolve.
 *
 * A row read back is moved into the norm bound's ball again: a code's
 * rounding can move a position out of it by up to sqrt(d) / (2 STEPS), and
 * every noisy quantity's sensitivity assumes the rows within it.  So the
 * one-shot is the same mechanism on rows mapped one by one, each within the
 * box and the ball.
 *
 * Plain C, no PostgreSQL headers.
 */
#ifndef DPK_ROW_CODES_H
#define DPK_ROW_CODES_H

#include <stddef.h>
#include <stdint.h>

#include "grid.h"

/* The largest code: a metric position of 1. */
#define DPK_ROW_CODE_STEPS 65535

/*
 * rows metric positions of d coordinates (u, in [0, 1]; anything else is
 * clamped there first, NaN to 0) as codes: round(u * DPK_ROW_CODE_STEPS).
 */
void		dpk_row_codes_pack(const double *u, size_t rows, int d, uint16_t *code);

/*
 * The metric positions of rows coded rows (code / DPK_ROW_CODE_STEPS, at
 * most 1), each then moved into the ball of radius ball around the box's
 * middle (dpk_box_ball_clamp; ball 0: none).
 */
void		dpk_row_codes_unpack(const uint16_t *code, size_t rows, int d, double ball,
								 double *u);

/*
 * Below 6 columns the one-shot's grid resolves more, up to 2 048 cells a side
 * times DPK_REL_UNITS in-cell steps at 2 columns (grid.h): there a row is
 * kept as 4 bytes a coordinate, its position along each side of the box
 * rounded to the nearest of DPK_ROW_WIDE_STEPS + 1 evenly spaced values
 * (a wide code), and read back in the box's units.
 */
#define DPK_ROW_WIDE_STEPS 4294967295.0

/*
 * A box's sides as wide codes need them: the lower corner, the codes a
 * unit of each side spans and the reverse (dpk_box_coder_free frees them).
 */
typedef struct DpkBoxCoder
{
	int			d;
	double	   *lower;
	double	   *to_code;		/* DPK_ROW_WIDE_STEPS / width */
	double	   *from_code;		/* width / DPK_ROW_WIDE_STEPS */
} DpkBoxCoder;

void		dpk_box_coder_init(DpkBoxCoder *bc, const DpkBox *box);
void		dpk_box_coder_free(DpkBoxCoder *bc);

/*
 * rows of x (d coordinates each) as wide codes: round((x - lower) to_code)
 * clamped into [0, DPK_ROW_WIDE_STEPS] (NaN to 0).  Inline: dp_kmeans codes
 * each row as it arrives.
 */
static inline void
dpk_row_codes_pack_box(const DpkBoxCoder *bc, const double *x, size_t rows, uint32_t *code)
{
	int			d = bc->d,
				j;
	size_t		i;

	for (i = 0; i < rows; i++)
		for (j = 0; j < d; j++)
		{
			double		v = (x[i * d + j] - bc->lower[j]) * bc->to_code[j];

			/* NaN fails both tests and is coded as the lower side */
			v = v > 0.0 ? v : 0.0;
			v = v < DPK_ROW_WIDE_STEPS ? v : DPK_ROW_WIDE_STEPS;
			code[i * d + j] = (uint32_t) (v + 0.5);
		}
}

/* The points of rows wide codes, in the box's units: lower + code from_code. */
void		dpk_row_codes_unpack_box(const DpkBoxCoder *bc, const uint32_t *code, size_t rows,
									 double *x);

#endif							/* DPK_ROW_CODES_H */
