# Two entry points for a fresh Debian 12 machine: `make demo` and `make check`.
# Each is idempotent: packages, libperf and the meson build directories are
# made once and reused; a second run only rebuilds what changed (nothing)
# and runs the demo or the tests again.

BUILD      := build
DEPS       := $(BUILD)/deps
LP_SRC     := $(DEPS)/src
LP_PREFIX  := $(abspath $(DEPS)/libperf)
LP_PC      := $(LP_PREFIX)/lib/pkgconfig/libperf.pc
KSRC       := linux-source-6.12
MESON_DIR  := $(BUILD)/meson
RAW_DIR    := $(BUILD)/meson-raw
ASAN_DIR   := $(BUILD)/meson-asan
INST_DIR   := $(BUILD)/meson-install
DEB_DIR    := $(BUILD)/deb
PREFIX     ?= /usr/local
DESTDIR    ?=
STAMP_PKGS := $(DEPS)/.packages
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)

# openssh-*: the remote_* tests start an sshd of their own on 127.0.0.1
# (the machine's ssh service is not used) and reach it with ssh.
PKGS := build-essential meson ninja-build pkg-config libncurses-dev \
        libjansson-dev libssl-dev libcmocka-dev $(KSRC) xz-utils zstd \
        tmux jq hyperfine openssl flex bison procps \
        linux-perf strace mandoc nginx-light openssh-client openssh-server \
        man-db lz4 gzip time wrk libnghttp2-dev nghttp2-client git \
        debhelper dpkg-dev lintian autopkgtest
# clang: the libFuzzer build (check-fuzz).
PKGS += clang libclang-rt-14-dev

export PKG_CONFIG_PATH := $(LP_PREFIX)/lib/pkgconfig$(if $(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH))

# Twice the cores: the tests that may run beside others (tests/meson.build)
# mostly wait (on legs, servers, screens); the rest run alone anyway.
TEST_JOBS  ?= $(shell echo $$(( $(JOBS) * 2 )))
# (Suite 'deb', the package's test, runs in check-deb only: minutes of CPU.)
# (Suite 'slow', a test's every case where check runs some, in check-slow.)
MESON_RUN  := meson test --print-errorlogs --no-suite deb --no-suite slow
MESON_TEST := $(MESON_RUN) --num-processes $(TEST_JOBS)
# make check's tests beside each other: more than TEST_JOBS, as its long
# ones are out and the rest mostly wait on children.
QUICK_JOBS ?= $(shell echo $$(( $(JOBS) * 3 )))

# What the sanitizer build runs (tests/meson.build's suites), and how.
ASAN_TESTS := --suite unit --suite e2e --no-suite measure --no-suite asan-covered
ASAN_ENV   := ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
              UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

.PHONY: all demo check check-all check-libperf check-raw check-asan \
        build build-asan check-alone check-alone-asan check-beside deps \
        packages libperf bench install deb check-deb check-slow clean \
        distclean

all: build

# One target at a time, whatever -j says: the tests that run alone must
# have the machine to themselves (check-beside runs the two builds' other
# tests at once, itself).
.NOTPARALLEL:

# `make packages` checks again; the stamp keeps the other targets from
# asking dpkg on every run.
packages:
	@./tools/ensure-packages $(PKGS)
$(STAMP_PKGS):
	@mkdir -p $(DEPS)
	@./tools/ensure-packages $(PKGS)
	@touch $@

libperf: $(LP_PC)
$(LP_PC): | $(STAMP_PKGS)
	@./tools/build-libperf $(KSRC) $(LP_SRC) $(LP_PREFIX)

deps: $(STAMP_PKGS) $(LP_PC)

$(MESON_DIR)/build.ninja: | $(LP_PC)
	@./tools/meson-setup $(MESON_DIR) --buildtype=debugoptimized -Dlibperf=enabled

$(RAW_DIR)/build.ninja: | $(STAMP_PKGS)
	@./tools/meson-setup $(RAW_DIR) --buildtype=debugoptimized -Dlibperf=disabled \
		-Dglibc_np=false

# -O1, as AddressSanitizer's own documentation advises: its tests take a
# third less CPU than at -O0 (test-stats 2.3 s -> 1.5 s), and what the
# sanitizers catch is the same.
$(ASAN_DIR)/build.ninja: | $(LP_PC)
	@./tools/meson-setup $(ASAN_DIR) --buildtype=debug -Doptimization=1 \
		-Dlibperf=enabled -Db_sanitize=address,undefined

