// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"fmt"
	"time"

	"github.com/google/rpmpack"
)

// rpmArch is RPM's name for each Go architecture the distribution ships.
var rpmArch = map[string]string{"amd64": "x86_64", "arm64": "aarch64"}

// The scriptlets, as Fedora's %systemd_post, %systemd_preun and %systemd_postun_with_restart,
// but the first install enables and starts the unit (a RHEL preset would leave it off). RPM
// passes the installed copies after the operation: 1 install, 2 upgrade, 0 erase.
const (
	rpmPostin = `if [ -d /run/systemd/system ]; then
	systemctl --system daemon-reload >/dev/null 2>&1 || :
	if [ "$1" -eq 1 ]; then
		systemctl enable --now otelcol-modelplane.service >/dev/null 2>&1 || :
	fi
fi
`
	rpmPreun = `if [ "$1" -eq 0 ] && [ -d /run/systemd/system ]; then
	systemctl --no-reload disable --now otelcol-modelplane.service >/dev/null 2>&1 || :
fi
`
	rpmPostun = `if [ -d /run/systemd/system ]; then
	systemctl --system daemon-reload >/dev/null 2>&1 || :
	if [ "$1" -ge 1 ]; then
		systemctl try-restart otelcol-modelplane.service >/dev/null 2>&1 || :
	fi
fi
`
)

// rpmPackage is the RPM package for RHEL, Rocky and Fedora GPU hosts, with the files of the
// Debian package; config.yaml and the example mapping are %config(noreplace), so an upgrade
// keeps the host's edits (and leaves the release's version beside them as .rpmnew).
func rpmPackage(exe []byte, p packaged, c control, mtime time.Time) ([]byte, error) {
	arch, ok := rpmArch[c.arch]
	if !ok {
		return nil, fmt.Errorf("no RPM architecture for %s", c.arch)
	}
	meta := rpmpack.RPMMetaData{
		Name:        "otelcol-modelplane",
		Summary:     "OpenTelemetry Collector for GPU inference fleets",
		Description: description,
		Version:     c.version,
		Release:     "1",
		Arch:        arch,
		URL:         homepage,
		Packager:    c.maintainer,
		Group:       "System Environment/Daemons",
		Licence:     "Apache-2.0",
		BuildTime:   mtime,
		Compressor:  "gzip:6",
	}
	if c.glibc != "" {
		if err := meta.Requires.Set(fmt.Sprintf("libc.so.6(GLIBC_%s)(64bit)", c.glibc)); err != nil {
			return nil, err
		}
	}
	r, err := rpmpack.NewRPM(meta)
	if err != nil {
		return nil, err
	}
	at := uint32(mtime.Unix())
	add := func(name string, mode uint, body []byte, typ rpmpack.FileType) {
		r.AddFile(rpmpack.RPMFile{Name: "/" + name, Body: body, Mode: mode, Owner: "root", Group: "root", MTime: at, Type: typ})
	}
	// The folders only this package uses are its own, so erasing it removes them.
	add("etc/otelcol-modelplane", 0o40755, nil, rpmpack.GenericFile)
	add("etc/otelcol-modelplane/mappings", 0o40755, nil, rpmpack.GenericFile)
	add("usr/share/licenses/otelcol-modelplane", 0o40755, nil, rpmpack.GenericFile)
	add("usr/share/licenses/otelcol-modelplane/LICENSE", 0o644, p.license, rpmpack.LicenceFile)
	for _, f := range packageFiles(exe, p) {
		typ := rpmpack.GenericFile
		if f.conffile {
			typ = rpmpack.ConfigFile | rpmpack.NoReplaceFile
		}
		add(f.name, uint(f.mode), f.data, typ)
	}
	r.AddPostin(rpmPostin)
	r.AddPreun(rpmPreun)
	r.AddPostun(rpmPostun)
	var buf bytes.Buffer
	if err := r.Write(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
