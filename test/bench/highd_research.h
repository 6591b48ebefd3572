/*
 * highd_research.h
 *		Research variants of the high-dimensional one-shot release, compiled
 *		only into benchmarks and unit tests (never into the extension).
 *
 * The selection modes, HIGHD_LIFT_CLUSTER and HIGHD_LIFT_CELL: every copy
 * clusters its projected grid, lifts its centres from its own noisy
 * statistics (one (count, sum) per projected cluster, or sums per projected
 * cell as continual counters could keep them) and is scored privately
 * (dpk_lift_cost); the copy with the best score is published, the boosting
 * of "Differential Privacy for Clustering Under Continual Observation".
 * And private Lloyd refinement steps in the original space after the lift,
 * in any mode.  The shipped joint mode measured better than both
 * (doc/decisions/021-highd-oneshot.md).
 *
 * The selection modes have their own split of epsilon
 * (highd_research_budget) and plan (highd_research_plan); everything runs
 * on the stages of src/core/highd/highd.h (plan with a given split,
 * histogram, grid k-means, partition statistics, joint run, refinement
 * step, finish), so a research run in the joint mode without refinement is
 * dpk_highd_oneshot_cluster_info.
 */
#ifndef HIGHD_RESEARCH_H
#define HIGHD_RESEARCH_H

#include <stdbool.h>

#include "highd.h"

/* How a research release lifts centres. */
typedef enum HighdLiftMode
{
	HIGHD_LIFT_JOINT,			/* the shipped joint mode (highd.h) */
	HIGHD_LIFT_CLUSTER,			/* per copy one noisy (count, sum) per
								 * projected cluster; best private score
								 * wins */
	HIGHD_LIFT_CELL				/* per copy noisy sums per projected grid
								 * cell (what continual counters can keep);
								 * best private score wins */
} HighdLiftMode;

/*
 * A research configuration: the shipped one and the knobs of the selection
 * modes.  In the selection modes base.lift_share is the share of a copy's
 * budget on its lifting statistics, base.group_share is unused and every
 * one of base.copies runs.
 */
typedef struct HighdResearchConfig
{
	DpkHighdConfig base;
	HighdLiftMode lift_mode;
	double		norm_share;		/* cell mode: share of the lifting budget on
								 * per-cell sums of squared norms */
	int			lift_coarsen;	/* cell mode: lifting cells are this many
								 * grid cells wide per dimension (1: the
								 * grid's own cells, sharing its counts;
								 * then base.lift_count_share is unused) */
} HighdResearchConfig;

/* dpk_highd_defaults, the joint mode, no norms, the grid's own cells. */
void		highd_research_defaults(HighdResearchConfig *rc, double epsilon, int k);

/*
 * The split of a research release.  Every point is in every copy and in
 * exactly one cell, group or part of each, so the joint mode spends
 * dpk_budget_highd_total(&base) and the selection modes eps_n + copies *
 * (eps_grid + eps_lift_count + eps_lift_sum + eps_lift_norm) + refine_steps
 * * eps_refine.
 */
typedef struct HighdResearchBudget
{
	DpkHighdBudget base;		/* the shares the core's stages read; in
								 * the selection modes the lift's per copy
								 * and eps_group 0 */
	bool		lift_per_copy;	/* selection modes */
	double		eps_lift_norm;	/* cell mode, per copy: per-cell sums of
								 * squared norms */
} HighdResearchBudget;

/*
 * The shares of a research configuration in d dimensions.  Joint mode:
 * dpk_budget_highd.  Selection modes: n_share on the noisy N unless public;
 * of the rest refine_share on refinement steps, the remainder split over
 * the copies, lift_share of each on its lifting statistics, the rest on its
 * grid; the lift puts lift_count_share on counts (in cell mode only with
 * lift_coarsen > 1: otherwise the grid's counts serve), norm_share of what
 * remains on sums of squared norms (cell mode), the rest on sums.
 */
HighdResearchBudget highd_research_budget(const HighdResearchConfig *rc, int d);

/* What a research budget spends, by the composition above. */
double		highd_research_budget_total(const HighdResearchBudget *b);

/* The details of a research run. */
typedef struct HighdResearchInfo
{
	DpkHighdInfo base;			/* what dpk_highd_oneshot_cluster_info gives */
	HighdResearchBudget budget; /* the whole split (base.budget: its core) */
	int			lift_m;			/* cell mode: lifting cells per dimension */
	double		norm_scale;		/* cell mode: noise of a sum of squared
								 * norms, in DPK_LIFT_UNITS^2 */
	int			chosen;			/* index of the published copy (-1: joint) */
	double		score[16];		/* selection modes: private score of the
								 * first 16 copies */
	double	   *copy_centers;	/* selection modes, if not NULL on entry:
								 * receives copies * k * d normalized
								 * centres, every copy's lift */
} HighdResearchInfo;

/*
 * dpk_highd_oneshot_cluster for any research configuration: the joint mode
 * or a selection mode, then base.refine_steps refinement steps when
 * base.refine_share > 0.  The epsilon shares are highd_research_budget's.
 * info may be NULL; its copy_centers pointer is read on entry, every other
 * field is written.
 */
void		highd_research_cluster(const DpkBox *box, const double *points, size_t n,
								   const HighdResearchConfig *rc, DpkStream *s,
								   DpkOneshotResult *res, HighdResearchInfo *info);

#endif