build: $(MESON_DIR)/build.ninja
	@ninja -C $(MESON_DIR) -j$(JOBS)

demo: build
	./$(MESON_DIR)/tui/benchtui run assets/demo/demo.json

# make check, the quick tier (at most 240 s from a fresh clone on a
# quiet 2-core box: a developer's loop, and a new user's first check): the
# libperf build alone, and every test but the long ones (suite 'long', a
# test's own word: the kill -9s of a profiled server, the hostile
# agent's every lie, the demo with a far server, the gate's minute-long
# probes); the alone tests first, one at a time, then the others
# QUICK_JOBS at once.  make check-all runs everything, in both builds.
check: build
	$(MESON_TEST) -C $(MESON_DIR) --suite alone --no-suite long --logbase alone
	$(MESON_RUN) --num-processes $(QUICK_JOBS) -C $(MESON_DIR) --no-suite alone \
		--no-suite long

# make check-all (CI's: .ci/run): two builds.  build/meson: every suite
# with libperf, and the tests of the files a machine without libperf or
# glibc's _np calls differs in (counters.c, sysname.c: suite 'counters')
# again against copies of those built beside (NAME-raw);
# build/meson-asan: the unit and e2e suites under ASan and UBSan, but for
# the statistical tests (suite 'measure') and the tests that run no line
# the others do not (suite 'asan-covered').  Both are built first; then
# the tests that run alone (suite 'alone': the gate's and a few timed
# ones), one at a time, libperf's then ASan's; then every other test of
# both builds at once, the fuzz build beside them (check-beside), which
# keeps both cores busy to the end instead of each build's longest tests
# running on their own.  Each build's meson-logs hold alone.json and
# testlog.json (.ci/run totals them).  Each test says whether it runs
# alone, and about how long it takes (the others start longest first),
# in its own file (HACKING.md, Tests).  check-libperf and check-asan run
# one build's tests the usual way (testlog.json only); check-raw (not part
# of check-all) is the build of a machine without libperf or glibc's _np
# calls (as on musl or glibc < 2.32), -Dlibperf=disabled
# -Dglibc_np=false: its counters and unit suites.
check-all: build build-asan check-alone check-alone-asan check-beside

# (alone.json is check's and check-all's: removed, or .ci/run would
# count it again.)
check-libperf: build
	@rm -f $(MESON_DIR)/meson-logs/alone.json
	$(MESON_TEST) -C $(MESON_DIR)

check-raw: $(RAW_DIR)/build.ninja
	@meson configure $(RAW_DIR) -Dglibc_np=false >/dev/null
	@ninja -C $(RAW_DIR) -j$(JOBS)
	$(MESON_TEST) -C $(RAW_DIR) --suite counters --suite unit

build-asan: $(ASAN_DIR)/build.ninja
	@ninja -C $(ASAN_DIR) -j$(JOBS)

check-asan: build-asan
	@rm -f $(ASAN_DIR)/meson-logs/alone.json
	$(ASAN_ENV) $(MESON_TEST) -C $(ASAN_DIR) $(ASAN_TESTS)

check-alone: build
	$(MESON_TEST) -C $(MESON_DIR) --suite alone --logbase alone

# ASan's selection, alone: 'alone' but for the console tests ('tui').
check-alone-asan: build-asan
	$(ASAN_ENV) $(MESON_TEST) -C $(ASAN_DIR) --suite alone --no-suite tui \
		--no-suite measure --no-suite asan-covered --logbase alone

# Both builds' other tests at once, each meson with BESIDE_JOBS processes,
# and the fuzz build (check-fuzz) beside them: its compiling fills the
# cores while the last long tests run.  The ASan run's and the fuzz
# build's lines follow the libperf run's.  Fails when any does.
BESIDE_JOBS ?= $(TEST_JOBS)
check-beside: build build-asan
	@rc=0; \
	$(ASAN_ENV) meson test --print-errorlogs --num-processes $(BESIDE_JOBS) \
		-C $(ASAN_DIR) $(ASAN_TESTS) --no-suite alone \
		>$(ASAN_DIR)/meson-logs/beside.txt 2>&1 & asan=$$!; \
	( $(FUZZ_RUN) ) >$(BUILD)/fuzz.txt 2>&1 & fuzz=$$!; \
	meson test --print-errorlogs --num-processes $(BESIDE_JOBS) \
		-C $(MESON_DIR) --no-suite alone --no-suite deb --no-suite slow \
		|| rc=1; \
	wait $$asan || rc=1; \
	echo "--- $(ASAN_DIR):"; cat $(ASAN_DIR)/meson-logs/beside.txt; \
	wait $$fuzz || rc=1; \
	echo "--- check-fuzz:"; cat $(BUILD)/fuzz.txt; \
	exit $$rc

