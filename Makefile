# dpkmeans: PGXS build
EXTENSION = dpkmeans
MODULE_big = dpkmeans
DATA = sql/dpkmeans--0.1.sql sql/dpkmeans--0.1--0.2.sql sql/dpkmeans--0.2--0.3.sql sql/dpkmeans--0.3--0.4.sql sql/dpkmeans--0.4--0.5.sql sql/dpkmeans--0.5--0.6.sql sql/dpkmeans--0.6--0.7.sql sql/dpkmeans--0.7--0.8.sql

CORE_SRCS = src/dpk_mem.c src/budget.c src/noise.c src/dgauss.c src/zcdp.c src/grid.c src/rugnik.c src/kmeans.c src/kmedian.c src/coreset.c src/lowd.c src/cellmap.c src/counter.c src/tree_estimator.c src/live_core.c src/live_reach.c src/live_noise.c src/live_scales.c src/live_guard.c src/live_kmedian.c src/kmedian_lifted.c src/projection.c src/lift.c src/highd.c src/highd_plan.c src/highd_cells.c src/mean_guard.c src/live_regions.c src/live_regions_release.c src/ledger.c
GLUE_SRCS = src/pgutil.c src/dpkmeans.c src/oneshot.c src/store.c src/store_release.c src/store_config.c src/trigger.c src/capture_cache.c src/partition.c src/attach.c src/capture_install.c src/release.c src/readers.c src/report.c src/guard.c src/shard.c src/shard_side.c src/shard_capture.c src/store_shard.c src/store_wal.c src/store_regions.c src/store_ledger.c src/store_history.c src/tables.c src/bounds.c src/store_objectives.c src/wal_capture.c src/wal_slot.c
OBJS = $(CORE_SRCS:.c=.o) $(GLUE_SRCS:.c=.o)

REGRESS = grid_size kmeans_oneshot bad_input live live_privileges live_bad_input highd release_replay partitions kmedian live_write_path upgrade approx_dp wal_capture norm_bound regions ledger operator_view bounds_limits release_work
REGRESS_OPTS = --load-extension=dpkmeans

# libpq reaches the shards of a partitioned table (src/shard.c).
PG_CPPFLAGS = -Isrc -I$(libpq_srcdir)
SHLIB_LINK_INTERNAL = $(libpq)
# PostgreSQL headers compare signed and unsigned values; keep our code under -Wextra otherwise.
# A missing prototype or a pointer made from an int is an error, not a warning.
PG_CFLAGS = -Wno-sign-compare -Wno-unused-parameter -Wno-missing-field-initializers \
	-Werror=implicit-function-declaration -Werror=int-conversion
SHLIB_LINK = -lopenblas -lcrypto -lm

