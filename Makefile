# dpkmeans: PGXS build
EXTENSION = dpkmeans
MODULE_big = dpkmeans
DATA = sql/dpkmeans--0.9.sql sql/dpkmeans--0.1.sql sql/dpkmeans--0.1--0.2.sql sql/dpkmeans--0.2--0.3.sql sql/dpkmeans--0.3--0.4.sql sql/dpkmeans--0.4--0.5.sql sql/dpkmeans--0.5--0.6.sql sql/dpkmeans--0.6--0.7.sql sql/dpkmeans--0.7--0.8.sql sql/dpkmeans--0.8--0.9.sql \
	postgis/dpkmeans_postgis.control postgis/dpkmeans_postgis--0.8.sql postgis/dpkmeans_postgis--0.8--0.9.sql

# The sources by layer, lowest first; a folder includes only its own headers
# and those of the folders before it (scripts/check-layers.sh checks it).
# The core is plain C without PostgreSQL headers; the glue is the server's side.
CORE_DIRS = src/core/base src/core/privacy src/core/counters src/core/grid \
	src/core/cluster src/core/highd src/core/live
GLUE_DIRS = src/pg src/store src/capture src/shard src/api
CORE_SRCS = $(sort $(foreach d,$(CORE_DIRS),$(wildcard $(d)/*.c)))
GLUE_SRCS = $(sort $(foreach d,$(GLUE_DIRS),$(wildcard $(d)/*.c)))
CORE_HDRS = $(foreach d,$(CORE_DIRS),$(wildcard $(d)/*.h))
ALL_HDRS = $(CORE_HDRS) $(foreach d,$(GLUE_DIRS),$(wildcard $(d)/*.h))
# The extension's own objects are the glue's; it links the core's library.
OBJS = $(GLUE_SRCS:.c=.o)

REGRESS = grid_size kmeans_oneshot bad_input live live_privileges live_bad_input highd release_replay partitions kmedian live_write_path upgrade approx_dp wal_capture norm_bound regions ledger operator_view bounds_limits release_work install_script shard_protocol gaussian_counter pure_counter parallel_backfill
REGRESS_OPTS = --load-extension=dpkmeans

# The PostGIS companion (postgis/): its suites need PostGIS installed, so
# they run apart (make installcheck-postgis), never in installcheck.
POSTGIS_REGRESS = postgis_geometry postgis_geography

# libpq reaches the shards of a partitioned table (src/shard/shard.c).
PG_CPPFLAGS = $(addprefix -I,$(CORE_DIRS) $(GLUE_DIRS)) -I$(libpq_srcdir)
SHLIB_LINK_INTERNAL = $(CORE_LIB) $(libpq)
# PostgreSQL headers compare signed and unsigned values; keep our code under -Wextra otherwise.
# A missing prototype or a pointer made from an int is an error, not a warning.
PG_CFLAGS = -Wno-sign-compare -Wno-unused-parameter -Wno-missing-field-initializers \
	-Werror=implicit-function-declaration -Werror=int-conversion
SHLIB_LINK = -lcrypto -lm

EXTRA_CLEAN = build postgis/results postgis/regression.diffs postgis/regression.out test/unit/bin test/unit/bin-san test/bench/bin results regression.diffs regression.out tmp_check tmp_regress test/privacy/bin

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PGXS does not track headers: a struct that changes must rebuild its users.
$(OBJS): $(ALL_HDRS)

# The companion's suites against PG_CONFIG's installation (PostGIS and
# dpkmeans installed there); EXTRA_REGRESS_OPTS as for installcheck.
.PHONY: installcheck-postgis
installcheck-postgis:
	$(pg_regress_installcheck) --inputdir=postgis --outputdir=postgis \
		--dbname=contrib_regression_postgis $(POSTGIS_REGRESS)

# ---- plain-C core: one static library for the extension, the unit and
# privacy tests and the benchmarks (no PostgreSQL headers) ----
CORE_CC ?= gcc
# -fPIC: the extension links it.  COPT (-Werror, or the sanitizer build's
# flags, scripts/asan-regress.sh) applies to the core as to the glue.  The
# core's assertions (DPK_ASSERT) are cheap and on everywhere.
CORE_CFLAGS ?= -std=gnu99 -O2 -g -fPIC -Wall -Wextra -Werror $(addprefix -I,$(CORE_DIRS)) \
	-DDPK_ASSERTIONS $(COPT)
CORE_LIBS = -lcrypto -lm
UNIT_TESTS = test_noise test_gserialized test_dgauss test_zcdp test_live_gauss test_kmeans test_kmeans_filter test_kmedian test_kmedian_lifted test_objective test_live_release test_rugnik test_grid test_counter test_tree_estimator test_projection test_lift test_highd test_live_highd test_store_format test_store_config test_budget test_live_regions test_ledger test_mean_guard test_sqrt_counter test_live_heldout test_share_tree test_live_share test_live_lowd_guard test_oneshot_guard test_noise_exact test_highd_exact test_lowd_stream test_lowd_refine test_lowd_refine_same test_live_sqrt_sums test_highd_rows test_row_codes test_live_gauss_tail test_live_refine test_live_lifted test_lowd_grid test_recentre
UNIT_BINS = $(addprefix test/unit/bin/,$(UNIT_TESTS))

CORE_LIB = build/libdpkcore.a
CORE_OBJS = $(patsubst %.c,build/core/%.o,$(notdir $(CORE_SRCS)))
# Research variants of the core: linked into benchmarks and unit tests, never
# into the extension.
RESEARCH_SRCS = test/bench/highd_research.c
RESEARCH_LIB = build/libdpkresearch.a
RESEARCH_OBJS = $(patsubst test/bench/%.c,build/research/%.o,$(RESEARCH_SRCS))
# What a test or benchmark links.
TEST_LIBS = $(RESEARCH_LIB) $(CORE_LIB)

vpath %.c $(CORE_DIRS)

build/core/%.o: %.c $(CORE_HDRS)
	@mkdir -p build/core
	$(CORE_CC) $(CORE_CFLAGS) -c -o $@ $<

build/research/%.o: test/bench/%.c test/bench/highd_research.h $(CORE_HDRS)
	@mkdir -p build/research
	$(CORE_CC) $(CORE_CFLAGS) -c -o $@ $<

$(CORE_LIB): $(CORE_OBJS)
	rm -f $@
	ar rcs $@ $^

$(RESEARCH_LIB): $(RESEARCH_OBJS)
	rm -f $@
	ar rcs $@ $^

# The extension links the core (SHLIB_LINK_INTERNAL).
$(shlib): $(CORE_LIB)

.PHONY: corelib
corelib: $(CORE_LIB) $(RESEARCH_LIB)

test/unit/bin/%: test/unit/%.c $(TEST_LIBS) $(CORE_HDRS) test/bench/highd_research.h test/unit/unit.h test/unit/live_attach.h
	@mkdir -p test/unit/bin
	$(CORE_CC) $(CORE_CFLAGS) -o $@ $< $(TEST_LIBS) $(CORE_LIBS)

# test_store_config compiles src/store/store_config.c (glue) against the server's
# headers, with the few server symbols it needs stubbed in the test.
STORE_TEST_CFLAGS = -I$(includedir_server) $(addprefix -I,$(GLUE_DIRS)) -Wno-sign-compare -Wno-unused-parameter \
	-Wno-missing-field-initializers

test/unit/bin/test_store_config: test/unit/test_store_config.c src/store/store_config.c $(TEST_LIBS) $(CORE_HDRS) test/bench/highd_research.h test/unit/unit.h
	@mkdir -p test/unit/bin
	$(CORE_CC) $(CORE_CFLAGS) $(STORE_TEST_CFLAGS) -o $@ $< $(TEST_LIBS) $(CORE_LIBS)

# The same unit tests under AddressSanitizer (with leak checks) and
# UndefinedBehaviorSanitizer; the core is compiled once for them.
SAN_CFLAGS = -std=gnu99 -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all -Wall -Wextra -Werror $(addprefix -I,$(CORE_DIRS)) -DDPK_ASSERTIONS
SAN_OBJS = $(patsubst %.c,test/unit/bin-san/obj/%.o,$(notdir $(CORE_SRCS)))
SAN_BINS = $(addprefix test/unit/bin-san/,$(UNIT_TESTS))

test/unit/bin-san/obj/%.o: %.c $(CORE_HDRS)
	@mkdir -p test/unit/bin-san/obj
	$(CORE_CC) $(SAN_CFLAGS) -c -o $@ $<

test/unit/bin-san/%: test/unit/%.c $(SAN_OBJS) $(RESEARCH_SRCS) test/bench/highd_research.h test/unit/unit.h test/unit/live_attach.h
	$(CORE_CC) $(SAN_CFLAGS) -o $@ $< $(SAN_OBJS) $(RESEARCH_SRCS) $(CORE_LIBS)

test/unit/bin-san/test_store_config: test/unit/test_store_config.c src/store/store_config.c $(SAN_OBJS) $(RESEARCH_SRCS) test/bench/highd_research.h test/unit/unit.h
	$(CORE_CC) $(SAN_CFLAGS) $(STORE_TEST_CFLAGS) -o $@ $< $(SAN_OBJS) $(RESEARCH_SRCS) $(CORE_LIBS)

.PHONY: unittest-sanitize
unittest-sanitize: $(SAN_BINS)
	@fail=0; for t in $(SAN_BINS); do OPENBLAS_NUM_THREADS=1 ./$$t || fail=1; done; exit $$fail

.PHONY: unittest bench bench-live bench-writes tapcheck tapcheck-long demo ci
unittest: $(UNIT_BINS)
	@fail=0; for t in $(UNIT_BINS); do OPENBLAS_NUM_THREADS=1 ./$$t || fail=1; done; exit $$fail

test/bench/bin/bench_oneshot: test/bench/bench_oneshot.c test/bench/mixture.h $(TEST_LIBS) $(CORE_HDRS)
	@mkdir -p test/bench/bin
	$(CORE_CC) $(CORE_CFLAGS) -O3 -o $@ $< $(TEST_LIBS) $(CORE_LIBS)

# The k-means stage alone, point by point against the kd-tree filter
# (doc/decisions/071-kmeans-filter.md).
test/bench/bin/bench_kmeans_stage: test/bench/bench_kmeans_stage.c test/bench/mixture.h $(TEST_LIBS) $(CORE_HDRS)
	@mkdir -p test/bench/bin
	$(CORE_CC) $(CORE_CFLAGS) -O3 -o $@ $< $(TEST_LIBS) $(CORE_LIBS)

bench: test/bench/bin/bench_oneshot
	./test/bench/run.sh

# The one-shot against the plain grid on the pickups, paired seed by seed
# over 200 reported seeds (about 15 minutes on one core).
.PHONY: bench-pickups-paired
bench-pickups-paired: test/bench/bin/bench_oneshot
	@mkdir -p test/bench/out
	./test/bench/pickups_paired.sh | tee test/bench/out/pickups_paired.txt

# Low-d live tables with delta against pure ones, paired release by release
# (SEEDS, ROWS, HORIZON, N as test/bench/gauss_lowd_paired.sh reads them).
.PHONY: bench-gauss-lowd-paired
bench-gauss-lowd-paired: test/bench/bin/bench_continual
	@mkdir -p test/bench/out
	./test/bench/gauss_lowd_paired.sh | tee test/bench/out/gauss_lowd_paired.txt

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

# Counting a PostGIS point column against two float8 columns of the same
# points (PostGIS installed in PG_CONFIG's installation).
.PHONY: bench-postgis
bench-postgis:
	@mkdir -p test/bench/out
	PG_CONFIG=$(PG_CONFIG) ./test/bench/bench_postgis.sh | tee test/bench/out/postgis.txt

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

# The quick lane: build and install, layers, unit tests, pg_regress.
.PHONY: quickcheck
quickcheck:
	./scripts/ci.sh --quick


test/bench/bin/bench_continual: test/bench/bench_continual.c test/bench/mixture.h test/bench/seed_mp.h test/bench/emz_stream.h test/bench/baseline_check.h $(TEST_LIBS) $(CORE_HDRS)
	@mkdir -p test/bench/bin
	$(CORE_CC) $(CORE_CFLAGS) -O3 -o $@ $< $(TEST_LIBS) $(CORE_LIBS)

# With Debian's python3-vega-datasets installed it also runs the real table
# of US airports that package ships (3376 x 2).
AIRPORTS_CSV ?= /usr/lib/python3/dist-packages/vega_datasets/_data/airports.csv

.PHONY: bench-continual
bench-continual: test/bench/bin/bench_continual
	@mkdir -p test/bench/out
	OPENBLAS_NUM_THREADS=1 ./test/bench/bin/bench_continual $$(test -r $(AIRPORTS_CSV) && echo --airports $(AIRPORTS_CSV)) | tee test/bench/out/continual.txt

# The live mode beside the seed paper's algorithm (test/bench/seed_mp.h), a
# one-shot per release at eps/T, one one-shot at eps republished and a
# streaming clustering of Epasto, Mukherjee and Zhong's kind
# (test/bench/emz_stream.h, insert streams), on the same streams, keys and
# eps (doc/benchmarks.md); exits non-zero when a baseline's noiseless
# self-check fails.
BASELINE_FLAGS ?= --baselines --no-del --rows 2:6:1 --horizons 16,64 --seeds 3 --releases all

.PHONY: bench-baselines
bench-baselines: test/bench/bin/bench_continual
	@mkdir -p test/bench/out
	OPENBLAS_NUM_THREADS=1 ./test/bench/bin/bench_continual --self-check
	OPENBLAS_NUM_THREADS=1 ./test/bench/bin/bench_continual $(BASELINE_FLAGS) $$(test -r $(AIRPORTS_CSV) && echo --airports $(AIRPORTS_CSV)) | tee test/bench/out/baselines.txt

# ---- statistical privacy test of the continual mechanism (plain-C core) ----
test/privacy/bin/privacy_test: test/privacy/privacy_test.c test/privacy/privacy_kary.h test/privacy/privacy_share.h test/privacy/privacy_regions.h test/privacy/privacy_common.h $(TEST_LIBS) $(CORE_HDRS) test/unit/unit.h
	@mkdir -p test/privacy/bin
	$(CORE_CC) $(CORE_CFLAGS) -o $@ $< $(TEST_LIBS) $(CORE_LIBS)

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
test/privacy/bin/privacy_rounding: test/privacy/privacy_rounding.c test/privacy/privacy_common.h $(TEST_LIBS) $(CORE_HDRS) test/unit/unit.h
	@mkdir -p test/privacy/bin
	$(CORE_CC) $(CORE_CFLAGS) -o $@ $< $(TEST_LIBS) $(CORE_LIBS)

.PHONY: privacy-rounding
privacy-rounding: test/privacy/bin/privacy_rounding
	OPENBLAS_NUM_THREADS=1 ./test/privacy/bin/privacy_rounding

# the same for the discrete Gaussian counters of (epsilon, delta) tables;
# DPK_PRIVACY_WEAKEN=2 and =deletes must fail as well (scripts/ci.sh).
test/privacy/bin/privacy_gauss: test/privacy/privacy_gauss.c test/privacy/privacy_gauss_oneshot.c test/privacy/privacy_gauss_sqrt.c test/privacy/privacy_gauss_refine.c test/privacy/gauss_events.h test/privacy/privacy_common.h $(TEST_LIBS) $(CORE_HDRS) test/unit/unit.h
	@mkdir -p test/privacy/bin
	$(CORE_CC) $(CORE_CFLAGS) -o $@ $< test/privacy/privacy_gauss_oneshot.c test/privacy/privacy_gauss_sqrt.c test/privacy/privacy_gauss_refine.c $(TEST_LIBS) $(CORE_LIBS)

.PHONY: privacy-gauss privacy-gauss-long
privacy-gauss: test/privacy/bin/privacy_gauss
	OPENBLAS_NUM_THREADS=1 ./test/privacy/bin/privacy_gauss quick

privacy-gauss-long: test/privacy/bin/privacy_gauss
	OPENBLAS_NUM_THREADS=1 ./test/privacy/bin/privacy_gauss long

test/bench/bin/bench_highd: test/bench/bench_highd.c test/bench/mixture.h $(TEST_LIBS) $(CORE_HDRS) test/bench/highd_research.h
	@mkdir -p test/bench/bin
	$(CORE_CC) $(CORE_CFLAGS) -O3 -o $@ $< $(TEST_LIBS) $(CORE_LIBS)

.PHONY: bench-highd
bench-highd: test/bench/bin/bench_highd
	@mkdir -p test/bench/out
	OPENBLAS_NUM_THREADS=1 ./test/bench/bin/bench_highd --ref-cache test/bench/out/ref_cache_highd.txt | tee test/bench/out/highd.txt

# dp_kmeans' one-shot beside the LSH-tree private coreset baseline
# (test/bench/lsh_baseline.h, Google's LSH clustering) on unit-norm embeddings
# and the 2-d pickups (doc/benchmarks.md); the baseline's noiseless check first.
test/bench/bin/bench_lsh: test/bench/bench_lsh.c test/bench/lsh_baseline.c test/bench/lsh_baseline.h test/bench/mixture.h $(TEST_LIBS) $(CORE_HDRS)
	@mkdir -p test/bench/bin
	$(CORE_CC) $(CORE_CFLAGS) -O3 -o $@ $< test/bench/lsh_baseline.c $(TEST_LIBS) $(CORE_LIBS)

.PHONY: bench-lsh bench-lsh-check
bench-lsh-check: test/bench/bin/bench_lsh
	OPENBLAS_NUM_THREADS=1 ./test/bench/bin/bench_lsh --self-check

bench-lsh: bench-lsh-check
	@mkdir -p test/bench/out
	OPENBLAS_NUM_THREADS=1 ./test/bench/bin/bench_lsh | tee test/bench/out/lsh.txt

# Pure epsilon at d = 384 on three families of clustered data (tight, loose
# with Zipf sizes, the benchmark's mixture): mean and worst over seeds
# 100-102 beside one centre at the mean and the noise floor (about 5 min,
# most of it the reference costs, cached).
.PHONY: bench-highd-families
bench-highd-families: test/bench/bin/bench_highd
	@mkdir -p test/bench/out
	for f in tight loose mix; do OPENBLAS_NUM_THREADS=1 ./test/bench/bin/bench_highd \
		--rows 384:10:1 --n 50000 --restarts 5 --no-baselines --seeds 3 --family $$f \
		--verbose --ref-cache test/bench/out/ref_cache_highd.txt; done \
		| tee test/bench/out/highd_families.txt

# Live (continual) releases at high d: the projected copies of a live table,
# replayed in plain C.  With the digits data set of Debian's python3-sklearn
# (1797 x 64; installed, or taken by scripts/real-data.sh) it also runs that.
DIGITS_CSV ?= $(firstword $(wildcard test/bench/data/digits.csv.gz) /usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz)

test/bench/bin/bench_highd_live: test/bench/bench_highd_live.c test/bench/mixture.h test/bench/oracle.h test/bench/adaptive_lift.h $(TEST_LIBS) $(CORE_HDRS)
	@mkdir -p test/bench/bin
	$(CORE_CC) $(CORE_CFLAGS) -O3 -o $@ $< $(TEST_LIBS) $(CORE_LIBS)

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

# Research lower bound, not shipped (--oracle, test/bench/oracle.h): each
# release's k-means partition released as noisy sums over noisy counts at
# the optimal continual counter's variance, beside live and the (epsilon,
# delta) one-shot: d = 64 tight and mixture (10^5 rows), d = 384 tight unit
# clusters (50 000 rows) and unit-norm embeddings (20 000), horizon 16,
# seeds 100-105, every release from T/4 (doc/decisions/082); about 35
# minutes on one core.
bench_oracle_run = OPENBLAS_NUM_THREADS=1 ./test/bench/bin/bench_highd_live --rows $(1):10:1 \
	--stream insert --horizons 16 --seeds 6 --releases all --no-naive --delta 1e-6 --oracle $(2)

.PHONY: bench-oracle
bench-oracle: test/bench/bin/bench_highd_live
	@mkdir -p test/bench/out
	( $(call bench_oracle_run,64,--family tight) && $(call bench_oracle_run,64,) && \
	  $(call bench_oracle_run,384,--sphere --norm-bound 1 --n 50000) && \
	  $(call bench_oracle_run,384,--embed 0.65 --norm-bound 1 --n 20000) ) \
		| tee test/bench/out/oracle.txt

# Lifting sums keyed by public regions (src/core/live/live_regions.h) forced on those
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
test/bench/bin/bench_counter: test/bench/bench_counter.c $(TEST_LIBS) $(CORE_HDRS)
	@mkdir -p test/bench/bin
	$(CORE_CC) $(CORE_CFLAGS) -O3 -o $@ $< $(TEST_LIBS) $(CORE_LIBS)

.PHONY: bench-counter
bench-counter: test/bench/bin/bench_counter
	@mkdir -p test/bench/out
	./test/bench/bin/bench_counter | tee test/bench/out/counter.txt

# k-median (objective 'kmedian'): one-shot and live releases on skewed 2-d
# data (and the US airports when python3-vega-datasets is installed) against
# a non-private k-median reference.
test/bench/bin/bench_kmedian: test/bench/bench_kmedian.c test/bench/mixture.h test/bench/bench_common.h $(TEST_LIBS) $(CORE_HDRS)
	@mkdir -p test/bench/bin
	$(CORE_CC) $(CORE_CFLAGS) -O3 -o $@ $< $(TEST_LIBS) $(CORE_LIBS)

.PHONY: bench-kmedian
bench-kmedian: test/bench/bin/bench_kmedian
	@mkdir -p test/bench/out
	OPENBLAS_NUM_THREADS=1 nice ./test/bench/bin/bench_kmedian $$(test -r $(AIRPORTS_CSV) && echo --airports $(AIRPORTS_CSV)) | tee test/bench/out/kmedian.txt

# ---- the extension itself on a real table (scripts/real-data.sh) ----
test/bench/bin/real_cost: test/bench/real_cost.c test/bench/bench_common.h test/bench/mixture.h $(TEST_LIBS) $(CORE_HDRS)
	@mkdir -p test/bench/bin
	$(CORE_CC) $(CORE_CFLAGS) -O3 -o $@ $< $(TEST_LIBS) $(CORE_LIBS)

# The live releases of bench-real replayed in plain C (diamonds7's box).
test/bench/bin/bench_real_live: test/bench/bench_real_live.c test/bench/bench_common.h test/bench/mixture.h $(TEST_LIBS) $(CORE_HDRS)
	@mkdir -p test/bench/bin
	$(CORE_CC) $(CORE_CFLAGS) -O3 -o $@ $< $(TEST_LIBS) $(CORE_LIBS)

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
