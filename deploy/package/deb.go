// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"crypto/md5"
	"fmt"
	"strings"
	"time"
)

// control is what the Debian package's control file says.
type control struct {
	version, arch, glibc, maintainer string
}

const (
	unitPath    = "usr/lib/systemd/system/otelcol-modelplane.service"
	configPath  = "etc/otelcol-modelplane/config.yaml"
	examplePath = "etc/otelcol-modelplane/mappings/example.yaml"
)

// The maintainer scripts, as debhelper's: only on a host that runs systemd and not into
// another root (DPKG_ROOT); the first install enables and starts the unit, an upgrade
// restarts it if enabled, removal stops it, purge drops its enablement.
const (
	postinst = `#!/bin/sh
set -e
if [ "$1" = configure ] && [ -z "${DPKG_ROOT:-}" ] && [ -d /run/systemd/system ]; then
	systemctl --system daemon-reload >/dev/null || true
	if [ -z "$2" ]; then
		systemctl enable otelcol-modelplane.service >/dev/null 2>&1 || true
	fi
	if systemctl --quiet is-enabled otelcol-modelplane.service 2>/dev/null; then
		if [ -n "$2" ]; then
			systemctl restart otelcol-modelplane.service || true
		else
			systemctl start otelcol-modelplane.service || true
		fi
	fi
fi
exit 0
`
	prerm = `#!/bin/sh
set -e
if [ "$1" = remove ] && [ -z "${DPKG_ROOT:-}" ] && [ -d /run/systemd/system ]; then
	systemctl stop otelcol-modelplane.service || true
fi
exit 0
`
	postrm = `#!/bin/sh
set -e
if [ -z "${DPKG_ROOT:-}" ] && [ -d /run/systemd/system ]; then
	if [ "$1" = purge ]; then
		# The unit file is gone by now, so systemctl disable cannot read its [Install].
		rm -f /etc/systemd/system/multi-user.target.wants/otelcol-modelplane.service
	fi
	if [ "$1" = remove ] || [ "$1" = purge ]; then
		systemctl --system daemon-reload >/dev/null || true
	fi
fi
exit 0
`
)

const copyright = `Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: otelcol-modelplane
Source: https://github.com/modelplaneai/otelcol-modelplane

Files: *
Copyright: The otelcol-modelplane authors; The OpenTelemetry Authors; The Prometheus Authors
License: Apache-2.0
 On Debian systems the full text of the Apache License 2.0 is in
 /usr/share/common-licenses/Apache-2.0.
`

// packageFile is a file the Debian and RPM packages install.
type packageFile struct {
	entry
	conffile bool
}

// packageFiles are what both packages install: what `make install` does, at a package's
// paths. Each adds its own license file where its distributions look for one.
func packageFiles(exe []byte, p packaged) []packageFile {
	// The package's unit runs the binary where the package puts it.
	unit := bytes.ReplaceAll(p.unit, []byte("/usr/local/bin/otelcol-modelplane"), []byte("/usr/bin/otelcol-modelplane"))
	return []packageFile{
		{entry{configPath, 0o644, p.config}, true},
		{entry{examplePath, 0o644, p.example}, true},
		{entry{"usr/bin/otelcol-modelplane", 0o755, exe}, false},
		{entry{unitPath, 0o644, unit}, false},
	}
}

// debPackage is the Debian binary package (format 2.0: an ar archive of debian-binary,
// control.tar.gz and data.tar.gz).
func debPackage(exe []byte, p packaged, c control, mtime time.Time) ([]byte, error) {
	var files []entry
	var conffiles, md5sums strings.Builder
	size := int64(0)
	copyrightFile := packageFile{entry{"usr/share/doc/otelcol-modelplane/copyright", 0o644, []byte(copyright)}, false}
	for _, f := range append(packageFiles(exe, p), copyrightFile) {
		files = append(files, f.entry)
		size += (int64(len(f.data)) + 1023) / 1024
		if f.conffile {
			fmt.Fprintf(&conffiles, "/%s\n", f.name)
		} else {
			fmt.Fprintf(&md5sums, "%x  %s\n", md5.Sum(f.data), f.name)
		}
	}
	data, err := writeTar("./", files, mtime)
	if err != nil {
		return nil, err
	}
	ctl, err := writeTar("./", []entry{
		{"control", 0o644, []byte(c.file(size))},
		{"conffiles", 0o644, []byte(conffiles.String())},
		{"md5sums", 0o644, []byte(md5sums.String())},
		{"postinst", 0o755, []byte(postinst)},
		{"prerm", 0o755, []byte(prerm)},
		{"postrm", 0o755, []byte(postrm)},
	}, mtime)
	if err != nil {
		return nil, err
	}
	var ar bytes.Buffer
	ar.WriteString("!<arch>\n")
	for _, m := range []struct {
		name string
		data []byte
	}{{"debian-binary", []byte("2.0\n")}, {"control.tar.gz", ctl}, {"data.tar.gz", data}} {
		fmt.Fprintf(&ar, "%-16s%-12d%-6d%-6d%-8s%-10d`\n", m.name, mtime.Unix(), 0, 0, "100644", len(m.data))
		ar.Write(m.data)
		if len(m.data)%2 == 1 {
			ar.WriteByte('\n')
		}
	}
	return ar.Bytes(), nil
}

// file is the control file; installedKiB is the size of the installed files.
func (c control) file(installedKiB int64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Package: otelcol-modelplane\nVersion: %s\nArchitecture: %s\nMaintainer: %s\nInstalled-Size: %d\n", c.version, c.arch, c.maintainer, installedKiB)
	if c.glibc != "" {
		fmt.Fprintf(&b, "Depends: libc6 (>= %s)\n", c.glibc)
	}
	fmt.Fprintf(&b, "Section: admin\nPriority: optional\nHomepage: %s\nDescription: OpenTelemetry Collector for GPU inference fleets\n", homepage)
	for _, line := range strings.Split(strings.TrimSuffix(description, "\n"), "\n") {
		if line == "" {
			line = "."
		}
		fmt.Fprintf(&b, " %s\n", line)
	}
	return b.String()
}

const homepage = "https://github.com/modelplaneai/otelcol-modelplane"

// description is the packages' long description.
const description = `otelcol-modelplane scrapes vLLM, SGLang, the Envoy AI gateway, the endpoint
picker and dcgm-exporter, reads the host's NVIDIA GPUs through NVML, translates
their metrics into Modelplane's modelplane_* vocabulary in base units, and sends
them on through Prometheus remote write or OTLP.

The package runs it as the systemd service otelcol-modelplane with
/etc/otelcol-modelplane/config.yaml; MetricMapping files in
/etc/otelcol-modelplane/mappings/ are reloaded when they change.
`
