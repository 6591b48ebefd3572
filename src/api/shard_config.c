/*
 * shard_config.c
 *		Shard protocol 1: the coordinator's configuration of a shard table as
 *		one jsonb object, checked key by key (see shard_side_int.h).
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"

#include "shard.h"
#include "shard_side_int.h"

/* The keys of shard protocol 1's configuration, every one required. */
static const char *const shard_protocol1_keys[] = {
	"protocol", "columns", "k", "epsilon", "lower", "upper", "horizon", "mode",
	"size_hint", "level", "sum_share", "dhat", "copies", "proj_seed", "norm_share",
	"norm_bound", "delta"
};

/* ERROR naming key of a shard configuration that is not what it should be. */
static void
shard_config_invalid(const char *key, const char *should)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("\"%s\" of the shard configuration must be %s", key, should),
			 errhint("The configuration is sent by the coordinator's dp_attach; attach from the coordinator.")));
}

/* The value of key in a shard configuration (an object), or ERROR. */
static JsonbValue *
shard_config_get(Jsonb *config, const char *key)
{
	JsonbValue *v = getKeyJsonValueFromContainer(&config->root, key, strlen(key), NULL);

	if (v == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("shard configuration lacks \"%s\"", key),
				 errdetail("Shard protocol 1 requires every one of its fields."),
				 errhint("The configuration is sent by the coordinator's dp_attach; attach from the coordinator.")));
	return v;
}

/* A number of a shard configuration, as float8. */
static double
shard_config_float8(Jsonb *config, const char *key)
{
	JsonbValue *v = shard_config_get(config, key);

	if (v->type != jbvNumeric)
		shard_config_invalid(key, "a number");
	return DatumGetFloat8(DirectFunctionCall1(numeric_float8,
											  NumericGetDatum(v->val.numeric)));
}

/* An integer of a shard configuration, within [min, max]. */
static int64
shard_config_int(Jsonb *config, const char *key, int64 min, int64 max)
{
	JsonbValue *v = shard_config_get(config, key);
	Datum		n;
	int64		i;

	if (v->type != jbvNumeric)
		shard_config_invalid(key, "an integer");
	n = NumericGetDatum(v->val.numeric);
	if (!DatumGetBool(DirectFunctionCall2(numeric_eq, n,
										  DirectFunctionCall2(numeric_trunc, n, Int32GetDatum(0)))))
		shard_config_invalid(key, "an integer");
	i = DatumGetInt64(DirectFunctionCall1(numeric_int8, n));
	if (i < min || i > max)
		shard_config_invalid(key, "an integer in range");
	return i;
}

/* A string of a shard configuration. */
static char *
shard_config_text(Jsonb *config, const char *key)
{
	JsonbValue *v = shard_config_get(config, key);

	if (v->type != jbvString)
		shard_config_invalid(key, "a string");
	return pnstrdup(v->val.string.val, v->val.string.len);
}

