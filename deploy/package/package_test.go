package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelplaneai/otelcol-modelplane/internal/elfarch"
)

// repoSources are the files `make package` packs, seen from this folder.
var repoSources = sources{
	unit:    "../standalone/otelcol-modelplane.service",
	config:  "../standalone/config.yaml",
	example: "../standalone/mappings/example.yaml",
	license: "../../LICENSE",
}

// dpkg runs Debian's dpkg on a root of its own (R), as a host's root would be, and returns its
// output. The maintainer scripts run outside a chroot (the root has no shell), with DPKG_ROOT
// set, so they leave the host's systemd alone; libc6 is not in that root's database.
func dpkg(t *testing.T, root string, args ...string) (string, error) {
	t.Helper()
	args = append([]string{"--root=" + root, "--log=" + filepath.Join(root, "dpkg.log"), "--force-script-chrootless", "--force-depends"}, args...)
	out, err := exec.Command("dpkg", args...).CombinedOutput()
	return string(out), err
}

func newRoot(t *testing.T) string {
	root := t.TempDir()
	for _, d := range []string{"var/lib/dpkg/info", "var/lib/dpkg/updates"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, d), 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(root, "var/lib/dpkg/status"), nil, 0o644))
	return root
}

func field(t *testing.T, deb, name string) string {
	out, err := exec.Command("dpkg-deb", "-f", deb, name).CombinedOutput()
	require.NoError(t, err, string(out))
	return strings.TrimSpace(string(out))
}

// `make package` from the binaries `make test` built: what a GPU host without Go installs,
// checked with Debian's own tools.
func TestMakePackage(t *testing.T) {
	bin, arm := os.Getenv("OTELCOL_MODELPLANE_BIN"), os.Getenv("OTELCOL_MODELPLANE_BIN_ARM64")
	if bin == "" || arm == "" {
		t.Skip("OTELCOL_MODELPLANE_BIN and OTELCOL_MODELPLANE_BIN_ARM64 not set: run through `make test`, which builds both")
	}
	for _, tool := range []string{"dpkg", "dpkg-deb", "sha256sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed: the packages are checked with Debian's tools", tool)
		}
	}
	dist := t.TempDir()
	out, err := exec.Command("make", "-C", "../..", "--no-print-directory", "package", "PACKAGE_DIR="+dist).CombinedOutput()
	require.NoError(t, err, string(out))
	deb := filepath.Join(dist, "otelcol-modelplane_0.1.0_amd64.deb")
	for _, f := range []string{deb, "otelcol-modelplane_0.1.0_arm64.deb", "otelcol-modelplane_0.1.0_linux_amd64.tar.gz", "otelcol-modelplane_0.1.0_linux_arm64.tar.gz"} {
		if !filepath.IsAbs(f) {
			f = filepath.Join(dist, f)
		}
		assert.FileExists(t, f)
	}
	sums := exec.Command("sha256sum", "--strict", "-c", "SHA256SUMS")
	sums.Dir = dist
	out, err = sums.CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Equal(t, 4, strings.Count(string(out), ": OK\n"), string(out))

	// The control fields, per architecture; the libc6 bound is the binary's own need, and
	// this machine's libc6 meets the amd64 one.
	for b, arch := range map[string]string{bin: "amd64", arm: "arm64"} {
		d := filepath.Join(dist, "otelcol-modelplane_0.1.0_"+arch+".deb")
		assert.Equal(t, "otelcol-modelplane", field(t, d, "Package"))
		assert.Equal(t, "0.1.0", field(t, d, "Version"))
		assert.Equal(t, arch, field(t, d, "Architecture"))
		glibc, err := elfarch.GLIBC(b)
		require.NoError(t, err)
		require.NotEmpty(t, glibc)
		assert.Equal(t, "libc6 (>= "+glibc+")", field(t, d, "Depends"))
	}
	host, err := exec.Command("dpkg-query", "-W", "-f=${Version}", "libc6").Output()
	if err == nil {
		glibc, _ := elfarch.GLIBC(bin)
		assert.NoError(t, exec.Command("dpkg", "--compare-versions", string(host), "ge", glibc).Run(), "this machine's libc6 %s against the package's %s", host, glibc)
	}

	// The files, owned by root, where a package puts them.
	out, err = exec.Command("dpkg-deb", "-c", deb).CombinedOutput()
	require.NoError(t, err, string(out))
	for _, want := range []string{
		"-rwxr-xr-x root/root", "./usr/bin/otelcol-modelplane\n",
		"./usr/lib/systemd/system/otelcol-modelplane.service\n",
		"./etc/otelcol-modelplane/config.yaml\n", "./etc/otelcol-modelplane/mappings/example.yaml\n",
		"./usr/share/doc/otelcol-modelplane/copyright\n",
	} {
		assert.Contains(t, string(out), want)
	}
	assert.NotContains(t, string(out), "/usr/local")

	// The tarball: one folder, the binary runnable from it.
	x := t.TempDir()
	out, err = exec.Command("tar", "-xzf", filepath.Join(dist, "otelcol-modelplane_0.1.0_linux_amd64.tar.gz"), "-C", x).CombinedOutput()
	require.NoError(t, err, string(out))
	out, err = exec.Command(filepath.Join(x, "otelcol-modelplane_0.1.0_linux_amd64", "otelcol-modelplane"), "--version").CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), "0.1.0")
	for _, f := range []string{"otelcol-modelplane.service", "config.yaml", "mappings/example.yaml", "LICENSE"} {
		assert.FileExists(t, filepath.Join(x, "otelcol-modelplane_0.1.0_linux_amd64", f))
	}

	// The same inputs give the same bytes.
	again := t.TempDir()
	out, err = exec.Command("make", "-C", "../..", "--no-print-directory", "package", "PACKAGE_DIR="+again).CombinedOutput()
	require.NoError(t, err, string(out))
	first, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
	require.NoError(t, err)
	second, err := os.ReadFile(filepath.Join(again, "SHA256SUMS"))
	require.NoError(t, err)
	assert.Equal(t, string(first), string(second))

	installUpgradeRemove(t, bin, deb)
}

