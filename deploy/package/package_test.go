// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelplaneai/otelcol-modelplane/deploy/internal/elfarch"
)

// The installed paths the tests look at.
const (
	unitPath    = "usr/lib/systemd/system/otelcol-modelplane.service"
	configPath  = "etc/otelcol-modelplane/config.yaml"
	examplePath = "etc/otelcol-modelplane/mappings/example.yaml"
)

// nfpmFromEnv is the nfpm `make test` builds (NFPM_BIN) with this folder's configuration;
// a test that needs it skips, saying why, without it.
func nfpmFromEnv(t *testing.T) nfpm {
	bin := os.Getenv("NFPM_BIN")
	if bin == "" {
		t.Skip("NFPM_BIN not set: run through `make test`, which builds nfpm from tools/go.mod")
	}
	return nfpm{bin: bin, config: "nfpm.yaml"}
}

// script is one of the packages' maintainer scripts.
func script(t *testing.T, name string) string {
	data, err := os.ReadFile(filepath.Join("scripts", name))
	require.NoError(t, err)
	return string(data)
}

// repoSources are the files `make package` packs, seen from this folder.
var repoSources = sources{
	unit:    "../standalone/otelcol-modelplane.service",
	config:  "../standalone/config.yaml",
	example: "../standalone/mappings/example.yaml",
	license: "../../LICENSE",
}

// dpkg runs Debian's dpkg on a root of its own, as a host's root would be, and returns its
// output. The maintainer scripts run outside a chroot (the root has no shell), with DPKG_ROOT
// set, so they leave the host's systemd alone; libc6 is not in that root's database.
func dpkg(t *testing.T, root string, args ...string) string {
	t.Helper()
	args = append([]string{"--root=" + root, "--log=" + filepath.Join(root, "dpkg.log"), "--force-script-chrootless", "--force-depends"}, args...)
	out, err := exec.Command("dpkg", args...).CombinedOutput()
	require.NoError(t, err, "dpkg %v: %s", args, out)
	return string(out)
}

// rpm runs rpm on a root of its own. Its scriptlets would run chrooted into a root that has
// no shell, so they are left out here and run by TestRPMScriptlets; so is the glibc
// dependency, since that root's database holds no glibc.
func rpm(t *testing.T, root string, args ...string) string {
	t.Helper()
	args = append([]string{"--root", root}, args...)
	out, err := exec.Command("rpm", args...).CombinedOutput()
	require.NoError(t, err, "rpm %v: %s", args, out)
	// Debian's rpm says on stderr that it is not the system's package manager.
	var kept []string
	for _, line := range strings.Split(string(out), "\n") {
		if !strings.HasPrefix(line, "rpm: ") && line != "" {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "\n")
}

func newDpkgRoot(t *testing.T) string {
	root := t.TempDir()
	for _, d := range []string{"var/lib/dpkg/info", "var/lib/dpkg/updates"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, d), 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(root, "var/lib/dpkg/status"), nil, 0o644))
	return root
}

func query(t *testing.T, tool string, args ...string) string {
	out, err := exec.Command(tool, args...).CombinedOutput()
	require.NoError(t, err, "%s %v: %s", tool, args, out)
	return strings.TrimSpace(string(out))
}

