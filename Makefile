# otelcol-modelplane: the two commands that matter are `make run` and `make test`.
SHELL        := /bin/bash
GO           ?= go
# go-nvml's header marks NVML calls deprecated in CUDA 13; they still work, and the warnings
# would bury real output.
export CGO_CFLAGS ?= -O2 -g -Wno-deprecated-declarations
TAGS         := remove_all_sd,enable_kubernetes_sd,grpcnotrace
BIN          := bin
COLLECTOR    := $(BIN)/otelcol-modelplane
# The same collector for linux/arm64 (Grace GPU nodes), cross-compiled with cgo.
COLLECTOR_ARM64 := $(BIN)/linux-arm64/otelcol-modelplane
CROSS_CC     := aarch64-linux-gnu-gcc
TOOLS        := $(CURDIR)/.cache/bin
# The collector release the distribution builds on, named here only: `make bump-release`
# moves builder-config.yaml and go.mod to it, and `make check-generated` fails on a mismatch.
CORE_VERSION    := v0.165.0
STABLE_VERSION  := v1.71.0
CONTRIB_VERSION := v0.165.1
BUILDER      := $(TOOLS)/builder-$(CORE_VERSION)
# The reference collector (bench/reference, its own module) stays at the release Modelplane
# renders its OTTL pipeline for.
REFERENCE_VERSION := v0.161.0
REFERENCE_BUILDER := $(TOOLS)/builder-$(REFERENCE_VERSION)
# mdatagen, from tools/go.mod: v0.161.0 is the newest release the module proxy serves.
MDATAGEN     := $(TOOLS)/mdatagen
# nfpm, from tools/go.mod, writes the Debian package and the RPM.
NFPM         := $(TOOLS)/nfpm
REFERENCE_PIPELINE := $(BIN)/reference-pipeline
BENCHSTAT    := $(TOOLS)/benchstat
STATICCHECK  := $(TOOLS)/staticcheck
# A Kubernetes API server for the tests of cluster_mappings (e2e/crdapiserver, its own module).
CRD_APISERVER := $(TOOLS)/crd-apiserver
# Prometheus 3, for the end-to-end tests of OTLP into a backend that refuses out-of-order
# points (Debian's 2.42 has no OTLP receiver): the Prometheus module go.mod already requires,
# built where the module cache holds it, under its own go.mod and go.sum.
PROMETHEUS3_VER := $(shell awk '$$1 == "github.com/prometheus/prometheus" {print $$2}' go.mod)
PROMETHEUS3     := $(TOOLS)/prometheus-$(PROMETHEUS3_VER)
# Components whose internal/metadata, lifecycle tests and documentation.md mdatagen writes.
MDATAGEN_DIRS := $(dir $(wildcard processor/*/metadata.yaml receiver/*/metadata.yaml))
GO_SOURCES   := $(shell find . -name '*.go' -not -path './.cache/*' -not -path './e2e/crdapiserver/*' -not -path './bench/reference/*' -not -path './tools/*') go.mod go.sum $(shell find internal processor -name '*.yaml')
# The commit `--version` names, and whether the tree had changes not committed. Passed with
# -X rather than left to Go's VCS stamping, which machines turn off (-buildvcs=false) where
# git cannot read the checkout; .cache/commit changes with them, so a commit rebuilds.
COMMIT_ID     := $(shell git rev-parse --short=12 HEAD 2>/dev/null)
LOCAL_CHANGES := $(shell git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo true)
LDFLAGS       := -s -w -X main.commit=$(COMMIT_ID) -X main.localChanges=$(LOCAL_CHANGES)

.PHONY: all build build-arm64 cross-deps gpu-check image image-multiarch install package package-deps run bench-e2e bench-peers size perf-e2e bump-release test test-unit test-race e2e-deps generate check-generated lint bench tools clean

all: build

$(COLLECTOR): $(GO_SOURCES) .cache/commit
	$(GO) build -trimpath -ldflags='$(LDFLAGS)' -tags $(TAGS) -o $@ ./cmd/otelcol-modelplane

$(COLLECTOR_ARM64): $(GO_SOURCES) .cache/commit | cross-deps
	CGO_ENABLED=1 GOOS=linux GOARCH=arm64 CC=$(CROSS_CC) $(GO) build -trimpath -ldflags='$(LDFLAGS)' -tags $(TAGS) -o $@ ./cmd/otelcol-modelplane

