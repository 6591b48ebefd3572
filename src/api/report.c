/*
 * report.c
 *		dp_privacy_report (the accounting of a live table, for an auditor and
 *		its readers) and dp_verify (the owner's recount of the true state).
 */
#include "postgres.h"

#include <math.h>

#include "access/table.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "storage/lmgr.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/tuplestore.h"

#include "live_budget.h"
#include "live_core.h"
#include "capture.h"
#include "readers.h"
#include "shard.h"
#include "live_regions.h"
#include "share_tree.h"
#include "sqrt_counter.h"
#include "store.h"
#include "wal_capture.h"
#include "tree_estimator.h"

/* Append one (item, value) row to the report. */
static void
report_row(ReturnSetInfo *rsinfo, const char *item, const char *value)
{
	Datum		out[2] = {CStringGetTextDatum(item), CStringGetTextDatum(value)};
	bool		nulls[2] = {false, false};

	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, out, nulls);
}

/*
 * The guarantee and the rho split of a Gaussian table (delta > 0): rho from
 * (epsilon, delta), each family's share, squared l2 sensitivity and sigma,
 * so that sum_f l2sq_f / (2 sigma_f^2) = rho can be recomputed.
 */
static void
report_gauss_budget(ReturnSetInfo *rsinfo, const DpkTracked *tr, const DpkLiveConfig *cfg)
{
	double		rho = dpk_live_rho(cfg),
				v[3],
				l2sq[3];
	static const char *const fam[3] = {"counts", "sums", "sum of squared norms"};
	double		share[3] = {1.0 - tr->sum_share - tr->norm_share, tr->sum_share, tr->norm_share};
	int			i;

	dpk_live_gauss_vars(cfg, v);
	dpk_live_l2sq(cfg, l2sq);
	report_row(rsinfo, "guarantee",
			   psprintf("approximate (epsilon, delta)-DP, epsilon = %g, delta = %g, over every release of this history "
						"(rho-zCDP converted by Canonne-Kamath-Steinke 2020; the ledger rows add up every history)", tr->epsilon, tr->delta));
	report_row(rsinfo, "mechanism",
			   DPK_LIVE_SQRT_FAMILY(cfg, 1) && tr->dhat > 0
			   ? "discrete Gaussian (exact sampler, Canonne-Kamath-Steinke 2020 Algorithm 3) on every measurement "
			   "of the square-root counters of the counts and of the lifting sums (release t a fixed combination "
			   "of the measurements of releases 1 .. t, each first used at its own release) and on every tree "
			   "node of the sum of squared norms (release t sums the plain binary decomposition of t)"
			   : DPK_LIVE_SQRT(cfg) && tr->dhat > 0
			   ? "discrete Gaussian (exact sampler, Canonne-Kamath-Steinke 2020 Algorithm 3) on every measurement "
			   "of the counts' square-root counter (release t a fixed combination of the measurements of releases "
			   "1 .. t, each first used at its own release) and on every tree node of the sums and the sum of "
			   "squared norms (release t sums the plain binary decomposition of t)"
			   : DPK_LIVE_SQRT(cfg)
			   ? "discrete Gaussian (exact sampler, Canonne-Kamath-Steinke 2020 Algorithm 3) on every measurement "
			   "of the square-root counter; release t is a fixed combination of the measurements of releases "
			   "1 .. t (post-processing), each measurement first used at its own release"
			   : "discrete Gaussian (exact sampler, Canonne-Kamath-Steinke 2020 Algorithm 3) on every tree node; "
			   "release t sums the plain binary decomposition of t (nodes inside [1, t])");
	report_row(rsinfo, "mode", tr->insert_only ? "insert_only (DELETE, UPDATE of tracked columns and TRUNCATE refused)"
			   : "insert_delete (UPDATE = delete + insert, TRUNCATE = delete of every row)");
	report_row(rsinfo, "delta", psprintf("%g", tr->delta));
	report_row(rsinfo, "rho (zCDP)",
			   psprintf("%.9g: the largest rho with inf_{a>1} exp((a-1)(a rho - epsilon)) / (a-1) (1-1/a)^a <= delta", rho));
	for (i = 0; i < 3; i++)
	{
		if (share[i] <= 0.0 || (i == 2 && tr->dhat == 0))
			continue;
		report_row(rsinfo, psprintf("rho on %s", fam[i]), psprintf("%.9g (share %g)", rho * share[i], share[i]));
		report_row(rsinfo, psprintf("%s: squared l2 sensitivity (one event, all nodes)", fam[i]),
				   psprintf("%.9g", l2sq[i]));
		report_row(rsinfo, psprintf(DPK_LIVE_SQRT_FAMILY(cfg, i) ? "%s: sigma per measurement"
									: "%s: sigma per tree node", fam[i]),
				   psprintf("%.9g (sigma^2 = %.9g = l2^2 / (2 rho share), rounded up to %.9g)",
							sqrt(v[i]), v[i],
							dpk_gauss_scale_value(dpk_gauss_scale_from_double(v[i]))));
	}
	if (tr->dhat > 0 && cfg->norm_shift > 0)
		report_row(rsinfo, "sum of squared norms: unit",
				   psprintf("2^%d squared fixed-point steps: each row's squared norm is rounded to it, "
							"so that sigma^2 has an exact representation", cfg->norm_shift));
}

