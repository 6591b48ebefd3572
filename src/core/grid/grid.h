/*
 * grid.h
 *		The declared box, clamping, uniform grids and dense noisy histograms.
 *
 * The partition of the box into m^d equal cells is fixed before any data is
 * seen ("Differential Privacy for Clustering Under Continual Observation",
 * section 3; "On the Optimal Number of Grids for Differentially Private
 * Non-Interactive K-Means Clustering"; doc/design.md, section "Grids").
 * Coordinates inside a cell are kept on a fixed-point integer grid of
 * DPK_REL_UNITS steps per cell width so that per-cell sums are integers:
 * insertions and deletions cancel exactly and the noise on them can be
 * discrete.
 */
#ifndef DPK_GRID_H
#define DPK_GRID_H

#include <stdbool.h>
#include <stdint.h>

#include "noise.h"

/* Fixed-point steps per cell width for a point's position inside its cell. */
#define DPK_REL_UNITS 1024

/*
 * The middle of a cell in those steps.  Live tables of trigger format 5
 * draw their sums' noise for offsets taken about it: each offset r in
 * [0, DPK_REL_UNITS) moves by |r - DPK_REL_CENTRE| <= DPK_REL_CENTRE, half of
 * r's own range, so the same privacy costs a quarter of the noise variance.
 * The published sum is that noisy centred sum plus DPK_REL_CENTRE times the
 * cell's noisy count (dpk_hist_recentre), which keeps sum / count the cell's
 * mean offset.
 */
#define DPK_REL_CENTRE (DPK_REL_UNITS / 2)

/*
 * Default cap on the cells of one grid (2^22): a dense histogram of this many
 * cells fits in 32 MB per value (doc/decisions/003-cell-caps.md).
 */
#define DPK_DEFAULT_MAX_CELLS 4194304.0

typedef struct DpkBox
{
	int			d;
	const double *lower;
	const double *upper;
} DpkBox;

/*
 * Position of x (d values; +-Inf allowed, NaN not) in the box, each coordinate
 * clamped into [0, 1]: u_j = (x_j - lower_j) / (upper_j - lower_j).
 */
void		dpk_box_normalize(const DpkBox *box, const double *x, double *u);

/* The point of the box at normalized position u. */
void		dpk_box_denormalize(const DpkBox *box, const double *u, double *x);

/*
 * The box's own geometry in [0, 1]^d (high dimensions, doc/design.md): a
 * normalized position u with every side narrower than the widest one shrunk
 * about the middle in proportion, u_j <- 1/2 + (u_j - 1/2) w_j / w_max, so
 * that distances are the box's distances divided by w_max and k-means in
 * these coordinates minimizes the cost in the columns' units.  Coordinates
 * stay in [0, 1].  A cube is left exactly as it is.
 */
void		dpk_box_to_metric(const DpkBox *box, double *u);

/*
 * A norm bound in metric positions: a position v farther than radius from
 * the box's middle (1/2, ..., 1/2) moves along its ray onto that sphere;
 * nearer ones are left as they are.  radius = norm_bound / w_max for rows
 * within norm_bound of the box's middle in the columns' units.  Like the
 * box's clamp it is data-independent, so it bounds one row's contribution
 * (dpk_live_point_l2); radius <= 0 means no bound.
 */
void		dpk_box_ball_clamp(int d, double radius, double *v);

/*
 * The metric radius of a norm bound (norm_bound / w_max) when that is
 * inside the box's half-diagonal, else 0: such a ball holds the whole box
 * and bounds nothing the box does not.
 */
double		dpk_box_ball_radius(const DpkBox *box, double norm_bound);

/*
 * The point of the box at metric position v (the inverse of the above,
 * x_j = middle_j + (v_j - 1/2) w_max), clamped into the box: a clamped
 * centre is nearer to every point of the box.
 */
void		dpk_box_from_metric(const DpkBox *box, const double *v, double *x);

/*
 * A position u of the unit cube as a point of the box: from metric
 * positions (dpk_box_from_metric, clamped) or from normalized ones
 * (dpk_box_denormalize), as the position was made.
 */
void		dpk_box_from_position(const DpkBox *box, bool metric, const double *u, double *x);

/* The widest side of the box: distances in metric positions times it are the box's. */
double		dpk_box_max_width(const DpkBox *box);