# The program, its man pages (so `man benchtui` works) and its themes
# under PREFIX, staged under DESTDIR when packaging.  A build directory of
# its own, configured for PREFIX: the themes' folder is compiled in.
install: | $(LP_PC)
	@if [ -f $(INST_DIR)/build.ninja ]; then \
		meson configure $(INST_DIR) -Dprefix=$(PREFIX) >/dev/null; \
	else \
		./tools/meson-setup $(INST_DIR) --buildtype=debugoptimized \
		    -Dlibperf=enabled -Dprefix=$(PREFIX); \
	fi
	@ninja -C $(INST_DIR) -j$(JOBS) tui/benchtui
	meson install -C $(INST_DIR) --no-rebuild $(if $(DESTDIR),--destdir $(DESTDIR))

# The Debian package (debian/): dpkg-buildpackage on a copy of the tree in
# build/deb/benchtui (it writes the .deb beside the folder it builds, and
# the copy leaves the tree's own build folders alone), then lintian, which
# fails on any error or warning.  check-deb (not part of check: the
# package builds libperf and benchtui again) runs the test that calls it
# and looks inside the .deb; .ci/run runs it after check.
deb: | $(STAMP_PKGS)
	@rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/benchtui
	@tar -c --exclude=./build --exclude=./.git --exclude=./rounds . | \
		tar -x -C $(DEB_DIR)/benchtui
	cd $(DEB_DIR)/benchtui && DEB_BUILD_OPTIONS=parallel=$(JOBS) \
		dpkg-buildpackage -us -uc -b
	lintian --fail-on error,warning --info $(DEB_DIR)/benchtui_*.changes
	@ls -l $(DEB_DIR)/*.deb

check-deb: build
	meson test --print-errorlogs -C $(MESON_DIR) --suite deb --logbase deb

# Not part of check: the tests that make check runs a part of, whole
# (suite 'slow': every cut of the HTTP corpus, every lie of the hostile
# agent).
check-slow: build
	meson test --print-errorlogs --num-processes $(TEST_JOBS) -C $(MESON_DIR) \
		--suite slow --logbase slow

# Not part of check: a measurement that wants an idle machine.  Prints one
# table and writes bench/results/LATEST.json and a dated copy; then the
# quiet gate's (bench/gate.py: gate-LATEST.json and its dated copy)
# (docs/PERFORMANCE.md says what each figure is).
bench: build
	python3 bench/bench.py
	python3 bench/gate.py

clean:
	rm -rf $(MESON_DIR) $(RAW_DIR) $(ASAN_DIR) $(INST_DIR)

distclean:
	rm -rf $(BUILD)

# The libFuzzer build (clang, -Dfuzz=true, fuzz/README.md), part of check
# so that it cannot rot: every target built, then run once over its seed
# corpus (-runs=0: no fuzzing, a few seconds in all).
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_TARGETS := spec logread tally_line template resume verify httpload \
                theme wire roundread remote_check
$(FUZZ_DIR)/build.ninja: | $(LP_PC)
	@CC=clang ./tools/meson-setup $(FUZZ_DIR) --buildtype=debugoptimized \
		-Dlibperf=enabled -Dfuzz=true

# Every target built, then each run over its corpus (check-beside runs
# this too, beside the tests: not a recursive make, which make -n would
# run).
FUZZ_RUN = ninja -C $(FUZZ_DIR) -j$(JOBS) \
		$(addprefix fuzz/fuzz-,$(FUZZ_TARGETS)) && \
	for t in $(FUZZ_TARGETS); do \
		$(FUZZ_DIR)/fuzz/fuzz-$$t -runs=0 fuzz/corpus/$$t \
			>$(FUZZ_DIR)/fuzz-$$t.log 2>&1 || { \
			tail -20 $(FUZZ_DIR)/fuzz-$$t.log; \
			echo "fuzz-$$t: its corpus failed"; exit 1; }; \
	done && echo "fuzz: $(words $(FUZZ_TARGETS)) targets ran their corpora"

check-fuzz: $(FUZZ_DIR)/build.ninja
	@$(FUZZ_RUN)
check-beside: $(FUZZ_DIR)/build.ninja
