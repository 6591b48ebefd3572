-- dpkmeans 0.6 -> 0.7
\echo Use "ALTER EXTENSION dpkmeans UPDATE TO '0.7'" to load this file. \quit

-- ---- Reader grants are PostgreSQL privileges of their roles ----
-- A role granted reading (dp_grant_reader) holds USAGE on the domain
-- dpkmeans_internal.reader_grants (which gives nothing else), so DROP ROLE
-- is refused while it reads a table, as for any grant, and DROP OWNED BY
-- removes its grants; a grant counts only while its role holds it.
CREATE DOMAIN dpkmeans_internal.reader_grants AS boolean;
REVOKE ALL ON TYPE dpkmeans_internal.reader_grants FROM PUBLIC;
COMMENT ON DOMAIN dpkmeans_internal.reader_grants IS
'USAGE on it marks the roles granted reading with dp_grant_reader (it gives nothing else); DROP OWNED BY or dp_revoke_reader removes it';

-- The grants of roles that no longer hold the privilege (after DROP OWNED
-- BY) are removed; a grant whose privilege was revoked by hand counts no
-- more either, and goes at the next DROP OWNED.
CREATE FUNCTION dpkmeans_internal.prune_reader_grants() RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    DELETE FROM dpkmeans_internal.readers g
    WHERE NOT EXISTS (SELECT 1 FROM pg_type t, aclexplode(t.typacl) a
                      WHERE t.oid = 'dpkmeans_internal.reader_grants'::regtype
                        AND a.grantee = g.reader::oid);
END
$$;
REVOKE ALL ON FUNCTION dpkmeans_internal.prune_reader_grants() FROM PUBLIC;

-- The privilege of roles that read no table any more (after
-- dp_revoke_reader, dp_detach or DROP TABLE) is revoked.
CREATE FUNCTION dpkmeans_internal.revoke_unused_reader_grants() RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    r regrole;
BEGIN
    FOR r IN SELECT a.grantee::regrole FROM pg_type t, aclexplode(t.typacl) a
             WHERE t.oid = 'dpkmeans_internal.reader_grants'::regtype
               AND a.grantee <> t.typowner AND a.grantee <> 0
               AND NOT EXISTS (SELECT 1 FROM dpkmeans_internal.readers g
                               WHERE g.reader::oid = a.grantee) LOOP
        EXECUTE format('REVOKE ALL ON TYPE dpkmeans_internal.reader_grants FROM %s', r);
    END LOOP;
END
$$;
REVOKE ALL ON FUNCTION dpkmeans_internal.revoke_unused_reader_grants() FROM PUBLIC;

CREATE FUNCTION dpkmeans_internal.on_reader_privileges() RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF TG_EVENT = 'sql_drop' THEN
        PERFORM dpkmeans_internal.revoke_unused_reader_grants();
    ELSE
        PERFORM dpkmeans_internal.prune_reader_grants();
    END IF;
END
$$;
REVOKE ALL ON FUNCTION dpkmeans_internal.on_reader_privileges() FROM PUBLIC;
-- after dpkmeans_sql_drop, which removes a dropped table's grants
CREATE EVENT TRIGGER dpkmeans_sql_drop_readers ON sql_drop
    WHEN TAG IN ('DROP TABLE', 'DROP SCHEMA', 'DROP OWNED')
    EXECUTE FUNCTION dpkmeans_internal.on_reader_privileges();
CREATE EVENT TRIGGER dpkmeans_reader_privileges ON ddl_command_end
    WHEN TAG IN ('DROP OWNED')
    EXECUTE FUNCTION dpkmeans_internal.on_reader_privileges();
ALTER EVENT TRIGGER dpkmeans_sql_drop_readers ENABLE ALWAYS;
ALTER EVENT TRIGGER dpkmeans_reader_privileges ENABLE ALWAYS;

-- A grant row inserted otherwise than by dp_grant_reader (the rows of a
-- restored dump) gives its role the privilege too: a grant migrated below
-- holds it as an initial privilege of the extension, which pg_dump leaves
-- out.
CREATE FUNCTION dpkmeans_internal.on_reader_row() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE oid = NEW.reader::oid) THEN
        EXECUTE format('GRANT USAGE ON TYPE dpkmeans_internal.reader_grants TO %s', NEW.reader);
    END IF;
    RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION dpkmeans_internal.on_reader_row() FROM PUBLIC;
CREATE TRIGGER reader_privilege AFTER INSERT ON dpkmeans_internal.readers
    FOR EACH ROW EXECUTE FUNCTION dpkmeans_internal.on_reader_row();
ALTER TABLE dpkmeans_internal.readers ENABLE ALWAYS TRIGGER reader_privilege;

-- Grants made before: those of roles dropped since go, the others get the
-- privilege.
DELETE FROM dpkmeans_internal.readers g
WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE oid = g.reader::oid);
DO $$
DECLARE
    r regrole;
BEGIN
    FOR r IN SELECT DISTINCT reader FROM dpkmeans_internal.readers LOOP
        EXECUTE format('GRANT USAGE ON TYPE dpkmeans_internal.reader_grants TO %s', r);
    END LOOP;
END
$$;