/*
 * How far metric positions spread compared with normalized ones: the root
 * mean square of width_j / widest width, 1 for a cube.  A random projection
 * of metric positions spans about this fraction of the projected box in
 * every direction, so a projected grid needs 1 / spread times the cells per
 * dimension to resolve the points as finely.
 */
double		dpk_box_metric_spread(const DpkBox *box);

/*
 * Cell of a normalized point u in the grid with m cells per dimension: writes
 * the integer coordinates idx[d] and the fixed-point offsets rel[d] in
 * [0, DPK_REL_UNITS) of u inside its cell; returns the row-major cell number.
 * The caller guarantees m^d fits in 64 bits.
 */
uint64_t	dpk_grid_cell(int d, int m, const double *u, int64_t *idx,
						  int64_t *rel);

/* The cell numbers of n points (rows of u, d each), as dpk_grid_cell gives them. */
void		dpk_grid_cell_batch(int d, int m, const double *u, size_t n, uint64_t *cells);

/* Integer coordinates of cell number `cell` in a grid of m per dimension. */
void		dpk_grid_cell_coords(int d, int m, uint64_t cell, int64_t *idx);

/* m^d as a double (may exceed 2^64; callers compare with their limit). */
double		dpk_grid_cells(int d, int m);

/* A dense histogram over every cell of one grid: counts and in-cell sums. */
typedef struct DpkDenseHist
{
	int			d;
	int			m;
	uint64_t	ncells;
	int64_t    *count;			/* ncells */
	int64_t    *sum;			/* ncells * d fixed-point offsets, or NULL */
	int64_t		units;			/* fixed-point steps per cell width */
} DpkDenseHist;

/* Allocate a zeroed histogram; with_sums keeps per-cell coordinate sums. */
void		dpk_hist_init(DpkDenseHist *h, int d, int m, bool with_sums);

/* Release a histogram's arrays. */
void		dpk_hist_free(DpkDenseHist *h);

/*
 * The mean guards' estimate (doc/decisions/044-live-mean-guard.md): how much
 * more the rows of a noisy histogram h (counts and, when h->sum, fixed-point
 * offsets) cost at k centres a (k * d) than at one centre b (d), positions
 * normalized to the box ([0,1]^d), w2 the box's squared widths (d).  A cell
 * whose corners all have the same nearest centre lies in its Voronoi region
 * and adds its rows' exact extra cost, linear in its noisy count and sums;
 * any other cell its count times the least extra cost at one of its corners
 * (a row's extra cost is concave in the row).  So the value is unbiased for
 * a lower bound of the extra cost; count_var and sum_var are the noise
 * variances of one cell's count and of one coordinate of its sum (h's fixed
 * point), *sd gets the value's standard deviation.  Noisy values only:
 * post-processing.
 */
double		dpk_hist_mean_gap(const DpkDenseHist *h, const double *w2, double count_var,
							  double sum_var, int k, const double *a, const double *b,
							  double *sd);

/* Add one point (normalized coordinates u) to the histogram. */
void		dpk_hist_add(DpkDenseHist *h, const double *u);

/*
 * dpk_hist_add of each of n points of box (n*d, row-major) after
 * dpk_box_normalize: the same counts and sums, without a call per point.
 */
void		dpk_hist_add_points(DpkDenseHist *h, const DpkBox *box, const double *points,
								size_t n);

/*
 * Add independent noise to every cell: discrete Laplace of count_scale on
 * each count, and on each cell's d sums the vector noise of dpk_vector_noise
 * with the l-infinity scale sum_scale (ignored without sums).  Every cell
 * gets noise, occupied or not: which cells are empty is private.
 */
void		dpk_hist_add_noise(DpkDenseHist *h, DpkStream *s, DpkScale count_scale,
							   DpkScale sum_scale);

/*
 * Publish a cell's noisy centred sums: each of its d sums, holding the true
 * offsets' sum plus noise, gets DPK_REL_CENTRE times count_noise (the noise
 * its count got).  Equivalently: the noisy sum of r - DPK_REL_CENTRE plus
 * DPK_REL_CENTRE times the noisy count, post-processing of two noisy values.
 */
static inline void
dpk_hist_recentre(int64_t *sum, int d, int64_t count_noise)
{
	int			j;

	for (j = 0; j < d; j++)
		sum[j] += count_noise * DPK_REL_CENTRE;
}

#endif
