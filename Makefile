# Tandem — build, test, benchmark, fuzz.
#
#   make run     host the demo game and play in it
#   make test    everything a contributor must pass: lint, then every test
#   make ci      what CI runs: make test, then every fuzz target briefly
#   make bench   every benchmark, with allocations
#   make bench-peers  the host tick beside Colyseus's state sync, same run (needs Node and npm)
#   make fuzz    a short run of every fuzz target
#   make lint    gofmt, go vet and staticcheck
#   make crash-test  kill -9 trials of the stores and of a host running commands, many of them

GO        ?= go
FUZZTIME  ?= 10s
BENCHTIME ?= 1s
CI_FUZZTIME ?= 3s
STATICCHECK_VERSION := v0.8.2
export QUIC_GO_DISABLE_RECEIVE_BUFFER_WARNING := true

.PHONY: run test ci fmt-check vet xvfb bench bench-peers fuzz lint

run:
	$(GO) run ./demo -host

test: lint xvfb
	xvfb-run -a $(GO) test -race -shuffle=on -timeout 30m ./...
	@# The full join-integrity run over QUIC (220 joins) is too slow under the
	@# race detector, which runs a sample of it, and the handshake flood (a
	@# timing bound, skipped under the race detector): run both without it,
	@# and a client's join applied between steps, which needs the machine's
	@# own speed.
	$(GO) test -count=1 -run '^(TestJoinIntegrityOverQUIC|TestHandshakeFloodOverQUIC)$$' ./net/session/
	$(GO) test -count=1 -run '^TestRunAppliesAJoinBetweenSteps$$' .

# CI: the tests, then each fuzz target for a few seconds (new corpus entries
# that fail are kept under testdata/fuzz, to be committed with the fix).
ci: test
	$(MAKE) fuzz FUZZTIME=$(CI_FUZZTIME)

fmt-check:
	@out="$$(gofmt -l .)"; if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

# The demo's window tests need an X server: Xvfb, run through xvfb-run; its
# start-screen tests type into the window with xdotool.
xvfb:
	@if ! command -v xvfb-run >/dev/null 2>&1 || ! command -v xauth >/dev/null 2>&1 || ! command -v xdotool >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			echo "installing xvfb, xauth and xdotool (needed by the demo's window tests)"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq xvfb xauth xdotool >/dev/null; \
		else \
			echo "make test needs xvfb-run, xauth and xdotool: install them (Debian: sudo apt-get install xvfb xauth xdotool) and run again"; exit 1; \
		fi; \
	fi

# The store's tests start their own PostgreSQL server (initdb in a temporary
# directory, a private Unix socket); make test fails rather than skips them
# when the server binaries are missing, and installs them with apt-get as root.
CRASH_TRIALS ?= 1000
.PHONY: postgres crash-test
test: postgres
test: export TANDEM_REQUIRE_POSTGRES := 1
postgres:
	@if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			echo "installing postgresql (needed by the store's tests)"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; \
		else \
			echo "make test needs the PostgreSQL server: install it (Debian: sudo apt-get install postgresql) and run again"; exit 1; \
		fi; \
	fi

crash-test: postgres
	@out=$$(mktemp); \
	TANDEM_REQUIRE_POSTGRES=1 TANDEM_CRASH_TRIALS=$(CRASH_TRIALS) $(GO) test -count=1 -timeout 60m -run 'Crash$$' -v ./store/... . >$$out 2>&1; \
	rc=$$?; grep -E 'trials=|^(--- FAIL|FAIL|ok)' $$out; [ $$rc = 0 ] || tail -50 $$out; rm -f $$out; exit $$rc

bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) ./...

# The host tick beside the same scenario on Colyseus's state sync
# (@colyseus/schema, pinned in bench/colyseus/package-lock.json), alternating
# rounds; PEER_ROUNDS rounds, BENCHTIME each; Colyseus with its fields
# declared quantized and as plain numbers (FIELDS in scripts/peer-bench).
PEER_ROUNDS ?= 6
bench-peers:
	@if [ ! -d bench/colyseus/node_modules ]; then \
		command -v npm >/dev/null 2>&1 || { echo "make bench-peers needs Node 20 or later and npm"; exit 1; }; \
		cd bench/colyseus && npm ci --no-audit --no-fund; \
	fi
	GO=$(GO) ROUNDS=$(PEER_ROUNDS) BENCHTIME=$(BENCHTIME) scripts/peer-bench

fuzz:
	GO=$(GO) FUZZTIME=$(FUZZTIME) scripts/fuzz

lint: fmt-check vet
	@command -v staticcheck >/dev/null 2>&1 || $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	PATH="$$PATH:$$($(GO) env GOPATH)/bin" staticcheck ./...