/*
 * Whether a table lifts by regions (its row in dpkmeans_internal.regions);
 * *signed_digits (may be NULL): whether its state sums the signed tree
 * digits (format 2) rather than complete nodes only (format 1).  The
 * state's format and shape are public; its sums are not read out.
 */
static bool
report_regions(Oid relid, const DpkLiveConfig *cfg, bool *signed_digits)
{
	DpkOwnerSwitch sw;
	bytea	   *state = NULL;
	bool		regions;
	/* the caller's context: SPI_finish frees the one current inside */
	MemoryContext caller = CurrentMemoryContext;

	dpk_store_begin(&sw);
	regions = dpk_store_regions_read(relid, false, caller,
									 signed_digits ? &state : NULL);
	dpk_store_end(&sw);
	if (regions && signed_digits)
	{
		DpkRegions	rs;

		dpk_store_regions_parse(relid, cfg, state, &rs);
		*signed_digits = rs.signed_digits;
		dpk_regions_free(&rs);
	}
	return regions;
}

/* Rows on the guarantee, the epsilon split, levels and copies. */
static void
report_budget(ReturnSetInfo *rsinfo, const DpkTracked *tr, const DpkLiveConfig *cfg)
{
	Oid			relid = tr->relid;
	bool		signed_digits = false;

	report_row(rsinfo, "table", get_rel_name(relid) ? get_rel_name(relid) : "?");
	report_row(rsinfo, "tracked columns", tr->columns);
	report_row(rsinfo, "capture", tr->capture_wal
			   ? "wal: changes counted from the WAL by logical decoding at each release, dp_verify or dp_capture_sync (a replication slot per table)"
			   : "trigger: each writing statement counts its changes");
	report_row(rsinfo, "unit of privacy",
			   "one row version: an insertion at one release and possibly its later deletion (event-level, continual observation)");
	if (tr->delta > 0.0)
		report_gauss_budget(rsinfo, tr, cfg);
	else
	{
		report_row(rsinfo, "guarantee", psprintf("pure epsilon-DP, epsilon = %g, over every release of this history "
										   "(the ledger rows add up every history)", tr->epsilon));
		report_row(rsinfo, "mode", tr->insert_only ? "insert_only (DELETE, UPDATE of tracked columns and TRUNCATE refused)"
				   : "insert_delete (UPDATE = delete + insert, TRUNCATE = delete of every row)");
		report_row(rsinfo, "epsilon on counts",
				   psprintf("%g", tr->epsilon * (1.0 - tr->sum_share - tr->norm_share)));
		report_row(rsinfo, tr->dhat > 0 ? "epsilon on the lifting sums" : "epsilon on in-cell coordinate sums",
				   psprintf("%g", tr->epsilon * tr->sum_share));
	}
	report_row(rsinfo, "levels with counters",
			   psprintf("1 (level %d: %d cells per %sdimension, %.0f cells%s); coarser levels are sums of its cells",
						tr->level, 1 << tr->level, tr->dhat > 0 ? "projected " : "",
						pow(2.0, (double) tr->level * (tr->dhat > 0 ? tr->dhat : tr->d)),
						tr->dhat > 0 ? " per copy" : ""));
	if (tr->dhat > 0)
	{
		report_row(rsinfo, "projection",
				   psprintf("random orthonormal %d x %d, public seed " UINT64_FORMAT
							", projected box +-%g; %d copies, each point counted in every copy",
							tr->dhat, tr->d, tr->proj_seed, cfg->half_width, tr->copies));
		report_row(rsinfo, "copies", psprintf("%d (sensitivities include the factor %d)",
											  tr->copies, tr->copies));
		if (report_regions(relid, cfg, &signed_digits))
		{
			DpkLiveConfig wide;

			dpk_regions_sum_config(cfg, &wide);
			report_row(rsinfo, "lifting",
					   psprintf("by regions: lifting sums kept per (tree node, region), a region "
								"being a centre of an earlier release (maps of noisy counts only, "
								"fixed before a node's noise is published); one noise draw per "
								"node and region on d + 1 coordinates (the sums and the region's "
								"count at %d a row), sum sensitivity %g; %s; each (map, region) "
								"goes to one centre, chosen from noisy counts or from the noisy "
								"sums of the release",
								DPK_LIFT_UNITS / 2, dpk_live_sum_sensitivity(&wide),
								signed_digits
								? "region state format 2: past the first top-level tree node a "
								"release sums the signed tree digits, the nodes under a top-level "
								"node keyed by its map"
								: "region state format 1: releases sum complete tree nodes only"));
		}
		else
			report_row(rsinfo, "lifting", "by cells: one noisy lifting sum per projected cell and tree node");
		if (tr->delta <= 0.0)
		{
			report_row(rsinfo, "epsilon on the sum of squared norms",
					   psprintf("%g (one counter, for the cost curve)", tr->epsilon * tr->norm_share));
			report_row(rsinfo, "sum of squared norms noise per tree node",
					   psprintf("discrete Laplace, scale %.6g (sensitivity %g)",
								dpk_scale_value(dpk_live_norm_scale(cfg)),
								dpk_live_norm_sensitivity(cfg)));
		}
	}
	else
		report_row(rsinfo, "copies", "1 (no projection)");
}

