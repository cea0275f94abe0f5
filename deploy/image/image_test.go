// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"archive/tar"
	"debug/elf"
	"io"
	"log"
	"maps"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/freeport"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/syncbuffer"
)

// The archive loads as an image with the right config, unpacks into a root file system in
// which the binary runs as the non-root user, and stays under the size target.
func TestImage(t *testing.T) {
	bin := os.Getenv("OTELCOL_MODELPLANE_BIN")
	if bin == "" {
		t.Skip("OTELCOL_MODELPLANE_BIN not set: run through `make test`, which builds the binary")
	}
	archive := filepath.Join(t.TempDir(), "image.tar")
	require.NoError(t, build([]string{bin}, archive, "ghcr.io/modelplaneai/otelcol-modelplane:test", "test"))

	img, err := tarball.ImageFromPath(archive, nil)
	require.NoError(t, err)
	cf, err := img.ConfigFile()
	require.NoError(t, err)
	assert.Equal(t, []string{"/otelcol-modelplane"}, cf.Config.Entrypoint)
	assert.Equal(t, "65532:65532", cf.Config.User)
	assert.Equal(t, "otelcol-modelplane", cf.Config.Labels["org.opencontainers.image.title"])
	assert.Equal(t, "Apache-2.0", cf.Config.Labels["org.opencontainers.image.licenses"])

	root, size := unpack(t, img)
	t.Logf("image: %d bytes uncompressed (%.1f MB)", size, float64(size)/1e6)
	assert.Less(t, size, int64(90_000_000), "target: at most 90 MB uncompressed")

	if os.Geteuid() != 0 {
		t.Skip("running inside the unpacked root needs chroot, which needs root")
	}
	run := func(args ...string) string {
		cmd := exec.Command("/otelcol-modelplane", args...)
		cmd.Dir = "/"
		cmd.Env = cf.Config.Env
		cmd.SysProcAttr = &syscall.SysProcAttr{Chroot: root, Credential: &syscall.Credential{Uid: 65532, Gid: 65532}}
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		return string(out)
	}
	assert.Contains(t, run("--version"), "otelcol-modelplane version ")
	require.NoError(t, os.WriteFile(filepath.Join(root, "tmp", "config.yaml"), []byte(validConfig), 0o644))
	out := run("validate", "--config=/tmp/config.yaml")
	assert.False(t, strings.Contains(strings.ToLower(out), "error"), out)

	// docs/deploy.md's container with its queue on a volume at /var/lib/otelcol-modelplane:
	// the folder is the collector's user's, which a named volume takes, so the collector, not
	// root, writes its remote-write queue there.
	// A container has /proc, which the collector reads its memory limit from.
	proc := filepath.Join(root, "proc")
	require.NoError(t, os.Mkdir(proc, 0o555))
	require.NoError(t, syscall.Mount("proc", proc, "proc", 0, ""), "mounting /proc in the unpacked root")
	t.Cleanup(func() { assert.NoError(t, syscall.Unmount(proc, syscall.MNT_DETACH)) })
	col := exec.Command("/otelcol-modelplane", "--config", "modelplane:default", "--config", "modelplane:remote-write")
	col.Dir = "/"
	col.Env = append(slices.Clone(cf.Config.Env), "MODELPLANE_QUEUE_DIR=/"+QueueDir,
		"MODELPLANE_REMOTE_WRITE_ENDPOINT=http://"+freeport.Addr(t)+"/api/v1/write",
		"MODELPLANE_VLLM_TARGET=none", "MODELPLANE_SGLANG_TARGET=none", "MODELPLANE_DCGM_EXPORTER_TARGET=none",
		"MODELPLANE_PROMETHEUS_ENDPOINT="+freeport.Addr(t), "MODELPLANE_TELEMETRY_ENDPOINT="+freeport.Addr(t))
	log := new(syncbuffer.Buffer)
	col.Stdout, col.Stderr = log, log
	col.SysProcAttr = &syscall.SysProcAttr{Chroot: root, Credential: &syscall.Credential{Uid: 65532, Gid: 65532}}
	require.NoError(t, col.Start())
	queue := filepath.Join(root, QueueDir, "exporter_prometheus_remote_write__metrics")
	// Stopped once it runs: a signal before the collector handles signals kills it.
	require.Eventually(t, func() bool { return strings.Contains(log.String(), "Everything is ready") }, 30*time.Second,
		100*time.Millisecond, "the collector did not start: %s", log)
	_, err = os.Stat(queue)
	assert.NoError(t, err, "the queue file")
	require.NoError(t, col.Process.Signal(os.Interrupt))
	require.NoError(t, col.Wait(), log.String())
	info, err := os.Stat(queue)
	require.NoError(t, err, log.String())
	assert.Equal(t, uint32(65532), info.Sys().(*syscall.Stat_t).Uid, "written by the collector's user")
}

// validConfig is a configuration `validate` accepts.
const validConfig = "receivers:\n  otlp:\n    protocols:\n      grpc:\nprocessors:\n  modelplane_mapping:\nexporters:\n  debug:\nservice:\n  pipelines:\n    metrics:\n      receivers: [otlp]\n      processors: [modelplane_mapping]\n      exporters: [debug]\n"