# Rewritten only when the commit or the local-changes flag differs from the last build's.
.cache/commit: FORCE
	@mkdir -p $(@D)
	@echo '$(COMMIT_ID) $(LOCAL_CHANGES)' | cmp -s - $@ || echo '$(COMMIT_ID) $(LOCAL_CHANGES)' > $@

FORCE:

$(BIN)/gpu-check: $(GO_SOURCES)
	$(GO) build -trimpath -ldflags='-s -w' -o $@ ./cmd/gpu-check

$(BIN)/demo-engines: $(GO_SOURCES)
	$(GO) build -o $@ ./cmd/demo-engines

## build: the collector binary, stripped, with the build tags of the distribution
build: $(COLLECTOR)

## build-arm64: the collector for linux/arm64 (Grace Hopper and Grace Blackwell GPU nodes)
build-arm64: $(COLLECTOR_ARM64)

## gpu-check: build the collector and gpu-check, then read this host's GPUs through the dcgm
## receiver and the whole collector (needs the NVIDIA driver; docs in receiver/dcgmreceiver)
gpu-check: $(COLLECTOR) $(BIN)/gpu-check
	BIN=$(BIN) scripts/gpu-check.sh

## image: the container image as an OCI archive in dist/ (no Docker daemon needed)
image: $(COLLECTOR)
	$(GO) run ./deploy/image -binary $(COLLECTOR) -out dist/otelcol-modelplane.tar -version $$(git describe --always --dirty 2>/dev/null || echo dev)
	@echo "load it with: docker load -i dist/otelcol-modelplane.tar   (or: crane push dist/otelcol-modelplane.tar REGISTRY/otelcol-modelplane:TAG)"

## image-multiarch: linux/amd64 and linux/arm64 images under one index, an OCI image layout
## folder in dist/ (push it with crane or skopeo; one tag then serves x86 and Grace nodes)
image-multiarch: $(COLLECTOR) $(COLLECTOR_ARM64)
	$(GO) run ./deploy/image -binary $(COLLECTOR) -binary $(COLLECTOR_ARM64) -out dist/otelcol-modelplane-oci -version $$(git describe --always --dirty 2>/dev/null || echo dev)
	@echo "push it with: crane push dist/otelcol-modelplane-oci REGISTRY/otelcol-modelplane:TAG   (or: skopeo copy --all oci:dist/otelcol-modelplane-oci docker://REGISTRY/otelcol-modelplane:TAG)"

PREFIX ?= /usr/local

# The binary install puts in place: INSTALL_BINARY=$(COLLECTOR_ARM64) stages a Grace (arm64)
# host's install from an x86 machine (with DESTDIR).
INSTALL_BINARY ?= $(COLLECTOR)

## install: binary, systemd unit, config and mapping folder for a GPU host (honours DESTDIR)
install: $(INSTALL_BINARY)
	install -D -m 0755 $(INSTALL_BINARY) $(DESTDIR)$(PREFIX)/bin/otelcol-modelplane
	@# The unit runs the binary where PREFIX put it.
	install -d -m 0755 $(DESTDIR)/etc/systemd/system
	sed 's|/usr/local/bin/otelcol-modelplane|$(PREFIX)/bin/otelcol-modelplane|g' deploy/standalone/otelcol-modelplane.service > $(DESTDIR)/etc/systemd/system/otelcol-modelplane.service
	chmod 0644 $(DESTDIR)/etc/systemd/system/otelcol-modelplane.service
	install -d -m 0755 $(DESTDIR)/etc/otelcol-modelplane/mappings
	@# Never overwrite a config or mappings the host already has.
	test -e $(DESTDIR)/etc/otelcol-modelplane/config.yaml || install -m 0644 deploy/standalone/config.yaml $(DESTDIR)/etc/otelcol-modelplane/config.yaml
	test -e $(DESTDIR)/etc/otelcol-modelplane/mappings/example.yaml || install -m 0644 deploy/standalone/mappings/example.yaml $(DESTDIR)/etc/otelcol-modelplane/mappings/example.yaml
	@echo "installed; then: systemctl daemon-reload && systemctl enable --now otelcol-modelplane"

# The release's version: the one `otelcol-modelplane --version` prints.
VERSION      := $(shell sed -n 's/^  version: //p' builder-config.yaml)
PACKAGE_DIR  ?= dist

