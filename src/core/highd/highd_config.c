/*
 * highd_config.c
 *		The high-dimensional one-shot configuration: defaults, approximate
 *		DP, projected dimension, copies, a norm bound and metric points
 *		(see highd.h).
 */
#include "highd.h"

#include <math.h>
#include <string.h>

#include "dpk_mem.h"

/* Defaults (doc/decisions/021-highd-oneshot.md). */
void
dpk_highd_defaults(DpkHighdConfig *cfg, double epsilon, int k)
{
	cfg->epsilon = epsilon;
	cfg->k = k;
	cfg->public_n = -1.0;
	cfg->n_share = 0.05;
	cfg->dhat = 0;
	cfg->copies = 2;
	cfg->half_width = DPK_PROJ_HALF_WIDTH;
	cfg->group_share = 0.05;
	cfg->lift_share = 0.7;
	cfg->lift_count_share = -1.0;
	cfg->refine_steps = 0;
	cfg->refine_share = 0.3;
	cfg->grid_scale = 1.7;
	cfg->threshold_sigmas = 2.0;
	cfg->max_cells = 1048576.0;
	cfg->max_lift_values = DPK_DEFAULT_MAX_CELLS;
	cfg->joint_group_bytes = DPK_JOINT_GROUP_BYTES;
	cfg->proj_seed = UINT64_C(0x64706B6D65616E73);
	cfg->restarts = 5;
	cfg->max_iter = 100;
	cfg->delta = 0.0;
	cfg->objective = DPK_OBJECTIVE_KMEANS;
	cfg->lift_shrink = true;
	cfg->ball = 0.0;
	cfg->points_metric = false;
	cfg->mean_guard = true;
	cfg->tree_depth = 0;
	cfg->tree_node = DPK_HIGHD_BALL_TREE_NODE;
	cfg->tree_share = DPK_HIGHD_BALL_TREE_SHARE;
	cfg->wide_min_d = DPK_HIGHD_WIDE_MIN_D;
	cfg->wide_lift_share = DPK_HIGHD_WIDE_LIFT_SHARE;
	cfg->wide_grid_scale = DPK_HIGHD_WIDE_GRID_SCALE;
}

/* Whether a release takes the wide shares (see highd.h). */
bool
dpk_highd_is_wide(const DpkHighdConfig *cfg, int d)
{
	return cfg->wide_min_d > 0 && d >= cfg->wide_min_d && !(cfg->delta > 0.0) &&
		cfg->objective == DPK_OBJECTIVE_KMEANS && !(cfg->ball > 0.0) &&
		cfg->refine_steps <= 0;
}

/* The lift's share (see highd.h). */
double
dpk_highd_lift_share(const DpkHighdConfig *cfg, int d)
{
	return dpk_highd_is_wide(cfg, d) ? cfg->wide_lift_share : cfg->lift_share;
}

/* The projected grid's scale (see highd.h). */
double
dpk_highd_grid_scale(const DpkHighdConfig *cfg, int d)
{
	return dpk_highd_is_wide(cfg, d) ? cfg->wide_grid_scale : cfg->grid_scale;
}

/*
 * Approximate DP (see highd.h): with delta > 0 the lift takes 0.85 of rho
 * after N (0.7 of epsilon when pure): better on every row measured
 * (doc/decisions/020-gaussian-tables.md).
 */
void
dpk_highd_use_delta(DpkHighdConfig *cfg, double delta)
{
	cfg->delta = delta;
	if (delta > 0.0)
		cfg->lift_share = 0.85;
}

/* Projected dimension for d and k (see highd.h). */
int
dpk_highd_dhat(int d, int k)
{
	(void) k;
	return d < 4 ? d : 4;
}

/*
 * The copies the joint mode can combine: k^R groups, each with a count and
 * an R * dhat embedding, capped by max_lift_values.
 */
int
dpk_highd_copies(const DpkHighdConfig *cfg, int d)
{
	int			R = 1;
	int			dhat = cfg->dhat > 0 ? cfg->dhat : dpk_highd_dhat(d, cfg->k);
	double		groups = (double) cfg->k;

	while (R < cfg->copies &&
		   groups * cfg->k * (1.0 + (R + 1) * dhat) <= cfg->max_lift_values &&
		   groups * cfg->k <= 1073741824.0)
	{
		groups *= cfg->k;
		R++;
	}
	return R;
}

