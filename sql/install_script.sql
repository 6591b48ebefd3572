-- The full install script (dpkmeans--0.9.sql) and 0.1 updated step by step
-- to 0.9 give the same catalog: every member of the extension, every
-- function's definition (arguments, result, volatility, strictness,
-- security, settings, body), ACL, initial privileges and comment, the
-- tables, columns, constraints, indexes and triggers of dpkmeans_internal,
-- its types and domains, the event triggers and the tables pg_dump dumps.
-- Names and texts only (no OIDs), so the two can be compared row by row.
SET client_min_messages = warning;
DROP EXTENSION dpkmeans;
RESET client_min_messages;

CREATE FUNCTION dpk_acl(acl aclitem[], kind "char", owner oid) RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT coalesce(string_agg(item, ', ' ORDER BY item), '')
    FROM (SELECT CASE a.grantee WHEN 0 THEN 'PUBLIC' ELSE a.grantee::regrole::text END
                 || ':' || a.privilege_type || ':' || a.is_grantable
                 || ' by ' || a.grantor::regrole::text AS item
          FROM aclexplode(coalesce(acl, acldefault(kind, owner))) a) i
$$;

CREATE FUNCTION dpk_catalog() RETURNS TABLE(kind text, name text, detail text)
LANGUAGE sql STABLE AS $$
    WITH ext AS (SELECT oid FROM pg_extension WHERE extname = 'dpkmeans'),
    members AS (SELECT d.classid, d.objid FROM pg_depend d, ext
                WHERE d.refclassid = 'pg_extension'::regclass AND d.refobjid = ext.oid
                  AND d.deptype = 'e'),
    rels AS (SELECT c.* FROM pg_class c
             WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = 'dpkmeans_internal'))
    -- every member of the extension, with its comment and initial privileges
    SELECT 'member', pg_describe_object(m.classid, m.objid, 0),
           coalesce(obj_description(m.objid, m.classid::regclass::name), '(no comment)')
           || ' / init ' || coalesce((SELECT dpk_acl(ip.initprivs, 'f', 10)
                                      FROM pg_init_privs ip
                                      WHERE ip.objoid = m.objid AND ip.classoid = m.classid
                                        AND ip.objsubid = 0), '(none)')
    FROM members m
    UNION ALL
    -- functions: their whole definition, owner's ACL and comment
    SELECT 'function', p.oid::regprocedure::text,
           pg_get_functiondef(p.oid) || ' acl ' || dpk_acl(p.proacl, 'f', p.proowner)
           || ' leakproof ' || p.proleakproof || ' cost ' || p.procost || ' rows ' || p.prorows
    FROM pg_proc p JOIN members m ON m.classid = 'pg_proc'::regclass AND m.objid = p.oid
    UNION ALL
    -- relations of dpkmeans_internal
    SELECT 'relation', c.relname,
           c.relkind::text || ' ' || c.relpersistence::text || ' ' || coalesce(c.reloptions::text, '')
           || ' acl ' || dpk_acl(c.relacl, CASE WHEN c.relkind = 'S' THEN 's'::"char" ELSE 'r'::"char" END, c.relowner)
           || ' identity ' || c.relreplident::text
           || ' comment ' || coalesce(obj_description(c.oid, 'pg_class'), '')
    FROM rels c
    UNION ALL
    -- columns, by their position among the live ones (a column dropped by an
    -- update leaves a hole in attnum that nothing reads)
    SELECT 'column', c.relname || '.' || a.attname,
           row_number() OVER (PARTITION BY c.oid ORDER BY a.attnum) || ' '
           || format_type(a.atttypid, a.atttypmod) || ' notnull ' || a.attnotnull
           || ' default ' || coalesce(pg_get_expr(ad.adbin, ad.adrelid), '-')
           || ' storage ' || a.attstorage::text || ' compression ' || a.attcompression::text
           || ' collation ' || a.attcollation::regcollation::text
           || ' acl ' || coalesce(a.attacl::text, '-')
           || ' comment ' || coalesce(col_description(c.oid, a.attnum), '')
    FROM rels c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
    LEFT JOIN pg_attrdef ad ON ad.adrelid = c.oid AND ad.adnum = a.attnum
    UNION ALL
    SELECT 'constraint', c.relname || '.' || k.conname,
           k.contype::text || ' ' || pg_get_constraintdef(k.oid) || ' deferrable ' || k.condeferrable
    FROM rels c JOIN pg_constraint k ON k.conrelid = c.oid
    UNION ALL
    SELECT 'index', i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid)
    FROM rels c JOIN pg_index i ON i.indrelid = c.oid
    UNION ALL
    SELECT 'trigger', c.relname || '.' || t.tgname, pg_get_triggerdef(t.oid) || ' ' || t.tgenabled::text
    FROM rels c JOIN pg_trigger t ON t.tgrelid = c.oid
    UNION ALL
    -- types and domains (with their constraints)
    SELECT 'type', t.typname,
           t.typtype::text || ' ' || format_type(t.typbasetype, t.typtypmod) || ' notnull ' || t.typnotnull
           || ' default ' || coalesce(t.typdefault, '-')
           || ' acl ' || dpk_acl(t.typacl, 'T', t.typowner)
           || ' checks ' || coalesce((SELECT string_agg(k.conname || ' ' || pg_get_constraintdef(k.oid), ', '
                                                        ORDER BY k.conname)
                                      FROM pg_constraint k WHERE k.contypid = t.oid), '')
           || ' comment ' || coalesce(obj_description(t.oid, 'pg_type'), '')
    FROM pg_type t WHERE t.typnamespace = (SELECT oid FROM pg_namespace WHERE nspname = 'dpkmeans_internal')
    UNION ALL
    SELECT 'schema', n.nspname,
           dpk_acl(n.nspacl, 'n', n.nspowner) || ' comment '
           || coalesce(obj_description(n.oid, 'pg_namespace'), '')
    FROM pg_namespace n WHERE n.nspname = 'dpkmeans_internal'
    UNION ALL
    SELECT 'event trigger', e.evtname,
           e.evtevent || ' ' || e.evtfoid::regprocedure::text || ' ' || e.evtenabled::text
           || ' ' || coalesce((SELECT string_agg(tag, ',' ORDER BY tag) FROM unnest(e.evttags) tag), '')
    FROM pg_event_trigger e WHERE e.evtname LIKE 'dpkmeans%'
    UNION ALL
    -- the tables pg_dump dumps with the extension (any order)
    SELECT 'dumped table', cfg.rel::regclass::text, coalesce(cfg.cond, '')
    FROM ext, pg_extension x,
         LATERAL unnest(x.extconfig, x.extcondition) AS cfg(rel, cond)
    WHERE x.oid = ext.oid
