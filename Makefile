# goabt: build libgoabt.so, run the tests and benchmarks, install the library and its CMake package.
# `make demo` and `make test` do all the set-up a fresh Debian machine with Go and gcc needs.

GO      ?= go
CC      ?= gcc
PREFIX  ?= /usr/local
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
LDFLAGS_LIB := -Wl,-z,now -Wl,-soname,libgoabt.so -Wl,-Bsymbolic-functions
# The Go core is a library of its own, libgoabt-go.so, which libgoabt.so loads on first need
# (capi/golib.c: a Go runtime started at load time would not survive a fork).
LDFLAGS_GOLIB := -extldflags "-Wl,-z,now -Wl,-soname,libgoabt-go.so"
# The C engine: every C and assembly file of capi/ (marked goabt_c_engine, so that go build
# leaves them out of the Go core).
ENGINE_SRC := $(wildcard capi/*.c) capi/context_$(ARCH).S
ENGINE_DEPS := $(ENGINE_SRC) $(wildcard capi/*.h) $(wildcard include/*.h)
ENGINE_CFLAGS := -shared -fPIC -O2 -g $(CSTRICT) -Iinclude -Icapi
# Debian installs packages without asking and without a front end.
APT_INSTALL := DEBIAN_FRONTEND=noninteractive apt-get install -y -q

# An AddressSanitizer build of the libraries, for ctests/asan_test.go.
ASAN_DIR := $(BUILD)/asan
# A build of the libraries for ctests/valgrind_test.go: the C engine registers its stacks with
# valgrind (capi/valgrind_stacks.h; it needs valgrind's headers, which test-deps installs), and
# the Go core is built with the valgrind tag, with which the Go runtime describes its own heap
# and goroutine stacks to valgrind.
VALGRIND_DIR := $(BUILD)/valgrind

.PHONY: all lib lib-asan lib-valgrind demo test test-deps bench bench-deps install clean

all: lib

# The library, the headers beside it, and libabt.so pointing at it so that -labt links goabt.
# `go build` decides itself whether anything is stale.
lib: $(LIB)
	@mkdir -p $(LIBDIR) $(INCDIR)/opal/class
	$(GO) build -buildmode=c-shared -ldflags '$(LDFLAGS_GOLIB)' -o $(GOLIB) ./capi
	@rm -f $(LIBDIR)/libgoabt-go.h
	@ln -sf libgoabt.so $(LIBDIR)/libabt.so.1
	@ln -sf libabt.so.1 $(LIBDIR)/libabt.so
	@cp include/*.h $(INCDIR)/
	@cp include/opal/class/*.h $(INCDIR)/opal/class/

$(LIB): $(ENGINE_DEPS)
	@mkdir -p $(LIBDIR)
	$(CC) $(ENGINE_CFLAGS) $(ENGINE_SRC) -o $@ $(LDFLAGS_LIB) -lpthread -ldl

lib-asan: $(ASAN_DIR)/libgoabt.so
	$(GO) build -asan -buildmode=c-shared -ldflags '$(LDFLAGS_GOLIB)' -o $(ASAN_DIR)/libgoabt-go.so ./capi
	@rm -f $(ASAN_DIR)/libgoabt-go.h

$(ASAN_DIR)/libgoabt.so: $(ENGINE_DEPS)
	@mkdir -p $(ASAN_DIR)
	$(CC) $(ENGINE_CFLAGS) -fsanitize=address -fno-omit-frame-pointer $(ENGINE_SRC) -o $@ $(LDFLAGS_LIB) -lpthread -ldl

lib-valgrind: $(VALGRIND_DIR)/libgoabt.so
	$(GO) build -tags valgrind -buildmode=c-shared -ldflags '$(LDFLAGS_GOLIB)' -o $(VALGRIND_DIR)/libgoabt-go.so ./capi
	@rm -f $(VALGRIND_DIR)/libgoabt-go.h

$(VALGRIND_DIR)/libgoabt.so: $(ENGINE_DEPS)
	@mkdir -p $(VALGRIND_DIR)
	$(CC) $(ENGINE_CFLAGS) -DGOABT_VALGRIND=1 $(ENGINE_SRC) -o $@ $(LDFLAGS_LIB) -lpthread -ldl

demo: lib
	@mkdir -p $(BUILD)/demo
	$(CC) $(CSTRICT) -O2 -I$(INCDIR) demo/demo.c -L$(LIBDIR) -lgoabt -Wl,-rpath,$(abspath $(LIBDIR)) -lpthread -o $(BUILD)/demo/demo
	$(BUILD)/demo/demo

# Tools the tests call: cmake for the find_package(goabt) test, valgrind (and its headers, for
# lib-valgrind) for ctests/valgrind_test.go.
test-deps:
	@command -v cmake >/dev/null 2>&1 || { apt-get update -q && $(APT_INSTALL) cmake; }
	@{ command -v valgrind >/dev/null 2>&1 && test -f /usr/include/valgrind/valgrind.h; } \
	  || { apt-get update -q && $(APT_INSTALL) valgrind; }

test: lib test-deps
	@unformatted="$$(gofmt -l core capi ctests bench)"; \
	  if [ -n "$$unformatted" ]; then echo "not gofmt'ed: $$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) test -race -count=1 ./core/...
	$(GO) test -count=1 -timeout 14m ./ctests/...

# Debian's Open MPI, to measure our OPAL object system against its own.
bench-deps:
	@test -f /usr/lib/x86_64-linux-gnu/openmpi/include/openmpi/opal/class/opal_object.h -o -n "$$(find /usr/lib -path '*openmpi/include*' -name opal_object.h 2>/dev/null | head -1)" \
	  || { apt-get update -q && $(APT_INSTALL) libopenmpi-dev; }

bench: lib bench-deps
	$(GO) run ./bench

install: lib
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/opal/class $(DESTDIR)$(PREFIX)/lib/cmake/goabt
	install -m 755 $(LIB) $(GOLIB) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libgoabt.so $(DESTDIR)$(PREFIX)/lib/libabt.so.1
	ln -sf libabt.so.1 $(DESTDIR)$(PREFIX)/lib/libabt.so
	install -m 644 include/*.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 include/opal/class/*.h $(DESTDIR)$(PREFIX)/include/opal/class/
	install -m 644 cmake/*.cmake $(DESTDIR)$(PREFIX)/lib/cmake/goabt/

clean:
	rm -rf $(BUILD)
