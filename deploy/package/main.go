// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Command package writes the release packages of otelcol-modelplane for GPU hosts that have no
// Go toolchain: per collector binary a Debian package (`apt install ./FILE.deb` on Ubuntu, DGX
// OS and Debian), an RPM (`dnf install ./FILE.rpm` on RHEL, Rocky and Fedora) and a tar.gz,
// and a SHA256SUMS file over everything it wrote.
//
//	go run ./deploy/package -version 0.1.0 -binary bin/otelcol-modelplane -binary bin/linux-arm64/otelcol-modelplane -out dist
//
// Each binary's architecture comes from its ELF header, and the packages' glibc dependency
// from the newest glibc symbol it imports. Both packages install what `make install` does, at
// the paths a package uses: /usr/bin/otelcol-modelplane, the systemd unit in
// /usr/lib/systemd/system, and /etc/otelcol-modelplane/{config.yaml,mappings/example.yaml} as
// configuration files, so an upgrade keeps a host's edits. Their scripts enable and start the
// unit on the first install and restart it on an upgrade, as debhelper's and Fedora's
// systemd macros do. nfpm writes the .deb and .rpm from nfpm.yaml, this command the .tar.gz:
// every entry owned by root, every time -mtime, so the same inputs give the same bytes.
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/modelplaneai/otelcol-modelplane/deploy/internal/elfarch"
)

func main() {
	var bins []string
	flag.Func("binary", "a collector binary (default bin/otelcol-modelplane); repeat it with one binary per architecture", func(b string) error {
		bins = append(bins, b)
		return nil
	})
	version := flag.String("version", "", "the package version, such as 0.1.0 (required; `make package` takes it from builder-config.yaml)")
	out := flag.String("out", "dist", "the folder to write the packages and SHA256SUMS to")
	standalone := flag.String("standalone", "deploy/standalone", "the folder with the systemd unit, config.yaml and mappings/example.yaml")
	license := flag.String("license", "LICENSE", "the license file")
	maintainer := flag.String("maintainer", defaultMaintainer, "the Debian package's Maintainer field and the RPM's Packager")
	mtime := flag.Int64("mtime", sourceDateEpoch(), "the time of every entry, in Unix seconds (default $SOURCE_DATE_EPOCH, else 0)")
	var n nfpm
	flag.StringVar(&n.bin, "nfpm", "nfpm", "the nfpm executable (`make package` builds it from tools/go.mod)")
	flag.StringVar(&n.config, "nfpm-config", "deploy/package/nfpm.yaml", "nfpm's configuration of the packages")
	flag.Parse()
	if len(bins) == 0 {
		bins = []string{"bin/otelcol-modelplane"}
	}
	src := sources{unit: filepath.Join(*standalone, "otelcol-modelplane.service"), config: filepath.Join(*standalone, "config.yaml"),
		example: filepath.Join(*standalone, "mappings", "example.yaml"), license: *license}
	written, err := build(bins, *version, *out, *maintainer, time.Unix(*mtime, 0).UTC(), src, n)
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range written {
		fmt.Println(f)
	}
}

const defaultMaintainer = "otelcol-modelplane maintainers <otelcol-modelplane@modelplane.ai>"

func sourceDateEpoch() int64 {
	n, _ := strconv.ParseInt(os.Getenv("SOURCE_DATE_EPOCH"), 10, 64)
	return n
}

// sources are the files of the repository a package holds beside the binary.
type sources struct{ unit, config, example, license string }

// debianVersion is what dpkg accepts as an upstream version without a revision.
var debianVersion = regexp.MustCompile(`^[0-9][A-Za-z0-9.+~]*$`)

// rpmArch is RPM's name for each Go architecture the distribution ships.
var rpmArch = map[string]string{"amd64": "x86_64", "arm64": "aarch64"}

// nfpm is the nfpm executable and its configuration of the packages.
type nfpm struct{ bin, config string }

