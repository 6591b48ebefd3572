-- Partitioned tables: dp_attach on the root counts every row stored in any
-- partition at any depth exactly once, whichever table a statement names,
-- and partition DDL counts the rows it adds or removes.  After each step the
-- stored true state must equal a recount (dp_verify) AND the state of a
-- plain table holding the same rows (same_as_flat), so a partition missed by
-- both the capture and the recount still shows.
\set VERBOSITY terse
SELECT setseed(0.11);
CREATE TABLE m (id int, x float8, y float8) PARTITION BY RANGE (id);
CREATE TABLE m1 PARTITION OF m FOR VALUES FROM (0) TO (1000) PARTITION BY RANGE (id);
CREATE TABLE m1a PARTITION OF m1 FOR VALUES FROM (0) TO (500);
CREATE TABLE m1b PARTITION OF m1 FOR VALUES FROM (500) TO (1000);
-- columns in another order in one partition: found by name
CREATE TABLE m2 (y float8, id int, x float8);
ALTER TABLE m ATTACH PARTITION m2 FOR VALUES FROM (1000) TO (2000);
INSERT INTO m SELECT i, random() * 100, random() * 100 FROM generate_series(0, 1999) i;

SELECT dp_attach('m', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[100, 100], horizon => 64);
CREATE TABLE flat (id int, x float8, y float8);
SELECT dp_attach('flat', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[100, 100], horizon => 64);

-- :check refills flat with m's rows, releases both (folding the deltas) and
-- compares m's true state with a recount and with flat's state
\set check 'TRUNCATE flat; INSERT INTO flat SELECT id, x, y FROM m; SELECT dp_release(''m'') > 0 AND dp_release(''flat'') > 0 AS released; SELECT dp_verify(''m'') AS verify, (SELECT state FROM dpkmeans_internal.tracked WHERE relid = ''m''::regclass) = (SELECT state FROM dpkmeans_internal.tracked WHERE relid = ''flat''::regclass) AS same_as_flat;'
:check

-- triggers: statement capture on every table, truncate on leaves, the row
-- trigger (logical replication) on the root and cloned to partitions
SELECT tgrelid::regclass AS tbl, tgname, tgenabled, tgparentid <> 0 AS clone
FROM pg_trigger WHERE tgname LIKE 'dpkmeans%' AND tgrelid::regclass::text LIKE 'm%'
ORDER BY tgrelid::regclass::text, tgname;

-- writes naming the root, an intermediate table and a leaf; rows moving
-- between partitions; COPY
INSERT INTO m SELECT i, random() * 100, random() * 100 FROM generate_series(0, 1999, 7) i;
INSERT INTO m1 SELECT i, 1, 1 FROM generate_series(0, 999, 11) i;
INSERT INTO m1a SELECT i, 2, 2 FROM generate_series(0, 499, 13) i;
UPDATE m SET id = id + 1000 WHERE id BETWEEN 900 AND 950;
UPDATE m1 SET id = id + 400, x = 3 WHERE id BETWEEN 10 AND 20;
UPDATE m2 SET y = 99 WHERE id % 9 = 0;
DELETE FROM m2 WHERE id % 5 = 0;
DELETE FROM m WHERE id % 17 = 0;
COPY m1b (id, x, y) FROM stdin;
600	10	10
700	20	20
\.
COPY m (id, x, y) FROM stdin;
5	30	30
1500	40	40
\.
:check

-- TRUNCATE of a leaf, of an intermediate table
TRUNCATE m1b;
:check
INSERT INTO m1b VALUES (800, 50, 50);
TRUNCATE m1;
:check

-- CREATE TABLE ... PARTITION OF: captured from its first row
CREATE TABLE m3 PARTITION OF m FOR VALUES FROM (2000) TO (3000);
INSERT INTO m3 SELECT i, 3, 3 FROM generate_series(2000, 2099) i;
:check
SELECT count(*) AS m3_triggers FROM pg_trigger WHERE tgrelid = 'm3'::regclass AND tgname LIKE 'dpkmeans%';