/*
 * What a low-d table's sum sensitivity bounds: offsets about the cell's
 * middle for tables of trigger format 5 (grid.h), from its corner before.
 */
static const char *
report_offsets(const DpkLiveConfig *cfg)
{
	return cfg->centred_offsets ? "in-cell offsets about the cell's middle" : "in-cell offsets";
}

/*
 * Rows of a share-tree table (after the horizon and deletion rows): its
 * spans and shares, full-budget sensitivities and each node's scales.
 */
static void
report_share(ReturnSetInfo *rsinfo, const DpkTracked *tr, const DpkLiveConfig *cfg)
{
	const DpkShareTree *st = dpk_live_share_tree(cfg);
	StringInfoData spans,
				shares,
				counts,
				sums;
	int			b,
				j;

	initStringInfo(&spans);
	initStringInfo(&shares);
	initStringInfo(&counts);
	initStringInfo(&sums);
	for (j = 0; j < st->levels; j++)
		appendStringInfo(&spans, "%s%u", j ? ", " : "", st->span[j]);
	for (b = 0; b < st->blocks; b++)
	{
		appendStringInfo(&shares, "%sblock %d:", b ? "; " : "", b + 1);
		appendStringInfo(&counts, "%sblock %d:", b ? "; " : "", b + 1);
		appendStringInfo(&sums, "%sblock %d:", b ? "; " : "", b + 1);
		for (j = 0; j < st->levels; j++)
		{
			int			share = st->share[b][j];
			DpkShareWeights one = {1, NULL, NULL, &share, NULL, NULL, 0};
			DpkCellScales sc;

			dpk_live_share_scales(cfg, &one, &sc);
			appendStringInfo(&shares, " %d", share);
			appendStringInfo(&counts, " %.6g", dpk_scale_value(sc.count));
			if (tr->sum_share > 0)
				appendStringInfo(&sums, " %.6g", dpk_scale_value(sc.sum));
		}
	}
	report_row(rsinfo, "counter",
			   psprintf("share tree (configuration T0 = %u): level j's nodes span %s releases, "
						"clipped at T; the top level's %d nodes are blocks; each node v of a cell "
						"gets an integer share s_v of %d of the counter's epsilon, the nodes holding "
						"any one release summing to exactly %d", st->config, spans.data, st->blocks,
						DPK_SHARE_DEN, DPK_SHARE_DEN));
	report_row(rsinfo, "share tree shares s_v (per block, levels 0 up)", shares.data);
	report_row(rsinfo, "count sensitivity (L1, one event, whole counter budget)",
			   psprintf("%g = 1 node x %s (a node of share s_v gets the scale x %d / s_v)",
						dpk_live_count_sensitivity(cfg), tr->insert_only ? "1" : "2",
						DPK_SHARE_DEN));
	report_row(rsinfo, "sum sensitivity (l-infinity, one event, fixed-point units)",
			   psprintf("%g = %d%s per coordinate (%s, d = %d), scaled per node likewise",
						dpk_live_sum_sensitivity(cfg), (int) dpk_live_offset_bound(cfg),
						tr->insert_only ? "" : " x 2", report_offsets(cfg), tr->d));
	report_row(rsinfo, "count noise per tree node",
			   psprintf("discrete Laplace, scale %.6g x %d / s_v, rounded up (per block, levels 0 up): %s",
						dpk_live_count_sensitivity(cfg) / dpk_budget_live(cfg).eps_count,
						DPK_SHARE_DEN, counts.data));
	if (tr->sum_share <= 0)
		report_row(rsinfo, "sum noise per tree node", "none");
	else
		report_row(rsinfo, "sum noise per tree node",
				   psprintf("cube noise on the d-vector (or discrete Laplace per coordinate where "
							"cube noise is not exact), scale %.6g x %d / s_v, rounded up (per block, "
							"levels 0 up; %d units per cell width): %s",
							dpk_live_sum_sensitivity(cfg) / dpk_budget_live(cfg).eps_sum,
							DPK_SHARE_DEN, DPK_REL_UNITS, sums.data));
}