// build writes a .deb, an .rpm and a .tar.gz per binary and SHA256SUMS over them, and
// returns the paths it wrote.
func build(bins []string, version, out, maintainer string, mtime time.Time, src sources, n nfpm) ([]string, error) {
	if !debianVersion.MatchString(version) {
		return nil, fmt.Errorf("-version %q: want a version that starts with a digit, such as 0.1.0", version)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	files, err := readSources(src)
	if err != nil {
		return nil, err
	}
	// Every binary's architecture first, so that a second one of an architecture fails before
	// anything is written.
	archs := make([]string, len(bins))
	for i, bin := range bins {
		arch, err := elfarch.Arch(bin)
		if err != nil {
			return nil, err
		}
		if j := slices.Index(archs[:i], arch); j >= 0 {
			return nil, fmt.Errorf("-binary %s and %s are both %s: one binary per architecture", bins[j], bin, arch)
		}
		archs[i] = arch
	}
	// The package's unit runs the binary where the package puts it.
	tmp, err := os.MkdirTemp("", "otelcol-modelplane-package-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	unit := filepath.Join(tmp, "otelcol-modelplane.service")
	if err := os.WriteFile(unit, bytes.ReplaceAll(files.unit, []byte("/usr/local/bin/"), []byte("/usr/bin/")), 0o644); err != nil {
		return nil, err
	}
	var written []string
	for i, bin := range bins {
		arch := archs[i]
		glibc, err := elfarch.GLIBC(bin)
		if err != nil {
			return nil, err
		}
		env := map[string]string{"VERSION": version, "ARCH": arch, "MAINTAINER": maintainer, "BINARY": bin, "UNIT": unit,
			"CONFIG": src.config, "EXAMPLE": src.example, "LICENSE": src.license, "SOURCE_DATE_EPOCH": strconv.FormatInt(mtime.Unix(), 10)}
		if glibc != "" {
			env["DEB_LIBC"] = "libc6 (>= " + glibc + ")"
			env["RPM_LIBC"] = "libc.so.6(GLIBC_" + glibc + ")(64bit)"
		}
		for packager, name := range map[string]string{
			"deb": fmt.Sprintf("otelcol-modelplane_%s_%s.deb", version, arch),
			"rpm": fmt.Sprintf("otelcol-modelplane-%s-1.%s.rpm", version, rpmArch[arch]),
		} {
			if err := n.pkg(packager, filepath.Join(out, name), env); err != nil {
				return nil, fmt.Errorf("%s: %w", bin, err)
			}
			written = append(written, filepath.Join(out, name))
		}
		exe, err := os.ReadFile(bin)
		if err != nil {
			return nil, err
		}
		tgz, err := tarball(exe, files, fmt.Sprintf("otelcol-modelplane_%s_linux_%s", version, arch), mtime)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", bin, err)
		}
		name := filepath.Join(out, fmt.Sprintf("otelcol-modelplane_%s_linux_%s.tar.gz", version, arch))
		if err := os.WriteFile(name, tgz, 0o644); err != nil {
			return nil, err
		}
		written = append(written, name)
	}
	sort.Strings(written)
	var sums bytes.Buffer
	for _, p := range written {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&sums, "%x  %s\n", sha256.Sum256(data), filepath.Base(p))
	}
	sumsPath := filepath.Join(out, "SHA256SUMS")
	if err := os.WriteFile(sumsPath, sums.Bytes(), 0o644); err != nil {
		return nil, err
	}
	return append(written, sumsPath), nil
}

// pkg has nfpm write one package to target. nfpm runs in its configuration's folder, which
// holds the scripts and the copyright file; every other path is made absolute for it.
func (n nfpm) pkg(packager, target string, env map[string]string) error {
	target, err := filepath.Abs(target)
	if err != nil {
		return err
	}
	cmd := exec.Command(n.bin, "package", "--config", filepath.Base(n.config), "--packager", packager, "--target", target)
	cmd.Dir = filepath.Dir(n.config)
	cmd.Env = os.Environ()
	for k, v := range env {
		if k == "BINARY" || k == "UNIT" || k == "CONFIG" || k == "EXAMPLE" || k == "LICENSE" {
			if v, err = filepath.Abs(v); err != nil {
				return err
			}
		}
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("nfpm package --packager %s: %w\n%s", packager, err, out)
	}
	return nil
}

// packaged are the repository's files a package holds, read once.
type packaged struct{ unit, config, example, license []byte }

func readSources(src sources) (packaged, error) {
	var p packaged
	for _, f := range []struct {
		path string
		into *[]byte
	}{{src.unit, &p.unit}, {src.config, &p.config}, {src.example, &p.example}, {src.license, &p.license}} {
		data, err := os.ReadFile(f.path)
		if err != nil {
			return p, err
		}
		*f.into = data
	}
	return p, nil
}

// entry is one file of an archive.
type entry struct {
	name string
	mode int64
	data []byte
}

// writeTar writes a gzipped tar of the entries, their parent folders first, all owned by root.
// prefix ("./" for dpkg, the release folder for a tarball) is prepended to every name.
func writeTar(prefix string, entries []entry, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	gz, err := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
	if err != nil {
		return nil, err
	}
	gz.ModTime = mtime
	tw := tar.NewWriter(gz)
	hdr := func(name string, typ byte, mode, size int64) *tar.Header {
		return &tar.Header{Typeflag: typ, Name: name, Mode: mode, Size: size, ModTime: mtime, Uname: "root", Gname: "root", Format: tar.FormatGNU}
	}
	dirs := map[string]bool{}
	if err := tw.WriteHeader(hdr(prefix, tar.TypeDir, 0o755, 0)); err != nil {
		return nil, err
	}
	for _, e := range entries {
		var parents []string
		for d := filepath.Dir(e.name); d != "." && !dirs[d]; d = filepath.Dir(d) {
			dirs[d] = true
			parents = append([]string{d}, parents...)
		}
		for _, d := range parents {
			if err := tw.WriteHeader(hdr(prefix+d+"/", tar.TypeDir, 0o755, 0)); err != nil {
				return nil, err
			}
		}
		if err := tw.WriteHeader(hdr(prefix+e.name, tar.TypeReg, e.mode, int64(len(e.data)))); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// tarball is the release archive: one folder with the binary and what `make install` puts
// beside it, for hosts without dpkg (the binary embeds the default and its remote write
// overrides, for a binary run as it is).
func tarball(exe []byte, p packaged, folder string, mtime time.Time) ([]byte, error) {
	return writeTar(folder+"/", []entry{
		{"otelcol-modelplane", 0o755, exe},
		{"otelcol-modelplane.service", 0o644, p.unit},
		{"config.yaml", 0o644, p.config},
		{"mappings/example.yaml", 0o644, p.example},
		{"LICENSE", 0o644, p.license},
	}, mtime)
}