-- ATTACH PARTITION: its rows are insertions; a sub-partitioned one too
CREATE TABLE m4 (id int, x float8, y float8) PARTITION BY RANGE (id);
CREATE TABLE m4a PARTITION OF m4 FOR VALUES FROM (3000) TO (3500);
CREATE TABLE m4b PARTITION OF m4 FOR VALUES FROM (3500) TO (4000);
INSERT INTO m4 SELECT i, 4, (i % 100) FROM generate_series(3000, 3999, 3) i;
ALTER TABLE m ATTACH PARTITION m4 FOR VALUES FROM (3000) TO (4000);
INSERT INTO m4b VALUES (3600, 5, 5);
:check

-- DETACH PARTITION: its rows are deletions; later writes into it are not counted
ALTER TABLE m DETACH PARTITION m3;
:check
INSERT INTO m3 VALUES (2001, 9, 9);
:check
SELECT count(*) AS m3_triggers FROM pg_trigger WHERE tgrelid = 'm3'::regclass AND tgname LIKE 'dpkmeans%';
ALTER TABLE m DETACH PARTITION m4 CONCURRENTLY;
:check
INSERT INTO m4 VALUES (3001, 9, 9);
SELECT count(*) AS m4_triggers FROM pg_trigger WHERE tgrelid IN ('m4'::regclass, 'm4a'::regclass) AND tgname LIKE 'dpkmeans%';

-- DROP TABLE of a partition (a leaf, and two names covering the same leaf)
DROP TABLE m1a;
:check
CREATE TABLE m5 PARTITION OF m FOR VALUES FROM (5000) TO (6000) PARTITION BY RANGE (id);
CREATE TABLE m5a PARTITION OF m5 FOR VALUES FROM (5000) TO (6000);
INSERT INTO m5 SELECT i, 60, 60 FROM generate_series(5000, 5099) i;
DROP TABLE m5, m5a;
:check
-- a DROP rolled back leaves the counters as they were
BEGIN;
DROP TABLE m2;
ROLLBACK;
:check

-- TRUNCATE of the root; releases answer
TRUNCATE m;
INSERT INTO m SELECT i, (i % 2) * 80 + 10, 20 FROM generate_series(1000, 1999) i;
:check
SELECT count(*) BETWEEN 1 AND 3 AS centers FROM dp_centers('m', 3);

-- Refused, with nothing lost
SELECT dp_attach('m2', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[100, 100]);
SELECT dp_attach('m1', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[100, 100]);
ALTER TABLE m2 DISABLE TRIGGER ALL;
ALTER TABLE m1b DISABLE TRIGGER dpkmeans_capture_insert;
DROP TRIGGER dpkmeans_capture_insert ON m2;
ALTER TABLE m ATTACH PARTITION flat FOR VALUES FROM (9000) TO (9999);
CREATE TABLE child () INHERITS (flat);
CREATE TABLE loner (id int, x float8, y float8);
ALTER TABLE loner INHERIT flat;
ALTER TABLE flat INHERIT loner;
CREATE TABLE parent (id int, x float8, y float8);
CREATE TABLE kid () INHERITS (parent);
SELECT dp_attach('parent', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[100, 100]);
SELECT dp_attach('kid', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[100, 100]);
CREATE EXTENSION postgres_fdw;
CREATE SERVER elsewhere FOREIGN DATA WRAPPER postgres_fdw OPTIONS (dbname 'nowhere');
CREATE FOREIGN TABLE ft (id int, x float8, y float8) SERVER elsewhere;
SELECT dp_attach('ft', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[100, 100]);
ALTER TABLE m ATTACH PARTITION ft FOR VALUES FROM (7000) TO (8000);
CREATE FOREIGN TABLE ft2 PARTITION OF m FOR VALUES FROM (8000) TO (9000) SERVER elsewhere;
-- a partition dropped by a cascade would keep its rows in the counters
CREATE SCHEMA s2;
CREATE TABLE s2.m9 PARTITION OF m FOR VALUES FROM (9000) TO (9500);
INSERT INTO m VALUES (9001, 1, 1);
DROP SCHEMA s2 CASCADE;
:check
-- every partition stays logged: a crash would empty an unlogged one while
-- the counters keep its rows
ALTER TABLE m1b SET UNLOGGED;
CREATE UNLOGGED TABLE m7 PARTITION OF m FOR VALUES FROM (7000) TO (7500);
CREATE UNLOGGED TABLE m8 (id int, x float8, y float8);
ALTER TABLE m ATTACH PARTITION m8 FOR VALUES FROM (8000) TO (8500);
DROP TABLE m8;
SELECT count(*) AS unlogged FROM pg_class WHERE relname LIKE 'm%' AND relpersistence <> 'p';

