-- dpkmeans 0.6 -> 0.7
\echo Use "ALTER EXTENSION dpkmeans UPDATE TO '0.7'" to load this file. \quit

-- ---------------------------------------------------------------------------
-- Objectives a release computes: k-means always, k-median only for tables
-- that ask for it with dp_set_objectives (computing it for every k' cost
-- many times the rest of a release).  NULL: attached before 0.7, whose
-- releases keep computing both; dp_attach writes '{kmeans}'.
-- ---------------------------------------------------------------------------
ALTER TABLE dpkmeans_internal.tracked ADD COLUMN objectives text[]
    CHECK (objectives IN ('{kmeans}', '{kmeans,kmedian}'));
CREATE FUNCTION dp_set_objectives(tbl regclass, objectives text[]) RETURNS void
AS 'MODULE_PATHNAME', 'dp_set_objectives' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_set_objectives(regclass, text[]) IS
'owner: what the next releases compute: ARRAY[''kmeans''] (the default of tables attached from 0.7 on) or ARRAY[''kmeans'', ''kmedian''] (k-median centres and costs too, for dp_centers and dp_cost_curve with objective => ''kmedian'')';