/* A norm bound for a one-shot release (see highd.h). */
void
dpk_highd_use_ball(DpkHighdConfig *cfg, const DpkBox *box, double norm_bound)
{
	cfg->ball = dpk_box_ball_radius(box, norm_bound);
	if (cfg->ball > 0.0)
		cfg->half_width = fmin(cfg->half_width,
							   DPK_BALL_HALF_WIDTH * cfg->ball / sqrt((double) box->d));
	/*
	 * With delta > 0 a ball makes each part's sum noise small (l2
	 * sensitivity its radius): refine the projected partition in the
	 * original space (doc/decisions/032-mean-guard-and-refinement.md).
	 */
	if (cfg->ball > 0.0 && cfg->delta > 0.0 && cfg->objective == DPK_OBJECTIVE_KMEANS)
	{
		cfg->refine_steps = DPK_HIGHD_BALL_REFINE_STEPS;
		cfg->refine_share = DPK_HIGHD_BALL_REFINE_SHARE;
		/* seeded from sign patterns in the original space (record 042) */
		cfg->tree_depth = DPK_HIGHD_BALL_TREE_DEPTH;
		cfg->lift_share = DPK_HIGHD_BALL_TREE_LIFT_SHARE;
	}
}

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define DPK_METRIC_X86 1
#include <immintrin.h>
#endif

/*
 * The box's sides and ratios for the metric positions (see highd.h),
 * computed once with the expressions of dpk_box_normalize and
 * dpk_box_to_metric (the same doubles).
 */
void
dpk_highd_metric_map_init(DpkHighdMetricMap *mm, const DpkBox *box, const DpkHighdConfig *cfg)
{
	int			d = box->d,
				j;
	double		wmax = dpk_box_max_width(box);

	mm->d = d;
	mm->ball = cfg->ball;
	mm->lo = dpk_alloc(sizeof(double) * d);
	mm->hi = dpk_alloc(sizeof(double) * d);
	mm->w = dpk_alloc(sizeof(double) * d);
	mm->ratio = dpk_alloc(sizeof(double) * d);
	mm->narrow = dpk_alloc(sizeof(bool) * d);
	mm->any_narrow = false;
	for (j = 0; j < d; j++)
	{
		mm->lo[j] = box->lower[j];
		mm->hi[j] = box->upper[j];
		mm->w[j] = box->upper[j] - box->lower[j];
		mm->ratio[j] = mm->w[j] / wmax;
		mm->narrow[j] = mm->w[j] < wmax;
		mm->any_narrow = mm->any_narrow || mm->narrow[j];
	}
#ifdef DPK_METRIC_X86
	__builtin_cpu_init();
	mm->avx = __builtin_cpu_supports("avx") ? 1 : 0;
#else
	mm->avx = 0;
#endif
}

/* Free a metric map's arrays. */
void
dpk_highd_metric_map_free(DpkHighdMetricMap *mm)
{
	dpk_free(mm->lo);
	dpk_free(mm->hi);
	dpk_free(mm->w);
	dpk_free(mm->ratio);
	dpk_free(mm->narrow);
}

#ifdef DPK_METRIC_X86
/*
 * The positions of coordinates 0 .. 4 * floor(d / 4) - 1 of a box whose
 * sides are all as wide as the widest, four at a time: per lane the
 * subtraction, the division and the clamp of the scalar loop.  The clamp
 * is max(0, v) then min(1, v) with the bound as the first operand: MAXPD
 * and MINPD return their second operand unless the first is strictly
 * greater (smaller), so -0 stays -0 and NaN stays NaN as in `v < 0 ? 0 :
 * (v > 1 ? 1 : v)` (blends of comparisons compiled into a branch per lane).
 */
__attribute__((target("avx"))) static inline __m256d
metric_lanes(const DpkHighdMetricMap *mm, int j, __m256d v)
{
	v = _mm256_div_pd(_mm256_sub_pd(v, _mm256_loadu_pd(mm->lo + j)),
					  _mm256_loadu_pd(mm->w + j));
	v = _mm256_max_pd(_mm256_setzero_pd(), v);
	return _mm256_min_pd(_mm256_set1_pd(1.0), v);
}

