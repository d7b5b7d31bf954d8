# vulnkeeper — see README.md.
GO          ?= go
BIN         := bin/vulnkeeper
VERSION     ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS     := -s -w -X main.version=$(VERSION)
# Conformance groups that are done; each issue adds its own.
CONFORMANCE := basics,auth,inventory,products,containers,remediation,license,limits

.PHONY: build run test vet staticcheck gotest conformance bench fuzz clean

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) .

# First run on a fresh machine: ./var with an organization, an admin and an agent key, then serve.
run: build
	./$(BIN) quickstart --data-dir ./var --listen 127.0.0.1:8080

test: vet staticcheck gotest conformance

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (echo "gofmt would change:"; gofmt -l $$(git ls-files '*.go'); exit 1)

# Pinned, run through the module proxy, so CI needs nothing installed.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
staticcheck:
	$(GO) run $(STATICCHECK) ./...

gotest:
	$(GO) test -count=1 -timeout 12m ./...

conformance: build
	python3 ../shared/conformance/conformance.py --bin ./$(BIN) --only $(CONFORMANCE)

bench:
	$(GO) test -run '^$$' -bench . -benchmem -timeout 60m ./...

# Every FuzzXxx target in turn, FUZZTIME each.
FUZZTIME ?= 30s
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; \
	    $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 3s $$pkg || exit 1; \
	  done; \
	done

clean:
	rm -rf bin