EXTRA_CLEAN = test/unit/bin test/unit/bin-san test/bench/bin results regression.diffs regression.out tmp_check tmp_regress test/privacy/bin

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PGXS does not track headers: a struct that changes must rebuild its users.
$(OBJS): src/*.h

# ---- plain-C core: unit tests and benchmarks (no PostgreSQL headers) ----
CORE_CC ?= gcc
CORE_CFLAGS ?= -std=gnu99 -O2 -g -Wall -Wextra -Werror -Isrc -DDPK_ASSERTIONS
CORE_LIBS = -lopenblas -lcrypto -lm
# Research variants of the core: linked into benchmarks and unit tests, never
# into the extension.
RESEARCH_SRCS = test/bench/highd_research.c
UNIT_TESTS = test_noise test_dgauss test_zcdp test_live_gauss test_kmeans test_kmedian test_kmedian_lifted test_objective test_live_release test_rugnik test_grid test_counter test_tree_estimator test_projection test_lift test_highd test_live_highd test_store_format test_store_config test_budget test_live_regions test_ledger test_mean_guard
UNIT_BINS = $(addprefix test/unit/bin/,$(UNIT_TESTS))

# The core is compiled once into a static library that the unit tests and
# the privacy tests link (the extension compiles it with the server's flags).
CORE_LIB = test/unit/bin/obj/libdpkcore.a
CORE_OBJS = $(patsubst src/%.c,test/unit/bin/obj/%.o,$(CORE_SRCS)) \
	$(patsubst test/bench/%.c,test/unit/bin/obj/%.o,$(RESEARCH_SRCS))

test/unit/bin/obj/%.o: src/%.c src/*.h
	@mkdir -p test/unit/bin/obj
	$(CORE_CC) $(CORE_CFLAGS) -c -o $@ $<

test/unit/bin/obj/%.o: test/bench/%.c test/bench/highd_research.h src/*.h
	@mkdir -p test/unit/bin/obj
	$(CORE_CC) $(CORE_CFLAGS) -c -o $@ $<

$(CORE_LIB): $(CORE_OBJS)
	rm -f $@
	ar rcs $@ $^

.PHONY: corelib
corelib: $(CORE_LIB)

test/unit/bin/%: test/unit/%.c $(CORE_LIB) src/*.h test/bench/highd_research.h test/unit/unit.h
	@mkdir -p test/unit/bin
	$(CORE_CC) $(CORE_CFLAGS) -o $@ $< $(CORE_LIB) $(CORE_LIBS)

# test_store_config compiles src/store_config.c (glue) against the server's
# headers, with the few server symbols it needs stubbed in the test.
STORE_TEST_CFLAGS = -I$(includedir_server) -Wno-sign-compare -Wno-unused-parameter \
	-Wno-missing-field-initializers

test/unit/bin/test_store_config: test/unit/test_store_config.c src/store_config.c $(CORE_LIB) src/*.h test/bench/highd_research.h test/unit/unit.h
	@mkdir -p test/unit/bin
	$(CORE_CC) $(CORE_CFLAGS) $(STORE_TEST_CFLAGS) -o $@ $< $(CORE_LIB) $(CORE_LIBS)

# The same unit tests under AddressSanitizer (with leak checks) and
# UndefinedBehaviorSanitizer; the core is compiled once for them.
SAN_CFLAGS = -std=gnu99 -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all -Wall -Wextra -Werror -Isrc -DDPK_ASSERTIONS
SAN_OBJS = $(patsubst src/%.c,test/unit/bin-san/obj/%.o,$(CORE_SRCS))
SAN_BINS = $(addprefix test/unit/bin-san/,$(UNIT_TESTS))

test/unit/bin-san/obj/%.o: src/%.c src/*.h
	@mkdir -p test/unit/bin-san/obj
	$(CORE_CC) $(SAN_CFLAGS) -c -o $@ $<

test/unit/bin-san/%: test/unit/%.c $(SAN_OBJS) $(RESEARCH_SRCS) test/bench/highd_research.h test/unit/unit.h
	$(CORE_CC) $(SAN_CFLAGS) -o $@ $< $(SAN_OBJS) $(RESEARCH_SRCS) $(CORE_LIBS)

test/unit/bin-san/test_store_config: test/unit/test_store_config.c src/store_config.c $(SAN_OBJS) $(RESEARCH_SRCS) test/bench/highd_research.h test/unit/unit.h
	$(CORE_CC) $(SAN_CFLAGS) $(STORE_TEST_CFLAGS) -o $@ $< $(SAN_OBJS) $(RESEARCH_SRCS) $(CORE_LIBS)

.PHONY: unittest-sanitize
unittest-sanitize: $(SAN_BINS)
	@fail=0; for t in $(SAN_BINS); do OPENBLAS_NUM_THREADS=1 ./$$t || fail=1; done; exit $$fail

.PHONY: unittest bench bench-live bench-writes tapcheck tapcheck-long demo ci
unittest: $(UNIT_BINS)
	@fail=0; for t in $(UNIT_BINS); do OPENBLAS_NUM_THREADS=1 ./$$t || fail=1; done; exit $$fail

test/bench/bin/bench_oneshot: test/bench/bench_oneshot.c test/bench/mixture.h $(CORE_SRCS) src/*.h
	@mkdir -p test/bench/bin
	$(CORE_CC) $(CORE_CFLAGS) -O3 -o $@ $< $(CORE_SRCS) $(CORE_LIBS)

bench: test/bench/bin/bench_oneshot
	./test/bench/run.sh

# Inside PostgreSQL (PG_CONFIG's installation, dpkmeans installed there): write
# cost of live tables against plain ones, then release times.  bench-writes
# alone with BASE_PG_CONFIG=... also measures a second installation (e.g. the
# previous version) in the same run.
bench-live: bench-writes
	SKIP_WRITES=1 PG_CONFIG=$(PG_CONFIG) ./test/bench/bench_live_sql.sh | tee test/bench/out/live_sql.txt

# Release, one-shot and attach times beside a plain scan in the same run
# (doc/benchmarks.md, "Speed").
.PHONY: bench-speed
bench-speed:
	@mkdir -p test/bench/out
	PG_CONFIG=$(PG_CONFIG) ./test/bench/bench_speed.sh | tee test/bench/out/speed.txt

bench-writes:
	@mkdir -p test/bench/out
	PG_CONFIG=$(PG_CONFIG) ./test/bench/bench_writes.sh | tee test/bench/out/writes.txt

# TAP suites (crash, concurrency, dump/restore), run apart from pg_regress.
PROVE_TESTS ?= test/t/*.pl
tapcheck:
	$(prove_installcheck)

# Release time with two shards against one server (doc/benchmarks.md).
.PHONY: bench-shards
bench-shards:
	$(MAKE) tapcheck PROVE_TESTS=test/bench/shards_bench.pl PROVE_FLAGS=-v

# The pg_regress suites (or SUITES) under AddressSanitizer: an ASan build of
# the library in a private copy of PG_CONFIG's installation, loaded into a
# server started for it (scripts/asan-regress.sh).
.PHONY: asan-regress
asan-regress:
	PG_CONFIG=$(PG_CONFIG) ./scripts/asan-regress.sh $(SUITES)

# The statistical privacy test through the SQL layer alone, and its long setting.
.PHONY: privacy-sql privacy-sql-long
privacy-sql:
	$(MAKE) tapcheck PROVE_TESTS=test/t/004_privacy_sql.pl
privacy-sql-long:
	DPK_PRIVACY_SQL_RUNS=2000 $(MAKE) privacy-sql

# The same with the 60-second, 8-client pgbench run.
tapcheck-long:
	DPK_PGBENCH_SECONDS=60 $(MAKE) tapcheck

demo:
	./scripts/demo.sh

ci:
	./scripts/ci.sh


test/bench/bin/bench_continual: test/bench/bench_continual.c test/bench/mixture.h $(CORE_SRCS) src/*.h
	@mkdir -p test/bench/bin
	$(CORE_CC) $(CORE_CFLAGS) -O3 -o $@ $< $(CORE_SRCS) $(CORE_LIBS)

# With Debian's python3-vega-datasets installed it also runs the real table
# of US airports that package ships (3376 x 2).
AIRPORTS_CSV ?= /usr/lib/python3/dist-packages/vega_datasets/_data/airports.csv

.PHONY: bench-continual
bench-continual: test/bench/bin/bench_continual
	@mkdir -p test/bench/out
	OPENBLAS_NUM_THREADS=1 ./test/bench/bin/bench_continual $$(test -r $(AIRPORTS_CSV) && echo --airports $(AIRPORTS_CSV)) | tee test/bench/out/continual.txt

# ---- statistical privacy test of the continual mechanism (plain-C core) ----
test/privacy/bin/privacy_test: test/privacy/privacy_test.c test/privacy/privacy_kary.h test/privacy/privacy_regions.h test/privacy/privacy_common.h $(CORE_LIB) src/*.h test/unit/unit.h
	@mkdir -p test/privacy/bin
	$(CORE_CC) $(CORE_CFLAGS) -o $@ $< $(CORE_LIB) $(CORE_LIBS)

# quick: R = 20000 runs per stream (CI, horizons 8 and 64); long: R = 500000
# (horizons up to 1024).  DPK_PRIVACY_WEAKEN=2 make privacy-quick and
# DPK_PRIVACY_WEAKEN=deletes make privacy-quick must fail (see the file's
# header); scripts/ci.sh checks that they do.
.PHONY: privacy-quick privacy-long
privacy-quick: test/privacy/bin/privacy_test
	OPENBLAS_NUM_THREADS=1 ./test/privacy/bin/privacy_test quick

privacy-long: test/privacy/bin/privacy_test
	OPENBLAS_NUM_THREADS=1 ./test/privacy/bin/privacy_test long

# the published integer of least-squares releases against its exact law
# (the rounding of doc/privacy.md, "Exact rounding"); about 20 seconds.
test/privacy/bin/privacy_rounding: test/privacy/privacy_rounding.c test/privacy/privacy_common.h $(CORE_LIB) src/*.h test/unit/unit.h
	@mkdir -p test/privacy/bin
	$(CORE_CC) $(CORE_CFLAGS) -o $@ $< $(CORE_LIB) $(CORE_LIBS)

.PHONY: privacy-rounding
privacy-rounding: test/privacy/bin/privacy_rounding
	OPENBLAS_NUM_THREADS=1 ./test/privacy/bin/privacy_rounding

# the same for the discrete Gaussian counters of (epsilon, delta) tables;
# DPK_PRIVACY_WEAKEN=2 and =deletes must fail as well (scripts/ci.sh).
test/privacy/bin/privacy_gauss: test/privacy/privacy_gauss.c test/privacy/privacy_gauss_oneshot.c test/privacy/gauss_events.h test/privacy/privacy_common.h $(CORE_LIB) src/*.h test/unit/unit.h
	@mkdir -p test/privacy/bin
	$(CORE_CC) $(CORE_CFLAGS) -o $@ $< test/privacy/privacy_gauss_oneshot.c $(CORE_LIB) $(CORE_LIBS)

.PHONY: privacy-gauss privacy-gauss-long
privacy-gauss: test/privacy/bin/privacy_gauss
	OPENBLAS_NUM_THREADS=1 ./test/privacy/bin/privacy_gauss quick

privacy-gauss-long: test/privacy/bin/privacy_gauss
	OPENBLAS_NUM_THREADS=1 ./test/privacy/bin/privacy_gauss long

test/bench/bin/bench_highd: test/bench/bench_highd.c test/bench/mixture.h $(CORE_SRCS) $(RESEARCH_SRCS) src/*.h test/bench/highd_research.h
	@mkdir -p test/bench/bin
	$(CORE_CC) $(CORE_CFLAGS) -O3 -o $@ $< $(CORE_SRCS) $(RESEARCH_SRCS) $(CORE_LIBS)

.PHONY: bench-highd
bench-highd: test/bench/bin/bench_highd
	@mkdir -p test/bench/out
	OPENBLAS_NUM_THREADS=1 ./test/bench/bin/bench_highd --ref-cache test/bench/out/ref_cache_highd.txt | tee test/bench/out/highd.txt

# Live (continual) releases at high d: the projected copies of a live table,
# replayed in plain C.  With the digits data set of Debian's python3-sklearn
# (1797 x 64; installed, or taken by scripts/real-data.sh) it also runs that.
DIGITS_CSV ?= $(firstword $(wildcard test/bench/data/digits.csv.gz) /usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz)

test/bench/bin/bench_highd_live: test/bench/bench_highd_live.c test/bench/mixture.h $(CORE_SRCS) src/*.h
	@mkdir -p test/bench/bin
	$(CORE_CC) $(CORE_CFLAGS) -O3 -o $@ $< $(CORE_SRCS) $(CORE_LIBS)

.PHONY: bench-highd-live
bench-highd-live: test/bench/bin/bench_highd_live
	@mkdir -p test/bench/out
	OPENBLAS_NUM_THREADS=1 ./test/bench/bin/bench_highd_live $$(test -r $(DIGITS_CSV) && echo --digits $(DIGITS_CSV)) | tee test/bench/out/highd_live.txt

# The live rows of issue 15 with one more option ($(1)): d = 16 and 64 at
# horizon 16 (three seeds), d = 384 at horizons 4 and 16 (50 000 rows, six
# seeds), every release from T/4.
issue15_live_rows = OPENBLAS_NUM_THREADS=1 ./test/bench/bin/bench_highd_live \
	--rows 16:10:1,64:10:1 --stream insert --horizons 16 --seeds 3 --releases all \
	--no-naive $(1) && \
	OPENBLAS_NUM_THREADS=1 ./test/bench/bin/bench_highd_live --rows 384:10:1 --n 50000 \
	--stream insert --horizons 4,16 --seeds 6 --releases all --no-naive $(1)

# What the continual counter alone costs and what the live pipeline loses
# against the one-shot's at equal noise (--matched: the one-shot at each
# release's eps_t) on those rows, lifting by cells as measured there; about
# 25 minutes on one core.
.PHONY: bench-matched
bench-matched: test/bench/bin/bench_highd_live
	@mkdir -p test/bench/out
	( $(call issue15_live_rows,--matched --cells) ) | tee test/bench/out/matched.txt

# Lifting sums keyed by public regions (src/live_regions.h) forced on those
# rows and on the d = 64 window at horizon 1024, against the cells
# (--cells); without either flag each row lifts as dp_attach chooses.  A
# table lifting by regions releases at every step, as the extension does.
.PHONY: bench-regions
bench-regions: test/bench/bin/bench_highd_live
	@mkdir -p test/bench/out
	( $(call issue15_live_rows,--regions) && \
	  OPENBLAS_NUM_THREADS=1 ./test/bench/bin/bench_highd_live --rows 64:10:1 --stream window \
		--horizons 1024 --seeds 4 --releases sample --stride 17 --no-naive --regions ) \
		| tee test/bench/out/regions.txt

# The same on real images at large d: the 10 000 MNIST test digits (784
# columns, scripts/real-data.sh) and digits, every release from T/4; about 16
# minutes for the two seeds, on one core.
.PHONY: bench-mnist
bench-mnist: test/bench/bin/bench_highd_live
	@mkdir -p test/bench/out
	./scripts/real-data.sh
	OPENBLAS_NUM_THREADS=1 ./test/bench/bin/bench_highd_live --digits-only --no-naive --seeds 2 \
		--mnist test/bench/data/mnist.csv.gz --digits test/bench/data/digits.csv.gz \
		--digits-eps 1 | tee test/bench/out/mnist.txt

# The same on a real embedding set: the 50 000 most frequent words' GloVe
# vectors (100 columns, scripts/real-data.sh), declared three ways (box, box
# and norm bound, unit rows with bound 1), eps 1 and 4, every release from
# T/4 against the one-shot and one noisy centre; about 20 minutes, one core.
.PHONY: bench-glove
bench-glove: test/bench/bin/bench_highd_live
	@mkdir -p test/bench/out
	./scripts/real-data.sh
	OPENBLAS_NUM_THREADS=1 ./test/bench/bin/bench_highd_live --digits-only --no-naive --seeds 2 \
		--glove test/bench/data/glove100.csv.gz | tee test/bench/out/glove.txt

# every benchmark includes the shared benchmark header
test/bench/bin/bench_oneshot test/bench/bin/bench_continual test/bench/bin/bench_highd test/bench/bin/bench_highd_live: test/bench/bench_common.h

# ---- per-counter error of the continual-counter estimators ----
test/bench/bin/bench_counter: test/bench/bench_counter.c $(CORE_SRCS) src/*.h
	@mkdir -p test/bench/bin
	$(CORE_CC) $(CORE_CFLAGS) -O3 -o $@ $< $(CORE_SRCS) $(CORE_LIBS)

.PHONY: bench-counter
bench-counter: test/bench/bin/bench_counter
	@mkdir -p test/bench/out
	./test/bench/bin/bench_counter | tee test/bench/out/counter.txt

# k-median (objective 'kmedian'): one-shot and live releases on skewed 2-d
# data (and the US airports when python3-vega-datasets is installed) against
# a non-private k-median reference.
test/bench/bin/bench_kmedian: test/bench/bench_kmedian.c test/bench/mixture.h test/bench/bench_common.h $(CORE_SRCS) src/*.h
	@mkdir -p test/bench/bin
	$(CORE_CC) $(CORE_CFLAGS) -O3 -o $@ $< $(CORE_SRCS) $(CORE_LIBS)

.PHONY: bench-kmedian
bench-kmedian: test/bench/bin/bench_kmedian
	@mkdir -p test/bench/out
	OPENBLAS_NUM_THREADS=1 nice ./test/bench/bin/bench_kmedian $$(test -r $(AIRPORTS_CSV) && echo --airports $(AIRPORTS_CSV)) | tee test/bench/out/kmedian.txt

# ---- the extension itself on a real table (scripts/real-data.sh) ----
test/bench/bin/real_cost: test/bench/real_cost.c test/bench/bench_common.h test/bench/mixture.h $(CORE_SRCS) src/*.h
	@mkdir -p test/bench/bin
	$(CORE_CC) $(CORE_CFLAGS) -O3 -o $@ $< $(CORE_SRCS) $(CORE_LIBS)

# The live releases of bench-real replayed in plain C (diamonds7's box).
test/bench/bin/bench_real_live: test/bench/bench_real_live.c test/bench/bench_common.h test/bench/mixture.h $(CORE_SRCS) src/*.h
	@mkdir -p test/bench/bin
	$(CORE_CC) $(CORE_CFLAGS) -O3 -o $@ $< $(CORE_SRCS) $(CORE_LIBS)

.PHONY: bench-real-live
bench-real-live: test/bench/bin/bench_real_live
	@mkdir -p test/bench/out
	./scripts/real-data.sh
	OPENBLAS_NUM_THREADS=1 ./test/bench/bin/bench_real_live --csv test/bench/data/diamonds.csv \
		--cols 0,1,2,3,4,5,6 --k 10 --lower 0,40,40,0,0,0,0 --upper 5.5,80,100,20000,12,12,12 \
		--oneshot | tee test/bench/out/real_live.txt

# SET=diamonds7 (default) or diamonds2; T, W, EPS, REPS (see the script).
.PHONY: bench-real
bench-real: test/bench/bin/real_cost
	@mkdir -p test/bench/out
	./scripts/real-data.sh
	PG_CONFIG=$(PG_CONFIG) ./test/bench/bench_real.sh | tee test/bench/out/real_$${SET:-diamonds7}.txt
