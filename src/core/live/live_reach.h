/*
 * live_reach.h
 *		Projected live tables in metric positions: the cells of a copy's
 *		grid that points of the box can reach (public: box and projection).
 */
#ifndef DPK_LIVE_REACH_H
#define DPK_LIVE_REACH_H

#include <stdint.h>

#include "grid.h"
#include "live_core.h"

struct DpkProjection;

/*
 * Metric positions of a box lie within half_range[j] = w_j / (2 w_max) of
 * 1/2 in coordinate j: for a projected table in metric positions these d
 * values (dpk_alloc'ed, the caller frees them), NULL for tables in
 * normalized positions (and with DPK_LIVE_REACH 0).
 */
#ifndef DPK_LIVE_REACH
#define DPK_LIVE_REACH 1
#endif
double	   *dpk_live_half_range(const DpkLiveConfig *cfg, const DpkBox *box);

/*
 * The cells of a copy's grid (m per dimension) that points within
 * half_range of the box's middle can reach: dpk_project_batch maps
 * 1/2 + v, |v_j| <= half_range[j], within e_i = sum_j |P_ij| half_range[j]
 * of the middle's image in projected dimension i, so only the cells whose
 * index lies in that band in every dimension hold points.  reach[c]
 * (m^dhat bytes) is 1 for them, 0 for the others; returns how many.
 * Public: the box and the projection only.
 */
double		dpk_live_projected_reach(const struct DpkProjection *proj,
									 const double *half_range, int m, uint8_t *reach);

/*
 * A projected release's copy: zero the noisy counts and lifting sums (d
 * per cell) of the cells no point of the box can reach (noise only) and
 * return how many cells remain, the coreset threshold's cell count; 0 (all
 * m^dhat, nothing changed) for tables in normalized positions.  With
 * prices beside carats most of the projected grid is out of reach, and
 * its noise would otherwise pass the threshold and pull centres.
 */
double		dpk_live_zero_unreachable(const DpkLiveConfig *cfg, const DpkBox *box,
									  const struct DpkProjection *proj, double *count,
									  double *sum);

/*
 * The reach of every copy of a projected table in metric positions
 * (copies * cells bytes, dpk_alloc'ed, the caller frees it; 1: a point of
 * the box can land there), NULL for tables in normalized positions.
 */
uint8_t    *dpk_live_reach_mask(const DpkLiveConfig *cfg, const DpkBox *box);

/*
 * dpk_live_noisy_projected with the cells of reach[c] == 0 (NULL: none)
 * released as exact zeros: no point can be there, so their counts and sums
 * are zero on every table with that box and projection, and leaving out
 * their noise spends nothing; it also saves drawing it at fine levels,
 * where nearly every cell of a box with one wide side is out of reach.
 * sum NULL: the counts and the norm counter only, the same draws (a table
 * lifting by regions keeps no per-cell sums).
 */
void		dpk_live_noisy_projected_reach(const DpkLiveConfig *cfg, const uint8_t *reach,
										   const uint8_t key[DPK_KEY_BYTES],
										   const DpkCellMap *state, uint32_t t,
										   DpkStream *s, double *count, double *sum,
										   double *sumnorm);

/*
 * The noise alone of a Gaussian projected table's cells c0 .. c1 - 1 (every
 * copy's cells in a row, as dpk_live_noisy_projected_reach numbers them) at
 * release t: 1 + d int64 per cell (count, then the sums when sums is true,
 * else 1), zero for a cell with reach[c] == 0.  The draws
 * dpk_live_noisy_projected_reach adds to those cells' true values: every
 * cell's noise has its own nonces, so any process computes any range.
 */
void		dpk_live_projected_noise_range(const DpkLiveConfig *cfg, const uint8_t *reach,
										   const uint8_t key[DPK_KEY_BYTES], uint32_t t,
										   bool sums, uint64_t c0, uint64_t c1, int64_t *out);

/*
 * Drawing a Gaussian projected release's noise in other processes: the
 * glue (src/api/release_noise.c) sets dpk_live_noise_split in a release's
 * worker.  begin, given the table, the reach mask (or NULL), key, t, whether
 * sums are drawn and the number of cells, starts drawing the cells from
 * *split on elsewhere and returns a handle, or NULL (nothing split) when
 * that does not pay; finish waits and returns the noise of cells *split ..
 * total - 1, in dpk_live_projected_noise_range's layout; end releases it.
 */
typedef struct DpkNoiseSplit
{
	void	   *(*begin) (const DpkLiveConfig *cfg, const uint8_t *reach,
						  const uint8_t key[DPK_KEY_BYTES], uint32_t t, bool sums,
						  uint64_t total, uint64_t *split);
	const int64_t *(*finish) (void *handle);
	void		(*end) (void *handle);
} DpkNoiseSplit;

extern const DpkNoiseSplit *dpk_live_noise_split;

/* dpk_live_noisy_projected_reach with the box's dpk_live_reach_mask. */
void		dpk_live_noisy_projected_box(const DpkLiveConfig *cfg, const DpkBox *box,
										 const uint8_t key[DPK_KEY_BYTES],
										 const DpkCellMap *state, uint32_t t,
										 DpkStream *s, double *count, double *sum,
										 double *sumnorm);

/*
 * The counted level of a projected table in metric positions whose box
 * reaches only part of the grid at `level` (the rule's choice): the level
 * in [0, max_level] that minimizes RUGNIK's cost bound (dpk_rugnik_bound)
 * with its noise term summed over the reachable cells of copy 0's grid,
 * sqrt(2 R(L)) / (eps k^(2/dhat)), instead of over all m^dhat; `level`
 * itself when every cell is reachable there (cube boxes), so tables of
 * such boxes keep their level.  Public: box, projection seed, size hint,
 * epsilon.  On the diamonds (doc/decisions/016-boxes-with-wide-sides.md) the bound
 * over all cells asks for m = 4 or 8 and the box's image crosses 18-24 of
 * the 4096 cells at level 3; over the reachable cells it asks for level 4
 * (window, 13 488 rows) and 5 (all 53 940 rows, capped to 4).
 */
int			dpk_live_reach_level(const DpkLiveConfig *cfg, const DpkBox *box,
								 double size_hint, int level, int max_level);

/*
 * The reach rule's finest level: at most this many cells per copy (the
 * release computes and stores every cell of the counted level).
 */
#define DPK_LIVE_REACH_MAX_CELLS 65536.0

#endif							/* DPK_LIVE_REACH_H */