// `make package` from the binaries `make test` built: what a GPU host without Go installs,
// checked with the tools a host installs it with.
func TestMakePackage(t *testing.T) {
	bin, arm := os.Getenv("OTELCOL_MODELPLANE_BIN"), os.Getenv("OTELCOL_MODELPLANE_BIN_ARM64")
	if bin == "" || arm == "" {
		t.Skip("OTELCOL_MODELPLANE_BIN and OTELCOL_MODELPLANE_BIN_ARM64 not set: run through `make test`, which builds both")
	}
	for _, tool := range []string{"dpkg", "dpkg-deb", "rpm", "sha256sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (`make package-deps` installs it): the packages are checked with the tools hosts install them with", tool)
		}
	}
	dist := t.TempDir()
	out, err := exec.Command("make", "-C", "../..", "--no-print-directory", "package", "PACKAGE_DIR="+dist).CombinedOutput()
	require.NoError(t, err, string(out))
	sums := exec.Command("sha256sum", "--strict", "-c", "SHA256SUMS")
	sums.Dir = dist
	out, err = sums.CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Equal(t, `otelcol-modelplane-0.1.0-1.aarch64.rpm: OK
otelcol-modelplane-0.1.0-1.x86_64.rpm: OK
otelcol-modelplane_0.1.0_amd64.deb: OK
otelcol-modelplane_0.1.0_arm64.deb: OK
otelcol-modelplane_0.1.0_linux_amd64.tar.gz: OK
otelcol-modelplane_0.1.0_linux_arm64.tar.gz: OK
`, string(out))

	// Per architecture: what the package says it is, and the glibc it needs, which is the
	// binary's own need (and this machine's libc6 meets the amd64 one).
	for b, arch := range map[string]string{bin: "amd64", arm: "arm64"} {
		glibc, err := elfarch.GLIBC(b)
		require.NoError(t, err)
		require.NotEmpty(t, glibc)
		deb := filepath.Join(dist, "otelcol-modelplane_0.1.0_"+arch+".deb")
		assert.Equal(t, "otelcol-modelplane 0.1.0 "+arch+" libc6 (>= "+glibc+")",
			query(t, "dpkg-deb", "--showformat=${Package} ${Version} ${Architecture} ${Depends}", "-W", deb))
		r := filepath.Join(dist, "otelcol-modelplane-0.1.0-1."+rpmArch[arch]+".rpm")
		assert.Equal(t, "otelcol-modelplane 0.1.0 1 "+rpmArch[arch]+" Apache-2.0", query(t, "rpm", "-qp", "--queryformat", "%{NAME} %{VERSION} %{RELEASE} %{ARCH} %{LICENSE}", r))
		assert.Equal(t, "libc.so.6(GLIBC_"+glibc+")(64bit)", query(t, "rpm", "-qp", "--requires", r))
		assert.Equal(t, "/etc/otelcol-modelplane/config.yaml\n/etc/otelcol-modelplane/mappings/example.yaml", query(t, "rpm", "-qcp", r))
		assert.Equal(t, "/usr/share/licenses/otelcol-modelplane/LICENSE", query(t, "rpm", "-qLp", r))
		assert.Contains(t, query(t, "rpm", "-Kv", r), "Payload SHA256 digest: OK")
	}
	if host, err := exec.Command("dpkg-query", "-W", "-f=${Version}", "libc6").Output(); err == nil {
		glibc, _ := elfarch.GLIBC(bin)
		assert.NoError(t, exec.Command("dpkg", "--compare-versions", string(host), "ge", glibc).Run(), "this machine's libc6 %s against the package's %s", host, glibc)
	}

	// The files, owned by root, where a package puts them.
	listing := query(t, "dpkg-deb", "-c", filepath.Join(dist, "otelcol-modelplane_0.1.0_amd64.deb"))
	for _, want := range []string{
		"-rwxr-xr-x root/root", "./usr/bin/otelcol-modelplane\n",
		"./usr/lib/systemd/system/otelcol-modelplane.service\n",
		"./etc/otelcol-modelplane/config.yaml\n", "./etc/otelcol-modelplane/mappings/example.yaml\n",
		"./usr/share/doc/otelcol-modelplane/copyright",
	} {
		assert.Contains(t, listing, want)
	}
	assert.NotContains(t, listing, "/usr/local")

	// The tarball: one folder, the binary runnable from it.
	x := t.TempDir()
	query(t, "tar", "-xzf", filepath.Join(dist, "otelcol-modelplane_0.1.0_linux_amd64.tar.gz"), "-C", x)
	assert.Contains(t, query(t, filepath.Join(x, "otelcol-modelplane_0.1.0_linux_amd64", "otelcol-modelplane"), "--version"), "0.1.0")
	for _, f := range []string{"otelcol-modelplane.service", "config.yaml", "mappings/example.yaml", "LICENSE"} {
		assert.FileExists(t, filepath.Join(x, "otelcol-modelplane_0.1.0_linux_amd64", f))
	}
	// Run from its folder, as the README has it, the embedded default with remote write loads.
	validate := exec.Command("./otelcol-modelplane", "validate", "--config", "modelplane:default", "--config", "modelplane:remote-write")
	validate.Dir = filepath.Join(x, "otelcol-modelplane_0.1.0_linux_amd64")
	validate.Env = append(os.Environ(), "MODELPLANE_REMOTE_WRITE_ENDPOINT=http://127.0.0.1:9090/api/v1/write")
	out, err = validate.CombinedOutput()
	assert.NoError(t, err, string(out))

	// The same inputs give the same bytes.
	again := t.TempDir()
	out, err = exec.Command("make", "-C", "../..", "--no-print-directory", "package", "PACKAGE_DIR="+again).CombinedOutput()
	require.NoError(t, err, string(out))
	first, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
	require.NoError(t, err)
	second, err := os.ReadFile(filepath.Join(again, "SHA256SUMS"))
	require.NoError(t, err)
	assert.Equal(t, string(first), string(second))

	// The next release changes config.yaml; the host meanwhile edits its example mapping.
	src := repoSources
	src.config = filepath.Join(t.TempDir(), "config.yaml")
	cfg, err := os.ReadFile(repoSources.config)
	require.NoError(t, err)
	next := release{config: append(cfg, []byte("# 0.1.1\n")...), dir: t.TempDir()}
	require.NoError(t, os.WriteFile(src.config, next.config, 0o644))
	_, err = build([]string{bin}, "0.1.1", next.dir, defaultMaintainer, time.Unix(1764000000, 0), src, nfpmFromEnv(t))
	require.NoError(t, err)

	t.Run("dpkg", func(t *testing.T) {
		root := newDpkgRoot(t)
		dpkg(t, root, "-i", filepath.Join(dist, "otelcol-modelplane_0.1.0_amd64.deb"))
		assert.Equal(t, "install ok installed 0.1.0", query(t, "dpkg-query", "--root="+root, "-W", "-f=${Status} ${Version}", "otelcol-modelplane"))
		assert.Empty(t, dpkg(t, root, "--verify", "otelcol-modelplane"), "dpkg --verify: every file as the package's md5sums say")
		checkInstalled(t, root)
		// No prompt (stdin is empty): dpkg asks only when both sides changed a conffile.
		mine := editExample(t, root)
		dpkg(t, root, "-i", filepath.Join(next.dir, "otelcol-modelplane_0.1.1_amd64.deb"))
		checkUpgraded(t, root, mine, next)
		dpkg(t, root, "-r", "otelcol-modelplane")
		assert.NoFileExists(t, filepath.Join(root, "usr/bin/otelcol-modelplane"))
		assert.NoFileExists(t, filepath.Join(root, unitPath))
		assert.FileExists(t, filepath.Join(root, examplePath), "remove keeps the configuration")
		dpkg(t, root, "-P", "otelcol-modelplane")
		assert.NoDirExists(t, filepath.Join(root, "etc/otelcol-modelplane"), "purge takes it")
	})

	t.Run("rpm", func(t *testing.T) {
		root := t.TempDir()
		rpm(t, root, "--initdb")
		rpm(t, root, "-i", "--nodeps", "--noscripts", filepath.Join(dist, "otelcol-modelplane-0.1.0-1.x86_64.rpm"))
		assert.Equal(t, "otelcol-modelplane-0.1.0-1.x86_64", rpm(t, root, "-q", "otelcol-modelplane"))
		assert.Empty(t, rpm(t, root, "-V", "--nodeps", "otelcol-modelplane"), "rpm -V: every file as packaged")
		checkInstalled(t, root)
		mine := editExample(t, root)
		rpm(t, root, "-U", "--nodeps", "--noscripts", filepath.Join(next.dir, "otelcol-modelplane-0.1.1-1.x86_64.rpm"))
		checkUpgraded(t, root, mine, next)
		assert.NoFileExists(t, filepath.Join(root, examplePath+".rpmnew"), "the release did not change the example, so there is nothing to put beside it")
		rpm(t, root, "-e", "--nodeps", "--noscripts", "otelcol-modelplane")
		assert.NoFileExists(t, filepath.Join(root, "usr/bin/otelcol-modelplane"))
		assert.NoFileExists(t, filepath.Join(root, unitPath))
		assert.NoFileExists(t, filepath.Join(root, configPath), "a config the host left alone goes")
		saved, err := os.ReadFile(filepath.Join(root, examplePath+".rpmsave"))
		require.NoError(t, err, "an edited config is saved as .rpmsave")
		assert.Equal(t, mine, string(saved))
	})
}

