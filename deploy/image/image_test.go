package main

import (
	"archive/tar"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The archive loads as an image with the right config, unpacks into a root file system in
// which the binary runs as the non-root user, and stays under the size target.
func TestImage(t *testing.T) {
	bin := os.Getenv("OTELCOL_MODELPLANE_BIN")
	if bin == "" {
		t.Skip("OTELCOL_MODELPLANE_BIN not set: run through `make test`, which builds the binary")
	}
	archive := filepath.Join(t.TempDir(), "image.tar")
	require.NoError(t, build(bin, archive, "ghcr.io/modelplaneai/otelcol-modelplane:test", "test"))

	img, err := tarball.ImageFromPath(archive, nil)
	require.NoError(t, err)
	cf, err := img.ConfigFile()
	require.NoError(t, err)
	assert.Equal(t, []string{"/otelcol-modelplane"}, cf.Config.Entrypoint)
	assert.Equal(t, "65532:65532", cf.Config.User)
	assert.Equal(t, "otelcol-modelplane", cf.Config.Labels["org.opencontainers.image.title"])
	assert.Equal(t, "Apache-2.0", cf.Config.Labels["org.opencontainers.image.licenses"])

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
	cfg := "receivers:\n  otlp:\n    protocols:\n      grpc:\nprocessors:\n  modelplane_mapping:\nexporters:\n  debug:\nservice:\n  pipelines:\n    metrics:\n      receivers: [otlp]\n      processors: [modelplane_mapping]\n      exporters: [debug]\n"
	require.NoError(t, os.WriteFile(filepath.Join(root, "tmp", "config.yaml"), []byte(cfg), 0o644))
	out := run("validate", "--config=/tmp/config.yaml")
	assert.False(t, strings.Contains(strings.ToLower(out), "error"), out)
}