## package: release packages for GPU hosts without Go, in $(PACKAGE_DIR): a Debian package, an RPM
## and a tar.gz each for linux/amd64 and linux/arm64, and SHA256SUMS (dated by the last commit)
package: $(COLLECTOR) $(COLLECTOR_ARM64) $(NFPM)
	SOURCE_DATE_EPOCH=$$(git log -1 --format=%ct 2>/dev/null || echo 0) $(GO) run ./deploy/package -nfpm $(NFPM) -version $(VERSION) -binary $(COLLECTOR) -binary $(COLLECTOR_ARM64) -out $(PACKAGE_DIR)

## run: the collector on its embedded default, scraping demo engines; Ctrl-C stops both
run: $(COLLECTOR) $(BIN)/demo-engines
	@$(BIN)/demo-engines -expositions testdata/exposition & demo=$$!; \
	trap 'kill $$demo 2>/dev/null; wait $$demo 2>/dev/null' EXIT INT TERM; \
	sleep 1; kill -0 $$demo 2>/dev/null || { echo "make run: the demo engines did not start (above), so neither does the collector"; exit 1; }; \
	echo ""; \
	echo "  otelcol-modelplane is starting on its embedded default (otelcol-modelplane default-config)."; \
	echo "  Demo vLLM :8000, SGLang :30000 and dcgm-exporter :9400 serve testdata/exposition."; \
	echo "  Within 60 s:   curl -s 127.0.0.1:9464/metrics | grep '^modelplane_'"; \
	echo "  Ctrl-C stops everything."; \
	echo ""; \
	$(COLLECTOR)

## test: every test, from a clean clone (installs the tools it needs)
test: check-generated lint test-unit test-race

test-unit: $(COLLECTOR) $(COLLECTOR_ARM64) $(CRD_APISERVER) $(PROMETHEUS3) $(REFERENCE_PIPELINE) $(BUILDER) $(NFPM) e2e-deps package-deps
	cd bench/reference && $(GO) test -count=1 ./pipeline/
	BUILDER_BIN=$(BUILDER) NFPM_BIN=$(NFPM) REFERENCE_PIPELINE_BIN=$(CURDIR)/$(REFERENCE_PIPELINE) CRD_APISERVER_BIN=$(CRD_APISERVER) PROMETHEUS3_BIN=$(PROMETHEUS3) OTELCOL_MODELPLANE_BIN=$(CURDIR)/$(COLLECTOR) OTELCOL_MODELPLANE_BIN_ARM64=$(CURDIR)/$(COLLECTOR_ARM64) $(GO) test -tags $(TAGS) -count=1 -timeout 35m ./...

## test-race: the in-process tests again under the race detector (the end-to-end tests drive
## the collector as a separate process, so they are left out)
test-race: $(CRD_APISERVER) $(REFERENCE_PIPELINE)
	REFERENCE_PIPELINE_BIN=$(CURDIR)/$(REFERENCE_PIPELINE) CRD_APISERVER_BIN=$(CRD_APISERVER) $(GO) test -race -tags $(TAGS) -count=1 -timeout 15m $$($(GO) list ./... | grep -v /e2e$$)

