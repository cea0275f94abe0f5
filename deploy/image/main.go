// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Command image assembles the otelcol-modelplane container image as an OCI image archive
// without a Docker daemon and without pulling a base image: the binary at
// /otelcol-modelplane, the shared libraries cgo links it against (libnvidia-ml itself is
// mounted by the NVIDIA container toolkit at run time), CA certificates, and a non-root user.
// `docker load -i` and `crane push` accept the archive.
//
//	go run ./deploy/image -binary bin/otelcol-modelplane -out dist/otelcol-modelplane.tar
//
// Given a binary per architecture (-binary repeated; each one's platform is read from its ELF
// header), it writes one image per platform under an OCI image index, as an OCI image layout
// folder: what a DaemonSet spanning x86 and Grace (arm64) GPU nodes pulls by one reference.
//
//	go run ./deploy/image -binary bin/otelcol-modelplane -binary bin/linux-arm64/otelcol-modelplane -out dist/otelcol-modelplane-oci
package main

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/modelplaneai/otelcol-modelplane/deploy/internal/elfarch"
)

const (
	uid     = 65532
	imgUser = "65532:65532"
)

// binaries is the repeatable -binary flag.
type binaries []string

func (b *binaries) String() string     { return strings.Join(*b, ",") }
func (b *binaries) Set(v string) error { *b = append(*b, v); return nil }

func main() {
	var bins binaries
	flag.Var(&bins, "binary", "the collector binary (default bin/otelcol-modelplane); repeat it with one binary per architecture for a multi-platform image")
	out := flag.String("out", "dist/otelcol-modelplane.tar", "the image archive to write; with several binaries, the OCI image layout folder")
	tag := flag.String("tag", "ghcr.io/modelplaneai/otelcol-modelplane:dev", "the image reference recorded in the archive")
	version := flag.String("version", "dev", "org.opencontainers.image.version")
	flag.Parse()
	if len(bins) == 0 {
		bins = binaries{"bin/otelcol-modelplane"}
	}
	if err := build(bins, *out, *tag, *version); err != nil {
		log.Fatal(err)
	}
}

// build writes one binary's image as an archive that `docker load` reads, or several
// binaries' images, one per platform, under an index in an OCI image layout folder.
func build(bins []string, out, tag, version string) error {
	ref, err := name.ParseReference(tag)
	if err != nil {
		return fmt.Errorf("tag %q: %w", tag, err)
	}
	if len(bins) == 1 {
		img, _, err := image(bins[0], version)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return tarball.WriteToFile(out, ref, img)
	}
	if strings.HasSuffix(out, ".tar") {
		return fmt.Errorf("-out %s: with several -binary, the output is a folder (an OCI image layout), not an archive", out)
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	seen := map[string]string{}
	for _, bin := range bins {
		img, platform, err := image(bin, version)
		if err != nil {
			return err
		}
		if other, dup := seen[platform.String()]; dup {
			return fmt.Errorf("-binary %s and %s are both %s: one binary per platform", other, bin, platform)
		}
		seen[platform.String()] = bin
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: platform}})
	}
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	// The layout's own index.json names one thing, the multi-platform index, so that
	// `crane push DIR REF` pushes it whole under one reference.
	lp, err := layout.Write(out, empty.Index)
	if err != nil {
		return err
	}
	return lp.AppendIndex(idx, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": ref.String()}))
}

// image is the image of one binary, for the platform its ELF header names.
func image(binary, version string) (v1.Image, *v1.Platform, error) {
	platform, err := platformOf(binary)
	if err != nil {
		return nil, nil, err
	}
	base, err := baseLayer()
	if err != nil {
		return nil, nil, err
	}
	libs, err := libraryLayer(binary, platform)
	if err != nil {
		return nil, nil, err
	}
	app, err := fileLayer(map[string]string{"otelcol-modelplane": binary}, 0o755)
	if err != nil {
		return nil, nil, err
	}
	img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), base, libs, app)
	if err != nil {
		return nil, nil, err
	}
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = platform.OS, platform.Architecture
	cfg := &cf.Config
	cfg.Entrypoint = []string{"/otelcol-modelplane"}
	cfg.User = imgUser
	cfg.WorkingDir = "/"
	cfg.Env = []string{"PATH=/", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"}
	cfg.Labels = map[string]string{
		"org.opencontainers.image.title":       "otelcol-modelplane",
		"org.opencontainers.image.description": "OpenTelemetry Collector for GPU inference fleets",
		"org.opencontainers.image.source":      "https://github.com/modelplaneai/otelcol-modelplane",
		"org.opencontainers.image.licenses":    "Apache-2.0",
		"org.opencontainers.image.version":     version,
	}
	cfg.ExposedPorts = map[string]struct{}{"9464/tcp": {}, "13133/tcp": {}, "4317/tcp": {}, "4318/tcp": {}}
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, nil, err
	}
	img, err = mutate.CreatedAt(img, v1.Time{Time: time.Unix(0, 0).UTC()})
	return img, platform, err
}

// platformOf reads the binary's platform from its ELF header.
func platformOf(binary string) (*v1.Platform, error) {
	arch, err := elfarch.Arch(binary)
	if err != nil {
		return nil, err
	}
	return &v1.Platform{OS: "linux", Architecture: arch}, nil
}

