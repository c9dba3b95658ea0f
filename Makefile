# Two entry points for a fresh Debian 12 machine: `make demo` and `make check`.
# Each target is idempotent: packages, libperf and the meson build directory
# are made once and reused.

BUILD      := build
DEPS       := $(BUILD)/deps
LP_SRC     := $(DEPS)/src
LP_PREFIX  := $(abspath $(DEPS)/libperf)
LP_PC      := $(LP_PREFIX)/lib/pkgconfig/libperf.pc
KSRC       := linux-source-6.12
MESON_DIR  := $(BUILD)/meson
RAW_DIR    := $(BUILD)/meson-raw
STAMP_PKGS := $(DEPS)/.packages

PKGS := build-essential meson ninja-build pkg-config libncurses-dev \
        libjansson-dev libssl-dev libcmocka-dev $(KSRC) xz-utils zstd \
        tmux jq hyperfine openssl flex bison procps

export PKG_CONFIG_PATH := $(LP_PREFIX)/lib/pkgconfig$(if $(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH))

.PHONY: all demo check build deps packages libperf clean

all: build

packages: $(STAMP_PKGS)
$(STAMP_PKGS):
	@mkdir -p $(DEPS)
	@./tools/ensure-packages $(PKGS)
	@touch $@

libperf: $(LP_PC)
$(LP_PC): $(STAMP_PKGS)
	@./tools/build-libperf $(KSRC) $(LP_SRC) $(LP_PREFIX)

deps: $(STAMP_PKGS) $(LP_PC)

$(MESON_DIR)/build.ninja: $(LP_PC)
	meson setup $(MESON_DIR) --buildtype=debugoptimized -Dlibperf=auto

$(RAW_DIR)/build.ninja: $(STAMP_PKGS)
	meson setup $(RAW_DIR) --buildtype=debugoptimized -Dlibperf=disabled

build: $(MESON_DIR)/build.ninja
	ninja -C $(MESON_DIR)

demo: build
	./$(MESON_DIR)/tui/benchtui run assets/demo/demo.json

check: build $(RAW_DIR)/build.ninja
	ninja -C $(RAW_DIR)
	meson test -C $(RAW_DIR) --suite unit --print-errorlogs
	meson test -C $(MESON_DIR) --print-errorlogs --num-processes 2

clean:
	rm -rf $(BUILD)
