/*
 * highd_int.h
 *		Helpers shared by the high-dimensional pipeline's own files
 *		(highd.c, highd_cluster.c, highd_tree.c, kmedian_lifted.c); not part
 *		of highd.h's interface.
 */
#ifndef HIGHD_INT_H
#define HIGHD_INT_H

#include <stddef.h>
#include <stdint.h>

#include "highd.h"

/*
 * Rows of chunk `done` of the input in metric positions, into u or read in
 * place (through pl->rows: into u); their count in *rows.
 */
const double *dpk_highd_load_chunk(const DpkHighdPlan *pl, size_t done, double *u,
								   size_t *rows);

/*
 * Where the plan's per-row columns go beyond their budget: its reader's
 * spill, NULL (all in memory) for rows in an array.
 */
static inline const DpkHighdSpill *
dpk_highd_plan_spill(const DpkHighdPlan *pl)
{
	return pl->rows ? pl->rows->spill : NULL;
}

/*
 * Rows uc (rows of d metric coordinates) added to their parts: gc[label]
 * counts them and, with gs, gs[label * d ..] their fixed-point sums
 * (dpk_lift_quantize_add).
 */
void		dpk_highd_rows_add(int d, const double *uc, size_t rows, const int *label,
							   int64_t *gc, int64_t *gs);

/*
 * dpk_highd_partition_stats's draws on counts already made: part g's count
 * gc[g] plus noise into cnt[g] and, with gs (nlabels * d fixed-point sums,
 * noised in place), its noisy sums / DPK_LIFT_UNITS into sum; the draws in
 * part order, each part's count before its sums.
 */
void		dpk_highd_partition_noise(int d, int nlabels, const int64_t *gc, int64_t *gs,
									  const DpkNoise *count_noise, const DpkNoise *sum_noise,
									  DpkStream *s, double *cnt, double *sum);

/*
 * Fallback rows' parts outside the projection's row space moved toward the
 * other centres' noisy mean there, from noisy counts and sums only.
 */
void		dpk_highd_cells_rest_mean(const DpkProjection *p, uint64_t nl,
									  const double *lcount, const double *sum,
									  double sum_var, const int *assign, int k,
									  double *fallback);

#endif							/* HIGHD_INT_H */