-- insert_only: DDL and statements that delete rows are refused, whatever
-- the partition holds
CREATE TABLE io (id int, x float8, y float8) PARTITION BY LIST ((id % 2));
CREATE TABLE io0 PARTITION OF io FOR VALUES IN (0);
CREATE TABLE io1 PARTITION OF io FOR VALUES IN (1);
CREATE TABLE io2 (id int, x float8, y float8);
INSERT INTO io SELECT i, i % 100, 1 FROM generate_series(1, 300) i;
SELECT dp_attach('io', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[100, 100], mode => 'insert_only');
ALTER TABLE io DETACH PARTITION io1;
ALTER TABLE io DETACH PARTITION io1 CONCURRENTLY;
DROP TABLE io1;
TRUNCATE io0;
TRUNCATE io;
DELETE FROM io1;
UPDATE io SET x = 2;
ALTER TABLE io DETACH PARTITION io0;
ALTER TABLE io ATTACH PARTITION io2 FOR VALUES IN (2);
INSERT INTO io SELECT i, 7, 7 FROM generate_series(1, 10) i;
SELECT dp_verify('io') AS verify, (SELECT count(*) FROM io) AS io_rows;

-- dp_detach removes the triggers of the whole tree
SELECT dp_detach('m');
SELECT count(*) AS left_on_m FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
WHERE t.tgname LIKE 'dpkmeans%' AND c.relname ~ '^m[0-9]?[ab]?$';
SELECT count(*) AS moved_refusals FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
WHERE t.tgname = 'dpkmeans_refuse_moved' AND c.relname ~ '^io[0-9]?$';
SELECT dp_detach('flat'), dp_detach('io');
SELECT count(*) AS left_on_io FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
WHERE t.tgname LIKE 'dpkmeans%' AND c.relname ~ '^io[0-9]?$';

-- an owner that is not a superuser adds and attaches partitions of its
-- attached tree (each new partition gets the root's row trigger, whose
-- function it may execute)
CREATE ROLE dpk_part_owner;
GRANT CREATE ON SCHEMA public TO dpk_part_owner;
SET ROLE dpk_part_owner;
CREATE TABLE po (id int, x float8, y float8) PARTITION BY RANGE (id);
SELECT dp_attach('po', ARRAY['x', 'y'], 2, 1.0, ARRAY[0, 0], ARRAY[10, 10], horizon => 16);
CREATE TABLE po1 PARTITION OF po FOR VALUES FROM (0) TO (100);
CREATE TABLE po2 (id int, x float8, y float8);
INSERT INTO po2 SELECT i, 3, 3 FROM generate_series(100, 140) i;
ALTER TABLE po ATTACH PARTITION po2 FOR VALUES FROM (100) TO (200);
INSERT INTO po SELECT i, 1, 1 FROM generate_series(1, 20) i;
SELECT dp_verify('po') AS verify, (SELECT count(*) FROM po) AS po_rows;
SELECT dp_detach('po');
DROP TABLE po;
RESET ROLE;
REVOKE CREATE ON SCHEMA public FROM dpk_part_owner;
DROP ROLE dpk_part_owner;