// installUpgradeRemove installs the package with dpkg, upgrades it to a release whose
// config.yaml changed while the host edited its example mapping, then removes and purges it.
func installUpgradeRemove(t *testing.T, bin, deb string) {
	root := newRoot(t)
	out, err := dpkg(t, root, "-i", deb)
	require.NoError(t, err, out)
	status, err := exec.Command("dpkg-query", "--root="+root, "-W", "-f=${Status} ${Version}", "otelcol-modelplane").CombinedOutput()
	require.NoError(t, err, string(status))
	assert.Equal(t, "install ok installed 0.1.0", string(status))

	exe := filepath.Join(root, "usr/bin/otelcol-modelplane")
	version, err := exec.Command(exe, "--version").CombinedOutput()
	require.NoError(t, err, string(version))
	assert.Contains(t, string(version), "otelcol-modelplane version 0.1.0")
	unit, err := os.ReadFile(filepath.Join(root, unitPath))
	require.NoError(t, err)
	assert.Contains(t, string(unit), "\nExecStart=/usr/bin/otelcol-modelplane --config=/etc/otelcol-modelplane/config.yaml\n")
	assert.Contains(t, string(unit), "\nExecReload=/usr/bin/otelcol-modelplane validate --config=/etc/otelcol-modelplane/config.yaml\n")
	assert.NotContains(t, string(unit), "/usr/local/bin")
	out, err = dpkg(t, root, "--verify", "otelcol-modelplane")
	assert.NoError(t, err, out)
	assert.Empty(t, out, "dpkg --verify: every file as the package's md5sums say")

	// The host edits its example mapping; the next release changes config.yaml.
	example := filepath.Join(root, examplePath)
	mine := []byte("# this host's own mappings\n")
	require.NoError(t, os.WriteFile(example, mine, 0o644))
	src := repoSources
	src.config = filepath.Join(t.TempDir(), "config.yaml")
	cfg, err := os.ReadFile(repoSources.config)
	require.NoError(t, err)
	newCfg := append(cfg, []byte("# 0.1.1\n")...)
	require.NoError(t, os.WriteFile(src.config, newCfg, 0o644))
	next := t.TempDir()
	_, err = build([]string{bin}, "0.1.1", next, defaultMaintainer, time.Unix(1764000000, 0), src)
	require.NoError(t, err)
	// No prompt (stdin is empty): dpkg asks only when both sides changed a conffile.
	out, err = dpkg(t, root, "-i", filepath.Join(next, "otelcol-modelplane_0.1.1_amd64.deb"))
	require.NoError(t, err, out)
	got, err := os.ReadFile(example)
	require.NoError(t, err)
	assert.Equal(t, string(mine), string(got), "the host's edit survives the upgrade")
	got, err = os.ReadFile(filepath.Join(root, configPath))
	require.NoError(t, err)
	assert.Equal(t, string(newCfg), string(got), "a conffile the host left alone follows the release")

	// Remove keeps the configuration; purge takes it.
	out, err = dpkg(t, root, "-r", "otelcol-modelplane")
	require.NoError(t, err, out)
	assert.NoFileExists(t, exe)
	assert.NoFileExists(t, filepath.Join(root, unitPath))
	assert.FileExists(t, example)
	out, err = dpkg(t, root, "-P", "otelcol-modelplane")
	require.NoError(t, err, out)
	assert.NoDirExists(t, filepath.Join(root, "etc/otelcol-modelplane"))
}

// The maintainer scripts against systemd, on a host that runs it: a private /run holding
// /run/systemd/system (how a script tells systemd is running), a private
// /etc/systemd/system, and a systemctl that records what it is asked and keeps enablement as
// the symlink systemd would.
func TestMaintainerScripts(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, for a mount namespace with a private /run")
	}
	if _, err := os.Stat("/etc/systemd/system"); err != nil {
		t.Skipf("no /etc/systemd/system to mount a private copy over: %v", err)
	}
	if err := exec.Command("unshare", "--mount", "true").Run(); err != nil {
		t.Skipf("unshare --mount: %v", err)
	}
	dir := t.TempDir()
	for name, script := range map[string]string{"postinst": postinst, "prerm": prerm, "postrm": postrm} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "bin"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bin", "systemctl"), []byte(`#!/bin/sh
