# Tandem — build, test, benchmark, fuzz.
#
#   make run     host the demo game and play in it
#   make test    everything a contributor must pass (what CI runs)
#   make bench   every benchmark, with allocations
#   make fuzz    a short run of every fuzz target
#   make lint    gofmt, go vet and staticcheck

GO        ?= go
FUZZTIME  ?= 10s
BENCHTIME ?= 1s
STATICCHECK_VERSION := v0.8.2
export QUIC_GO_DISABLE_RECEIVE_BUFFER_WARNING := true

.PHONY: run test fmt-check vet xvfb bench fuzz lint

run:
	$(GO) run ./demo -host

test: fmt-check vet xvfb
	xvfb-run -a $(GO) test -race -shuffle=on -timeout 30m ./...

fmt-check:
	@out="$$(gofmt -l .)"; if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

# The demo's window tests need an X server: Xvfb, run through xvfb-run.
xvfb:
	@if ! command -v xvfb-run >/dev/null 2>&1 || ! command -v xauth >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			echo "installing xvfb and xauth (needed by the demo's window tests)"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq xvfb xauth >/dev/null; \
		else \
			echo "make test needs xvfb-run and xauth: install them (Debian: sudo apt-get install xvfb xauth) and run again"; exit 1; \
		fi; \
	fi

bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) ./...

fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
		for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
			echo "fuzz $$pkg $$target ($(FUZZTIME))"; \
			$(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) $$pkg; \
		done; \
	done

lint: fmt-check vet
	@command -v staticcheck >/dev/null 2>&1 || $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	PATH="$$PATH:$$($(GO) env GOPATH)/bin" staticcheck ./...