/* Rows on sensitivities and the noise of each tree node. */
static void
report_noise(ReturnSetInfo *rsinfo, const DpkTracked *tr, const DpkLiveConfig *cfg)
{
	DpkLiveConfig wide;
	const DpkLiveConfig *scfg = cfg;	/* the sums' configuration */
	int			sd = tr->d;		/* coordinates of a noised sum vector */
	DpkScale	cs,
				ss;
	int			h = dpk_live_tree_levels(cfg);
	char	   *units;
	const char *regcount = "",
			   *vec = "d";

	/* lifting by regions: a region's count rides in its sum as coordinate d */
	if (tr->dhat > 0 && tr->delta <= 0.0 && report_regions(tr->relid, cfg, NULL))
	{
		dpk_regions_sum_config(cfg, &wide);
		scfg = &wide;
		sd = tr->d + 1;
		regcount = psprintf(", + %d for the region's count coordinate", DPK_LIFT_UNITS / 2);
		vec = "(d + 1)";
	}
	cs = tr->delta > 0.0 ? (DpkScale) {1, 1} : dpk_live_count_scale(cfg);
	ss = tr->delta > 0.0 ? (DpkScale) {1, 1} : dpk_live_sum_scale(scfg);

	report_row(rsinfo, "size hint (public)", psprintf("%g", tr->size_hint));
	report_row(rsinfo, "horizon T (releases)", psprintf("%d", tr->horizon));
	if (DPK_LIVE_SQRT(cfg) || DPK_LIVE_SHARE(cfg))
		;						/* the "counter" row below */
	else if (cfg->arity <= DPK_TREE_ARITY_BINARY)
		report_row(rsinfo, "tree height h = ceil(log2 T) + 1", psprintf("%d", h));
	else
		report_row(rsinfo, "tree",
				   psprintf("arity %d, h = %d levels (the fewest whose balanced base-%d digits "
							"reach T); an event lies in one node per level", cfg->arity, h,
							cfg->arity));
	report_row(rsinfo, "deletion factor", tr->insert_only ? "1" : "2");
	if (cfg->ball > 0.0)
		report_row(rsinfo, "norm bound (public)",
				   psprintf("%g: rows moved into the ball of that radius around the box's middle "
							"(%g in metric positions); one event's lifting contribution within "
							"%.6g units in l2 (radius x %d + sqrt(d) / 2 of rounding)",
							tr->norm_bound, cfg->ball, dpk_live_point_l2(cfg), DPK_LIFT_UNITS));
	if (DPK_LIVE_SHARE(cfg))
	{
		report_share(rsinfo, tr, cfg);
		return;
	}
	if (DPK_LIVE_SQRT(cfg))
	{
		const DpkSqrtCounter *sc = dpk_sqrt_counter_cached(cfg->horizon);

		report_row(rsinfo, "counter",
				   psprintf("square root: release s measures sum_i rc_(s-i) x_i over the events x_i of "
							"releases i <= s, rc_k = round(2^%d binom(2k, k) / 4^k), and its own events "
							"(a leaf), each with discrete Gaussian noise", sc->shift));
		report_row(rsinfo, "count sensitivity (squared l2, one event over every measurement)",
				   psprintf("%g = (sum_k rc_k^2 + 1 = %.0f) x %s%s", dpk_live_count_sensitivity(cfg),
							sc->sens2, tr->insert_only ? "1" : "2", tr->dhat > 0 ? " x copies" : ""));
		if (tr->dhat > 0 && DPK_LIVE_SQRT_FAMILY(cfg, 1))
			report_row(rsinfo, "sum sensitivity (squared l2, one event, fixed-point units)",
					   cfg->ball > 0.0
					   ? psprintf("count sensitivity x %.6g^2 (the sums on the square root too; the norm "
								  "bound's l2, d = %d)", dpk_live_point_l2(cfg), tr->d)
					   : psprintf("count sensitivity x d x %d^2 (the sums on the square root too, d = %d)",
								  DPK_LIFT_UNITS / 2, tr->d));
		if (dpk_live_lifts_sums(cfg))
			report_row(rsinfo, "lifting sums read",
					   psprintf("at each release only those of the cells whose noisy count clears the "
								"release's lowest coreset threshold (at most %.0f cells, the heaviest), "
								"chosen from the released counts: post-processing; the other cells' sums "
								"are never drawn", dpk_live_lifted_cap(cfg)));
		if (tr->dhat > 0 && DPK_LIVE_SQRT_FAMILY(cfg, 1))
			report_row(rsinfo, "tree height h = ceil(log2 T) + 1 (the sum of squared norms)",
					   psprintf("%d", dpk_live_tree_levels(cfg)));
		else if (tr->dhat > 0)
			report_row(rsinfo, "sum sensitivity (squared l2, one event, fixed-point units)",
					   cfg->ball > 0.0
					   ? psprintf("h x %s x copies x %.6g^2 (the sums keep the binary tree, h = %d; the norm "
								  "bound's l2, d = %d)", tr->insert_only ? "1" : "2",
								  dpk_live_point_l2(cfg), dpk_live_tree_levels(cfg), tr->d)
					   : psprintf("h x %s x copies x d x %d^2 (the sums keep the binary tree, h = %d, d = %d)",
								  tr->insert_only ? "1" : "2", DPK_LIFT_UNITS / 2,
								  dpk_live_tree_levels(cfg), tr->d));
		else
			report_row(rsinfo, "sum sensitivity (squared l2, one event, fixed-point units)",
					   psprintf("count sensitivity x d x %d^2 (%s, d = %d)",
								(int) dpk_live_offset_bound(cfg), report_offsets(cfg), tr->d));
		return;
	}
	if (tr->delta > 0.0)
	{
		report_row(rsinfo, "count sensitivity (squared l2 = L1, one event: entries of +-1)",
				   psprintf("%g = h x %s%s", dpk_live_count_sensitivity(cfg), tr->insert_only ? "1" : "2",
							tr->dhat > 0 ? " x copies" : ""));
		report_row(rsinfo, "sum sensitivity (squared l2, one event, fixed-point units)",
				   cfg->ball > 0.0
				   ? psprintf("count sensitivity x %.6g^2 (the norm bound's l2, d = %d)",
							  dpk_live_point_l2(cfg), tr->d)
				   : tr->dhat > 0
				   ? psprintf("count sensitivity x d x %d^2 (d = %d)", DPK_LIFT_UNITS / 2, tr->d)
				   : psprintf("count sensitivity x d x %d^2 (%s, d = %d)",
							  (int) dpk_live_offset_bound(cfg), report_offsets(cfg), tr->d));
		return;
	}
	report_row(rsinfo, "count sensitivity (L1, one event)",
			   psprintf("%g = h x %s%s", dpk_live_count_sensitivity(cfg), tr->insert_only ? "1" : "2",
						tr->dhat > 0 ? " x copies" : ""));
	if (cfg->sum_l1 > 0.0 && cfg->ball > 0.0 &&
		cfg->sum_l1 < dpk_live_box_sum_l1(&(DpkBox) {tr->d, tr->lower, tr->upper}))
		report_row(rsinfo, "sum sensitivity (L1, one event, fixed-point units)",
				   psprintf("%g = h x copies x %g%s (the norm bound: sqrt(d) x %.6g in l2, d = %d%s)",
							dpk_live_sum_sensitivity(scfg), scfg->sum_l1,
							tr->insert_only ? "" : " x 2", dpk_live_point_l2(cfg), tr->d,
							regcount));
	else if (cfg->sum_l1 > 0.0)
		report_row(rsinfo, "sum sensitivity (L1, one event, fixed-point units)",
				   psprintf("%g = h x copies x %g%s (centred lifting sums in metric positions: "
							"each coordinate within %d w_j / w_max + 1 of the middle, d = %d%s)",
							dpk_live_sum_sensitivity(scfg), scfg->sum_l1,
							tr->insert_only ? "" : " x 2", DPK_LIFT_UNITS / 2, tr->d, regcount));
	else
		report_row(rsinfo, "sum sensitivity (l-infinity, one event, fixed-point units)",
				   tr->dhat > 0
				   ? psprintf("%g = h x copies x %d%s per coordinate (centred lifting sums, d = %d%s)",
							  dpk_live_sum_sensitivity(scfg), DPK_LIFT_UNITS / 2,
							  tr->insert_only ? "" : " x 2", tr->d,
							  sd > tr->d ? ", and the region's count coordinate" : "")
				   : psprintf("%g = h x %d%s per coordinate (%s, d = %d)",
							  dpk_live_sum_sensitivity(cfg), (int) dpk_live_offset_bound(cfg),
							  tr->insert_only ? "" : " x 2", report_offsets(cfg), tr->d));
	report_row(rsinfo, "count noise per tree node",
			   psprintf("discrete Laplace, scale %.6g (variance %.6g)", dpk_scale_value(cs),
						dpk_discrete_laplace_variance(cs)));
	units = tr->dhat > 0 ? psprintf("%d units per box width", DPK_LIFT_UNITS)
		: psprintf("%d units per cell width", DPK_REL_UNITS);
	if (tr->sum_share <= 0)
		report_row(rsinfo, "sum noise per tree node", "none");
	else if (cfg->sum_l1 > 0.0)
		report_row(rsinfo, "sum noise per tree node",
				   psprintf("discrete Laplace per coordinate, scale %.6g (variance %.6g; %s)",
							dpk_scale_value(ss), dpk_discrete_laplace_variance(ss), units));
	else if (dpk_cube_noise_usable(ss, sd))
		report_row(rsinfo, "sum noise per tree node",
				   psprintf("cube noise on the %s-vector, P(z) ~ exp(-max|z_j| / %.6g) (variance %.6g per coordinate; %s)",
							vec, dpk_scale_value(ss), dpk_vector_noise_variance(ss, sd), units));
	else
		report_row(rsinfo, "sum noise per tree node",
				   psprintf("discrete Laplace per coordinate, scale %.6g = %s x %.6g (%s)",
							dpk_scale_value(dpk_vector_l1_scale(ss, sd)), vec, dpk_scale_value(ss),
							units));
}