$$;

-- 0.1, updated one version at a time
CREATE EXTENSION dpkmeans VERSION '0.1';
ALTER EXTENSION dpkmeans UPDATE TO '0.2';
ALTER EXTENSION dpkmeans UPDATE TO '0.3';
ALTER EXTENSION dpkmeans UPDATE TO '0.4';
ALTER EXTENSION dpkmeans UPDATE TO '0.5';
ALTER EXTENSION dpkmeans UPDATE TO '0.6';
ALTER EXTENSION dpkmeans UPDATE TO '0.7';
ALTER EXTENSION dpkmeans UPDATE TO '0.8';
ALTER EXTENSION dpkmeans UPDATE TO '0.9';
CREATE TABLE catalog_updated AS SELECT * FROM dpk_catalog();
DROP EXTENSION dpkmeans;

-- the full script
CREATE EXTENSION dpkmeans;
SELECT extversion FROM pg_extension WHERE extname = 'dpkmeans';
CREATE TABLE catalog_installed AS SELECT * FROM dpk_catalog();

-- enough was compared to mean something
SELECT count(*) > 250 AS compared, count(DISTINCT kind) AS kinds FROM catalog_installed;
-- what one has and the other lacks (none)
SELECT 'only updated' AS side, * FROM (TABLE catalog_updated EXCEPT ALL TABLE catalog_installed) u
UNION ALL
SELECT 'only installed', * FROM (TABLE catalog_installed EXCEPT ALL TABLE catalog_updated) i
ORDER BY kind, name, side;
-- every function of the extension has a one-line comment
SELECT name AS function_without_one_line_comment FROM catalog_installed
WHERE kind = 'member' AND name LIKE 'function %'
  AND (detail LIKE '(no comment)%' OR split_part(detail, ' / init ', 1) LIKE '%' || chr(10) || '%');

DROP TABLE catalog_updated, catalog_installed;
DROP FUNCTION dpk_catalog(), dpk_acl(aclitem[], "char", oid);
