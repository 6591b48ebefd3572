/*
 * shard_side_int.h
 *		Private to the shard side's SQL functions: what a coordinator asks of
 *		a shard at attach, and reading it from shard protocol 1's jsonb
 *		(shard_config.c).
 */
#ifndef DPK_SHARD_SIDE_INT_H
#define DPK_SHARD_SIDE_INT_H

#include "postgres.h"

#include "utils/array.h"
#include "utils/jsonb.h"

/*
 * What a coordinator asks of a shard at attach: its table and the public
 * configuration of the coordinator's table, whichever entry point carried it
 * (the 17 positional arguments of 0.5 to 0.7, or shard protocol 1's jsonb).
 * norm_bound is the coordinator's stored bound (0: none); delta the
 * coordinator's, from which the shard derives the unit of the squared norms
 * as the coordinator does (dpk_tracked_norm_shift; the fingerprint compares
 * the two).
 */
typedef struct DpkShardAttachRequest
{
	Oid			relid;
	ArrayType  *columns;		/* text[] */
	int32		k;
	double		epsilon;
	ArrayType  *lower;			/* float8[] */
	ArrayType  *upper;
	int32		horizon;
	char	   *mode;
	double		size_hint;
	int32		level;
	double		sum_share;
	int32		dhat;
	int32		copies;
	int64		proj_seed;
	double		norm_share;
	double		norm_bound;
	double		delta;
} DpkShardAttachRequest;

/*
 * Read a coordinator's configuration of shard protocol 1 into req (for the
 * shard table relid): ERROR (0A000) for another protocol version, (22023)
 * for a missing or unknown key or a value of the wrong type.
 */
void		dpk_shard_config_read(Jsonb *config, Oid relid, DpkShardAttachRequest *req);

#endif