/*
 * Rows on the noise source, formats, who reads, how releases are made and
 * used; readers is NULL for a caller who is not the owner.
 */
static void
report_governance(ReturnSetInfo *rsinfo, const DpkTracked *tr, const DpkLiveConfig *cfg,
				  const char *readers)
{
	Oid			relid = tr->relid;

	report_row(rsinfo, "noise source",
			   tr->delta > 0.0
			   ? "ChaCha20 keyed per table (pg_strong_random key), exact discrete Gaussian (Canonne-Kamath-Steinke 2020, "
			   "discrete Laplace proposals accepted by exact Bernoulli(exp(-gamma)), integer arithmetic only)"
			   : "ChaCha20 keyed per table (pg_strong_random key), exact discrete Laplace (Canonne-Kamath-Steinke 2020), "
			   "exact cube sampler (negative binomial radius by rejection, uniform coordinates)");
	report_row(rsinfo, "noise sampler version",
			   psprintf("%d (this library: %d); exact rational scales, never rounded down",
						tr->sampler_version, DPK_SAMPLER_VERSION));
	report_row(rsinfo, "state format", psprintf("%d", tr->state_format));
	report_row(rsinfo, "counter estimator",
			   DPK_LIVE_SQRT_FAMILY(cfg, 1) && tr->dhat > 0
			   ? "square root for the counts and the lifting sums: each is the nearest integer to true value "
			   "+ sum over s <= t of (w_(t-s) x measurement noise + r_(t-s) x leaf noise) / (2^32 - 1), "
			   "integer weights with sum_(j<=k) w_j rc_(k-j) + r_k = 2^32 - 1 (every event weighs exactly 1: "
			   "post-processing of the measurements); the sum of squared norms sums the nodes of the binary "
			   "decomposition of t"
			   : DPK_LIVE_SQRT(cfg) && tr->dhat > 0
			   ? "square root for the counts: release t is the nearest integer to true value + sum over "
			   "s <= t of (w_(t-s) x measurement noise + r_(t-s) x leaf noise) / (2^32 - 1), integer "
			   "weights with sum_(j<=k) w_j rc_(k-j) + r_k = 2^32 - 1 (every event weighs exactly 1: "
			   "post-processing of the measurements); the sums and the sum of squared norms sum the "
			   "nodes of the binary decomposition of t"
			   : DPK_LIVE_SQRT(cfg)
			   ? "square root: release t is the nearest integer to true value + sum over s <= t of "
			   "(w_(t-s) x measurement noise + r_(t-s) x leaf noise) / (2^32 - 1), integer weights "
			   "with sum_(j<=k) w_j rc_(k-j) + r_k = 2^32 - 1 (every event weighs exactly 1: "
			   "post-processing of the measurements)"
			   : DPK_LIVE_SHARE(cfg)
			   ? "share tree: release t weighs its nodes (every node at horizons up to 28; else every "
			   "block and, at each lower level, the children of the nodes holding t and t + 1) by "
			   "weighted least squares (node precision (s_v / 4096)^2), weights exact over 2^32 - 1 "
			   "with every event of releases <= t weighing exactly 1, each value the nearest integer "
			   "to true value + weighted noise (post-processing of the node noise, whatever "
			   "dpkmeans.counter_estimator says)"
			   : tr->delta > 0.0
			   ? "binary: release t sums the nodes of the binary decomposition of t "
			   "(discrete Gaussian tables, whatever dpkmeans.counter_estimator says)"
			   : cfg->arity > DPK_TREE_ARITY_BINARY
			   ? (dpk_counter_estimator == DPK_TREE_SIGNED
				  ? "signed: release t sums the nodes of the balanced base-k digits of t"
				  : "least squares: release t weighs the nodes of the balanced base-k digits of t "
				  "and their ancestors' children, weights exact over 2^32 - 1, each value the "
				  "nearest integer to true value + weighted noise (post-processing of the same "
				  "node noise)")
			   : dpk_counter_estimator == DPK_TREE_SIGNED
			   ? "signed: release t sums the nodes of the non-adjacent form of t"
			   : "least squares: release t weighs the signed nodes of t, their children and their "
			   "ancestors' children, weights exact over 2^32 - 1, each value the nearest integer "
			   "to true value + weighted noise (post-processing of the same node noise)");
	/* the granted roles are the owner's to see, as in dp_tables() */
	report_row(rsinfo, "who reads releases",
			   psprintf("the owner (%s), superusers, and roles granted with dp_grant_reader%s%s",
						GetUserNameFromId(dpk_pg_rel_owner(relid), false),
						readers == NULL ? " (listed to the owner)" : readers[0] ? ": " : " (none)",
						readers ? readers : ""));
	report_row(rsinfo, "how releases are made",
			   "only by dp_release, each committed durably by a worker of its own before anyone can read it; "
			   "readers never draw noise; no release number ever meets two data states");
	report_row(rsinfo, "release history home",
			   tr->home.known
			   ? psprintf("system " UINT64_FORMAT ", timeline %d, database %u; a copy elsewhere "
						  "releases only after dp_confirm_history", tr->home.system_id,
						  tr->home.timeline, tr->home.dbid)
			   : "not recorded yet (attached by version 0.1): the next release records it");
	report_row(rsinfo, "releases used", psprintf("%d", tr->releases));
	report_row(rsinfo, "releases left", psprintf("%d", tr->horizon - tr->releases));
}