echo "systemctl $*" >> "$LOG"
wants=/etc/systemd/system/multi-user.target.wants/otelcol-modelplane.service
case "$*" in
"enable otelcol-modelplane.service") mkdir -p "${wants%/*}" && ln -sf /usr/lib/systemd/system/otelcol-modelplane.service "$wants" ;;
"--quiet is-enabled otelcol-modelplane.service") [ -L "$wants" ] ;;
esac
`), 0o755))
	steps := `set -e
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /etc/systemd/system
wants=/etc/systemd/system/multi-user.target.wants/otelcol-modelplane.service
step() { echo "# $*" >> "$LOG"; }
step "no systemd running"; ./postinst configure ""
mkdir -p /run/systemd/system
step "into another root"; DPKG_ROOT=/target ./postinst configure ""
step install; ./postinst configure ""
step upgrade; ./postinst configure 0.1.0
step "upgrade after the admin disabled it"; rm "$wants"; ./postinst configure 0.1.0
step remove; ln -s /usr/lib/systemd/system/otelcol-modelplane.service "$wants"; ./prerm remove; ./postrm remove
step purge; ./postrm purge; test ! -e "$wants" && test ! -L "$wants" && echo "# enablement gone" >> "$LOG"
`
	cmd := exec.Command("unshare", "--mount", "--propagation", "private", "sh", "-c", steps)
	cmd.Dir = dir
	log := filepath.Join(dir, "log")
	cmd.Env = append(os.Environ(), "PATH="+filepath.Join(dir, "bin")+":"+os.Getenv("PATH"), "LOG="+log)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	got, err := os.ReadFile(log)
	require.NoError(t, err)
	assert.Equal(t, `# no systemd running
# into another root
# install
systemctl --system daemon-reload
systemctl enable otelcol-modelplane.service
systemctl --quiet is-enabled otelcol-modelplane.service
systemctl start otelcol-modelplane.service
# upgrade
systemctl --system daemon-reload
systemctl --quiet is-enabled otelcol-modelplane.service
systemctl restart otelcol-modelplane.service
# upgrade after the admin disabled it
systemctl --system daemon-reload
systemctl --quiet is-enabled otelcol-modelplane.service
# remove
systemctl stop otelcol-modelplane.service
systemctl --system daemon-reload
# purge
systemctl --system daemon-reload
# enablement gone
`, string(got))
	// The host's own /etc/systemd/system was never touched: the namespace's copy went with it.
	assert.NoFileExists(t, "/etc/systemd/system/multi-user.target.wants/otelcol-modelplane.service")
}

// Bad input names the flag or the binary.
func TestBuildRefuses(t *testing.T) {
	_, err := build([]string{"main.go"}, "0.1.0", t.TempDir(), defaultMaintainer, time.Unix(0, 0), repoSources)
	assert.ErrorContains(t, err, "main.go: ")
	_, err = build(nil, "v0.1.0", t.TempDir(), defaultMaintainer, time.Unix(0, 0), repoSources)
	assert.ErrorContains(t, err, `-version "v0.1.0": want a version that starts with a digit`)
	_, err = build(nil, "", t.TempDir(), defaultMaintainer, time.Unix(0, 0), repoSources)
	assert.ErrorContains(t, err, `-version ""`)
	if bin := os.Getenv("OTELCOL_MODELPLANE_BIN"); bin != "" {
		_, err = build([]string{bin, bin}, "0.1.0", t.TempDir(), defaultMaintainer, time.Unix(0, 0), repoSources)
		assert.ErrorContains(t, err, "are both amd64: one binary per architecture")
	}
}

// The ar container dpkg reads: members in order, each padded to an even length.
func TestDebLayout(t *testing.T) {
	files, err := readSources(repoSources)
	require.NoError(t, err)
	deb, err := debPackage([]byte("not a real binary\n"), files, control{version: "0.1.0", arch: "amd64", glibc: "2.34", maintainer: defaultMaintainer}, time.Unix(0, 0))
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(deb, []byte("!<arch>\ndebian-binary   ")))
	rest := deb[8:]
	var names []string
	for len(rest) > 0 {
		require.GreaterOrEqual(t, len(rest), 60)
		hdr := string(rest[:60])
		assert.Equal(t, "`\n", hdr[58:60])
		names = append(names, strings.TrimSpace(hdr[:16]))
		var size int
		_, err := fmt.Sscan(strings.TrimSpace(hdr[48:58]), &size)
		require.NoError(t, err)
		rest = rest[60+size+size%2:]
	}
	assert.Equal(t, []string{"debian-binary", "control.tar.gz", "data.tar.gz"}, names)
}
