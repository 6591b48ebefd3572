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
 * Fallback rows' parts outside the projection's row space moved toward the
 * other centres' noisy mean there, from noisy counts and sums only.
 */
void		dpk_highd_cells_rest_mean(const DpkProjection *p, uint64_t nl,
									  const double *lcount, const double *sum,
									  double sum_var, const int *assign, int k,
									  double *fallback);

#endif							/* HIGHD_INT_H */