/*
 * Rows on the ledger (ledger.h): every history of the table's rows, what
 * they spent in all and since the owner's latest fresh budget.
 */
static void
report_ledger(ReturnSetInfo *rsinfo, const DpkLedgerRow *rows, int n)
{
	DpkLedgerEntry *e = palloc(sizeof(DpkLedgerEntry) * (n > 0 ? n : 1));
	DpkLedgerTotals tot;
	int			i;

	if (n == 0)
	{
		report_row(rsinfo, "ledger",
				   "not kept by the installed objects: run ALTER EXTENSION dpkmeans UPDATE (0.7)");
		return;
	}
	for (i = 0; i < n; i++)
		e[i] = rows[i].entry;
	dpk_ledger_totals(e, n, &tot);
	report_row(rsinfo, "ledger: histories",
			   psprintf("%d (this attach is history %d); a history spends its whole epsilon and "
						"delta from its first release on, none before%s", n, e[n - 1].history,
						rows[0].recorded_at_update
						? psprintf("; history %d was open at the update to 0.7, earlier ones "
								   "were not recorded", e[0].history) : ""));
	report_row(rsinfo, "ledger: spent over every history",
			   psprintf("epsilon = %g, delta = %g (histories with a release: %d of %d)",
						tot.epsilon, tot.delta, tot.spent, n));
	report_row(rsinfo, "ledger: budget counted",
			   tot.budget_from == e[0].history && !e[0].fresh_budget
			   ? psprintf("since history %d (no fresh budget started): epsilon = %g, delta = %g",
						  tot.budget_from, tot.budget_epsilon, tot.budget_delta)
			   : psprintf("since history %d, where the owner started a fresh budget "
						  "(dp_attach fresh_budget => true): epsilon = %g, delta = %g",
						  tot.budget_from, tot.budget_epsilon, tot.budget_delta));
	for (i = 0; i < n; i++)
		report_row(rsinfo, psprintf("ledger: history %d", e[i].history),
				   psprintf("epsilon = %g, delta = %g, %d of %d releases, attached %s, %s%s%s",
							e[i].epsilon, e[i].delta, e[i].releases, e[i].horizon,
							rows[i].attached_at,
							rows[i].detached_at
							? psprintf("detached %s", rows[i].detached_at) : "attached now",
							e[i].fresh_budget ? ", a fresh budget" : "",
							rows[i].recorded_at_update ? ", recorded at the update to 0.7" : ""));
}

