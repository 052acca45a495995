# goabt: build libgoabt.so, run the tests and benchmarks, install the library and its CMake package.
# `make demo` and `make test` do all the set-up a fresh Debian machine with Go and gcc needs.

GO      ?= go
# CC from the command line or the environment wins; GNU make's built-in default (cc) does not.
ifeq ($(origin CC),default)
CC      := gcc
endif
PREFIX  ?= /usr/local
# ABT_ALIASES=no installs goabt under its own names only: no libabt.so, libabt.so.1 or
# argobots.pc, which would shadow a real Argobots installed in the same prefix. (The build tree's
# build/lib has libabt.so and libabt.so.1 either way.)
ABT_ALIASES ?= yes
ifeq ($(filter $(ABT_ALIASES),yes no),)
$(error ABT_ALIASES must be yes or no, not '$(ABT_ALIASES)')
endif
# The two versions (docs/install.md, "Versions"): the Argobots API's, as abt.h declares it, for
# argobots.pc, and goabt's own, from goabt.h, for goabt.pc. The CMake package reads both from
# the installed headers.
ABT_VERSION   := $(shell sed -n 's/^.define ABT_VERSION "\(.*\)"$$/\1/p' include/abt.h)
GOABT_VERSION := $(shell sed -n 's/^.define GOABT_VERSION "\(.*\)"$$/\1/p' include/goabt.h)
# libgoabt.so is versioned as shared libraries are: the real file libgoabt.so.MAJOR.MINOR.PATCH,
# its soname libgoabt.so.MAJOR (what a program linked -lgoabt records, so that only an
# incompatible goabt changes it), and the links libgoabt.so.MAJOR -> the file and libgoabt.so
# (for -lgoabt) -> libgoabt.so.MAJOR, in every build directory and in the install.
GOABT_MAJOR := $(shell sed -n 's/^.define GOABT_VERSION_MAJOR \([0-9]*\)$$/\1/p' include/goabt.h)
GOABT_MINOR := $(shell sed -n 's/^.define GOABT_VERSION_MINOR \([0-9]*\)$$/\1/p' include/goabt.h)
GOABT_PATCH := $(shell sed -n 's/^.define GOABT_VERSION_PATCH \([0-9]*\)$$/\1/p' include/goabt.h)
ifneq ($(GOABT_VERSION),$(GOABT_MAJOR).$(GOABT_MINOR).$(GOABT_PATCH))
$(error include/goabt.h: GOABT_VERSION "$(GOABT_VERSION)" is not GOABT_VERSION_MAJOR.MINOR.PATCH ($(GOABT_MAJOR).$(GOABT_MINOR).$(GOABT_PATCH)))
endif
LIB_SONAME := libgoabt.so.$(GOABT_MAJOR)
LIB_FILE   := libgoabt.so.$(GOABT_VERSION)
BUILD   := build
LIBDIR  := $(BUILD)/lib
INCDIR  := $(BUILD)/include
LIB     := $(LIBDIR)/libgoabt.so
GOLIB   := $(LIBDIR)/libgoabt-go.so
ARCH    := $(shell $(GO) env GOARCH)
CSTRICT := -Wall -Wextra -Werror
# -Bsymbolic-functions replaces the -Bsymbolic that go passes: with -Bsymbolic the library would
# keep its own copy of every exported variable (opal_uses_threads, opal_object_t_class …) while a
# program, through its copy relocation, used another.
LDFLAGS_LIB := -Wl,-z,now -Wl,-soname,$(LIB_SONAME) -Wl,-Bsymbolic-functions
# The Go core is a library of its own, libgoabt-go.so, which libgoabt.so loads on first need
# (capi/golib.c: a Go runtime started at load time would not survive a fork).
# The Go runtime there never preempts by signal (asyncpreemptoff=1, its default GODEBUG): its
# preemption signal, SIGURG, stays the program's (capi/golib_signals.c).
LDFLAGS_GOLIB := -extldflags "-Wl,-z,now -Wl,-soname,libgoabt-go.so" -X runtime.godebugDefault=asyncpreemptoff=1
# libgoabt.so: the entry points (capi/api), the engine (capi/engine) and the C half of the
# boundary with the Go core (capi/golib.c), every C and assembly file there (marked
# goabt_c_engine, so that go build leaves them out of the Go core). Sources name the headers of
# capi/engine as "engine/x.h", found through -Icapi.
ENGINE_C := $(wildcard capi/api/*.c capi/engine/*.c capi/*.c)
ENGINE_S := capi/engine/context_$(ARCH).S
# What the engine reaches the Go core through, generated from capi/gocalls.list (capi/gocalls
# says how; capi/gocalls.h, capi/golib.c): the table and the gated wrappers, and the names the
# loader looks up. One copy, in $(GEN_DIR), serves every build of the engine.
GEN_DIR := $(BUILD)/gen
GOCALLS_GEN := $(GEN_DIR)/gocalls_gen.h $(GEN_DIR)/gocalls_symbols.h
ENGINE_CFLAGS := -fPIC -O2 -g $(CSTRICT) -Iinclude -Icapi -I$(GEN_DIR)
# Each build of the engine (plain, checked, ASan, valgrind: the flags below) compiles every
# source to an object of its own under $(BUILD)/obj/<build>/, with the headers it includes
# listed by gcc (-MMD), so that a change recompiles only the objects it touches; the objects'
# command line is kept beside them, so that another CC or other flags compile all of them again.
# Each object's line says which build and source it is; the command is in the flags file.
# $(call engine_build,NAME,DIR,FLAGS) writes the rules of one build: DIR/$(LIB_FILE) and its two
# links (libgoabt.so.MAJOR, libgoabt.so), which a target naming either link makes.
define engine_build
$(1)_OBJ := $$(patsubst %.c,$(BUILD)/obj/$(1)/%.o,$$(ENGINE_C)) $$(patsubst %.S,$(BUILD)/obj/$(1)/%.o,$$(ENGINE_S))
$(1)_CMD := $$(CC) $$(ENGINE_CFLAGS) $(3)
$(BUILD)/obj/$(1)/flags: FORCE
	@mkdir -p $$(@D)
	@if [ "$$$$(cat $$@ 2>/dev/null)" != '$$($(1)_CMD)' ]; then echo '$$($(1)_CMD)' > $$@; fi
$(BUILD)/obj/$(1)/%.o: %.c $(BUILD)/obj/$(1)/flags | $$(GOCALLS_GEN)
	@mkdir -p $$(@D)
	@echo "cc [$(1)] $$<"
	@$$($(1)_CMD) -MMD -MP -c $$< -o $$@
$(BUILD)/obj/$(1)/%.o: %.S $(BUILD)/obj/$(1)/flags
	@mkdir -p $$(@D)
	@echo "cc [$(1)] $$<"
	@$$($(1)_CMD) -MMD -MP -c $$< -o $$@
$(2)/$(LIB_FILE): $$($(1)_OBJ)
	@mkdir -p $$(@D)
	@echo "$$(CC) -shared $(3) <the $(1) objects> -o $$@"
	@$$(CC) -shared $(3) $$($(1)_OBJ) -o $$@ $$(LDFLAGS_LIB) -lpthread -ldl
	@ln -sf $(LIB_FILE) $(2)/$(LIB_SONAME)
	@ln -sf $(LIB_SONAME) $(2)/libgoabt.so
$(2)/libgoabt.so $(2)/$(LIB_SONAME) &: $(2)/$(LIB_FILE)
	@ln -sf $(LIB_FILE) $(2)/$(LIB_SONAME)
	@ln -sf $(LIB_SONAME) $(2)/libgoabt.so
-include $$(patsubst %.o,%.d,$$($(1)_OBJ))
endef

# libabt.so.1, Argobots' soname served by goabt (docs/install.md): not a link to
# libgoabt.so (a program linked through it would record libgoabt.so and run on goabt only) but a
# filter library. It defines the functions and variables of the Argobots 1.2 manifest, as stubs
# that abi/genfilter generates from abi/argobots-1.2.json, so that a program linked -labt records
# libabt.so.1 and runs on native Argobots too; it names libgoabt.so's soname, libgoabt.so.MAJOR,
# as its filtee (DT_FILTER, found beside it through its run path $ORIGIN), so at run time the
# loader takes every one of those symbols from libgoabt.so: one engine, whichever of the two
# names a process loads it by.
# Built in $(FILTER_DIR) and copied into $(LIBDIR) (an older build tree has a link there).
FILTER_DIR := $(BUILD)/filter
FILTER := $(FILTER_DIR)/libabt.so.1
LDFLAGS_FILTER := -Wl,-soname,libabt.so.1 -Wl,--filter,$(LIB_SONAME) -Wl,-rpath,'$$ORIGIN'
# $(call apt_install,PACKAGES): Debian installs packages without asking and without a front end;
# apt-get's log is shown only when it fails.
apt_install = echo "installing $(1) with apt-get"; log=$$(mktemp); \
  if { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(1); } >$$log 2>&1; \
  then rm -f $$log; else cat $$log; rm -f $$log; echo "apt-get install $(1) failed (make test needs root for it: docs/testing.md)"; exit 1; fi

# GOPOOLS: directories of Go packages of your own, each in a Go module of its own anywhere,
# whose pools and scheduling policies (core.RegisterPool, core.RegisterPolicy) are built into
# libgoabt-go.so (docs/go-extensions.md): `make lib GOPOOLS=../mypools`.
# A relative path is taken from this directory. Nothing in the source tree changes: in
# $(BUILD)/gopools make writes a Go workspace (go.work) of goabt's module and the packages'
# modules, so that they import github.com/goabt/goabt/core from this tree and need no require
# or replace for it, and a file of blank imports that go build's -overlay adds to ./capi.
# Without GOPOOLS the library is goabt's own (go build notices either change and relinks).
GOPOOLS ?=
GOPOOLS_DIR := $(abspath $(BUILD))/gopools
ifneq ($(strip $(GOPOOLS)),)
GOLIB_ENV := GOWORK=$(GOPOOLS_DIR)/go.work
GOLIB_FLAGS := -overlay $(GOPOOLS_DIR)/overlay.json
# The workspace, the imports and the overlay, made again at every build; the import paths come
# from go list in the workspace, each package's module root from go env GOMOD outside it.
gopools_setup = @set -e; d=$(GOPOOLS_DIR); rm -rf $$d; mkdir -p $$d; mods=; \
  for p in $(GOPOOLS); do \
    if [ ! -d "$$p" ]; then echo "GOPOOLS: $$p is not a directory"; exit 1; fi; \
    m=$$(cd "$$p" && GOWORK=off $(GO) env GOMOD); \
    case "$$m" in ""|/dev/null|NUL) echo "GOPOOLS: $$p is in no Go module (no go.mod in it or above it)"; exit 1;; esac; \
    m=$$(cd "$$(dirname "$$m")" && pwd -P); \
    if [ "$$m" != "$$(pwd -P)" ]; then mods="$$mods $$m"; fi; \
  done; \
  GOWORK=$$d/go.work $(GO) work init "$$(pwd -P)" $$(printf '%s\n' $$mods | sort -u); \
  { echo '// Code generated by make from GOPOOLS; DO NOT EDIT.'; echo; echo 'package main'; echo; \
    for p in $(GOPOOLS); do \
      i=$$(GOWORK=$$d/go.work $(GO) list -f '{{.ImportPath}}' "$$(cd "$$p" && pwd -P)"); \
      echo "import _ \"$$i\""; \
    done; } > $$d/gopools.go; \
  printf '{"Replace": {"%s": "%s"}}\n' "$$(pwd -P)/capi/zz_gopools.go" "$$d/gopools.go" > $$d/overlay.json; \
  sed -n 's/^import _ /GOPOOLS: building in /p' $$d/gopools.go
endif

# An AddressSanitizer build of the libraries, for ctests/asan_test.go.
ASAN_DIR := $(BUILD)/asan
# A build of the libraries for ctests/valgrind_test.go: the C engine registers its stacks with
# valgrind (capi/engine/valgrind_stacks.h; it needs valgrind's headers, which test-deps
# installs), and the Go core is built with the valgrind tag, with which the Go runtime describes
# its own heap and goroutine stacks to valgrind.
VALGRIND_DIR := $(BUILD)/valgrind
# The checked build of the C engine, for ctests/checked_test.go: its invariant checks
# (GOABT_ASSERT, capi/engine/common.h) compiled in. The Go core has none: it is the plain build's
# libgoabt-go.so, linked beside it (golib.c loads it from libgoabt.so's directory).
CHECKED_DIR := $(BUILD)/checked

.PHONY: FORCE all lib lib-asan lib-valgrind lib-checked lib-arm64 demo test test-deps check check-deps go-checks bench bench-deps install uninstall clean

all: lib

# The libraries, the headers beside them, and libabt.so.1 (the filter) with libabt.so linking to
# it, so that -labt links goabt under Argobots' soname. `go build` decides itself whether
# anything is stale.
lib: $(LIB) $(LIBDIR)/$(LIB_SONAME) $(FILTER)
	@mkdir -p $(LIBDIR) $(INCDIR)/opal/class
	$(gopools_setup)
	$(GOLIB_ENV) $(GO) build $(GOLIB_FLAGS) -buildmode=c-shared -ldflags '$(LDFLAGS_GOLIB)' -o $(GOLIB) ./capi
	@mkdir -p $(GEN_DIR)
	@# The exports' C declarations as cgo writes them, which ctests/gocalls_test.go compares with
	@# capi/gocalls.list; not a header anyone includes.
	@mv -f $(LIBDIR)/libgoabt-go.h $(GEN_DIR)/libgoabt-go.h
	@install -m 755 $(FILTER) $(LIBDIR)/libabt.so.1
	@ln -sf libabt.so.1 $(LIBDIR)/libabt.so
	@cp include/*.h $(INCDIR)/
	@# gdb auto-loads an objfile's script by the library's real file name.
	@rm -f $(LIBDIR)/libgoabt.so-gdb.py
	@cp gdb/goabt-gdb.py $(LIBDIR)/$(LIB_FILE)-gdb.py
	@cp include/opal/class/*.h $(INCDIR)/opal/class/

$(eval $(call engine_build,plain,$(LIBDIR),))

FORCE:

$(GOCALLS_GEN) &: capi/gocalls.list $(filter-out %_test.go,$(wildcard capi/gocalls/*.go capi/gocalls/gengocalls/*.go))
	$(GO) run ./capi/gocalls/gengocalls capi/gocalls.list $(GEN_DIR)

$(FILTER_DIR)/abt_filter.c: abi/argobots-1.2.json $(wildcard abi/genfilter/*.go)
	@mkdir -p $(FILTER_DIR)
	$(GO) run ./abi/genfilter abi/argobots-1.2.json > $@.tmp
	@mv $@.tmp $@

# Its command line is kept beside it, as the engine's are, so that another CC or filtee (a new
# soname) links it again.
FILTER_CMD := $(CC) -shared -fPIC -O2 $(CSTRICT) -Iinclude $(FILTER_DIR)/abt_filter.c -o $(FILTER) $(LDFLAGS_FILTER)
$(FILTER_DIR)/flags: FORCE
	@mkdir -p $(@D)
	@if [ "$$(cat $@ 2>/dev/null)" != '$(subst ','\'',$(FILTER_CMD))' ]; then echo '$(subst ','\'',$(FILTER_CMD))' > $@; fi

$(FILTER): $(FILTER_DIR)/abt_filter.c include/abt.h $(FILTER_DIR)/flags
	$(FILTER_CMD)

lib-asan: $(ASAN_DIR)/libgoabt.so
	$(gopools_setup)
	$(GOLIB_ENV) $(GO) build $(GOLIB_FLAGS) -asan -buildmode=c-shared -ldflags '$(LDFLAGS_GOLIB)' -o $(ASAN_DIR)/libgoabt-go.so ./capi
	@rm -f $(ASAN_DIR)/libgoabt-go.h

$(eval $(call engine_build,asan,$(ASAN_DIR),-fsanitize=address -fno-omit-frame-pointer))

lib-valgrind: $(VALGRIND_DIR)/libgoabt.so
	$(gopools_setup)
	$(GOLIB_ENV) $(GO) build $(GOLIB_FLAGS) -tags valgrind -buildmode=c-shared -ldflags '$(LDFLAGS_GOLIB)' -o $(VALGRIND_DIR)/libgoabt-go.so ./capi
	@rm -f $(VALGRIND_DIR)/libgoabt-go.h

$(eval $(call engine_build,valgrind,$(VALGRIND_DIR),-DGOABT_VALGRIND=1))

lib-checked: lib $(CHECKED_DIR)/libgoabt.so
	@ln -sf ../lib/libgoabt-go.so $(CHECKED_DIR)/libgoabt-go.so

$(eval $(call engine_build,checked,$(CHECKED_DIR),-DGOABT_CHECKED=1))

# The libraries built for linux/arm64 with Debian's cross compiler, in $(ARM64_DIR), for
# ctests/arm64_test.go, which runs the C test programs under qemu-user: make lib with this build
# directory, the arm64 context code (ARCH), the cross compiler for the engine and for cgo, and
# go build for GOARCH=arm64. The generated sources are made again there by the host's go run.
ARM64_DIR := $(BUILD)/arm64
ARM64_CC  := aarch64-linux-gnu-gcc
lib-arm64:
	@$(MAKE) --no-print-directory lib BUILD=$(ARM64_DIR) ARCH=arm64 CC=$(ARM64_CC) \
	  GOLIB_ENV='$$(if $$(strip $$(GOPOOLS)),GOWORK=$$(GOPOOLS_DIR)/go.work) GOARCH=arm64 CGO_ENABLED=1 CC=$(ARM64_CC)'

# make demo runs demo/demo.c with its timeline trace on (GOABT_TRACE, docs/using.md), draws the
# trace as an SVG with cmd/goabt-trace-svg, and prints where both are: build/demo/timeline.json
# (or DEMO_DIR's) for Perfetto's UI or chrome://tracing, timeline.svg for a web browser. The old
# files go first, so that a run that fails leaves none to mistake for its own.
DEMO_DIR := $(BUILD)/demo
demo: lib
	@mkdir -p $(DEMO_DIR) $(BUILD)/bin
	@rm -f $(DEMO_DIR)/timeline.json $(DEMO_DIR)/timeline.svg
	$(CC) $(CSTRICT) -O2 -I$(INCDIR) demo/demo.c -L$(LIBDIR) -lgoabt -Wl,-rpath,$(abspath $(LIBDIR)) -lpthread -o $(DEMO_DIR)/demo
	GOABT_TRACE=$(DEMO_DIR)/timeline.json $(DEMO_DIR)/demo
	$(GO) build -o $(BUILD)/bin/goabt-trace-svg ./cmd/goabt-trace-svg
	$(BUILD)/bin/goabt-trace-svg -title "make demo: the Argobots part of demo/demo.c" -o $(DEMO_DIR)/timeline.svg $(DEMO_DIR)/timeline.json
	@echo "The run's timeline, as a trace and as a picture:"
	@echo "  $(abspath $(DEMO_DIR)/timeline.json)  (open it in https://ui.perfetto.dev or chrome://tracing)"
	@echo "  $(abspath $(DEMO_DIR)/timeline.svg)  (open it in any web browser)"

# The two tiers of tests (docs/testing.md). make test: the Go core's tests (race
# detector) and every C test program against the library and the checked build, less what
# make check alone runs (go test -short: ctests/leftout.go). make check: everything, as CI runs
# it: the C programs also under ASan and valgrind, the install and its pkg-config and CMake
# consumers, the MPI example under mpirun, the fork and scale programs. Each ends on the
# summary of ctests/testrun: each way's counts, the failed tests with their first lines, and
# "N passed, N failed, N skipped". Every C program has its own time limit (ctests_test.go), so
# go test's -timeout is only a backstop far beyond a normal run.
TESTLOG := $(BUILD)/testlog
TESTRUN := $(BUILD)/bin/testrun

# What make test's programs need besides gcc: jemalloc (freed_handles runs under it too), and
# gdb (ctests/gdb_test.go, and the harness, which shows the threads of a program it kills).
test-deps:
	@ls /usr/lib/*/libjemalloc.so.2 >/dev/null 2>&1 || { $(call apt_install,libjemalloc2); }
	@command -v gdb >/dev/null 2>&1 || { $(call apt_install,gdb); }

# And make check's: cmake for the find_package(goabt) tests, pkg-config for the .pc ones,
# valgrind (and its headers, for lib-valgrind), Open MPI's compiler wrapper and launcher (mpicc
# from libopenmpi-dev, mpirun from openmpi-bin) for ctests/mpi_test.go, the arm64 cross compiler with its C library and qemu-user (qemu-aarch64)
# for ctests/arm64_test.go.
check-deps: test-deps
	@command -v cmake >/dev/null 2>&1 || { $(call apt_install,cmake); }
	@command -v pkg-config >/dev/null 2>&1 || { $(call apt_install,pkg-config); }
	@{ command -v valgrind >/dev/null 2>&1 && test -f /usr/include/valgrind/valgrind.h; } \
	  || { $(call apt_install,valgrind); }
	@{ command -v mpicc >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1; } \
	  || { $(call apt_install,libopenmpi-dev openmpi-bin); }
	@{ command -v $(ARM64_CC) >/dev/null 2>&1 && command -v qemu-aarch64 >/dev/null 2>&1 \
	  && test -f /usr/aarch64-linux-gnu/include/stdio.h; } \
	  || { $(call apt_install,gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user); }

$(TESTRUN): $(wildcard ctests/testrun/*.go) go.mod
	$(GO) build -o $@ ./ctests/testrun

# gofmt and vet, before any test.
go-checks:
	@unformatted="$$(gofmt -l core capi ctests bench abi cmd)"; \
	  if [ -n "$$unformatted" ]; then echo "not gofmt'ed: $$unformatted"; exit 1; fi
	$(GO) vet ./...

# $(call run_tests,GO TEST FLAGS FOR ctests): the Go core's tests, then ctests', then the
# summary, whose exit status is make's.
run_tests = rm -rf $(TESTLOG); \
  GO=$(GO) $(TESTRUN) -log $(TESTLOG) -name 1-core -- -race -count=1 ./core/... ./capi/gocalls/... ./ctests/testrun/ && \
  GO=$(GO) $(TESTRUN) -log $(TESTLOG) -name 2-ctests -- -count=1 $(1) ./ctests/ && \
  $(TESTRUN) -summary $(TESTLOG)

test: lib lib-checked test-deps go-checks $(TESTRUN)
	@$(call run_tests,-short -timeout 30m)

check: lib lib-checked check-deps go-checks $(TESTRUN)
	@$(call run_tests,-timeout 80m)

# Debian's Open MPI, to measure our OPAL object system against its own.
bench-deps:
	@test -f /usr/lib/x86_64-linux-gnu/openmpi/include/openmpi/opal/class/opal_object.h -o -n "$$(find /usr/lib -path '*openmpi/include*' -name opal_object.h 2>/dev/null | head -1)" \
	  || { $(call apt_install,libopenmpi-dev); }

# NATIVE_ARGOBOTS=<native libabt.so.1, or an Argobots install prefix>: the Argobots tables measure
# native Argobots too, alternating with goabt; without it they show goabt alone and say so.
bench: lib bench-deps
	$(GO) run ./bench$(if $(NATIVE_ARGOBOTS), -native '$(NATIVE_ARGOBOTS)')

# Installed under $(DESTDIR)$(PREFIX) (docs/install.md): the libraries (libgoabt.so.MAJOR.MINOR.PATCH
# and its links), the headers (also opal/class/opal_object.h, where Open MPI code includes it),
# goabt.pc (-lgoabt), the CMake package, gdb's script, and with ABT_ALIASES=yes (the default)
# libabt.so.1 (the filter library for libgoabt.so, above), libabt.so (a link to it) and
# argobots.pc (-labt: a program built through it records libabt.so.1). With ABT_ALIASES=yes the
# headers go in include/, where Argobots' abt.h goes; with ABT_ALIASES=no in include/goabt/, a
# directory of goabt's own, which goabt.pc and the CMake package name: nothing goabt installs
# then has a name Argobots installs. The .pc files name $(PREFIX), without DESTDIR.
#
# make puts the tree together in $(STAGE); goabt-install (cmd/goabt-install) copies it in. It
# refuses, before writing anything, to overwrite a file that no goabt install manifest says it
# wrote there (it names each, and says how to install beside it), unless OVERWRITE=yes, which
# keeps each such file in share/goabt/backup/ for make uninstall to put back. It records what it
# wrote in share/goabt/install-manifest (each file's SHA-256, paths relative to the prefix, so a
# DESTDIR-staged tree uninstalls the same way in place).
INSTDIR := $(DESTDIR)$(PREFIX)
STAGE   := $(BUILD)/stage
INSTALLER := $(BUILD)/bin/goabt-install
OVERWRITE ?= no
ifeq ($(filter $(OVERWRITE),yes no),)
$(error OVERWRITE must be yes or no, not '$(OVERWRITE)')
endif
ifeq ($(ABT_ALIASES),yes)
INCLUDE_SUBDIR := include
else
INCLUDE_SUBDIR := include/goabt
endif
# $(call configure,TEMPLATE,OUT): a .pc or .cmake file with the install's names filled in.
configure = sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@GOABT_VERSION@|$(GOABT_VERSION)|' -e 's|@ABT_VERSION@|$(ABT_VERSION)|' \
  -e 's|@INCLUDE_SUBDIR@|$(INCLUDE_SUBDIR)|' -e 's|@LIB_FILE@|$(LIB_FILE)|' -e 's|@LIB_SONAME@|$(LIB_SONAME)|' $(1) > $(2) && chmod 644 $(2)

# gdb's commands for goabt (gdb/goabt-gdb.py: docs/hangs.md) go where gdb's auto-load looks for
# libgoabt.so's script: <datadir>/auto-load/<the library's real path>-gdb.py (gdb follows the
# links to the real file, libgoabt.so.MAJOR.MINOR.PATCH).
GDB_SCRIPT_DIR := share/gdb/auto-load$(abspath $(PREFIX))/lib

$(INSTALLER): $(wildcard cmd/goabt-install/*.go) go.mod
	$(GO) build -o $@ ./cmd/goabt-install

install: lib $(INSTALLER)
	@rm -rf $(STAGE)
	@mkdir -p $(STAGE)/lib/pkgconfig $(STAGE)/lib/cmake/goabt $(STAGE)/$(INCLUDE_SUBDIR)/opal/class $(STAGE)/$(GDB_SCRIPT_DIR)
	@install -m 755 $(LIBDIR)/$(LIB_FILE) $(GOLIB) $(STAGE)/lib/
	@ln -s $(LIB_FILE) $(STAGE)/lib/$(LIB_SONAME)
	@ln -s $(LIB_SONAME) $(STAGE)/lib/libgoabt.so
	@install -m 644 include/*.h $(STAGE)/$(INCLUDE_SUBDIR)/
	@install -m 644 include/opal/class/*.h $(STAGE)/$(INCLUDE_SUBDIR)/opal/class/
	@for f in $(notdir $(wildcard cmake/*.cmake)); do $(call configure,cmake/$$f,$(STAGE)/lib/cmake/goabt/$$f) || exit 1; done
	@$(call configure,pkgconfig/goabt.pc.in,$(STAGE)/lib/pkgconfig/goabt.pc)
	@install -m 644 gdb/goabt-gdb.py $(STAGE)/$(GDB_SCRIPT_DIR)/$(LIB_FILE)-gdb.py
ifeq ($(ABT_ALIASES),yes)
	@install -m 755 $(FILTER) $(STAGE)/lib/libabt.so.1
	@ln -s libabt.so.1 $(STAGE)/lib/libabt.so
	@$(call configure,pkgconfig/argobots.pc.in,$(STAGE)/lib/pkgconfig/argobots.pc)
endif
	@$(INSTALLER) install -root '$(INSTDIR)' -stage $(STAGE) -aliases $(ABT_ALIASES) -version $(GOABT_VERSION) \
	  $(if $(filter yes,$(OVERWRITE)),-overwrite)

# Removes exactly what the manifest lists, each file only if it is as install wrote it (one
# changed since is kept, and named), puts back each file install kept a backup of, and then each
# directory install created that is left empty. Without a manifest it removes nothing and fails.
uninstall: $(INSTALLER)
	@$(INSTALLER) uninstall -root '$(INSTDIR)'

clean:
	rm -rf $(BUILD)
