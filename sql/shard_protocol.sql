-- The shard protocol: a coordinator sends dp_shard_attach(tbl, config) its
-- table's configuration as one jsonb object of a protocol version.  A shard
-- refuses a version it does not speak, a configuration without one, and a
-- field its version does not define, by name; the positional entry point of
-- coordinators at 0.5 to 0.7 attaches exactly the same.
CREATE TABLE sp_json (x float8, y float8);
CREATE TABLE sp_args (x float8, y float8);
INSERT INTO sp_json SELECT i % 97, (i * 7) % 89 FROM generate_series(1, 500) i;
INSERT INTO sp_args SELECT * FROM sp_json;
CREATE TABLE sp_config AS SELECT jsonb_build_object(
    'protocol', 1, 'columns', ARRAY['x', 'y'], 'k', 3, 'epsilon', 0.7,
    'lower', ARRAY[0, 0], 'upper', ARRAY[100, 100], 'horizon', 32, 'mode', 'insert_delete',
    'size_hint', 1000, 'level', 4, 'sum_share', 0.25, 'dhat', 0, 'copies', 1,
    'proj_seed', 0, 'norm_share', 0, 'norm_bound', 0, 'delta', 0) AS config;

-- a version this server does not speak: feature_not_supported, with a hint
\set VERBOSITY sqlstate
SELECT dp_shard_attach('sp_json', config || '{"protocol": 2}') FROM sp_config;
\set VERBOSITY default
SELECT dp_shard_attach('sp_json', config || '{"protocol": 2}') FROM sp_config;
-- no version, a version that is not an integer, a field protocol 1 does not
-- define, a field missing, not an object, NULL
\set VERBOSITY sqlstate
SELECT dp_shard_attach('sp_json', config - 'protocol') FROM sp_config;
\set VERBOSITY default
SELECT dp_shard_attach('sp_json', config - 'protocol') FROM sp_config;
SELECT dp_shard_attach('sp_json', config || '{"protocol": "1"}') FROM sp_config;
SELECT dp_shard_attach('sp_json', config || '{"protocol": 1.5}') FROM sp_config;
\set VERBOSITY sqlstate
SELECT dp_shard_attach('sp_json', config || '{"weights": [1, 2]}') FROM sp_config;
\set VERBOSITY default
SELECT dp_shard_attach('sp_json', config || '{"weights": [1, 2]}') FROM sp_config;
SELECT dp_shard_attach('sp_json', config - 'delta') FROM sp_config;
SELECT dp_shard_attach('sp_json', config || '{"lower": [0, "a"]}') FROM sp_config;
SELECT dp_shard_attach('sp_json', '[1]');
SELECT dp_shard_attach('sp_json', NULL::jsonb);
-- the checks of the positional entry point hold for the jsonb one
SELECT dp_shard_attach('sp_json', config || '{"epsilon": 0}') FROM sp_config;
SELECT dp_shard_attach('sp_json', config || '{"mode": "append"}') FROM sp_config;
SELECT dp_shard_attach('sp_json', config || '{"delta": 1}') FROM sp_config;
SELECT dp_shard_attach('sp_json', config || '{"norm_bound": 1}') FROM sp_config;
SELECT count(*) AS attached_after_refusals FROM dpkmeans_internal.tracked;

-- protocol 1 and the positional call attach the same
SELECT dp_shard_attach('sp_json', config) FROM sp_config;
SELECT dp_shard_attach('sp_args', ARRAY['x', 'y'], 3, 0.7, ARRAY[0, 0]::float8[],
                       ARRAY[100, 100]::float8[], 32, 'insert_delete', 1000, 4, 0.25, 0, 1, 0, 0, 0, 0);
SELECT (SELECT to_jsonb(t) - '{relid,attached_at,home_system_id,home_timeline,home_database}'::text[]
        FROM dpkmeans_internal.tracked t WHERE relid = 'sp_json'::regclass)
     = (SELECT to_jsonb(t) - '{relid,attached_at,home_system_id,home_timeline,home_database}'::text[]
        FROM dpkmeans_internal.tracked t WHERE relid = 'sp_args'::regclass) AS same_configuration,
       (SELECT string_agg(md5(payload), ' ') FROM dpkmeans_internal.delta WHERE relid = 'sp_json'::regclass)
     = (SELECT string_agg(md5(payload), ' ') FROM dpkmeans_internal.delta WHERE relid = 'sp_args'::regclass) AS same_backfill,
       (SELECT array_agg(tgname || ' ' || encode(tgargs, 'escape') ORDER BY tgname) FROM pg_trigger
        WHERE tgrelid = 'sp_json'::regclass)
     = (SELECT array_agg(tgname || ' ' || encode(tgargs, 'escape') ORDER BY tgname) FROM pg_trigger
        WHERE tgrelid = 'sp_args'::regclass) AS same_triggers;
-- attaching again with the same configuration (a coordinator's retry): false;
-- with another: refused
SELECT dp_shard_attach('sp_json', config) FROM sp_config;
SELECT dp_shard_attach('sp_json', config || '{"level": 5}') FROM sp_config;
SELECT dp_shard_detach('sp_json'), dp_shard_detach('sp_args');
DROP TABLE sp_json, sp_args, sp_config;
