// Command image assembles the otelcol-modelplane container image as an OCI image archive
// without a Docker daemon and without pulling a base image: the binary at
// /otelcol-modelplane, the shared libraries cgo links it against (libnvidia-ml itself is
// mounted by the NVIDIA container toolkit at run time), CA certificates, and a non-root user.
// `docker load -i` and `crane push` accept the archive.
//
//	go run ./deploy/image -binary bin/otelcol-modelplane -out dist/otelcol-modelplane.tar
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
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

const (
	uid     = 65532
	imgUser = "65532:65532"
)

func main() {
	binary := flag.String("binary", "bin/otelcol-modelplane", "the collector binary")
	out := flag.String("out", "dist/otelcol-modelplane.tar", "the image archive to write")
	tag := flag.String("tag", "ghcr.io/modelplaneai/otelcol-modelplane:dev", "the image reference recorded in the archive")
	version := flag.String("version", "dev", "org.opencontainers.image.version")
	flag.Parse()
	if err := build(*binary, *out, *tag, *version); err != nil {
		log.Fatal(err)
	}
}

func build(binary, out, tag, version string) error {
	ref, err := name.ParseReference(tag)
	if err != nil {
		return fmt.Errorf("tag %q: %w", tag, err)
	}
	base, err := baseLayer()
	if err != nil {
		return err
	}
	libs, err := libraryLayer(binary)
	if err != nil {
		return err
	}
	app, err := fileLayer(map[string]string{"otelcol-modelplane": binary}, 0o755)
	if err != nil {
		return err
	}
	img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), base, libs, app)
	if err != nil {
		return err
	}
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	cf, err := img.ConfigFile()
	if err != nil {
		return err
	}
	cfg := cf.Config
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
	img, err = mutate.Config(img, cfg)
	if err != nil {
		return err
	}
	img, err = mutate.CreatedAt(img, v1.Time{Time: time.Unix(0, 0).UTC()})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	return tarball.WriteToFile(out, ref, img)
}

// baseLayer is the root file system: a non-root user, CA certificates, /tmp.
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
func libraryLayer(binary string) (v1.Layer, error) {
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
	if interp != "" {
		files[strings.TrimPrefix(interp, "/")] = interp
	}
	for _, lib := range needed {
		found := false
		for _, dir := range []string{"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/lib64", "/lib"} {
			p := filepath.Join(dir, lib)
			if _, err := os.Stat(p); err == nil {
				files[strings.TrimPrefix(p, "/")] = p
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("%s needs %s, which is not on this machine", binary, lib)
		}
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

func layerFrom(data []byte) (v1.Layer, error) {
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}, tarball.WithMediaType(types.OCILayer))
}