// unpack writes the image's file system into a new folder and returns it with the bytes of
// its regular files.
func unpack(t *testing.T, img v1.Image) (string, int64) {
	t.Helper()
	root := t.TempDir()
	var size int64
	tr := tar.NewReader(mutate.Extract(img))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		p := filepath.Join(root, h.Name)
		switch h.Typeflag {
		case tar.TypeDir:
			require.NoError(t, os.MkdirAll(p, os.FileMode(h.Mode)&os.ModePerm|os.ModeSticky))
			if os.Geteuid() == 0 {
				require.NoError(t, os.Chown(p, h.Uid, h.Gid))
			}
		case tar.TypeReg:
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, os.FileMode(h.Mode))
			require.NoError(t, err)
			n, err := io.Copy(f, tr)
			require.NoError(t, err)
			require.NoError(t, f.Close())
			size += n
		}
	}
	require.NoError(t, os.Chmod(filepath.Join(root, "tmp"), 0o1777))
	return root, size
}

// With a binary per architecture the image is an index of a linux/amd64 and a linux/arm64
// image, so one reference serves x86 and Grace GPU nodes. The arm64 image holds arm64
// libraries only, and its binary runs on them, under emulation here.
func TestMultiPlatformImage(t *testing.T) {
	amd, arm := os.Getenv("OTELCOL_MODELPLANE_BIN"), os.Getenv("OTELCOL_MODELPLANE_BIN_ARM64")
	if amd == "" || arm == "" {
		t.Skip("OTELCOL_MODELPLANE_BIN and OTELCOL_MODELPLANE_BIN_ARM64 not set: run through `make test`, which builds both")
	}
	qemu, err := exec.LookPath("qemu-aarch64")
	require.NoError(t, err, "qemu-aarch64 (Debian's qemu-user, `make cross-deps`) runs the arm64 binary here")
	dir := filepath.Join(t.TempDir(), "oci")
	require.NoError(t, build([]string{amd, arm}, dir, "ghcr.io/modelplaneai/otelcol-modelplane:test", "test"))

	idx, err := layout.ImageIndexFromPath(dir)
	require.NoError(t, err)
	outer, err := idx.IndexManifest()
	require.NoError(t, err)
	require.Len(t, outer.Manifests, 1, "the layout holds one index")
	inner, err := idx.ImageIndex(outer.Manifests[0].Digest)
	require.NoError(t, err)
	im, err := inner.IndexManifest()
	require.NoError(t, err)
	images := map[string]v1.Image{}
	for _, d := range im.Manifests {
		require.NotNil(t, d.Platform)
		img, err := inner.Image(d.Digest)
		require.NoError(t, err)
		cf, err := img.ConfigFile()
		require.NoError(t, err)
		assert.Equal(t, d.Platform.Architecture, cf.Architecture, "the config names the platform the index does")
		assert.Equal(t, "linux", cf.OS)
		images[d.Platform.OS+"/"+d.Platform.Architecture] = img
	}
	require.ElementsMatch(t, []string{"linux/amd64", "linux/arm64"}, slices.Collect(maps.Keys(images)))

	// Pushed to a registry under one tag, each node's runtime gets its own platform's image.
	reg := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(reg.Close)
	ref, err := name.ParseReference(strings.TrimPrefix(reg.URL, "http://") + "/modelplane/otelcol-modelplane:test")
	require.NoError(t, err)
	require.NoError(t, remote.WriteIndex(ref, inner))
	for _, p := range []v1.Platform{{OS: "linux", Architecture: "amd64"}, {OS: "linux", Architecture: "arm64"}} {
		pulled, err := remote.Image(ref, remote.WithPlatform(p))
		require.NoError(t, err)
		cf, err := pulled.ConfigFile()
		require.NoError(t, err)
		assert.Equal(t, p.Architecture, cf.Architecture, "a %s node pulls its own image", p.Architecture)
	}

	root, size := unpack(t, images["linux/arm64"])
	t.Logf("arm64 image: %d bytes uncompressed (%.1f MB)", size, float64(size)/1e6)
	assert.Less(t, size, int64(90_000_000), "target: at most 90 MB uncompressed")
	var libs int
	require.NoError(t, filepath.Walk(filepath.Join(root, "lib"), func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		f, err := elf.Open(p)
		require.NoError(t, err, p)
		defer f.Close()
		assert.Equal(t, elf.EM_AARCH64, f.Machine, p)
		libs++
		return nil
	}))
	assert.GreaterOrEqual(t, libs, 2, "the loader and libc")

	// -L makes the emulated loader and libc come from the image, not from this machine.
	run := func(args ...string) string {
		cmd := exec.Command(qemu, append([]string{"-L", root, filepath.Join(root, "otelcol-modelplane")}, args...)...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		return string(out)
	}
	assert.Contains(t, run("--version"), "otelcol-modelplane version ")
	cfgFile := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(cfgFile, []byte(validConfig), 0o644))
	out := run("validate", "--config="+cfgFile)
	assert.False(t, strings.Contains(strings.ToLower(out), "error"), out)
}

// A multi-platform build refuses two binaries of one platform and an archive name for its
// folder, naming the flag and the values.
func TestMultiPlatformBadInput(t *testing.T) {
	self := os.Args[0] // this test binary: an ELF for this machine's platform
	err := build([]string{self, self}, filepath.Join(t.TempDir(), "oci"), "example.com/x:1", "test")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "-binary "+self+" and "+self+" are both linux/")
	err = build([]string{self, self}, "dist/otelcol-modelplane.tar", "example.com/x:1", "test")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "-out dist/otelcol-modelplane.tar: with several -binary, the output is a folder")
	err = build([]string{"/etc/passwd"}, filepath.Join(t.TempDir(), "x.tar"), "example.com/x:1", "test")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "/etc/passwd")
}