/* dp_privacy_report(tbl): the accounting of an attached table, for an auditor. */
PG_FUNCTION_INFO_V1(dp_privacy_report);
Datum
dp_privacy_report(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			relid = dpk_pg_table_arg(fcinfo);
	DpkTracked	tr;
	DpkOwnerSwitch sw;
	DpkLiveConfig cfg;
	char	   *readers;
	DpkLedgerRow *ledger;
	int			nledger;

	/* the caller's context: SPI_finish frees the one current inside */
	MemoryContext caller = CurrentMemoryContext;
	bool		owner = pg_class_ownercheck(relid, GetUserId());

	InitMaterializedSRF(fcinfo, 0);
	dpk_reader_begin(relid, false, caller, &tr, &sw);
	readers = owner ? MemoryContextStrdup(caller, dpk_store_reader_names(relid)) : NULL;
	nledger = dpk_store_ledger_read(relid, caller, &ledger);
	dpk_store_end(&sw);
	dpk_tracked_config(&tr, &cfg);

	report_budget(rsinfo, &tr, &cfg);
	report_noise(rsinfo, &tr, &cfg);
	report_governance(rsinfo, &tr, &cfg, readers);
	report_ledger(rsinfo, ledger, nledger);
	report_row(rsinfo, "post-processing",
			   tr.dhat > 0
			   ? psprintf("per copy: projected cells above max(%g sd, sd / sqrt(2) x ln(cells))%s, "
						  "weighted k-means in the projected space, each centre lifted by the noisy sums "
						  "of its heaviest cells and shrunk toward its projected-back centre; "
						  "for each k' = 1..%d the copy with the lowest noisy cost estimate; "
						  "a mean guard publishes the one centre for a k' its noisy cells "
						  "estimate clearly dearer than that one centre",
						  cfg.threshold_sigmas,
						  dpk_live_gauss_tail(&cfg)
						  ? " (where fewer than k' cells clear it: z sd instead, z the normal "
						  "quantile of 1 / (2 cells))"
						  : "", tr.k)
			   : psprintf("cells with noisy count above max(%g sd, sd / sqrt(2) x ln(cells)) kept; "
						"level chosen among RUGNIK's and its neighbours by a noisy cost estimate; "
						"weighted k-means for k' = 1..%d; costs estimated from noisy quantities; "
						"a k' whose centres the noisy histogram shows clearly dearer than its "
						"one centre publishes that one centre (mean guard)",
						cfg.threshold_sigmas, tr.k));
	return (Datum) 0;
}