/* An array of strings (text[]) or of numbers (float8[]) of a shard configuration. */
static ArrayType *
shard_config_array(Jsonb *config, const char *key, bool numbers)
{
	JsonbValue *v = shard_config_get(config, key);
	JsonbContainer *c;
	Datum	   *elems;
	int			n,
				i;

	if (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
		shard_config_invalid(key, numbers ? "an array of numbers" : "an array of strings");
	c = v->val.binary.data;
	n = JsonContainerSize(c);
	elems = palloc(Max(n, 1) * sizeof(Datum));
	for (i = 0; i < n; i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(c, i);

		if (numbers && e->type == jbvNumeric)
			elems[i] = DirectFunctionCall1(numeric_float8, NumericGetDatum(e->val.numeric));
		else if (!numbers && e->type == jbvString)
			elems[i] = PointerGetDatum(cstring_to_text_with_len(e->val.string.val,
																e->val.string.len));
		else
			shard_config_invalid(key, numbers ? "an array of numbers" : "an array of strings");
	}
	return numbers ? construct_array(elems, n, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE)
		: construct_array(elems, n, TEXTOID, -1, false, TYPALIGN_INT);
}

/*
 * ERROR unless config is an object of shard protocol 1 with no key that
 * protocol does not define (a field this server would ignore: a newer
 * coordinator must send a newer protocol version instead).
 */
static void
shard_config_check(Jsonb *config)
{
	JsonbValue *v;
	JsonbIterator *it;
	JsonbValue	key;
	JsonbIteratorToken tok;
	int64		protocol;

	if (!JB_ROOT_IS_OBJECT(config))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("shard configuration must be a jsonb object"),
				 errhint("The configuration is sent by the coordinator's dp_attach; attach from the coordinator.")));
	v = getKeyJsonValueFromContainer(&config->root, "protocol", strlen("protocol"), NULL);
	if (v == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("shard configuration has no protocol version"),
				 errdetail("The configuration's \"protocol\" names the version of the shard protocol it follows."),
				 errhint("The configuration is sent by the coordinator's dp_attach; attach from the coordinator.")));
	protocol = shard_config_int(config, "protocol", PG_INT32_MIN, PG_INT32_MAX);
	if (protocol != DPK_SHARD_PROTOCOL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("shard protocol version " INT64_FORMAT " is not supported by dpkmeans on this server",
						protocol),
				 errdetail("This server speaks shard protocol version %d.", DPK_SHARD_PROTOCOL),
				 errhint("Install the coordinator's release of dpkmeans on this server and run ALTER EXTENSION dpkmeans UPDATE here.")));

	it = JsonbIteratorInit(&config->root);
	while ((tok = JsonbIteratorNext(&it, &key, true)) != WJB_DONE)
	{
		bool		known = false;
		int			i;

		if (tok != WJB_KEY)
			continue;
		for (i = 0; i < lengthof(shard_protocol1_keys); i++)
			known = known || (strlen(shard_protocol1_keys[i]) == key.val.string.len &&
							  strncmp(shard_protocol1_keys[i], key.val.string.val,
									  key.val.string.len) == 0);
		if (!known)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown key \"%.*s\" in shard configuration of protocol version %d",
							key.val.string.len, key.val.string.val, DPK_SHARD_PROTOCOL),
					 errhint("A coordinator that sends more fields must send a newer protocol version; install its release of dpkmeans on this server.")));
	}
}

/* A configuration of shard protocol 1 into a request (see shard_side_int.h). */
void
dpk_shard_config_read(Jsonb *config, Oid relid, DpkShardAttachRequest *req)
{
	shard_config_check(config);
	req->relid = relid;
	req->columns = shard_config_array(config, "columns", false);
	req->k = (int32) shard_config_int(config, "k", PG_INT32_MIN, PG_INT32_MAX);
	req->epsilon = shard_config_float8(config, "epsilon");
	req->lower = shard_config_array(config, "lower", true);
	req->upper = shard_config_array(config, "upper", true);
	req->horizon = (int32) shard_config_int(config, "horizon", PG_INT32_MIN, PG_INT32_MAX);
	req->mode = shard_config_text(config, "mode");
	req->size_hint = shard_config_float8(config, "size_hint");
	req->level = (int32) shard_config_int(config, "level", PG_INT32_MIN, PG_INT32_MAX);
	req->sum_share = shard_config_float8(config, "sum_share");
	req->dhat = (int32) shard_config_int(config, "dhat", PG_INT32_MIN, PG_INT32_MAX);
	req->copies = (int32) shard_config_int(config, "copies", PG_INT32_MIN, PG_INT32_MAX);
	req->proj_seed = shard_config_int(config, "proj_seed", PG_INT64_MIN, PG_INT64_MAX);
	req->norm_share = shard_config_float8(config, "norm_share");
	req->norm_bound = shard_config_float8(config, "norm_bound");
	req->delta = shard_config_float8(config, "delta");
}
