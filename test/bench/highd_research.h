/*
 * highd_research.h
 *		Research variants of the high-dimensional one-shot release, compiled
 *		only into benchmarks and unit tests (never into the extension).
 *
 * The selection modes, DPK_LIFT_CLUSTER and DPK_LIFT_CELL: every copy
 * clusters its projected grid, lifts its centres from its own noisy
 * statistics (one (count, sum) per projected cluster, or sums per projected
 * cell as continual counters could keep them) and is scored privately
 * (dpk_lift_cost); the copy with the best score is published, the boosting
 * of "Differential Privacy for Clustering Under Continual Observation".
 * And private Lloyd refinement steps in the original space after the lift,
 * in any mode.  The shipped joint mode measured better than both
 * (doc/benchmarks.md, "Measurements behind the defaults").
 *
 * Everything is composed from the stages of src/core/highd/highd.h (plan, histogram,
 * grid k-means, partition statistics, joint run, finish), so a research run
 * in the joint mode without refinement is dpk_highd_oneshot_cluster_info.
 */
#ifndef HIGHD_RESEARCH_H
#define HIGHD_RESEARCH_H

#include "highd.h"

/* The details of a research run. */
typedef struct HighdResearchInfo
{
	DpkHighdInfo base;			/* what dpk_highd_oneshot_cluster_info gives */
	int			chosen;			/* index of the published copy (-1: joint) */
	double		score[16];		/* selection modes: private score of the
								 * first 16 copies */
	double	   *copy_centers;	/* selection modes, if not NULL on entry:
								 * receives copies * k * d normalized
								 * centres, every copy's lift */
} HighdResearchInfo;

/*
 * dpk_highd_oneshot_cluster for any configuration: the joint mode or a
 * selection mode, then cfg->refine_steps refinement steps when
 * cfg->refine_share > 0.  The epsilon shares are dpk_budget_highd's.  info
 * may be NULL; its copy_centers pointer is read on entry, every other field
 * is written.
 */
void		highd_research_cluster(const DpkBox *box, const double *points, size_t n,
								   const DpkHighdConfig *cfg, DpkStream *s,
								   DpkOneshotResult *res, HighdResearchInfo *info);

#endif
