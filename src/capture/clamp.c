/*
 * clamp.c
 *		How many points lie outside the declared box (clamped onto its faces
 *		when counted), per coordinate and side, and the message that says so.
 *
 * These are true counts.  They reach only roles that can read the rows
 * themselves: the owner of an attached table (dp_attach's backfill,
 * dp_bounds_check) and the caller of dp_kmeans, who ran the query.  Nothing
 * of them is stored, so no reader and no internal table can see them.
 */
#include "postgres.h"

#include <math.h>

#include "access/table.h"
#include "access/tableam.h"
#include "catalog/pg_class.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/tuplestore.h"

#include "capture.h"
#include "store.h"

/*
 * Share of the points on one side of one coordinate above which the caller
 * is warned: rows clamped onto a face gather at the box's edge, where from
 * about 0.25 % on they make a centre of their own
 * (doc/decisions/026-bounds-warning.md).
 */
#define DPK_CLAMP_WARN_SHARE 0.001

/* Coordinates listed in a message; the rest are summed up. */
#define DPK_CLAMP_LISTED 8

/* Zero counts (see capture.h). */
void
dpk_clamp_init(DpkClampCount *cc, int d)
{
	cc->d = d;
	cc->points = 0;
	cc->outside = 0;
	cc->below = palloc0(d * sizeof(int64));
	cc->above = palloc0(d * sizeof(int64));
}

/* Count one point (see capture.h). */
void
dpk_clamp_add(DpkClampCount *cc, const double *lower, const double *upper, const double *x)
{
	bool		out = false;
	int			j;

	for (j = 0; j < cc->d; j++)
	{
		if (x[j] < lower[j])
		{
			cc->below[j]++;
			out = true;
		}
		else if (x[j] > upper[j])
		{
			cc->above[j]++;
			out = true;
		}
	}
	cc->points++;
	if (out)
		cc->outside++;
}

/* The name of coordinate j (see capture.h). */
char *
dpk_clamp_coord_name(char **names, int ncols, int d, int j)
{
	if (ncols == d)
		return names[j];
	return psprintf("%s[%d]", names[0], j + 1);
}

/* A share of the points in percent, for messages. */
static double
percent(const DpkClampCount *cc, int64 n)
{
	return cc->points > 0 ? 100.0 * (double) n / (double) cc->points : 0.0;
}

/* Whether every point lies outside the box in every coordinate (a corner). */
static bool
all_in_corner(const DpkClampCount *cc)
{
	int			j;

	if (cc->points == 0)
		return false;
	for (j = 0; j < cc->d; j++)
		if (cc->below[j] != cc->points && cc->above[j] != cc->points)
			return false;
	return true;
}

/* Tell the caller how many points were clamped (see capture.h). */
void
dpk_clamp_report(const DpkClampCount *cc, const char *what, char **names, int ncols,
				 const char *hint)
{
	StringInfoData detail;
	bool		large = false;
	int			listed = 0,
				more = 0,
				j;

	if (cc->outside == 0)
		return;
	/* true counts: only for a role that can read the rows itself */
	if (!has_privs_of_role(GetOuterUserId(), GetUserId()))
		return;
	initStringInfo(&detail);
	for (j = 0; j < cc->d; j++)
	{
		if (cc->below[j] == 0 && cc->above[j] == 0)
			continue;
		if ((double) cc->below[j] > DPK_CLAMP_WARN_SHARE * (double) cc->points ||
			(double) cc->above[j] > DPK_CLAMP_WARN_SHARE * (double) cc->points)
			large = true;
		if (listed == DPK_CLAMP_LISTED)
		{
			more++;
			continue;
		}
		appendStringInfo(&detail, "%s%s: " INT64_FORMAT " below lower (%.2f%%), "
						 INT64_FORMAT " above upper (%.2f%%)",
						 listed > 0 ? "; " : "", dpk_clamp_coord_name(names, ncols, cc->d, j),
						 cc->below[j], percent(cc, cc->below[j]),
						 cc->above[j], percent(cc, cc->above[j]));
		listed++;
	}
	if (more > 0)
		appendStringInfo(&detail, "; and %d more coordinates", more);
	appendStringInfoChar(&detail, '.');
	if (all_in_corner(cc))
		ereport(WARNING,
				(errmsg("every point of %s lies outside the declared box", what),
				 errdetail("They are all clamped onto one corner of the box: %s", detail.data),
				 errhint("Check that lower and upper follow the order of the columns and their units (a swapped or wrong box).")));
	else
		ereport(large ? WARNING : NOTICE,
				(errmsg(INT64_FORMAT " of " INT64_FORMAT " points of %s (%.2f%%) lie outside the declared box and are clamped onto it",
						cc->outside, cc->points, what, percent(cc, cc->outside)),
				 errdetail("%s", detail.data),
				 errhint("%s", hint)));
}