/*
 * dp_privacy_ledger(tbl): every history of a table's rows in its ledger,
 * attached or not (after dp_detach too), for its owner and, while they are
 * granted, its readers: the rows behind the report's ledger totals.
 */
PG_FUNCTION_INFO_V1(dp_privacy_ledger);
Datum
dp_privacy_ledger(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			relid = dpk_pg_table_arg(fcinfo);
	Oid			caller = GetUserId();	/* before the switch to the extension's owner */
	DpkOwnerSwitch sw;

	InitMaterializedSRF(fcinfo, 0);
	dpk_store_begin(&sw);
	dpk_reader_check_access(relid, caller, "the privacy ledger", "it");
	if (!dpk_store_has_ledger())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the privacy ledger needs dpkmeans 0.7"),
				 errhint("Run ALTER EXTENSION dpkmeans UPDATE.")));
	dpk_store_ledger_rows(relid, rsinfo);
	dpk_store_end(&sw);
	return (Datum) 0;
}

/*
 * dp_verify(tbl): owner only; stored true state + pending deltas = a recount,
 * on this server and on every shard.
 */
PG_FUNCTION_INFO_V1(dp_verify);
Datum
dp_verify(PG_FUNCTION_ARGS)
{
	Oid			relid = dpk_pg_table_arg(fcinfo);
	DpkTracked	tr;
	DpkOwnerSwitch sw;
	DpkCellMap	recount;
	Relation	rel;
	bool		same;
	MemoryContext callerctx = CurrentMemoryContext;

	dpk_pg_check_table_owner(relid, "verify it");
	rel = table_open(relid, AccessShareLock);
	(void) dpk_partition_relids(relid, AccessShareLock);
	dpk_store_begin(&sw);
	if (!dpk_store_read_tracked(relid, false, callerctx, &tr))
		dpk_store_not_attached(relid);
	if (tr.capture_wal)
	{
		if (RecoveryInProgress())
			ereport(ERROR,
					(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
					 errmsg("dp_verify of table \"%s\" cannot run during recovery", get_rel_name(relid)),
					 errdetail("The table is captured from the WAL: verifying it counts its changes "
							   "since the last sync, which only the primary can do."),
					 errhint("Verify it on the primary; tables captured by triggers can be "
							 "verified on a standby.")));

		/*
		 * Captured from the WAL: writers wait while the changes committed so
		 * far are counted, and the recount sees exactly those.
		 */
		LockRelationOid(relid, ShareLock);
		if (!dpk_store_read_tracked(relid, true, callerctx, &tr))
			dpk_store_not_attached(relid);
		(void) dpk_wal_sync(&tr, NULL);
		CommandCounterIncrement();
		PushActiveSnapshot(GetLatestSnapshot());
	}
	{
		MemoryContext old = MemoryContextSwitchTo(callerctx);

		dpk_store_add_deltas(relid, &tr.state);
		MemoryContextSwitchTo(old);
	}
	dpk_store_end(&sw);

	/* every partition, at any depth (a plain table is its own tree) */
	dpk_cellmap_init(&recount, tr.d);
	dpk_partition_scan(&tr, relid, &recount, false);
	if (tr.capture_wal)
		PopActiveSnapshot();
	same = dpk_cellmap_equal(&recount, &tr.state);
	/* every shard recounts its own rows (src/shard/shard.c) */
	if (!dpk_shard_verify_all(relid))
		same = false;
	table_close(rel, AccessShareLock);
	PG_RETURN_BOOL(same);
}
