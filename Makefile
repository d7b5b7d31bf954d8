# vulnkeeper — see README.md.
GO          ?= go
BIN         := bin/vulnkeeper
VERSION     ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS     := -s -w -X main.version=$(VERSION)
# Conformance groups that are done; each issue adds its own.
CONFORMANCE := basics,auth,inventory,products,containers,remediation,license,limits

.PHONY: build run test vet staticcheck gotest conformance bench fuzz clean cross agents package

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) .

# First run on a fresh machine: ./var with an organization, an admin and an agent key, then serve.
run: build
	./$(BIN) quickstart --data-dir ./var --listen 127.0.0.1:8080

test: vet staticcheck cross gotest package conformance

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

# The agent's platforms. `cross` (part of test) only builds the two that catch most breaks.
AGENT_PLATFORMS := linux/amd64 linux/arm64 darwin/arm64 darwin/amd64 windows/amd64
cross:
	GOOS=windows GOARCH=amd64 $(GO) build -o /dev/null .
	GOOS=darwin GOARCH=arm64 $(GO) build -o /dev/null .

agents:
	@for p in $(AGENT_PLATFORMS); do \
	  os=$${p%/*}; arch=$${p#*/}; ext=; [ $$os = windows ] && ext=.exe; \
	  echo "dist/vulnkeeper-$$os-$$arch$$ext"; \
	  CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o dist/vulnkeeper-$$os-$$arch$$ext . || exit 1; \
	done

# .deb and .rpm for linux/amd64 with nfpm (pinned), then checked with dpkg-deb, rpm and a
# throwaway dpkg root.
NFPM        := $(GO) run github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.45.2
PKG_VERSION ?= 0.1.0
package:
	CGO_ENABLED=0 GOOS=linux GOARCH=amd64 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o dist/vulnkeeper-linux-amd64 .
	PKG_VERSION=$(PKG_VERSION) $(NFPM) pkg -f packaging/nfpm.yaml -p deb -t dist/vulnkeeper_$(PKG_VERSION)_amd64.deb
	PKG_VERSION=$(PKG_VERSION) $(NFPM) pkg -f packaging/nfpm.yaml -p rpm -t dist/vulnkeeper-$(PKG_VERSION).x86_64.rpm
	packaging/check-packages.sh dist/vulnkeeper_$(PKG_VERSION)_amd64.deb dist/vulnkeeper-$(PKG_VERSION).x86_64.rpm

clean:
	rm -rf bin dist
