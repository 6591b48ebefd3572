/*
 * dpkmeans.c
 *		Module entry point, GUCs and the grid-size rule (dp_grid_size).
 */
#include "postgres.h"

#include <math.h>

#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/tuplestore.h"

#include "grid.h"
#include "kmeans.h"
#include "pgutil.h"
#include "rugnik.h"
#include "tree_estimator.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/* Values of dpkmeans.counter_estimator (see tree_estimator.h). */
static const struct config_enum_entry counter_estimator_options[] = {
	{"least_squares", DPK_TREE_LOCAL_BLUE, false},
	{"signed", DPK_TREE_SIGNED, false},
	{NULL, 0, false}
};

/* Values of dpkmeans.gaussian_counter (see live_config.h). */
static const struct config_enum_entry gaussian_counter_options[] = {
	{"auto", DPK_GAUSSIAN_COUNTER_AUTO, false},
	{"tree", DPK_GAUSSIAN_COUNTER_TREE, false},
	{"square_root", DPK_GAUSSIAN_COUNTER_SQRT, false},
	{NULL, 0, false}
};

/* Values of dpkmeans.pure_counter (see live_config.h). */
static const struct config_enum_entry pure_counter_options[] = {
	{"auto", DPK_PURE_COUNTER_AUTO, false},
	{"tree", DPK_PURE_COUNTER_TREE, false},
	{"share_tree", DPK_PURE_COUNTER_SHARE, false},
	{NULL, 0, false}
};

/* Load-time setup: GUCs and the core hooks (BLAS is loaded on first use, blas.h). */
void
_PG_init(void)
{
	/*
	 * A superuser's: a one-shot of public n (any role's) sizes its grid up
	 * to it, 36 bytes a cell (613 MB measured at 2^24 cells).
	 */
	DefineCustomRealVariable("dpkmeans.max_cells",
							 "Largest number of grid cells a release may use.",
							 "A public cap on m^d: larger grids cost memory and time linearly.",
							 &dpk_max_cells,
							 DPK_DEFAULT_MAX_CELLS, 1.0, 1e9,
							 PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("dpkmeans.progress_rows",
							"Rows between two progress notices of a backfill.",
							"dp_attach (and the owner's recounts) count the table's existing "
							"rows and report every this many; 0 reports nothing.",
							&dpk_progress_rows,
							1000000, 0, INT_MAX,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("dpkmeans.max_k",
							"Largest k dp_attach accepts.",
							"Every release clusters and stores the centres of every k' up to "
							"k, so its work and storage grow with k squared.",
							&dpk_max_k_live,
							DPK_MAX_K_LIVE, 1, DPK_MAX_K_LIVE_CAP,
							PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("dpkmeans.counter_estimator",
							 "How a release combines the noisy tree nodes of its counters.",
							 "least_squares (the default) or signed (the non-adjacent-form "
							 "decomposition of earlier versions); both are post-processing of "
							 "the same node noise.  Read by releases, made by a background "
							 "worker, so it is a server setting.",
							 &dpk_counter_estimator, DPK_TREE_LOCAL_BLUE,
							 counter_estimator_options, PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("dpkmeans.gaussian_counter",
							 "The continual counter dp_attach gives a table with delta > 0.",
							 "auto (the default): the square-root counter when its last "
							 "release reads few enough noise draws, else the binary tree; "
							 "square_root: always (releases read about t draws per cell and "
							 "coordinate at release t); tree: the binary tree of earlier "
							 "versions.  Fixed per table at attach.",
							 &dpk_gaussian_counter, DPK_GAUSSIAN_COUNTER_AUTO,
							 gaussian_counter_options, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("dpkmeans.pure_counter",
							 "The continual counter dp_attach gives a pure table with fewer than 6 columns.",
							 "auto (the default): the share tree from a horizon of 16 where it "
							 "applies, else the k-ary tree; tree: the k-ary least-squares tree; "
							 "share_tree: the share tree (lower noise from about a quarter of the "
							 "horizon on, more at the first releases) wherever its horizon (up to "
							 "1024) has one that beats the tree and its releases stay within its "
							 "draw cap, else the tree.  Fixed per table at attach.",
							 &dpk_pure_counter, DPK_PURE_COUNTER_AUTO,
							 pure_counter_options, PGC_USERSET, 0, NULL, NULL, NULL);
	MarkGUCPrefixReserved("dpkmeans");
	dpk_pg_install_hooks();
}

/* Parse a grid rule name. */
static DpkGridRule
parse_rule(text *rule)
{
	char	   *s = text_to_cstring(rule);

	if (pg_strcasecmp(s, "rugnik") == 0)
		return DPK_RULE_RUGNIK;
	if (pg_strcasecmp(s, "eugkm") == 0)
		return DPK_RULE_EUGKM;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown grid rule \"%s\"", s),
			 errhint("Use 'rugnik' or 'eugkm'.")));
	return DPK_RULE_RUGNIK;		/* keep compiler quiet */
}

/*
 * dp_grid_size(n, epsilon, k, d, rule) -> (m, cells_per_dim, cells)
 *
 * The grid-size rule alone, on public inputs: no data is read.
 */
PG_FUNCTION_INFO_V1(dp_grid_size);
Datum
dp_grid_size(PG_FUNCTION_ARGS)
{
	double		n,
				eps,
				m,
				cells;
	int			k,
				d,
				per_dim;
	DpkGridRule rule;
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};
	int			i;

	for (i = 0; i < 5; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("dp_grid_size arguments must not be NULL"),
					 errhint("Give n, epsilon, k, d and the rule.")));
	n = PG_GETARG_FLOAT8(0);
	eps = PG_GETARG_FLOAT8(1);
	k = PG_GETARG_INT32(2);
	d = PG_GETARG_INT32(3);
	rule = parse_rule(PG_GETARG_TEXT_PP(4));

	if (isnan(n) || isinf(n) || n < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("n must be a finite number >= 0, got %g", n),
				 errdetail("n is the number of rows the grid is sized for.")));
	dpk_pg_check_epsilon(eps, "epsilon");
	dpk_pg_check_k(k, 0);
	if (d < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("d must be at least 1, got %d", d),
				 errdetail("d is the number of dimensions of the points.")));

	/* The rules are defined for N >= 1; an empty table gets one cell. */
	if (n < 1.0)
		n = 1.0;
	m = dpk_grid_m(rule, n, eps, k, d);
	if (!isfinite(m) || m > (double) PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("the grid for n = %g and epsilon = %g has more than %d cells per dimension",
						n, eps, PG_INT32_MAX),
				 errdetail("The rule gives m = %g.", m),
				 errhint("Give the number of rows and the epsilon the grid is meant for.")));
	per_dim = dpk_grid_cells_per_dim(rule, m, n, eps, k, d, PG_INT32_MAX);
	cells = pow((double) per_dim, (double) d);
	if (!isfinite(cells))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("the grid of %d cells per dimension in %d dimensions has more cells than float8 holds",
						per_dim, d),
				 errhint("High-dimensional tables count cells of a projection (doc/design.md, \"High dimensions\").")));

	InitMaterializedSRF(fcinfo, 0);
	values[0] = Float8GetDatum(m);
	values[1] = Int32GetDatum(per_dim);
	values[2] = Float8GetDatum(cells);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	return (Datum) 0;
}