// release is the next release's package folder and its config.yaml.
type release struct {
	config []byte
	dir    string
}

func checkInstalled(t *testing.T, root string) {
	t.Helper()
	assert.Contains(t, query(t, filepath.Join(root, "usr/bin/otelcol-modelplane"), "--version"), "otelcol-modelplane version 0.1.0")
	unit, err := os.ReadFile(filepath.Join(root, unitPath))
	require.NoError(t, err)
	assert.Contains(t, string(unit), "\nExecStart=/usr/bin/otelcol-modelplane --config=/etc/otelcol-modelplane/config.yaml\n")
	assert.Contains(t, string(unit), "\nExecReload=/usr/bin/otelcol-modelplane validate --config=/etc/otelcol-modelplane/config.yaml\n")
	assert.NotContains(t, string(unit), "/usr/local/bin")
}

func editExample(t *testing.T, root string) string {
	mine := "# this host's own mappings\n"
	require.NoError(t, os.WriteFile(filepath.Join(root, examplePath), []byte(mine), 0o644))
	return mine
}

func checkUpgraded(t *testing.T, root, mine string, next release) {
	t.Helper()
	got, err := os.ReadFile(filepath.Join(root, examplePath))
	require.NoError(t, err)
	assert.Equal(t, mine, string(got), "the host's edit survives the upgrade")
	got, err = os.ReadFile(filepath.Join(root, configPath))
	require.NoError(t, err)
	assert.Equal(t, string(next.config), string(got), "a config the host left alone follows the release")
}