// libraryDirs is where this machine keeps the shared libraries of each platform: its own,
// and the arm64 ones of Debian's cross toolchain (libc6-arm64-cross) on an x86 machine.
var libraryDirs = map[string][]string{
	"amd64": {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64"},
	"arm64": {"/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/aarch64-linux-gnu/lib"},
}

// imageLibraryDir is where the image keeps them: Debian's multiarch folder, which its
// dynamic loader searches.
var imageLibraryDir = map[string]string{"amd64": "lib/x86_64-linux-gnu", "arm64": "lib/aarch64-linux-gnu"}

// QueueDir is the folder for the sending queues on disk, in the image's root.
const QueueDir = "var/lib/otelcol-modelplane"

// baseLayer is the root file system: a non-root user, CA certificates, /tmp and QueueDir.
func baseLayer() (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dir := func(name string, mode int64) error {
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: mode, ModTime: time.Unix(0, 0)})
	}
	file := func(name string, data []byte, mode int64) error {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(len(data)), ModTime: time.Unix(0, 0)}); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	certs, err := os.ReadFile("/etc/ssl/certs/ca-certificates.crt")
	if err != nil {
		return nil, fmt.Errorf("CA certificates (Debian's ca-certificates package): %w", err)
	}
	for _, d := range []string{"etc", "etc/ssl", "etc/ssl/certs"} {
		if err := dir(d, 0o755); err != nil {
			return nil, err
		}
	}
	if err := dir("tmp", 0o1777); err != nil {
		return nil, err
	}
	for _, d := range []string{"var", "var/lib"} {
		if err := dir(d, 0o755); err != nil {
			return nil, err
		}
	}
	// Where docs/deploy.md mounts a volume for MODELPLANE_QUEUE_DIR, owned by the user the
	// collector runs as: a named volume takes this folder's owner, so the collector can keep
	// its sending queues there.
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: QueueDir + "/", Mode: 0o750, Uid: uid, Gid: uid, ModTime: time.Unix(0, 0)}); err != nil {
		return nil, err
	}
	if err := file("etc/passwd", []byte(fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/home/nonroot:/sbin/nologin\n", uid, uid)), 0o644); err != nil {
		return nil, err
	}
	if err := file("etc/group", []byte(fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", uid)), 0o644); err != nil {
		return nil, err
	}
	if err := file("etc/ssl/certs/ca-certificates.crt", certs, 0o644); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return layerFrom(buf.Bytes())
}

// libraryLayer holds the shared libraries the binary needs (cgo links libc; NVML itself is
// loaded with dlopen from the host's driver), found from its ELF dynamic section.
func libraryLayer(binary string, platform *v1.Platform) (v1.Layer, error) {
	f, err := elf.Open(binary)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", binary, err)
	}
	defer f.Close()
	needed, err := f.ImportedLibraries()
	if err != nil {
		return nil, err
	}
	files := map[string]string{}
	interp := ""
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			data, err := io.ReadAll(p.Open())
			if err != nil {
				return nil, err
			}
			interp = strings.TrimRight(string(data), "\x00")
		}
	}
	// find looks a library up among this machine's folders for the platform.
	find := func(lib string) (string, error) {
		for _, dir := range libraryDirs[platform.Architecture] {
			if p := filepath.Join(dir, lib); fileExists(p) {
				return p, nil
			}
		}
		return "", fmt.Errorf("%s (%s) needs %s, which is in none of %v on this machine (for arm64: Debian's libc6-arm64-cross, `make cross-deps`)",
			binary, platform, lib, libraryDirs[platform.Architecture])
	}
	if interp != "" {
		// The loader goes where the binary says; on a machine of another architecture it is
		// among that platform's libraries.
		src := interp
		if !fileExists(src) || platform.Architecture != runtime.GOARCH {
			if src, err = find(filepath.Base(interp)); err != nil {
				return nil, err
			}
		}
		files[strings.TrimPrefix(interp, "/")] = src
	}
	for _, lib := range needed {
		src, err := find(lib)
		if err != nil {
			return nil, err
		}
		files[filepath.Join(imageLibraryDir[platform.Architecture], lib)] = src
	}
	return fileLayer(files, 0o755)
}

// fileLayer puts host files (values) at image paths (keys), resolving symlinks.
func fileLayer(files map[string]string, mode int64) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dirs := map[string]bool{}
	for dst, src := range files {
		real, err := filepath.EvalSymlinks(src)
		if err != nil {
			return nil, err
		}
		data, err := os.ReadFile(real)
		if err != nil {
			return nil, err
		}
		for d := filepath.Dir(dst); d != "." && !dirs[d]; d = filepath.Dir(d) {
			dirs[d] = true
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: dst, Mode: mode, Size: int64(len(data)), ModTime: time.Unix(0, 0)}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(data); err != nil {
			return nil, err
		}
	}
	for d := range dirs {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d + "/", Mode: 0o755, ModTime: time.Unix(0, 0)}); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return layerFrom(buf.Bytes())
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func layerFrom(data []byte) (v1.Layer, error) {
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}, tarball.WithMediaType(types.OCILayer))
}
