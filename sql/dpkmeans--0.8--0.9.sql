-- dpkmeans 0.8 -> 0.9
\echo Use "ALTER EXTENSION dpkmeans UPDATE TO '0.9'" to load this file. \quit

-- (Whatever this file adds must also be in dpkmeans--0.9.sql, the full
-- install script; the pg_regress suite install_script compares the two.)

-- ---------------------------------------------------------------------------
-- The continual counter of a Gaussian table's cells, fixed at attach: 'tree'
-- (the plain binary decomposition, every table attached before 0.9) or
-- 'square_root' (the square-root factorization with integer measurements,
-- doc/privacy.md).  Existing tables keep their counter and their noise.
-- ---------------------------------------------------------------------------
ALTER TABLE dpkmeans_internal.tracked
    ADD COLUMN counter text NOT NULL DEFAULT 'tree' CHECK (counter IN ('tree', 'square_root'));

-- ---------------------------------------------------------------------------
-- Pure low-d tables may count with the share tree (tracked.counter
-- 'share_tree', chosen by dp_attach from a horizon of 16 under
-- dpkmeans.pure_counter = 'auto', the default, or at any horizon under
-- 'share_tree'; doc/privacy.md, "The share tree").  Existing tables keep
-- their counter ('tree') and their published values.
-- ---------------------------------------------------------------------------
ALTER TABLE dpkmeans_internal.tracked
    DROP CONSTRAINT tracked_counter_check,
    ADD CONSTRAINT tracked_counter_check CHECK (counter IN ('tree', 'square_root', 'share_tree'));

-- ---------------------------------------------------------------------------
-- Projected Gaussian tables may count their lifting sums on the square root
-- too (tracked.counter 'square_root_sums', chosen by dp_attach under
-- dpkmeans.gaussian_counter = 'auto' where a release's noise draws fit its
-- budget, always under 'square_root'; doc/privacy.md, "The square-root
-- counter"); 'square_root_lifted' where a release draws them only for the
-- cells it lifts from.  Existing tables keep their counter and their
-- published values.
-- ---------------------------------------------------------------------------
ALTER TABLE dpkmeans_internal.tracked
    DROP CONSTRAINT tracked_counter_check,
    ADD CONSTRAINT tracked_counter_check
        CHECK (counter IN ('tree', 'square_root', 'share_tree', 'square_root_sums',
                                       'square_root_lifted'));

-- ---------------------------------------------------------------------------
-- dp_box returns one row: the planner knows it (a join of its default 1000
-- rows with dp_histogram, as in dp_cell_polygons, was costed at a million
-- rows and JIT-compiled, 0.4 s a call).
-- ---------------------------------------------------------------------------
ALTER FUNCTION dp_box(regclass) ROWS 1;