// systemdHost runs steps (sh) with the given scripts in its folder, on what looks to them like
// a host that runs systemd: a private /run, where /run/systemd/system is made by the steps
// (that folder is how a script tells systemd runs), a private /etc/systemd/system, and a
// systemctl that records what it is asked in $LOG and keeps enablement as the symlink systemd
// would. It returns the record.
func systemdHost(t *testing.T, scripts map[string]string, steps string) string {
	t.Helper()
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
	for name, script := range scripts {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "bin"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bin", "systemctl"), []byte(`#!/bin/sh
echo "systemctl $*" >> "$LOG"
wants=/etc/systemd/system/multi-user.target.wants/otelcol-modelplane.service
case "$*" in
"enable otelcol-modelplane.service"|"enable --now otelcol-modelplane.service") mkdir -p "${wants%/*}" && ln -sf /usr/lib/systemd/system/otelcol-modelplane.service "$wants" ;;
"--no-reload disable --now otelcol-modelplane.service") rm -f "$wants" ;;
"--quiet is-enabled otelcol-modelplane.service") [ -L "$wants" ] ;;
esac
`), 0o755))
	prelude := `set -e
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /etc/systemd/system
wants=/etc/systemd/system/multi-user.target.wants/otelcol-modelplane.service
step() { echo "# $*" >> "$LOG"; }
`
	cmd := exec.Command("unshare", "--mount", "--propagation", "private", "sh", "-c", prelude+steps)
	cmd.Dir = dir
	log := filepath.Join(dir, "log")
	cmd.Env = append(os.Environ(), "PATH="+filepath.Join(dir, "bin")+":"+os.Getenv("PATH"), "LOG="+log)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	got, err := os.ReadFile(log)
	require.NoError(t, err)
	// The host's own /etc/systemd/system was never touched: the namespace's copy went with it.
	assert.NoFileExists(t, "/etc/systemd/system/multi-user.target.wants/otelcol-modelplane.service")
	return string(got)
}

// The Debian package's maintainer scripts, called as dpkg calls them.
func TestDebianScripts(t *testing.T) {
	got := systemdHost(t, map[string]string{"postinst": script(t, "deb/postinst"), "prerm": script(t, "deb/prerm"), "postrm": script(t, "deb/postrm")}, `