/* metric_lanes over the row x in place; returns the coordinates done. */
__attribute__((target("avx"))) static int
metric_row_avx(const DpkHighdMetricMap *mm, double *x)
{
	int			j;

	for (j = 0; j + 4 <= mm->d; j += 4)
		_mm256_storeu_pd(x + j, metric_lanes(mm, j, _mm256_loadu_pd(x + j)));
	return j;
}

/*
 * metric_lanes from the arriving row v into x (v read once, four
 * coordinates a load: copying v into x with scalar stores and reading x
 * back in vectors stalled every load on the stores), with the NaN and box
 * tests of those lanes.  Returns the coordinates done; *nan and *outside
 * are set when a lane had a NaN or lay outside [lo, hi].
 */
__attribute__((target("avx"))) static int
metric_take_avx(const DpkHighdMetricMap *mm, const double *v, double *x, bool *nan,
				bool *outside)
{
	__m256d		bad = _mm256_setzero_pd(),
				out = _mm256_setzero_pd();
	int			j;

	for (j = 0; j + 4 <= mm->d; j += 4)
	{
		__m256d		a = _mm256_loadu_pd(v + j);

		bad = _mm256_or_pd(bad, _mm256_cmp_pd(a, a, _CMP_UNORD_Q));
		/* not (a >= lo and a <= hi), NaN included */
		out = _mm256_or_pd(out, _mm256_cmp_pd(a, _mm256_loadu_pd(mm->lo + j), _CMP_NGE_UQ));
		out = _mm256_or_pd(out, _mm256_cmp_pd(a, _mm256_loadu_pd(mm->hi + j), _CMP_NLE_UQ));
		_mm256_storeu_pd(x + j, metric_lanes(mm, j, a));
	}
	*nan = _mm256_movemask_pd(bad) != 0;
	*outside = _mm256_movemask_pd(out) != 0;
	return j;
}
#endif

/* The position of coordinate j of value v: the scalar loop's expressions. */
static inline double
metric_one(const DpkHighdMetricMap *mm, int j, double v)
{
	v = (v - mm->lo[j]) / mm->w[j];
	v = v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
	return mm->narrow[j] ? 0.5 + (v - 0.5) * mm->ratio[j] : v;
}

/* One row in place (see highd.h). */
void
dpk_highd_metric_row(const DpkHighdMetricMap *mm, double *x)
{
	int			j = 0;

#ifdef DPK_METRIC_X86
	if (mm->avx && !mm->any_narrow)
		j = metric_row_avx(mm, x);
#endif
	for (; j < mm->d; j++)
		x[j] = metric_one(mm, j, x[j]);
	dpk_box_ball_clamp(mm->d, mm->ball, x);
}

/* An arriving row into x, with its NaN and box tests (see highd.h). */
int
dpk_highd_metric_take(const DpkHighdMetricMap *mm, const double *v, double *x)
{
	int			j = 0;
	bool		nan = false,
				outside = false;

#ifdef DPK_METRIC_X86
	if (mm->avx && !mm->any_narrow)
		j = metric_take_avx(mm, v, x, &nan, &outside);
#endif
	for (; j < mm->d && !nan; j++)
	{
		nan = isnan(v[j]);
		outside |= !(v[j] >= mm->lo[j] && v[j] <= mm->hi[j]);
		x[j] = metric_one(mm, j, v[j]);
	}
	if (nan)
		return DPK_METRIC_NAN;
	dpk_box_ball_clamp(mm->d, mm->ball, x);
	return outside ? DPK_METRIC_OUTSIDE : DPK_METRIC_INSIDE;
}

/*
 * Metric positions of the points, once (see highd.h): per coordinate the
 * expressions of dpk_box_normalize and dpk_box_to_metric, with the box's
 * sides and ratios computed once (the same doubles).
 */
void
dpk_highd_metric_points(const DpkBox *box, DpkHighdConfig *cfg, double *points, size_t n)
{
	DpkHighdMetricMap mm;
	size_t		i;

	dpk_highd_metric_map_init(&mm, box, cfg);
	for (i = 0; i < n; i++)
	{
		if ((i & 65535) == 0)
			dpk_check_interrupts();
		dpk_highd_metric_row(&mm, points + i * box->d);
	}
	dpk_highd_metric_map_free(&mm);
	cfg->points_metric = true;
}