## e2e-deps: Debian's prometheus for the end-to-end tests (run as root, as CI does)
e2e-deps:
	@command -v prometheus >/dev/null || { \
	  echo "installing Debian's prometheus package for the end-to-end tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus >/dev/null; }

## package-deps: rpm, which the package tests check the RPM packages with (dpkg is Debian's own)
package-deps:
	@command -v rpm >/dev/null || { \
	  echo "installing Debian's rpm package for the package tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends rpm >/dev/null; }

## cross-deps: Debian's arm64 cross compiler and C library, and qemu-user to run arm64 binaries
## here (run as root, as CI does)
cross-deps:
	@command -v $(CROSS_CC) >/dev/null && command -v qemu-aarch64 >/dev/null && test -e /usr/aarch64-linux-gnu/lib/libc.so.6 || { \
	  echo "installing Debian's arm64 cross toolchain and qemu-user"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user >/dev/null; }

$(TOOLS)/builder-%:
	GOBIN=$(TOOLS)/builder.$* GOFLAGS=-mod=mod $(GO) install go.opentelemetry.io/collector/cmd/builder@$*
	mv $(TOOLS)/builder.$*/builder $@ && rmdir $(TOOLS)/builder.$*

$(MDATAGEN): tools/go.mod tools/go.sum
	cd tools && $(GO) build -o $@ go.opentelemetry.io/collector/cmd/mdatagen

$(NFPM): tools/go.mod tools/go.sum
	cd tools && $(GO) build -o $@ github.com/goreleaser/nfpm/v2/cmd/nfpm

REFERENCE_SOURCES := $(shell find bench/reference -name '*.go') bench/reference/go.mod bench/reference/go.sum

$(REFERENCE_PIPELINE): $(REFERENCE_SOURCES)
	cd bench/reference && $(GO) build -trimpath -o $(CURDIR)/$@ ./cmd/reference-pipeline

$(BENCHSTAT):
	GOBIN=$(TOOLS) GOFLAGS=-mod=mod $(GO) install golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da

# Installed apart from go.mod: as a tool there it would raise golang.org/x/net and others
# that the collector links.
$(CRD_APISERVER): e2e/crdapiserver/main.go e2e/crdapiserver/go.mod e2e/crdapiserver/go.sum
	cd e2e/crdapiserver && $(GO) build -trimpath -o $@ .

# The release as the module cache holds it, built under its own go.mod and go.sum.
$(PROMETHEUS3):
	$(GO) mod download github.com/prometheus/prometheus@$(PROMETHEUS3_VER)
	cd "$$($(GO) list -m -f '{{.Dir}}' github.com/prometheus/prometheus@$(PROMETHEUS3_VER))" && \
	  GOWORK=off GOFLAGS=-mod=readonly $(GO) build -trimpath -o $@ ./cmd/prometheus

$(STATICCHECK):
	GOBIN=$(TOOLS) GOFLAGS=-mod=mod $(GO) install honnef.co/go/tools/cmd/staticcheck@v0.8.2

tools: $(BUILDER) $(REFERENCE_BUILDER) $(MDATAGEN) $(NFPM) $(BENCHSTAT) $(STATICCHECK)

$(BIN)/otelcol-reference: $(REFERENCE_SOURCES) bench/reference/builder-config.yaml
	cd bench/reference && $(GO) build -trimpath -ldflags='-s -w' -tags $(TAGS) -o $(CURDIR)/$@ ./cmd/otelcol-reference

## bench-e2e: whole collectors side by side: ours against the reference on the same fleets
bench-e2e: $(COLLECTOR) $(BIN)/otelcol-reference
	@mkdir -p .cache/bench
	@ls -l $(COLLECTOR) $(BIN)/otelcol-reference
	$(GO) run ./bench/e2e -ours $(COLLECTOR) -reference $(BIN)/otelcol-reference -profiles .cache/bench

STOCK := .cache/stock
# The stock collector of bench/stock, built by the builder at this release with the build's tags
# and flags, for `make size`.
$(STOCK)/otelcol-stock: bench/stock/builder-config.yaml.in $(BUILDER)
	@mkdir -p $(STOCK)
	sed -e 's/@CORE@/$(CORE_VERSION)/; s/@STABLE@/$(STABLE_VERSION)/; s/@CONTRIB@/$(CONTRIB_VERSION)/' $< > $(STOCK)/builder-config.yaml
	cd $(STOCK) && $(BUILDER) --config builder-config.yaml --skip-compilation >builder.log 2>&1 || { cat $(STOCK)/builder.log; exit 1; }
	cd $(STOCK)/out && $(GO) build -trimpath -ldflags='-s -w' -tags $(TAGS) -o ../otelcol-stock .

## size: the collector's binary against a stock collector of the same release with the same
## upstream components and none of ours (bench/stock), and against the reference collector
## (bench/reference, whose OTTL processors build only at REFERENCE_VERSION)
size: $(COLLECTOR) $(STOCK)/otelcol-stock $(BIN)/otelcol-reference
	@ours=$$(stat -c %s $(COLLECTOR)); stock=$$(stat -c %s $(STOCK)/otelcol-stock); ref=$$(stat -c %s $(BIN)/otelcol-reference); \
	  echo "otelcol-modelplane $$ours B; stock $$stock B, ratio $$(awk "BEGIN {printf \"%.2f\", $$ours/$$stock}"); reference ($(REFERENCE_VERSION)) $$ref B, ratio $$(awk "BEGIN {printf \"%.2f\", $$ours/$$ref}")"

PEERS := .cache/peers
# Debian's vmagent and victoria-metrics (the sink) and Prometheus 2 for agent mode, unpacked
# into .cache/peers without installing them.
$(PEERS)/usr/bin/vmagent:
	@mkdir -p $(PEERS)/deb
	cd $(PEERS)/deb && { apt-get download victoria-metrics prometheus 2>/dev/null || { apt-get update -qq && apt-get download victoria-metrics prometheus; }; }
	for d in $(PEERS)/deb/*.deb; do dpkg -x "$$d" $(PEERS); done
	touch $@

## bench-peers: ours against vmagent and Prometheus in agent mode on the same fleets, into the
## same sink (bench/peers/README.md); PEERS_FLAGS go to bench/peers/peers.py (-R 1, --fleets 8x8)
bench-peers: $(COLLECTOR) $(PEERS)/usr/bin/vmagent
	@mkdir -p .cache/bench
	python3 bench/peers/peers.py --ours $(COLLECTOR) --bin-dir $(PEERS)/usr/bin \
	  --catalog processor/modelplanemapping/metricmapping/catalog --pages testdata/exposition --out .cache/bench/peers.md $(PEERS_FLAGS)

## perf-e2e: both collectors under Linux perf at one fleet (FLEET=8x8 by default), kernel
## included; reports in .cache/perf (docs/benchmarks.md). SECOND=floor records
## bench/scrapefloor in the reference's place; PERF_FLAGS go to bench/e2e (-minimal-pages)
perf-e2e:
	scripts/perf-e2e.sh $(or $(FLEET),8x8) $(PERF_FLAGS)

## generate: regenerate cmd/otelcol-modelplane/components.go from builder-config.yaml, and each component's
## generated files from its metadata.yaml (mdatagen, a tool in go.mod)
generate: $(BUILDER) $(REFERENCE_BUILDER) $(MDATAGEN)
	scripts/generate.sh $(BUILDER) builder-config.yaml cmd/otelcol-modelplane components.go
	scripts/generate.sh $(REFERENCE_BUILDER) bench/reference/builder-config.yaml bench/reference/cmd/otelcol-reference
	scripts/mdatagen.sh $(MDATAGEN) $(MDATAGEN_DIRS)

## bump-release: move builder-config.yaml and go.mod to CORE_VERSION, STABLE_VERSION and
## CONTRIB_VERSION, then regenerate; the upgrade is those three lines and this command
bump-release:
	scripts/release.sh bump $(CORE_VERSION) $(STABLE_VERSION) $(CONTRIB_VERSION)
	$(MAKE) generate

## check-generated: fail when generated code is stale against builder-config.yaml or metadata.yaml
check-generated: $(BUILDER) $(REFERENCE_BUILDER) $(MDATAGEN)
	scripts/release.sh check $(CORE_VERSION) $(STABLE_VERSION) $(CONTRIB_VERSION)
	scripts/check-generated.sh $(BUILDER) builder-config.yaml cmd/otelcol-modelplane components.go
	scripts/check-generated.sh $(REFERENCE_BUILDER) bench/reference/builder-config.yaml bench/reference/cmd/otelcol-reference
	scripts/check-mdatagen.sh $(MDATAGEN) $(MDATAGEN_DIRS)

## lint: gofmt, go vet and staticcheck (v0.8.2, installed into .cache/bin)
lint: $(STATICCHECK)
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	@out=$$(for f in $$(git ls-files '*.go'); do head -5 "$$f" | grep -q 'Code generated' || head -2 "$$f" | grep -q 'SPDX-License-Identifier' || echo "$$f"; done); \
	if [ -n "$$out" ]; then echo "no SPDX license header:"; echo "$$out"; exit 1; fi
	$(GO) vet -tags $(TAGS) ./...
	$(STATICCHECK) -tags $(TAGS) ./...
	cd e2e/crdapiserver && $(GO) vet ./... && $(STATICCHECK) ./...
	cd bench/reference && $(GO) vet -tags $(TAGS) ./... && $(STATICCHECK) -tags $(TAGS) ./...

## bench: processor benchmarks, ours against the reference pipeline, through benchstat
bench: $(BENCHSTAT)
	scripts/bench.sh $(BENCHSTAT)

clean:
	rm -rf $(BIN) .cache