-- the guards also fire in a session with session_replication_role = replica
CREATE TABLE rr (id int, x float8, y float8) PARTITION BY RANGE (id);
CREATE TABLE rr1 PARTITION OF rr FOR VALUES FROM (0) TO (100);
CREATE TABLE rr2 (id int, x float8, y float8);
INSERT INTO rr2 SELECT i, 3, 3 FROM generate_series(100, 149) i;
SELECT dp_attach('rr', ARRAY['x', 'y'], 2, 1.0, ARRAY[0, 0], ARRAY[10, 10], horizon => 16);
SET session_replication_role = replica;
ALTER TABLE rr ALTER COLUMN x TYPE int;
ALTER TABLE rr1 DISABLE TRIGGER ALL;
ALTER TABLE rr ATTACH PARTITION rr2 FOR VALUES FROM (100) TO (200);
RESET session_replication_role;
SELECT dp_verify('rr') AS verify, (SELECT count(*) FROM rr) AS rr_rows;
SELECT dp_detach('rr');
DROP TABLE rr;

-- ALTER TYPE ... CASCADE reaches a typed table's columns: a tracked one is
-- neither retyped nor renamed that way; an untracked one may be
CREATE TYPE pt AS (x float8, y float8, note text);
CREATE TABLE tt OF pt;
INSERT INTO tt SELECT i % 10 + 0.4, (i * 7) % 10 + 0.4, 'n' FROM generate_series(1, 200) i;
SELECT dp_attach('tt', ARRAY['x', 'y'], 2, 1.0, ARRAY[0, 0], ARRAY[10, 10], horizon => 16);
ALTER TYPE pt ALTER ATTRIBUTE x TYPE int CASCADE;
ALTER TYPE pt RENAME ATTRIBUTE y TO yy CASCADE;
ALTER TYPE pt RENAME ATTRIBUTE note TO remark CASCADE;
ALTER TYPE pt ALTER ATTRIBUTE remark TYPE varchar(10) CASCADE;
INSERT INTO tt VALUES (1, 1, 'r');
SELECT dp_verify('tt');
SELECT dp_detach('tt');
DROP TABLE tt;
DROP TYPE pt;

-- CREATE SCHEMA may not create a partition or an inheritance child of an
-- attached table: its elements fire no event trigger of their own
CREATE TABLE sq (id int, x float8, y float8) PARTITION BY RANGE (id);
CREATE TABLE sq1 PARTITION OF sq FOR VALUES FROM (0) TO (100);
CREATE TABLE si (id int, x float8, y float8);
SELECT dp_attach('sq', ARRAY['x', 'y'], 2, 1.0, ARRAY[0, 0], ARRAY[10, 10], horizon => 16);
SELECT dp_attach('si', ARRAY['x', 'y'], 2, 1.0, ARRAY[0, 0], ARRAY[10, 10], horizon => 16);
CREATE SCHEMA sx CREATE TABLE sq2 PARTITION OF public.sq FOR VALUES FROM (100) TO (200);
CREATE SCHEMA sy CREATE TABLE sc (id int, x float8, y float8) INHERITS (public.si);
CREATE SCHEMA sz CREATE TABLE other (id int);
SELECT count(*) AS schemas FROM pg_namespace WHERE nspname IN ('sx', 'sy', 'sz');
CREATE TABLE sq2 PARTITION OF sq FOR VALUES FROM (100) TO (200);
INSERT INTO sq VALUES (150, 1, 1), (50, 2, 2);
SELECT dp_verify('sq');
SELECT dp_detach('sq'), dp_detach('si');
DROP TABLE sq, si;
DROP SCHEMA sz CASCADE;