step "no systemd running"; ./postinst configure ""
mkdir -p /run/systemd/system
step "into another root"; DPKG_ROOT=/target ./postinst configure ""
step install; ./postinst configure ""
step upgrade; ./postinst configure 0.1.0
step "upgrade after the admin disabled it"; rm "$wants"; ./postinst configure 0.1.0
step remove; ln -s /usr/lib/systemd/system/otelcol-modelplane.service "$wants"; ./prerm remove; ./postrm remove
step purge; ./postrm purge; test ! -e "$wants" && test ! -L "$wants" && step "enablement gone"
`)
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
`, got)
}

// The RPM scriptlets, called with the counts rpm passes: an install, an upgrade (the new
// package's postin, then the old one's preun and postun), and an erase.
func TestRPMScriptlets(t *testing.T) {
	got := systemdHost(t, map[string]string{"postin": script(t, "rpm/postin"), "preun": script(t, "rpm/preun"), "postun": script(t, "rpm/postun")}, `
step "no systemd running"; sh postin 1
mkdir -p /run/systemd/system
step install; sh postin 1
step upgrade; sh postin 2; sh preun 1; sh postun 1
step erase; sh preun 0; sh postun 0; test ! -L "$wants" && step "enablement gone"
`)
	assert.Equal(t, `# no systemd running
# install
systemctl --system daemon-reload
systemctl enable --now otelcol-modelplane.service
# upgrade
systemctl --system daemon-reload
systemctl --system daemon-reload
systemctl try-restart otelcol-modelplane.service
# erase
systemctl --no-reload disable --now otelcol-modelplane.service
systemctl --system daemon-reload
# enablement gone
`, got)
}

// Bad input names the flag or the binary.
func TestBuildRefuses(t *testing.T) {
	_, err := build([]string{"main.go"}, "0.1.0", t.TempDir(), defaultMaintainer, time.Unix(0, 0), repoSources, nfpm{bin: "nfpm", config: "nfpm.yaml"})
	assert.ErrorContains(t, err, "main.go: ")
	_, err = build(nil, "v0.1.0", t.TempDir(), defaultMaintainer, time.Unix(0, 0), repoSources, nfpm{bin: "nfpm", config: "nfpm.yaml"})
	assert.ErrorContains(t, err, `-version "v0.1.0": want a version that starts with a digit`)
	_, err = build(nil, "", t.TempDir(), defaultMaintainer, time.Unix(0, 0), repoSources, nfpm{bin: "nfpm", config: "nfpm.yaml"})
	assert.ErrorContains(t, err, `-version ""`)
	if bin := os.Getenv("OTELCOL_MODELPLANE_BIN"); bin != "" {
		_, err = build([]string{bin, bin}, "0.1.0", t.TempDir(), defaultMaintainer, time.Unix(0, 0), repoSources, nfpm{bin: "nfpm", config: "nfpm.yaml"})
		assert.ErrorContains(t, err, "are both amd64: one binary per architecture")
	}
}
