/*
 * store_config.c
 *		What a row of dpkmeans_internal.tracked means without reading any
 *		table: the live configuration of a tracked table and the home
 *		(cluster, WAL timeline, database) of its state (see store.h).
 */
#include "postgres.h"

#include "access/xlog.h"
#include "miscadmin.h"

#include "pgutil.h"
#include "store.h"

/* The live configuration of a tracked table. */
void
dpk_tracked_config(const DpkTracked *tr, DpkLiveConfig *cfg)
{
	/* the tree the table was attached with, never re-chosen */
	dpk_live_defaults_arity(cfg, tr->d, tr->k, tr->epsilon, (uint32_t) tr->horizon,
							tr->insert_only, tr->tree_arity > 2 ? tr->tree_arity : 2);
	cfg->level = tr->level;
	cfg->sum_share = tr->sum_share;
	cfg->estimator = dpk_counter_estimator;
	if (tr->dhat > 0)
	{
		dpk_live_use_projection(cfg, tr->proj_seed);
		cfg->dhat = tr->dhat;
		cfg->copies = tr->copies;
		cfg->sum_share = tr->sum_share;
		cfg->norm_share = tr->norm_share;
	}
	cfg->delta = tr->delta;
	cfg->centred_offsets = tr->trigger_format > DPK_TRIGGER_FORMAT_PRE_09;
	cfg->box_metric = tr->dhat > 0 && tr->trigger_format >= 3;
	if (tr->trigger_format >= 4)
	{
		DpkBox		box = {tr->d, tr->lower, tr->upper};

		if (cfg->box_metric)
			dpk_live_use_ball(cfg, &box, tr->norm_bound);
		dpk_live_use_sum_l1(cfg, &box);
	}
	if (cfg->delta > 0.0)
	{
		cfg->arity = 2;			/* Gaussian tables: the plain binary decomposition */
		cfg->counter = tr->counter;	/* or the square root, fixed at attach */
	}
	else if (tr->counter == DPK_LIVE_COUNTER_SHARE && tr->dhat == 0)
		cfg->counter = DPK_LIVE_COUNTER_SHARE;	/* a pure low-d table's, fixed at attach */
	dpk_live_use_norm_shift(cfg);
}

/* The norm counter's unit of a tracked table (see store.h). */
int
dpk_tracked_norm_shift(const DpkTracked *tr)
{
	DpkLiveConfig cfg;

	/* dpk_live_use_norm_shift's own test, without building the configuration */
	if (tr->dhat <= 0 || tr->delta <= 0.0)
		return 0;
	dpk_tracked_config(tr, &cfg);
	return cfg.norm_shift;
}

/* This server's cluster, WAL timeline and database (see store.h). */
void
dpk_home_current(DpkHome *home)
{
	home->known = true;
	home->system_id = GetSystemIdentifier();
	home->timeline = (int32) GetWALInsertionTimeLine();
	home->dbid = MyDatabaseId;
}

/* Whether two homes are the same history. */
bool
dpk_home_equal(const DpkHome *a, const DpkHome *b)
{
	return a->known && b->known && a->system_id == b->system_id &&
		a->timeline == b->timeline && a->dbid == b->dbid;
}
